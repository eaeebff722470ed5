//! The lock service: leases with one service-wide, ever-increasing fencing token counter.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::clock::Clock;

/// The lease length the lesson uses: 10 seconds.
pub const DEFAULT_LEASE_SECONDS: f64 = 10.0;

/// The token of the service's first grant.
pub const DEFAULT_FIRST_TOKEN: u64 = 1;

/// One grant of a lock: who holds it, with which fencing token, and until when.
#[derive(Clone, Debug, PartialEq)]
pub struct Lease {
    /// The lock's name.
    pub name: String,
    /// The client the lock was granted to.
    pub client_id: String,
    /// The fencing token of this grant; a later grant always has a higher one.
    pub token: u64,
    /// When the lock was granted, in clock seconds.
    pub granted_at: f64,
    /// The first moment at which the lease is no longer live (`now < expires_at` is live).
    pub expires_at: f64,
}

impl Lease {
    /// Whether the lease is still live at time `now`.
    ///
    /// ```
    /// # use fencing_lab::Lease;
    /// let lease = Lease { name: "file".into(), client_id: "client-1".into(), token: 1,
    ///                     granted_at: 0.0, expires_at: 10.0 };
    /// assert!(lease.is_live_at(9.999));
    /// assert!(!lease.is_live_at(10.0));
    /// ```
    pub fn is_live_at(&self, now: f64) -> bool {
        now < self.expires_at
    }
}

/// Why a `renew` or `release` was refused.
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
    /// The clock returned NaN or an infinity, so the service would not act on it.
    ClockNotFinite { reading: f64 },
}

impl LeaseError {
    /// A short, stable code for machine-readable output (the JSON `reason` field).
    pub fn code(&self) -> &'static str {
        match self {
            LeaseError::NotHeld { .. } => "not_held",
            LeaseError::Expired { .. } => "expired",
            LeaseError::HeldByOther { .. } => "held_by_other",
            LeaseError::WrongToken { .. } => "wrong_token",
            LeaseError::ClockNotFinite { .. } => "clock_not_finite",
        }
    }
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
            LeaseError::ClockNotFinite { reading } => write!(
                f,
                "the clock read {reading}, not a finite time, so the lock service refused to act"
            ),
        }
    }
}

impl std::error::Error for LeaseError {}

/// A lock service setting that cannot work.
#[derive(Clone, Debug, PartialEq)]
pub enum ConfigError {
    /// `lease_seconds` was zero, negative, NaN or infinite.
    LeaseSeconds(f64),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::LeaseSeconds(value) => write!(
                f,
                "lease_seconds must be a finite number of seconds greater than 0, got {value}"
            ),
        }
    }
}

impl std::error::Error for ConfigError {}

/// The latest grant of one lock name, kept after expiry (to explain refusals) and after release
/// (so the next grant reuses its allocations).
#[derive(Clone, Debug)]
struct Grant {
    client_id: String,
    token: u64,
    granted_at: f64,
    expires_at: f64,
    released: bool,
    /// Whether its end (release or expiry) has taken a number, under
    /// [`LockService::numbering_every_change`].
    end_numbered: bool,
}

impl Grant {
    fn is_live_at(&self, now: f64) -> bool {
        !self.released && now < self.expires_at
    }
}

/// A lease lock service with one fencing token counter shared by every lock name.
///
/// ```
/// use fencing_lab::{LockService, ManualClock};
/// let clock = ManualClock::new(0.0);
/// let mut locks = LockService::with_defaults(clock.clone());
/// let first = locks.acquire("file", "client-1").unwrap();
/// assert_eq!(first.token, 1);
/// assert!(locks.acquire("file", "client-2").is_none()); // the lease is live
/// clock.advance(10.0);                                   // exactly at expiry: free
/// let second = locks.acquire("file", "client-2").unwrap();
/// assert_eq!(second.token, 2);
/// ```
#[derive(Debug)]
pub struct LockService<C: Clock> {
    clock: C,
    lease_seconds: f64,
    next_token: Option<u64>,
    /// Whether a lease's end takes a number too, as etcd's revision and ZooKeeper's zxid do.
    every_change: bool,
    grants: HashMap<String, Grant>,
    /// The highest finite clock reading seen (f64 bits), so a clock that steps back cannot revive
    /// a lease. Atomic because read-only queries like `holder` count as readings too.
    high_water: AtomicU64,
}

