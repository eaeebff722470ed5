//! The seed's answer to every call: this project's library decides, and the reference keeps the
//! facts each decision rested on (the lease was at exactly its expiry, the lease length was the
//! default, a refused acquire came before this grant, the key had a write rejected...). The judge
//! reads those facts to charge a difference to the one rule it breaks.

use std::collections::BTreeMap;

use super::wire::{LeaseReply, Reply, Request};
use crate::{
    CheckedStorage, FenceCheck, Lease, LeaseError, LockService, ManualClock, Verdict,
    DEFAULT_FIRST_TOKEN, DEFAULT_LEASE_SECONDS,
};

/// The settings of the service, and whether each was the constructor's default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    pub lease_seconds: f64,
    pub lease_defaulted: bool,
    pub first_token: u64,
    pub first_defaulted: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            lease_seconds: DEFAULT_LEASE_SECONDS,
            lease_defaulted: true,
            first_token: DEFAULT_FIRST_TOKEN,
            first_defaulted: true,
        }
    }
}

/// A lock's latest grant, as the seed keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct GrantFacts {
    pub client: String,
    pub token: u64,
    pub granted_at: f64,
    pub expires_at: f64,
    /// Whether a renew set its expiry (else the grant did).
    pub renewed: bool,
    /// When the latest renew was, if one was.
    pub renewed_at: Option<f64>,
    /// The expiry the lease had before its latest renew: at or after it, the lease is live only
    /// because that renew extended it.
    pub before_renew: Option<f64>,
}

/// Where a lock stands for the seed at the moment of a call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LockState {
    /// Never granted.
    Never,
    /// Its latest grant is live.
    Live,
    /// Its latest grant ran out; `at_boundary` when now is exactly its expiry.
    Expired { at_boundary: bool },
    /// Its latest grant was released.
    Released,
}

/// What the seed knew of one lock just before a call.
#[derive(Clone, Debug, PartialEq)]
pub struct LockFacts {
    pub name: String,
    pub state: LockState,
    pub latest: Option<GrantFacts>,
    /// The seed refused a release while the latest grant was live (someone else's release, or
    /// one with an older token): the lock must still be held.
    pub refused_release: bool,
}

/// The service's one token counter just before a call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TokenFacts {
    /// The token the next grant gets (`None`: all handed out).
    pub next: Option<u64>,
    /// Grants so far.
    pub grants: u64,
    /// Acquires refused since the last grant.
    pub refused_acquires: u32,
    /// Renews granted since the last grant.
    pub renews: u32,
    /// Releases granted since the last grant.
    pub releases: u32,
}

/// What the seed knew of one key just before a call.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyFacts {
    pub key: String,
    pub highest: Option<u64>,
    pub value: Option<String>,
    /// A write to it was rejected since its last accepted one.
    pub rejected_since_accept: bool,
    /// Every other key: (key, value, highest).
    pub others: Vec<(String, String, u64)>,
}

impl KeyFacts {
    /// The highest token any other key has accepted.
    pub fn others_highest(&self) -> Option<u64> {
        self.others.iter().map(|o| o.2).max()
    }
}

/// What the library decided.
#[derive(Clone, Debug, PartialEq)]
pub enum Seed {
    /// `hello`, `clock`, or a `new` that built a service.
    Setup,
    /// `new` with settings the library refuses.
    BadSettings(String),
    Granted(Lease),
    NotGranted,
    Renewed(Lease),
    Refused(LeaseError),
    Released,
    Holder(Option<String>),
    Wrote {
        key: String,
        verdict: Verdict,
    },
    Value(Option<String>),
    Token(Option<u64>),
}

/// The seed's answer to one call, and what it rested on.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub seed: Seed,
    /// The answer as a correct adapter would reply it.
    pub reply: Reply,
    pub now: f64,
    pub settings: Settings,
    /// For lock calls.
    pub lock: Option<LockFacts>,
    pub tokens: TokenFacts,
    /// For storage calls.
    pub key: Option<KeyFacts>,
}

#[derive(Clone, Debug, Default)]
struct LockHistory {
    latest: Option<GrantFacts>,
    released: bool,
    refused_release: bool,
}

#[derive(Clone, Debug, Default)]
struct KeyHistory {
    rejected_since_accept: bool,
}

/// This project's library, answering as a correct student's adapter would.
pub struct Reference {
    clock: ManualClock,
    service: LockService<ManualClock>,
    storage: CheckedStorage,
    settings: Settings,
    /// The service's time: the highest clock reading a lock call has seen.
    now: f64,
    /// The clock as last set, finite.
    reading: f64,
    locks: BTreeMap<String, LockHistory>,
    keys: BTreeMap<String, KeyHistory>,
    tokens: TokenFacts,
}

