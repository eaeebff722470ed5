"""A lease lock service with fencing tokens, and the storage it protects.

Idiom: compact and functional. Leases are namedtuples replaced on renew, one helper answers
"is this caller's lease live with this token", time comes from one _now() helper, and the
storage is a dict of (value, token) tuples.
"""

import collections

Lease = collections.namedtuple("Lease", "name client_id token granted_at expires_at")


class LockService:
    def __init__(self, clock, lease_seconds=10.0, first_token=1):
        self.clock, self.lease_seconds, self.next_token = clock, lease_seconds, first_token
        self.leases = {}

    def _now(self):
        return self.clock.now()

    def _live(self, name):
        lease = self.leases.get(name)
        return lease if lease and self._now() < lease.expires_at else None

    def _owned(self, name, client_id, token):
        lease = self._live(name)
        return lease is not None and (lease.client_id, lease.token) == (client_id, token)

    def acquire(self, name, client_id):
        if self._live(name):
            return None
        now, token = self._now(), self.next_token
        self.next_token += 1
        self.leases[name] = Lease(name, client_id, token, now, now + self.lease_seconds)
        return self.leases[name]

    def renew(self, name, client_id, token):
        if not self._owned(name, client_id, token):
            raise PermissionError(f"{client_id} does not hold {name} with token {token}")
        self.leases[name] = self.leases[name]._replace(expires_at=self._now() + self.lease_seconds)
        return self.leases[name]

    def release(self, name, client_id, token):
        if not self._owned(name, client_id, token):
            raise PermissionError(f"{client_id} cannot release {name} with token {token}")
        del self.leases[name]

    def holder(self, name):
        lease = self._live(name)
        return lease and lease.client_id


class FencedStorage:
    def __init__(self):
        self.rows = {}  # key -> (value, token)

    def write(self, key, value, token):
        if token < self.rows.get(key, (None, token))[1]:
            raise ValueError(f"stale token {token} for {key}")
        self.rows[key] = (value, token)

    def read(self, key):
        return self.rows.get(key, (None, None))[0]

    def highest_token(self, key):
        return self.rows.get(key, (None, None))[1]