impl<C: Clock> LockService<C> {
    /// A service whose leases last `lease_seconds` and whose first grant gets `first_token`.
    ///
    /// # Errors
    /// [`ConfigError::LeaseSeconds`] unless `lease_seconds` is finite and greater than 0.
    pub fn new(clock: C, lease_seconds: f64, first_token: u64) -> Result<Self, ConfigError> {
        if !(lease_seconds.is_finite() && lease_seconds > 0.0) {
            return Err(ConfigError::LeaseSeconds(lease_seconds));
        }
        Ok(LockService {
            clock,
            lease_seconds,
            next_token: Some(first_token),
            every_change: false,
            grants: HashMap::new(),
            high_water: AtomicU64::new(f64::NEG_INFINITY.to_bits()),
        })
    }

    /// The same service (its leases, its counter, the highest time it has read) on another clock:
    /// a copy to try calls on, leaving this one as it is.
    pub fn with_clock<D: Clock>(&self, clock: D) -> LockService<D> {
        LockService {
            clock,
            lease_seconds: self.lease_seconds,
            next_token: self.next_token,
            every_change: self.every_change,
            grants: self.grants.clone(),
            high_water: AtomicU64::new(self.high_water.load(Ordering::Relaxed)),
        }
    }

    /// The same service, numbering every change to its locks as etcd's revision and ZooKeeper's
    /// zxid do: a grant takes the next number, and so does each lease's end (a release or an
    /// expiry deletes the lock key, which is a change too). The tokens of successive grants then
    /// jump, and still only go up.
    ///
    /// ```
    /// use fencing_lab::{LockService, ManualClock};
    /// let clock = ManualClock::new(0.0);
    /// let mut locks = LockService::new(clock.clone(), 10.0, 2).unwrap().numbering_every_change();
    /// assert_eq!(locks.acquire("file", "client-1").unwrap().token, 2);
    /// clock.advance(10.0); // the lease ends: number 3
    /// assert_eq!(locks.acquire("file", "client-2").unwrap().token, 4);
    /// ```
    #[must_use]
    pub fn numbering_every_change(mut self) -> Self {
        self.every_change = true;
        self
    }

    /// Under [`numbering_every_change`](Self::numbering_every_change), gives each lease that has
    /// ended by `now` and has no number for its end yet the next one.
    fn number_ended(&mut self, now: f64) {
        if !self.every_change {
            return;
        }
        for grant in self.grants.values_mut() {
            if !grant.end_numbered && !grant.is_live_at(now) {
                grant.end_numbered = true;
                self.next_token = self.next_token.and_then(|t| t.checked_add(1));
            }
        }
    }

    /// A service with the lesson's defaults: 10-second leases, first token 1.
    pub fn with_defaults(clock: C) -> Self {
        match Self::new(clock, DEFAULT_LEASE_SECONDS, DEFAULT_FIRST_TOKEN) {
            Ok(service) => service,
            Err(_) => unreachable!("the default lease length is valid"),
        }
    }

    /// Grants `name` to `client_id` if no live lease holds it, with the next fencing token.
    ///
    /// Returns `None` when the lock has a live lease (even the caller's own: use
    /// [`renew`](Self::renew)), when the clock reading is not finite, or when the token space is
    /// used up. A refused acquire uses no token.
    pub fn acquire(&mut self, name: &str, client_id: &str) -> Option<Lease> {
        let now = self.observe().ok()?;
        self.number_ended(now);
        let token = self.next_token?;
        let expires_at = now + self.lease_seconds;
        match self.grants.get_mut(name) {
            Some(grant) if grant.is_live_at(now) => return None,
            Some(grant) => {
                grant.client_id.clear();
                grant.client_id.push_str(client_id);
                grant.token = token;
                grant.granted_at = now;
                grant.expires_at = expires_at;
                grant.released = false;
                grant.end_numbered = false;
            }
            None => {
                self.grants.insert(
                    name.to_owned(),
                    Grant {
                        client_id: client_id.to_owned(),
                        token,
                        granted_at: now,
                        expires_at,
                        released: false,
                        end_numbered: false,
                    },
                );
            }
        }
        // Never wrap: after u64::MAX has been handed out, the service grants nothing more.
        self.next_token = token.checked_add(1);
        Some(Lease {
            name: name.to_owned(),
            client_id: client_id.to_owned(),
            token,
            granted_at: now,
            expires_at,
        })
    }

