//! Your lock service and the storage it protects.
//!
//! Fill in every method that calls `todo!("not implemented yet: ...")`, then run
//! `fencing-lab check .` to see which rules pass. The clock, the lease and the error types are
//! provided; change the two structs' fields as you need.
//!
//! The rules the checker tests (from the seed problem):
//!
//! - "A lease granted at time t is live while now < t + lease_seconds. At exactly
//!   t + lease_seconds it has expired and the lock is free."
//! - "One counter for the whole service: the first grant gets first_token, every later grant (of
//!   any lock name) gets the next integer. A token is never handed out twice. renew keeps the
//!   token; only a new grant makes a new one." A refused acquire uses no token.
//! - "acquire on a lock with a live lease returns None, even when the caller is the holder (use
//!   renew to keep a lock)."
//! - "An expired lease can't be renewed or released, even if nobody has taken the lock since: the
//!   client must acquire again and gets a new token. A late release must never free someone
//!   else's lock."
//! - "The storage knows nothing about the lock service: it only compares numbers. A write is
//!   accepted when token >= highest_token(key) (the holder may write several times with its
//!   token), and then the key's value and highest token are updated. A rejected write changes
//!   nothing. Each key keeps its own highest token, like the lesson's fence_token column
//!   (section 2.2)."
//! - "Read time only through clock.now() (seconds)." Never `std::time`.
//!
//! Refusing: `renew`, `release` and `write` return `Err(..)` with the error that says why (its
//! `Display` text is shown in the checker's transcript); `acquire` returns `None`.
//!
//! Debugging output with `println!` or `eprintln!` goes to stderr, where the checker shows its
//! last lines: the adapter keeps the real stdout for its replies.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The lease length of `with_defaults`: 10 seconds.
pub const DEFAULT_LEASE_SECONDS: f64 = 10.0;

/// The token of the first grant of `with_defaults`.
pub const DEFAULT_FIRST_TOKEN: u64 = 1;

/// A source of time in seconds. The lock service reads time only through this trait.
pub trait Clock {
    /// The current time in seconds.
    fn now(&self) -> f64;
}

/// A clock that moves only when told to. Clones share one time: the adapter keeps a handle and
/// sets it while your `LockService` owns another. (Provided; no need to change it.)
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    seconds_bits: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock showing `start` seconds.
    pub fn new(start: f64) -> ManualClock {
        let clock = ManualClock::default();
        clock.set(start);
        clock
    }

    /// Sets the time to `t` seconds.
    pub fn set(&self, t: f64) {
        self.seconds_bits.store(t.to_bits(), Ordering::SeqCst);
    }

    /// Moves the time forward by `seconds`.
    pub fn advance(&self, seconds: f64) {
        self.set(self.now() + seconds);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> f64 {
        f64::from_bits(self.seconds_bits.load(Ordering::SeqCst))
    }
}

/// One grant of a lock. The adapter reads `token` and `expires_at`.
#[derive(Clone, Debug, PartialEq)]
pub struct Lease {
    /// The lock's name.
    pub name: String,
    /// The client the lock was granted to.
    pub client_id: String,
    /// The fencing token of this grant: higher than every earlier grant's.
    pub token: u64,
    /// When the lock was granted, in clock seconds.
    pub granted_at: f64,
    /// The first moment the lease is no longer live (live while `now < expires_at`).
    pub expires_at: f64,
}

/// Why a `renew` or `release` was refused. (Provided: pick the variant that says why.)
#[derive(Clone, Debug, PartialEq)]
pub enum LeaseError {
    /// The client holds no lease on the lock: never granted, or already released.
    NotHeld { lock: String, client_id: String },
    /// The client's lease ran out; it must acquire again and will get a new token.
    Expired {
        lock: String,
        client_id: String,
        token: u64,
        expired_at: f64,
    },
    /// Another client holds a live lease on the lock.
    HeldByOther {
        lock: String,
        client_id: String,
        holder: String,
    },
    /// The client id matches but the token is not the one of its current grant.
    WrongToken {
        lock: String,
        client_id: String,
        token: u64,
        current: u64,
    },
}

impl fmt::Display for LeaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeaseError::NotHeld { lock, client_id } => write!(
                f,
                "{client_id} does not hold lock '{lock}'; it must acquire the lock first"
            ),
            LeaseError::Expired {
                lock,
                client_id,
                token,
                expired_at,
            } => write!(
                f,
                "{client_id}'s lease on '{lock}' with token {token} expired at {expired_at} s; \
                 it must acquire the lock again and will get a new token"
            ),
            LeaseError::HeldByOther {
                lock,
                client_id,
                holder,
            } => write!(f, "lock '{lock}' is held by {holder}, not by {client_id}"),
            LeaseError::WrongToken {
                lock,
                client_id,
                token,
                current,
            } => write!(
                f,
                "token {token} is not {client_id}'s current lease on '{lock}', which has token {current}"
            ),
        }
    }
}