impl Default for Reference {
    fn default() -> Self {
        let clock = ManualClock::new(0.0);
        Reference {
            service: LockService::with_defaults(clock.clone()),
            clock,
            storage: CheckedStorage::new(FenceCheck::PerKey),
            settings: Settings::default(),
            now: 0.0,
            reading: 0.0,
            locks: BTreeMap::new(),
            keys: BTreeMap::new(),
            tokens: TokenFacts {
                next: Some(DEFAULT_FIRST_TOKEN),
                grants: 0,
                refused_acquires: 0,
                renews: 0,
                releases: 0,
            },
        }
    }
}

/// A copy to try calls on: its own clock, so that moving one never moves the other.
impl Clone for Reference {
    fn clone(&self) -> Self {
        let clock = ManualClock::new(self.reading);
        Reference {
            service: self.service.with_clock(clock.clone()),
            clock,
            storage: self.storage.clone(),
            settings: self.settings,
            now: self.now,
            reading: self.reading,
            locks: self.locks.clone(),
            keys: self.keys.clone(),
            tokens: self.tokens,
        }
    }
}

impl Reference {
    /// A lock call reads the clock, and the service keeps the highest reading it has seen (a
    /// reading no call saw is not seen); a storage call reads no clock.
    fn read_clock(&mut self, request: &Request) {
        if lock_name(request).is_some() {
            if let Some(seen) = self.service.now() {
                self.now = seen;
            }
        }
    }

    /// The seed's answer alone, applied to the reference's state, without the facts behind it:
    /// for telling scripts apart, where only what is sent matters.
    pub fn seed_of(&mut self, request: &Request) -> Seed {
        self.read_clock(request);
        self.apply(request)
    }

    /// The seed's decision on `request`, applied to the reference's state.
    pub fn decide(&mut self, request: &Request) -> Decision {
        self.read_clock(request);
        let lock = lock_name(request).map(|name| self.lock_facts(name));
        let key = key_name(request).map(|name| self.key_facts(name));
        let (settings, tokens) = (self.settings, self.tokens);
        let now = if lock_name(request).is_some() {
            self.now
        } else {
            self.reading
        };
        let seed = self.apply(request);
        let reply = reply_of(&seed);
        Decision {
            seed,
            reply,
            now,
            settings,
            lock,
            tokens,
            key,
        }
    }

    /// The seed's reply alone.
    pub fn answer(&mut self, request: &Request) -> Reply {
        self.decide(request).reply
    }

    /// The lock service deciding, for what it can say without a call (the next token).
    pub fn service(&self) -> &LockService<ManualClock> {
        &self.service
    }

    /// The storage deciding, for what it holds.
    pub fn storage(&self) -> &CheckedStorage {
        &self.storage
    }

    fn lock_facts(&self, name: &str) -> LockFacts {
        let history = self.locks.get(name).cloned().unwrap_or_default();
        let state = match &history.latest {
            None => LockState::Never,
            Some(_) if history.released => LockState::Released,
            Some(g) if self.now < g.expires_at => LockState::Live,
            Some(g) => LockState::Expired {
                at_boundary: self.now == g.expires_at,
            },
        };
        LockFacts {
            name: name.to_owned(),
            state,
            latest: history.latest,
            refused_release: history.refused_release,
        }
    }

    fn key_facts(&self, key: &str) -> KeyFacts {
        let entry = self.storage.entry(key);
        KeyFacts {
            key: key.to_owned(),
            highest: entry.map(|e| e.highest),
            value: entry.map(|e| e.value.clone()),
            rejected_since_accept: self.keys.get(key).is_some_and(|k| k.rejected_since_accept),
            others: self
                .storage
                .entries()
                .into_iter()
                .filter(|(k, _)| *k != key)
                .map(|(k, e)| (k.to_owned(), e.value.clone(), e.highest))
                .collect(),
        }
    }

    fn apply(&mut self, request: &Request) -> Seed {
        match request {
            Request::Hello => Seed::Setup,
            Request::New {
                lease_seconds,
                first_token,
            } => self.start_over(*lease_seconds, *first_token),
            Request::Clock { now } => {
                // A non-finite reading is one the service would refuse to act on.
                if now.is_finite() {
                    self.clock.set(*now);
                    self.reading = *now;
                }
                Seed::Setup
            }
            Request::Acquire { name, client_id } => self.acquire(name, client_id),
            Request::Renew {
                name,
                client_id,
                token,
            } => self.renew(name, client_id, *token),
            Request::Release {
                name,
                client_id,
                token,
            } => self.release(name, client_id, *token),
            Request::Holder { name } => Seed::Holder(self.service.holder(name).map(str::to_owned)),
            Request::Write { key, value, token } => {
                let verdict = self.storage.write(key, value.as_str(), *token);
                self.keys
                    .entry(key.clone())
                    .or_default()
                    .rejected_since_accept = !verdict.accepted;
                Seed::Wrote {
                    key: key.clone(),
                    verdict,
                }
            }
            Request::Read { key } => Seed::Value(self.storage.read(key).map(str::to_owned)),
            Request::HighestToken { key } => Seed::Token(self.storage.highest_token(key)),
        }
    }

