"""A lease lock service with fencing tokens, and the storage it protects.

Idiom: a lease is live while the time since it was granted (or last renewed) is under the lease
length, `now - since < lease_seconds`, rather than `now < expires_at`. With times that are not
exact in binary the two can disagree in the last bit at the very end of a lease; the checker must
judge both alike. Otherwise as python-raise-none.
"""

from dataclasses import dataclass


class LockError(Exception):
    """A renew or release the service refuses."""


class StaleTokenError(Exception):
    """A write whose token is older than the highest its key has accepted."""


@dataclass
class Lease:
    name: str
    client_id: str
    token: int
    granted_at: float
    expires_at: float
    since: float = 0.0  # when it was granted or last renewed
    length: float = 0.0  # the lease length it was granted with

    def is_live(self, now):
        return now - self.since < self.length


class LockService:
    def __init__(self, clock, lease_seconds=10.0, first_token=1):
        self.clock = clock
        self.lease_seconds = lease_seconds
        self.next_token = first_token
        self.leases = {}  # name -> the lock's current Lease, deleted on release

    def _live(self, name, now):
        lease = self.leases.get(name)
        if lease is not None and lease.is_live(now):
            return lease
        return None

    def acquire(self, name, client_id):
        now = self.clock.now()
        if self._live(name, now) is not None:
            return None
        token = self.next_token
        self.next_token += 1
        lease = Lease(name, client_id, token, now, now + self.lease_seconds, now, self.lease_seconds)
        self.leases[name] = lease
        return lease

    def renew(self, name, client_id, token):
        now = self.clock.now()
        lease = self._live(name, now)
        if lease is None:
            raise LockError(f"{client_id} has no live lease on {name!r}")
        if lease.client_id != client_id:
            raise LockError(f"{name!r} is held by {lease.client_id}, not by {client_id}")
        if lease.token != token:
            raise LockError(f"token {token} is not the lease's token {lease.token}")
        lease.since = now
        lease.expires_at = now + self.lease_seconds
        return lease

    def release(self, name, client_id, token):
        now = self.clock.now()
        lease = self._live(name, now)
        if lease is None:
            raise LockError(f"{client_id} cannot release {name!r}: it has no live lease")
        if lease.client_id != client_id or lease.token != token:
            raise LockError(f"{client_id} with token {token} does not hold {name!r}")
        del self.leases[name]

    def holder(self, name):
        lease = self._live(name, self.clock.now())
        return lease.client_id if lease is not None else None


class FencedStorage:
    def __init__(self):
        self.data = {}  # key -> (value, highest token)

    def write(self, key, value, token):
        if key in self.data:
            highest = self.data[key][1]
            if token < highest:
                raise StaleTokenError(f"token {token} is older than {highest} for {key!r}")
        self.data[key] = (value, token)

    def read(self, key):
        entry = self.data.get(key)
        return entry[0] if entry is not None else None

    def highest_token(self, key):
        entry = self.data.get(key)
        return entry[1] if entry is not None else None
