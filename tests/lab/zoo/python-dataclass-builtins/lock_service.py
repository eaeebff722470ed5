"""A lease lock service with fencing tokens, and the storage it protects.

Idiom: a frozen dataclass Lease, replaced (dataclasses.replace) on renew; refusals raise the
builtins KeyError, ValueError and PermissionError; state in nested dicts keyed by lock name and
by key.
"""

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Lease:
    name: str
    client_id: str
    token: int
    granted_at: float
    expires_at: float


class LockService:
    def __init__(self, clock, lease_seconds=10.0, first_token=1):
        self.clock = clock
        self.lease_seconds = lease_seconds
        self.next_token = first_token
        self.locks = {}  # name -> {"lease": Lease, "released": bool}

    def _is_live(self, name):
        entry = self.locks.get(name)
        return (entry is not None and not entry["released"]
                and self.clock.now() < entry["lease"].expires_at)

    def acquire(self, name, client_id):
        if self._is_live(name):
            return None
        now = self.clock.now()
        lease = Lease(name, client_id, self.next_token, now, now + self.lease_seconds)
        self.next_token += 1
        self.locks[name] = {"lease": lease, "released": False}
        return lease

    def renew(self, name, client_id, token):
        if name not in self.locks:
            raise KeyError(f"cannot renew {name!r}: it was never granted")
        lease = self.locks[name]["lease"]
        if not self._is_live(name):
            raise ValueError(f"cannot renew {name!r}: its lease has ended")
        if lease.client_id != client_id:
            raise PermissionError(f"cannot renew {name!r}: it is held by {lease.client_id}")
        if lease.token != token:
            raise ValueError(f"cannot renew {name!r}: token {token} is not {lease.token}")
        renewed = replace(lease, expires_at=self.clock.now() + self.lease_seconds)
        self.locks[name]["lease"] = renewed
        return renewed

    def release(self, name, client_id, token):
        if name not in self.locks:
            raise KeyError(f"cannot release {name!r}: it was never granted")
        lease = self.locks[name]["lease"]
        if not self._is_live(name):
            raise ValueError(f"cannot release {name!r}: its lease has ended")
        if lease.client_id != client_id:
            raise PermissionError(f"cannot release {name!r}: it is held by {lease.client_id}")
        if lease.token != token:
            raise ValueError(f"cannot release {name!r}: token {token} is not {lease.token}")
        self.locks[name]["released"] = True

    def holder(self, name):
        return self.locks[name]["lease"].client_id if self._is_live(name) else None


class FencedStorage:
    def __init__(self):
        self.keys = {}  # key -> {"value": ..., "highest": ...}

    def write(self, key, value, token):
        entry = self.keys.get(key)
        if entry is not None and token < entry["highest"]:
            raise ValueError(f"stale token {token}: {key!r} has accepted {entry['highest']}")
        self.keys[key] = {"value": value, "highest": token}

    def read(self, key):
        entry = self.keys.get(key)
        return None if entry is None else entry["value"]

    def highest_token(self, key):
        entry = self.keys.get(key)
        return None if entry is None else entry["highest"]
