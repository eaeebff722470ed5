"""A lease lock service with fencing tokens, and the storage it protects.

Idiom: leases are plain dicts {"name", "client_id", "token", "granted_at", "expires_at"}.
renew returns None to refuse, release raises RuntimeError, write returns False to refuse and
nothing when it succeeds.
"""


class LockService:
    def __init__(self, clock, lease_seconds=10.0, first_token=1):
        self.clock = clock
        self.lease_seconds = lease_seconds
        self.next_token = first_token
        self.held = {}  # name -> lease dict, removed on release

    def _current(self, name):
        lease = self.held.get(name)
        if lease is None:
            return None
        if self.clock.now() >= lease["expires_at"]:
            return None
        return lease

    def acquire(self, name, client_id):
        if self._current(name):
            return None
        now = self.clock.now()
        lease = {
            "name": name,
            "client_id": client_id,
            "token": self.next_token,
            "granted_at": now,
            "expires_at": now + self.lease_seconds,
        }
        self.next_token += 1
        self.held[name] = lease
        return dict(lease)

    def renew(self, name, client_id, token):
        lease = self._current(name)
        if lease is None or lease["client_id"] != client_id or lease["token"] != token:
            return None
        lease["expires_at"] = self.clock.now() + self.lease_seconds
        return dict(lease)

    def release(self, name, client_id, token):
        lease = self._current(name)
        if lease is None:
            raise RuntimeError(f"no live lease on {name}")
        if lease["client_id"] != client_id:
            raise RuntimeError(f"{name} is held by {lease['client_id']}")
        if lease["token"] != token:
            raise RuntimeError(f"token {token} is not the current token {lease['token']}")
        del self.held[name]

    def holder(self, name):
        lease = self._current(name)
        return lease["client_id"] if lease else None


class FencedStorage:
    def __init__(self):
        self.entries = {}

    def write(self, key, value, token):
        highest = self.highest_token(key)
        if highest is not None and token < highest:
            return False
        self.entries[key] = {"value": value, "token": token}

    def read(self, key):
        return self.entries[key]["value"] if key in self.entries else None

    def highest_token(self, key):
        return self.entries[key]["token"] if key in self.entries else None