    fn start_over(&mut self, lease_seconds: Option<f64>, first_token: Option<u64>) -> Seed {
        let settings = Settings {
            lease_seconds: lease_seconds.unwrap_or(DEFAULT_LEASE_SECONDS),
            lease_defaulted: lease_seconds.is_none(),
            first_token: first_token.unwrap_or(DEFAULT_FIRST_TOKEN),
            first_defaulted: first_token.is_none(),
        };
        let clock = ManualClock::new(0.0);
        match LockService::new(clock.clone(), settings.lease_seconds, settings.first_token) {
            Ok(service) => {
                *self = Reference {
                    clock,
                    service,
                    settings,
                    ..Reference::default()
                };
                self.tokens.next = Some(settings.first_token);
                Seed::Setup
            }
            Err(e) => Seed::BadSettings(e.to_string()),
        }
    }

    fn acquire(&mut self, name: &str, client: &str) -> Seed {
        match self.service.acquire(name, client) {
            Some(lease) => {
                self.locks.insert(
                    name.to_owned(),
                    LockHistory {
                        latest: Some(GrantFacts {
                            client: client.to_owned(),
                            token: lease.token,
                            granted_at: lease.granted_at,
                            expires_at: lease.expires_at,
                            renewed: false,
                            renewed_at: None,
                            before_renew: None,
                        }),
                        ..LockHistory::default()
                    },
                );
                self.tokens = TokenFacts {
                    next: self.service.next_token(),
                    grants: self.tokens.grants + 1,
                    refused_acquires: 0,
                    renews: 0,
                    releases: 0,
                };
                Seed::Granted(lease)
            }
            None => {
                self.tokens.refused_acquires += 1;
                Seed::NotGranted
            }
        }
    }

    fn renew(&mut self, name: &str, client: &str, token: u64) -> Seed {
        match self.service.renew(name, client, token) {
            Ok(lease) => {
                let history = self.locks.entry(name.to_owned()).or_default();
                if let Some(latest) = &mut history.latest {
                    latest.before_renew = Some(latest.expires_at);
                    latest.expires_at = lease.expires_at;
                    latest.renewed = true;
                    latest.renewed_at = Some(self.now);
                }
                self.tokens.renews += 1;
                Seed::Renewed(lease)
            }
            Err(e) => Seed::Refused(e),
        }
    }

    fn release(&mut self, name: &str, client: &str, token: u64) -> Seed {
        let live = self.service.lease(name).is_some();
        let result = self.service.release(name, client, token);
        let history = self.locks.entry(name.to_owned()).or_default();
        match result {
            Ok(()) => {
                history.released = true;
                self.tokens.releases += 1;
                Seed::Released
            }
            Err(e) => {
                history.refused_release |= live;
                Seed::Refused(e)
            }
        }
    }
}

/// The lock a call is about.
fn lock_name(request: &Request) -> Option<&str> {
    match request {
        Request::Acquire { name, .. }
        | Request::Renew { name, .. }
        | Request::Release { name, .. }
        | Request::Holder { name } => Some(name),
        _ => None,
    }
}

/// The key a call is about.
fn key_name(request: &Request) -> Option<&str> {
    match request {
        Request::Write { key, .. } | Request::Read { key } | Request::HighestToken { key } => {
            Some(key)
        }
        _ => None,
    }
}

/// The seed's decision as a correct adapter replies it.
fn reply_of(seed: &Seed) -> Reply {
    let lease = |l: &Lease| Reply::Lease(Some(LeaseReply::new(l.token, Some(l.expires_at))));
    match seed {
        Seed::Setup => Reply::Done,
        Seed::BadSettings(why) => Reply::Refused(why.clone()),
        Seed::Granted(l) | Seed::Renewed(l) => lease(l),
        Seed::NotGranted => Reply::Lease(None),
        Seed::Refused(e) => Reply::Refused(e.to_string()),
        Seed::Released => Reply::Succeeded { none: None },
        Seed::Holder(h) => Reply::Holder(h.clone()),
        Seed::Wrote { verdict, .. } if verdict.accepted => Reply::Succeeded { none: None },
        Seed::Wrote { key, verdict } => Reply::Refused(
            crate::StaleToken {
                key: key.clone(),
                token: verdict.token,
                highest: verdict.key_highest.unwrap_or_default(),
            }
            .to_string(),
        ),
        Seed::Value(v) => Reply::Value(v.clone()),
        Seed::Token(t) => Reply::Token(*t),
    }
}

#[cfg(test)]
mod tests;
