//! The in-process student: a correct implementation of the seed unless told to make one
//! [`Mistake`], answering requests as a program would, in microseconds.

use std::collections::{BTreeMap, VecDeque};

use super::super::script::Subject;
use super::super::wire::ProtocolError;
use super::super::wire::{LeaseReply, Reply, Request};
use super::Mistake;

#[derive(Clone)]
struct Grant {
    client: String,
    token: u64,
    expires: f64,
    /// When the lease began (its grant or its last renew) and how long it runs from then: the
    /// elapsed idiom asks `now - start < length` where the seed asks `now < expires`.
    start: f64,
    length: f64,
    released: bool,
}

/// State a leaky student keeps outside its service, surviving `new`.
#[derive(Clone, Default)]
struct Leaked {
    next: Option<u64>,
    grants: BTreeMap<String, Grant>,
}

/// The in-process student.
pub struct Student {
    mistake: Mistake,
    /// Whether a lease is live is asked as time elapsed since it began, not against its expiry:
    /// the two differ, in the last bit, where float rounding decides a lease's end.
    elapsed: bool,
    now: f64,
    lease: f64,
    first: u64,
    next: u64,
    next_by_lock: BTreeMap<String, u64>,
    grants: BTreeMap<String, Grant>,
    entries: BTreeMap<String, (String, u64)>,
    leaked: Leaked,
    /// A service was made (a `new`), so state kept outside it is set.
    made: bool,
    pending: VecDeque<Reply>,
    /// Requests answered.
    pub calls: u64,
    /// The most requests it has had in flight at once.
    pub most_in_flight: usize,
}

impl Student {
    pub fn new(mistake: Mistake) -> Student {
        Student {
            mistake,
            elapsed: false,
            now: 0.0,
            lease: 10.0,
            first: 1,
            next: 1,
            next_by_lock: BTreeMap::new(),
            grants: BTreeMap::new(),
            entries: BTreeMap::new(),
            leaked: Leaked::default(),
            made: false,
            pending: VecDeque::new(),
            calls: 0,
            most_in_flight: 0,
        }
    }

    /// The same student, asking whether a lease is live as `now - start < length`, the way
    /// students who keep a grant's start time write it.
    pub fn measuring_elapsed(mut self) -> Student {
        self.elapsed = true;
        self
    }

    fn is(&self, mistake: Mistake) -> bool {
        self.mistake == mistake
    }

    fn live(&self, grant: &Grant) -> bool {
        let (now, end) = if self.elapsed {
            (self.now - grant.start, grant.length)
        } else {
            (self.now, grant.expires)
        };
        !grant.released
            && if self.is(Mistake::ExpiryInclusive) {
                now <= end
            } else {
                now < end
            }
    }

    fn take_token(&mut self, name: &str) -> u64 {
        if self.is(Mistake::CounterPerLock) {
            let next = self
                .next_by_lock
                .entry(name.to_owned())
                .or_insert(self.first);
            *next += 1;
            *next - 1
        } else {
            self.next += 1;
            self.next - 1
        }
    }

    fn lease_reply(token: u64, expires: f64) -> Reply {
        Reply::Lease(Some(LeaseReply::new(token, Some(expires))))
    }

    fn refused(why: &str) -> Reply {
        Reply::Refused(why.to_owned())
    }

    /// Whether a renew or release may act on `name`'s grant, as the seed (or the mistake) says.
    fn may_act(&self, name: &str, client: &str, token: u64, renewing: bool) -> bool {
        let Some(g) = self.grants.get(name) else {
            return false;
        };
        let m = self.mistake;
        let expired_ok =
            (renewing && m == Mistake::RenewExpired) || (!renewing && m == Mistake::ReleaseExpired);
        let any_token = (renewing && m == Mistake::RenewAnyToken)
            || (!renewing && m == Mistake::ReleaseAnyToken);
        let any_client = renewing && m == Mistake::RenewAnyClient;
        let by_name = !renewing && m == Mistake::ReleaseByName;
        let live = self.live(g) || (expired_ok && !g.released);
        live && (by_name || (any_client || g.client == client) && (any_token || g.token == token))
    }

