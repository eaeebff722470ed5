"""A WRONG solution of the fencing-lab lab, on purpose (tests/lab/wrong/python-default-lease-30): the correct one
(tests/lab/correct/python) with one bug. It breaks `defaults`: the default lease is 30 seconds instead of 10."""

from dataclasses import dataclass


@dataclass
class Lease:
    """One grant of a lock. The adapter reads `token` and `expires_at`."""

    name: str
    client_id: str
    token: int
    granted_at: float
    expires_at: float


@dataclass
class _Grant:
    client_id: str
    token: int
    granted_at: float
    expires_at: float
    released: bool = False

    def is_live_at(self, now):
        return not self.released and now < self.expires_at


class LeaseError(Exception):
    """Why a renew or release was refused."""


class StaleToken(Exception):
    """A write whose token is older than one the key already accepted."""


class LockService:
    """A lease lock service with one fencing token counter for all its locks."""

    def __init__(self, clock, lease_seconds=30.0, first_token=1):  # BUG: 30, not 10
        self.clock = clock
        self.lease_seconds = lease_seconds
        self.next_token = first_token
        self.grants = {}  # the latest grant of each lock name

    def acquire(self, name, client_id):
        now = self.clock.now()
        grant = self.grants.get(name)
        if grant is not None and grant.is_live_at(now):
            return None
        token = self.next_token
        self.next_token += 1
        grant = _Grant(client_id, token, now, now + self.lease_seconds)
        self.grants[name] = grant
        return Lease(name, client_id, token, grant.granted_at, grant.expires_at)

    def _held(self, name, client_id, token, now):
        """The caller's live grant on `name` with `token`; raises LeaseError saying why not."""
        grant = self.grants.get(name)
        if grant is None or grant.released:
            raise LeaseError("%s does not hold lock '%s'" % (client_id, name))
        if grant.client_id != client_id:
            if grant.is_live_at(now):
                raise LeaseError("lock '%s' is held by %s, not by %s"
                                 % (name, grant.client_id, client_id))
            raise LeaseError("%s does not hold lock '%s'" % (client_id, name))
        if grant.token != token:
            raise LeaseError("token %s is not %s's current lease on '%s' (%s)"
                             % (token, client_id, name, grant.token))
        if not grant.is_live_at(now):
            raise LeaseError("%s's lease on '%s' expired at %s s"
                             % (client_id, name, grant.expires_at))
        return grant

    def renew(self, name, client_id, token):
        now = self.clock.now()
        grant = self._held(name, client_id, token, now)
        grant.expires_at = now + self.lease_seconds
        return Lease(name, client_id, token, grant.granted_at, grant.expires_at)

    def release(self, name, client_id, token):
        now = self.clock.now()
        self._held(name, client_id, token, now).released = True
        return True

    def holder(self, name):
        grant = self.grants.get(name)
        if grant is not None and grant.is_live_at(self.clock.now()):
            return grant.client_id
        return None


class FencedStorage:
    """The resource the lock protects. It knows nothing about the lock service."""

    def __init__(self):
        self.entries = {}  # key -> (value, highest token)

    def write(self, key, value, token):
        entry = self.entries.get(key)
        if entry is not None and token < entry[1]:
            raise StaleToken("token %s is older than token %s, the highest key '%s' has accepted"
                             % (token, entry[1], key))
        self.entries[key] = (value, token)
        return True

    def read(self, key):
        entry = self.entries.get(key)
        return None if entry is None else entry[0]

    def highest_token(self, key):
        entry = self.entries.get(key)
        return None if entry is None else entry[1]