impl std::error::Error for LeaseError {}

/// A write refused because its token is older than one the key already accepted. (Provided.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleToken {
    /// The key written.
    pub key: String,
    /// The token the write carried.
    pub token: u64,
    /// The highest token the key had accepted (above `token`).
    pub highest: u64,
}

impl fmt::Display for StaleToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let StaleToken {
            key,
            token,
            highest,
        } = self;
        write!(
            f,
            "token {token} is older than token {highest}, the highest key '{key}' has accepted"
        )
    }
}

impl std::error::Error for StaleToken {}

/// A lease lock service with one fencing token counter for all its locks.
pub struct LockService<C: Clock> {
    clock: C,
    lease_seconds: f64,
    next_token: u64,
    // Add what you need, e.g. the latest grant of each lock name:
    // grants: std::collections::HashMap<String, Grant>,
}

impl<C: Clock> LockService<C> {
    /// A service whose leases last `lease_seconds` and whose first grant gets `first_token`.
    pub fn new(clock: C, lease_seconds: f64, first_token: u64) -> Self {
        LockService {
            clock,
            lease_seconds,
            next_token: first_token,
        }
    }

    /// A service with the lesson's defaults: 10-second leases, first token 1.
    pub fn with_defaults(clock: C) -> Self {
        Self::new(clock, DEFAULT_LEASE_SECONDS, DEFAULT_FIRST_TOKEN)
    }

    /// The time now, in seconds: the only way to read the clock.
    pub fn now(&self) -> f64 {
        self.clock.now()
    }

    /// How long each lease lasts, in seconds.
    pub fn lease_seconds(&self) -> f64 {
        self.lease_seconds
    }

    /// The token the next grant will carry.
    pub fn next_token(&self) -> u64 {
        self.next_token
    }
}

// The todo!() bodies do not use their arguments yet; delete this `allow` once they do.
#[allow(unused_variables)]
impl<C: Clock> LockService<C> {
    /// Grants `name` to `client_id` if no live lease holds it.
    ///
    /// Returns a [`Lease`] with the next token of the service's one counter and
    /// `expires_at = now + lease_seconds`; or `None` while the lock has a live lease, even the
    /// caller's own (it must renew instead). A refused acquire uses no token.
    pub fn acquire(&mut self, name: &str, client_id: &str) -> Option<Lease> {
        todo!("not implemented yet: LockService::acquire")
    }

    /// Extends the caller's live lease to `now + lease_seconds`, keeping its token, and returns
    /// the lease with the new `expires_at`.
    ///
    /// # Errors
    /// A [`LeaseError`] saying why, and nothing changes: the lease expired (even if nobody took
    /// the lock since), another client holds the lock, `token` is not the caller's current
    /// grant, or the caller holds nothing.
    pub fn renew(&mut self, name: &str, client_id: &str, token: u64) -> Result<Lease, LeaseError> {
        todo!("not implemented yet: LockService::renew")
    }

    /// Frees the lock if the caller holds its live lease with `token`; afterwards
    /// `holder(name)` is `None` and anyone may acquire it.
    ///
    /// # Errors
    /// As for [`renew`](Self::renew): a late release never frees someone else's lock.
    pub fn release(&mut self, name: &str, client_id: &str, token: u64) -> Result<(), LeaseError> {
        todo!("not implemented yet: LockService::release")
    }

    /// The client holding a live lease on `name`, or `None` (never granted, released, or
    /// expired).
    pub fn holder(&self, name: &str) -> Option<&str> {
        todo!("not implemented yet: LockService::holder")
    }
}

/// The resource the lock protects. It knows nothing about the lock service.
#[derive(Debug, Default)]
pub struct FencedStorage {
    // Add what you need, e.g. for each key its value and highest token:
    // entries: std::collections::HashMap<String, (String, u64)>,
}

impl FencedStorage {
    /// An empty store.
    pub fn new() -> Self {
        FencedStorage::default()
    }
}

// The todo!() bodies do not use their arguments yet; delete this `allow` once they do.
#[allow(unused_variables)]
impl FencedStorage {
    /// Writes `value` under `key` if `token >= highest_token(key)`, or if the key was never
    /// written; then the key's value and highest token are updated.
    ///
    /// # Errors
    /// [`StaleToken`] when `token` is lower than the key's highest token; a rejected write
    /// changes nothing. Each key keeps its own highest token.
    pub fn write(
        &mut self,
        key: &str,
        value: impl Into<String>,
        token: u64,
    ) -> Result<(), StaleToken> {
        todo!("not implemented yet: FencedStorage::write")
    }

    /// The value of the last accepted write to `key`, or `None`.
    pub fn read(&self, key: &str) -> Option<&str> {
        todo!("not implemented yet: FencedStorage::read")
    }

    /// The highest token `key` has accepted, or `None` if it was never written.
    pub fn highest_token(&self, key: &str) -> Option<u64> {
        todo!("not implemented yet: FencedStorage::highest_token")
    }
}