    fn new_service(&mut self, lease_seconds: Option<f64>, first_token: Option<u64>) -> Reply {
        let m = self.mistake;
        let default_lease = if m == Mistake::DefaultLease30 {
            30.0
        } else {
            10.0
        };
        let default_first = if m == Mistake::DefaultFirstToken0 {
            0
        } else {
            1
        };
        // A leaky student keeps its outside state; everything else starts over.
        // The first service made sets the outside counter; later ones find it there.
        let mut leaked = self.leaked.clone();
        if m == Mistake::KeepsCounterAcrossNew && self.made {
            leaked.next = Some(self.next);
        }
        if m == Mistake::KeepsGrantsAcrossNew {
            leaked.grants = self.grants.clone();
        }
        *self = Student {
            calls: self.calls,
            most_in_flight: self.most_in_flight,
            pending: std::mem::take(&mut self.pending),
            elapsed: self.elapsed,
            ..Student::new(m)
        };
        self.lease = lease_seconds.unwrap_or(default_lease);
        self.first = match first_token {
            Some(given) if m != Mistake::FirstTokenIgnored => given,
            _ => default_first,
        };
        self.next = leaked.next.unwrap_or(self.first);
        self.grants = leaked.grants.clone();
        self.leaked = leaked;
        self.made = true;
        Reply::Done
    }

    fn acquire(&mut self, name: &str, client: &str) -> Reply {
        let m = self.mistake;
        if m == Mistake::RefusedAcquireBumps {
            self.take_token(name);
        }
        if let Some(g) = self.grants.get(name) {
            let held = if m == Mistake::AcquireIgnoresExpiry {
                !g.released
            } else {
                self.live(g)
            };
            if held && !(m == Mistake::ReacquireOwn && g.client == client) {
                return Reply::Lease(None);
            }
        }
        let token = if m == Mistake::RefusedAcquireBumps {
            self.next - 1
        } else {
            self.take_token(name)
        };
        let late = if m == Mistake::LeaseOneSecondLonger {
            1.0
        } else {
            0.0
        };
        let length = self.lease + late;
        let expires = self.now + length;
        let grant = Grant {
            client: client.to_owned(),
            token,
            expires,
            start: self.now,
            length,
            released: false,
        };
        self.grants.insert(name.to_owned(), grant);
        Student::lease_reply(token, expires)
    }

    fn renew(&mut self, name: &str, client: &str, token: u64) -> Reply {
        if !self.may_act(name, client, token, true) {
            return Student::refused("not yours");
        }
        let m = self.mistake;
        let new_token = if m == Mistake::RenewNewToken {
            Some(self.take_token(name))
        } else {
            if m == Mistake::RenewBumpsCounter {
                self.take_token(name);
            }
            None
        };
        let (now, lease) = (self.now, self.lease);
        let grant = self.grants.get_mut(name).expect("may act on it");
        match m {
            Mistake::RenewFromOldExpiry => {
                grant.expires += lease;
                grant.length += lease;
            }
            Mistake::RenewKeepsExpiry => {}
            _ => {
                grant.expires = now + lease;
                (grant.start, grant.length) = (now, lease);
            }
        }
        grant.token = new_token.unwrap_or(grant.token);
        Student::lease_reply(grant.token, grant.expires)
    }

    fn release(&mut self, name: &str, client: &str, token: u64) -> Reply {
        if !self.may_act(name, client, token, false) {
            return Student::refused("not yours");
        }
        if self.mistake != Mistake::ReleaseDoesNotFree {
            if let Some(g) = self.grants.get_mut(name) {
                g.released = true;
            }
        }
        if self.is(Mistake::ReleaseBumpsCounter) {
            self.take_token(name);
        }
        Reply::Succeeded { none: None }
    }

