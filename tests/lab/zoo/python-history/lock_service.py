"""A lease lock service with fencing tokens, and the storage it protects.

Idiom: every grant of a lock is kept in a list (its history, oldest first) and released tokens
in a set; release looks the caller's grant up by its token. Refusals raise LookupError and
PermissionError. The storage keeps two dicts, values and highest tokens.
"""


class LockService:
    def __init__(self, clock, lease_seconds=10.0, first_token=1):
        self.clock = clock
        self.lease_seconds = lease_seconds
        self.issued = first_token - 1  # the last token handed out
        self.history = {}  # name -> its grants, oldest first
        self.released = set()  # tokens whose lease was released

    def _latest(self, name):
        grants = self.history.get(name)
        return grants[-1] if grants else None

    def _live_grant(self, name, now):
        grant = self._latest(name)
        if grant is None or grant["token"] in self.released or now >= grant["expires_at"]:
            return None
        return grant

    def acquire(self, name, client_id):
        now = self.clock.now()
        latest = self._latest(name)
        if latest is not None and latest["token"] not in self.released and now < latest["expires_at"]:
            return None
        self.issued += 1
        grant = {"name": name, "client_id": client_id, "token": self.issued,
                 "granted_at": now, "expires_at": now + self.lease_seconds}
        self.history.setdefault(name, []).append(grant)
        return dict(grant)

    def renew(self, name, client_id, token):
        now = self.clock.now()
        grant = self._live_grant(name, now)
        if grant is None:
            raise LookupError(f"{name} has no live lease to renew")
        if grant["client_id"] != client_id or grant["token"] != token:
            raise PermissionError(f"{client_id} with token {token} does not hold {name}")
        grant["expires_at"] = now + self.lease_seconds
        return dict(grant)

    def release(self, name, client_id, token):
        now = self.clock.now()
        for grant in self.history.get(name, []):
            if grant["token"] == token and grant["client_id"] == client_id:
                break
        else:
            raise LookupError(f"{client_id} was never granted {name} with token {token}")
        if grant is not self._latest(name):
            raise PermissionError(f"token {token} is not the current grant of {name}")
        if grant["token"] in self.released or now >= grant["expires_at"]:
            raise PermissionError(f"the lease with token {token} has ended")
        self.released.add(token)

    def holder(self, name):
        grant = self._live_grant(name, self.clock.now())
        return grant["client_id"] if grant else None


class FencedStorage:
    def __init__(self):
        self.value = {}
        self.highest = {}

    def write(self, key, value, token):
        if key in self.highest and token < self.highest[key]:
            raise ValueError(f"token {token} is older than {self.highest[key]} for {key}")
        self.value[key] = value
        self.highest[key] = token

    def read(self, key):
        return self.value.get(key)

    def highest_token(self, key):
        return self.highest.get(key)
