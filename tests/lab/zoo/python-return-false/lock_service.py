"""A lease lock service with fencing tokens, and the storage it protects.

Idiom: no exceptions. renew, release and write return False to refuse; release and write return
True when they succeed, renew the lease. A released lease stays in the dict, marked released.
"""

from not_implemented import NotImplementedYet  # noqa: F401  (left from the starter)


class Lease:
    def __init__(self, name, client_id, token, granted_at, expires_at):
        self.name = name
        self.client_id = client_id
        self.token = token
        self.granted_at = granted_at
        self.expires_at = expires_at
        self.released = False

    def __repr__(self):
        return "Lease(%r, %r, token=%d, expires_at=%s)" % (
            self.name, self.client_id, self.token, self.expires_at)


class LockService:
    def __init__(self, clock, lease_seconds=10.0, first_token=1):
        self.clock = clock
        self.lease_seconds = lease_seconds
        self.counter = first_token
        self.locks = {}

    def _alive(self, lease):
        return lease is not None and not lease.released and self.clock.now() < lease.expires_at

    def acquire(self, name, client_id):
        if self._alive(self.locks.get(name)):
            return None
        token = self.counter
        self.counter += 1
        now = self.clock.now()
        lease = Lease(name, client_id, token, now, now + self.lease_seconds)
        self.locks[name] = lease
        return lease

    def renew(self, name, client_id, token):
        lease = self.locks.get(name)
        if not self._alive(lease):
            return False
        if lease.client_id != client_id:
            return False
        if lease.token != token:
            return False
        lease.expires_at = self.clock.now() + self.lease_seconds
        return lease

    def release(self, name, client_id, token):
        lease = self.locks.get(name)
        if self._alive(lease) and lease.client_id == client_id and lease.token == token:
            lease.released = True
            return True
        return False

    def holder(self, name):
        lease = self.locks.get(name)
        if self._alive(lease):
            return lease.client_id
        return None


class FencedStorage:
    def __init__(self):
        self.values = {}
        self.tokens = {}

    def write(self, key, value, token):
        if key in self.tokens and token < self.tokens[key]:
            return False
        self.values[key] = value
        self.tokens[key] = token
        return True

    def read(self, key):
        return self.values.get(key)

    def highest_token(self, key):
        return self.tokens.get(key)