    fn holder(&self, name: &str) -> Reply {
        let m = self.mistake;
        if m == Mistake::HolderReturnsNumber {
            return Reply::Strange("42, not a string or none".into());
        }
        let named = self.grants.get(name).filter(|g| match m {
            Mistake::HolderIgnoresExpiry => !g.released,
            Mistake::HolderAfterRelease => self.now < g.expires,
            _ => self.live(g),
        });
        Reply::Holder(named.map(|g| g.client.clone()))
    }

    fn write(&mut self, key: &str, value: &str, token: u64) -> Reply {
        let m = self.mistake;
        let highest = if m == Mistake::GlobalHighest {
            self.entries.values().map(|e| e.1).max()
        } else {
            self.entries.get(key).map(|e| e.1)
        };
        let accepted = match highest {
            None => m != Mistake::WriteRefusesNewKey,
            Some(_) if m == Mistake::WriteUnchecked => true,
            Some(h) if m == Mistake::WriteStrict => token > h,
            Some(h) => token >= h,
        };
        if accepted {
            let keep_old = m == Mistake::WriteKeepsOldValue && self.entries.contains_key(key);
            let new_key = !self.entries.contains_key(key);
            let entry = self.entries.entry(key.to_owned()).or_default();
            if !keep_old {
                entry.0 = value.to_owned();
            }
            if new_key || m != Mistake::HighestNeverRises {
                entry.1 = token;
            }
            return Reply::Succeeded { none: None };
        }
        if let Some(entry) = self.entries.get_mut(key) {
            match m {
                Mistake::RejectedWriteKeepsValue => entry.0 = value.to_owned(),
                Mistake::RejectedWriteLowersHighest => entry.1 = token,
                Mistake::WriteReturnsNoneToRefuse => {
                    *entry = (value.to_owned(), token);
                    return Reply::Succeeded {
                        none: Some("None".into()),
                    };
                }
                _ => {}
            }
        }
        Student::refused(&format!("token {token} is stale"))
    }

    fn answer(&mut self, request: &Request) -> Reply {
        let m = self.mistake;
        if let Mistake::NotWritten(op) = m {
            if request.op() == op {
                let class = if matches!(op, "write" | "read" | "highest_token") {
                    "FencedStorage"
                } else {
                    "LockService"
                };
                return Reply::NotImplemented(format!("{class}.{op}"));
            }
        }
        match request {
            Request::Hello => Reply::Hello {
                language: "a test double".into(),
            },
            Request::New {
                lease_seconds,
                first_token,
            } => self.new_service(*lease_seconds, *first_token),
            Request::Clock { now } => {
                if m != Mistake::OwnClock {
                    self.now = *now;
                }
                Reply::Done
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
            Request::Holder { name } => self.holder(name),
            Request::Write { key, value, token } => self.write(key, value, *token),
            Request::Read { key } => Reply::Value(match self.entries.get(key) {
                Some(e) => Some(e.0.clone()),
                None if m == Mistake::ReadEmptyForNew => Some(String::new()),
                None => None,
            }),
            Request::HighestToken { key } => Reply::Token(match self.entries.get(key) {
                Some(e) => Some(e.1),
                None if m == Mistake::HighestZeroForNew => Some(0),
                None => None,
            }),
        }
    }
}

impl Subject for Student {
    fn send(&mut self, request: &Request) -> Result<(), ProtocolError> {
        let reply = self.answer(request);
        self.pending.push_back(reply);
        self.most_in_flight = self.most_in_flight.max(self.pending.len());
        Ok(())
    }

    fn receive(&mut self) -> Result<Reply, ProtocolError> {
        self.calls += 1;
        self.pending
            .pop_front()
            .ok_or_else(|| ProtocolError::new("no request is waiting for a reply"))
    }

    fn in_flight(&self) -> usize {
        self.pending.len()
    }

    fn language(&self) -> &str {
        "python 3 (a test double)"
    }

    fn answered(&self) -> u64 {
        self.calls
    }
}
