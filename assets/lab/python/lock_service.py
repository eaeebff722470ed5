"""Your lock service and the storage it protects.

Fill in every method that raises NotImplementedYet, then run `fencing-lab check .` to see which
rules pass.

The rules the checker tests (from the seed problem):

- "A lease granted at time t is live while now < t + lease_seconds. At exactly t + lease_seconds
  it has expired and the lock is free."
- "One counter for the whole service: the first grant gets first_token, every later grant (of any
  lock name) gets the next integer. A token is never handed out twice. renew keeps the token; only
  a new grant makes a new one." A refused acquire uses no token.
- "acquire on a lock with a live lease returns None, even when the caller is the holder (use renew
  to keep a lock)."
- "An expired lease can't be renewed or released, even if nobody has taken the lock since: the
  client must acquire again and gets a new token. A late release must never free someone else's
  lock."
- "The storage knows nothing about the lock service: it only compares numbers. A write is accepted
  when token >= highest_token(key) (the holder may write several times with its token), and then
  the key's value and highest token are updated. A rejected write changes nothing. Each key keeps
  its own highest token, like the lesson's fence_token column (section 2.2)."
- "Read time only through clock.now() (seconds)." Never time.time() or time.monotonic().

How your answers are read (the same convention in every language):

- Raising an exception refuses, whatever its type; its message is shown in the checker's
  transcript, so say why, e.g.
      raise ValueError(f"token {token} is older than {highest}")
  A bug's exception (a TypeError, a KeyError, ...) refuses too, and the transcript shows it.
- Returning False refuses.
- From acquire and renew, None is "no lease" (a refusal); a Lease (any object or dict with a
  token and an expires_at) is the grant.
- From release and write, returning nothing (None) or anything but False is success: a method
  that falls off its end has accepted. To refuse, raise or return False.

print() is safe for debugging: the adapter sends it to stderr.
"""

from dataclasses import dataclass

from not_implemented import NotImplementedYet


@dataclass
class Lease:
    """One grant of a lock. The checker reads its `token` and `expires_at`."""

    name: str
    client_id: str
    token: int  # the fencing token of this grant: higher than every earlier grant's
    granted_at: float  # when the lock was granted, in clock seconds
    expires_at: float  # the first moment the lease is no longer live (live while now < expires_at)


class LockService:
    """A lease lock service with one fencing token counter for all its locks."""

    def __init__(self, clock, lease_seconds=10.0, first_token=1):
        """A service whose leases last `lease_seconds` and whose first grant gets `first_token`.

        `clock.now()` is the only source of time, in seconds.
        """
        self.clock = clock
        self.lease_seconds = lease_seconds
        self.next_token = first_token
        # Add what you need, e.g. the latest grant of each lock name: self.grants = {}

    def acquire(self, name, client_id):
        """Grants the lock to `client_id` if no live lease holds it.

        Returns a Lease with the next token of the service's one counter and
        expires_at = clock.now() + lease_seconds; or None while the lock has a live lease, even the
        caller's own (it must renew instead). A refused acquire uses no token.
        """
        raise NotImplementedYet("LockService.acquire")

    def renew(self, name, client_id, token):
        """Extends the caller's live lease to clock.now() + lease_seconds, keeping its token, and
        returns the lease with the new expires_at.

        Refuses (raise, or return None or False) when the lease has expired (even if nobody took
        the lock since), when another client holds the lock, when `token` is not the caller's
        current grant, or when the caller holds nothing. A refused renew changes nothing.
        """
        raise NotImplementedYet("LockService.renew")

    def release(self, name, client_id, token):
        """Frees the lock if the caller holds its live lease with `token`; afterwards holder(name)
        is None and anyone may acquire it. Returning nothing (or True) is success.

        Refuses (raise, or return False) in the same cases as renew: a late release never frees
        someone else's lock. Returning None does not refuse.
        """
        raise NotImplementedYet("LockService.release")

    def holder(self, name):
        """The client id holding a live lease on the lock, or None (never granted, released, or
        expired)."""
        raise NotImplementedYet("LockService.holder")


class FencedStorage:
    """The resource the lock protects. It knows nothing about the lock service."""

    def __init__(self):
        """An empty store."""
        # Add what you need, e.g. for each key its value and highest token: self.entries = {}

    def write(self, key, value, token):
        """Writes `value` under `key` if token >= highest_token(key), or if the key was never
        written; then the key's value and highest token are updated. Returning nothing (or True)
        is success.

        Refuses (raise, or return False) a write whose token is lower than the key's highest; a
        rejected write changes nothing. Returning None does not refuse. Each key keeps its own
        highest token.
        """
        raise NotImplementedYet("FencedStorage.write")

    def read(self, key):
        """The value of the last accepted write to `key`, or None."""
        raise NotImplementedYet("FencedStorage.read")

    def highest_token(self, key):
        """The highest token `key` has accepted, or None if it was never written."""
        raise NotImplementedYet("FencedStorage.highest_token")