    /// Extends the caller's live lease to `now + lease_seconds`, keeping its token.
    ///
    /// # Errors
    /// A [`LeaseError`] saying why, and nothing changes: the lease expired (even if nobody took
    /// the lock since), someone else holds it, the token is not the current grant's, the client
    /// holds nothing, or the clock reading is not finite.
    pub fn renew(&mut self, name: &str, client_id: &str, token: u64) -> Result<Lease, LeaseError> {
        let now = self.observe()?;
        let lease_seconds = self.lease_seconds;
        let grant = Self::check_holder(&mut self.grants, name, client_id, token, now)?;
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
    ///
    /// # Errors
    /// As for [`renew`](Self::renew): a late release never frees someone else's lock, nor a newer
    /// grant to the same client id.
    pub fn release(&mut self, name: &str, client_id: &str, token: u64) -> Result<(), LeaseError> {
        let now = self.observe()?;
        let grant = Self::check_holder(&mut self.grants, name, client_id, token, now)?;
        grant.released = true;
        self.number_ended(now);
        Ok(())
    }

    /// The client holding a live lease on `name`, if any (`None` too while the clock reads
    /// non-finite, since liveness cannot be judged then).
    pub fn holder(&self, name: &str) -> Option<&str> {
        let now = self.peek()?;
        self.grants
            .get(name)
            .filter(|grant| grant.is_live_at(now))
            .map(|grant| grant.client_id.as_str())
    }

    /// The live lease on `name`, if any.
    pub fn lease(&self, name: &str) -> Option<Lease> {
        let now = self.peek()?;
        let grant = self.grants.get(name).filter(|g| g.is_live_at(now))?;
        Some(Lease {
            name: name.to_owned(),
            client_id: grant.client_id.clone(),
            token: grant.token,
            granted_at: grant.granted_at,
            expires_at: grant.expires_at,
        })
    }

    /// The token the next grant will carry, or `None` once the token space is used up.
    pub fn next_token(&self) -> Option<u64> {
        // Only a service numbering every change reads the clock here: one numbering grants
        // alone answers without looking at the time.
        if !self.every_change {
            return self.next_token;
        }
        let ended = match self.peek() {
            Some(now) => self
                .grants
                .values()
                .filter(|g| !g.end_numbered && !g.is_live_at(now))
                .count() as u64,
            _ => 0,
        };
        self.next_token.and_then(|t| t.checked_add(ended))
    }

    /// How long each lease lasts, in seconds.
    pub fn lease_seconds(&self) -> f64 {
        self.lease_seconds
    }

    /// The service's notion of now: the highest finite clock reading seen, including this one.
    pub fn now(&self) -> Option<f64> {
        self.peek()
    }

    /// Reads the clock and raises the high-water mark; refuses non-finite readings.
    fn observe(&self) -> Result<f64, LeaseError> {
        let reading = self.clock.now();
        if !reading.is_finite() {
            return Err(LeaseError::ClockNotFinite { reading });
        }
        let previous = self
            .high_water
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |bits| {
                (reading > f64::from_bits(bits)).then_some(reading.to_bits())
            });
        Ok(match previous {
            Ok(_) => reading,
            Err(bits) => f64::from_bits(bits),
        })
    }

    fn peek(&self) -> Option<f64> {
        self.observe().ok()
    }

    /// The caller's grant, if it is the live lease on `name` with `token`.
    fn check_holder<'a>(
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ManualClock;

    #[test]
    fn numbering_every_change_counts_each_release_and_each_expiry_once() {
        let clock = ManualClock::new(0.0);
        let mut locks = LockService::new(clock.clone(), 5.0, 2)
            .unwrap()
            .numbering_every_change();
        assert_eq!(locks.acquire("a", "c1").unwrap().token, 2);
        assert_eq!(locks.acquire("b", "c2").unwrap().token, 3);
        locks.release("a", "c1", 2).unwrap(); // 4
        assert_eq!(locks.next_token(), Some(5));
        clock.advance(5.0); // b's lease ends: 5, counted once however often it is looked at
        assert_eq!(locks.next_token(), Some(6));
        assert_eq!(locks.next_token(), Some(6));
        assert!(locks.renew("b", "c2", 3).is_err());
        assert_eq!(locks.acquire("a", "c3").unwrap().token, 6);
        assert_eq!(locks.acquire("b", "c3").unwrap().token, 7);
        // A renewal changes no key's existence: no number.
        assert!(locks.renew("b", "c3", 7).is_ok());
        assert_eq!(locks.next_token(), Some(8));
    }

    #[test]
    fn by_default_only_a_grant_takes_a_number() {
        let clock = ManualClock::new(0.0);
        let mut locks = LockService::with_defaults(clock.clone());
        assert_eq!(locks.acquire("a", "c1").unwrap().token, 1);
        locks.release("a", "c1", 1).unwrap();
        clock.advance(20.0);
        assert_eq!(locks.acquire("a", "c2").unwrap().token, 2);
    }
}
