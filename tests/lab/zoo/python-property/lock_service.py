"""A lease lock service with fencing tokens, and the storage it protects.

Idiom: a lease keeps when it was (re)newed and how long it lasts, and expires_at is a
@property; tokens come from itertools.count; storage entries are small __slots__ objects.
"""

import itertools


class LeaseRefused(Exception):
    pass


class Lease:
    def __init__(self, name, client_id, token, granted_at, lease_seconds):
        self.name = name
        self.client_id = client_id
        self.token = token
        self.granted_at = granted_at
        self.renewed_at = granted_at
        self.lease_seconds = lease_seconds
        self.released = False

    @property
    def expires_at(self):
        return self.renewed_at + self.lease_seconds

    def live_at(self, now):
        return not self.released and now < self.expires_at

    def __repr__(self):
        return f"Lease({self.name!r}, {self.client_id!r}, token={self.token}, expires_at={self.expires_at})"


class LockService:
    def __init__(self, clock, lease_seconds=10.0, first_token=1):
        self.clock = clock
        self.lease_seconds = lease_seconds
        self._tokens = itertools.count(first_token)
        self._leases = {}

    def _lease(self, name):
        lease = self._leases.get(name)
        if lease is not None and lease.live_at(self.clock.now()):
            return lease
        return None

    def acquire(self, name, client_id):
        if self._lease(name) is not None:
            return None
        lease = Lease(name, client_id, next(self._tokens), self.clock.now(), self.lease_seconds)
        self._leases[name] = lease
        return lease

    def renew(self, name, client_id, token):
        lease = self._lease(name)
        if lease is None or lease.client_id != client_id or lease.token != token:
            raise LeaseRefused(f"{client_id} holds no live lease on {name} with token {token}")
        lease.renewed_at = self.clock.now()
        return lease

    def release(self, name, client_id, token):
        lease = self._lease(name)
        if lease is None:
            raise LeaseRefused(f"{name} has no live lease")
        if (lease.client_id, lease.token) != (client_id, token):
            raise LeaseRefused(f"{name} is not held by {client_id} with token {token}")
        lease.released = True

    def holder(self, name):
        lease = self._lease(name)
        return None if lease is None else lease.client_id


class _Entry:
    __slots__ = ("value", "token")

    def __init__(self, value, token):
        self.value = value
        self.token = token


class FencedStorage:
    def __init__(self):
        self._entries = {}

    def write(self, key, value, token):
        entry = self._entries.get(key)
        if entry is not None and token < entry.token:
            raise LeaseRefused(f"token {token} < {entry.token}: stale write to {key}")
        self._entries[key] = _Entry(value, token)
        return True

    def read(self, key):
        entry = self._entries.get(key)
        return entry.value if entry else None

    def highest_token(self, key):
        entry = self._entries.get(key)
        return entry.token if entry else None
