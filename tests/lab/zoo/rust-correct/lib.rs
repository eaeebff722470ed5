//! A correct solution of the fencing-lab lab, in Rust: the starter (`fencing-lab lab init rust`)
//! with every method written (tests/lab/zoo/rust-correct).
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
//! Debugging output goes to stderr with `eprintln!`: stdout carries the adapter's replies, and a
//! `println!` there is a protocol error.

use std::collections::HashMap;
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

/// The latest grant of one lock name, kept after expiry and release to explain refusals.
#[derive(Debug)]
struct Grant {
    client_id: String,
    token: u64,
    granted_at: f64,
    expires_at: f64,
    released: bool,
}

impl Grant {
    fn is_live_at(&self, now: f64) -> bool {
        !self.released && now < self.expires_at
    }
}

/// A lease lock service with one fencing token counter for all its locks.
pub struct LockService<C: Clock> {
    clock: C,
    lease_seconds: f64,
    next_token: u64,
    grants: HashMap<String, Grant>,
}

impl<C: Clock> LockService<C> {
    /// A service whose leases last `lease_seconds` and whose first grant gets `first_token`.
    pub fn new(clock: C, lease_seconds: f64, first_token: u64) -> Self {
        LockService {
            clock,
            lease_seconds,
            next_token: first_token,
            grants: HashMap::new(),
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

impl<C: Clock> LockService<C> {
    /// Grants `name` to `client_id` if no live lease holds it.
    pub fn acquire(&mut self, name: &str, client_id: &str) -> Option<Lease> {
        let now = self.now();
        if self.grants.get(name).is_some_and(|g| g.is_live_at(now)) {
            return None;
        }
        let token = self.next_token;
        self.next_token += 1;
        let grant = Grant {
            client_id: client_id.to_owned(),
            token,
            granted_at: now,
            expires_at: now + self.lease_seconds,
            released: false,
        };
        let lease = Lease {
            name: name.to_owned(),
            client_id: client_id.to_owned(),
            token,
            granted_at: grant.granted_at,
            expires_at: grant.expires_at,
        };
        self.grants.insert(name.to_owned(), grant);
        Some(lease)
    }

    /// Extends the caller's live lease to `now + lease_seconds`, keeping its token.
    pub fn renew(&mut self, name: &str, client_id: &str, token: u64) -> Result<Lease, LeaseError> {
        let now = self.now();
        let lease_seconds = self.lease_seconds;
        let grant = held(&mut self.grants, name, client_id, token, now)?;
        grant.expires_at = now + lease_seconds;
        Ok(Lease {
            name: name.to_owned(),
            client_id: client_id.to_owned(),
            token,
            granted_at: grant.granted_at,
            expires_at: grant.expires_at,
        })
    }

    /// Frees the lock if the caller holds its live lease with `token`.
    pub fn release(&mut self, name: &str, client_id: &str, token: u64) -> Result<(), LeaseError> {
        let now = self.now();
        held(&mut self.grants, name, client_id, token, now)?.released = true;
        Ok(())
    }

    /// The client holding a live lease on `name`, or `None`.
    pub fn holder(&self, name: &str) -> Option<&str> {
        let now = self.now();
        self.grants
            .get(name)
            .filter(|g| g.is_live_at(now))
            .map(|g| g.client_id.as_str())
    }
}

/// The caller's live grant on `name` with `token`, or the reason it has none.
fn held<'a>(
    grants: &'a mut HashMap<String, Grant>,
    name: &str,
    client_id: &str,
    token: u64,
    now: f64,
) -> Result<&'a mut Grant, LeaseError> {
    let not_held = || LeaseError::NotHeld {
        lock: name.to_owned(),
        client_id: client_id.to_owned(),
    };
    let grant = match grants.get_mut(name) {
        Some(grant) if !grant.released => grant,
        _ => return Err(not_held()),
    };
    if grant.client_id != client_id {
        return Err(if grant.is_live_at(now) {
            LeaseError::HeldByOther {
                lock: name.to_owned(),
                client_id: client_id.to_owned(),
                holder: grant.client_id.clone(),
            }
        } else {
            not_held()
        });
    }
    if grant.token != token {
        return Err(LeaseError::WrongToken {
            lock: name.to_owned(),
            client_id: client_id.to_owned(),
            token,
            current: grant.token,
        });
    }
    if !grant.is_live_at(now) {
        return Err(LeaseError::Expired {
            lock: name.to_owned(),
            client_id: client_id.to_owned(),
            token,
            expired_at: grant.expires_at,
        });
    }
    Ok(grant)
}

/// The resource the lock protects. It knows nothing about the lock service.
#[derive(Debug, Default)]
pub struct FencedStorage {
    /// For each key, its value and highest token.
    entries: HashMap<String, (String, u64)>,
}

impl FencedStorage {
    /// An empty store.
    pub fn new() -> Self {
        FencedStorage::default()
    }
}

impl FencedStorage {
    /// Writes `value` under `key` if `token >= highest_token(key)` or the key is new.
    pub fn write(
        &mut self,
        key: &str,
        value: impl Into<String>,
        token: u64,
    ) -> Result<(), StaleToken> {
        if let Some(&(_, highest)) = self.entries.get(key) {
            if token < highest {
                return Err(StaleToken {
                    key: key.to_owned(),
                    token,
                    highest,
                });
            }
        }
        self.entries.insert(key.to_owned(), (value.into(), token));
        Ok(())
    }

    /// The value of the last accepted write to `key`, or `None`.
    pub fn read(&self, key: &str) -> Option<&str> {
        self.entries.get(key).map(|(value, _)| value.as_str())
    }

    /// The highest token `key` has accepted, or `None` if it was never written.
    pub fn highest_token(&self, key: &str) -> Option<u64> {
        self.entries.get(key).map(|&(_, token)| token)
    }
}
