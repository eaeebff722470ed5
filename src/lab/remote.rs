//! The student's program as the simulation's backend: the world's [`LockApi`] and
//! [`StorageApi`] answered over the protocol, so the lesson and the chaos test run on the
//! student's code. Beside the program, the seed decides each call on the same state: where the
//! two agree, the world gets the seed's own account (the reason a renew was refused, the check a
//! write passed), so a correct implementation tells the built-in lesson word for word; where they
//! differ, the world gets what the student's code really returned, and a [`Difference`] naming
//! the rule. A protocol failure is latched in the backend's `fault`, where the world halts, so a
//! broken program stops the story instead of inventing one.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::judge::{judge, Context, Kind, Profile, Seen};
use super::reference::{Decision, Reference, Seed};
use super::script::Subject;
use super::wire::{Reply, Request};
use crate::sim::backend::{
    Backend, BackendFactory, Difference, Differences, LockApi, NextToken, StorageApi,
};
use crate::sim::event::{ClientId, Refusal};
use crate::sim::Scenario;
use crate::{FenceCheck, Judge, Lease, StoredValue, Verdict};

/// One program, shared by every run a session replays: a process natively, the page's
/// JavaScript in a browser.
pub type Shared = Arc<Mutex<dyn Subject + Send>>;
pub use crate::sim::backend::Fault;

/// A factory that gives each run a fresh service and storage in the same program (`new`).
/// Every run shares one fault: once the program has failed it is stopped, so a replay cannot
/// bring it back.
pub fn factory(program: Shared) -> BackendFactory {
    factory_with_fault(program, Arc::default())
}

/// As [`factory`], with the fault the caller watches (the command line reports it at the end).
pub fn factory_with_fault(program: Shared, fault: Fault) -> BackendFactory {
    // The experiments `check` runs first, once: whether the program's time follows the clock
    // decides which rule a difference in the lesson is charged to.
    let profile = {
        let mut program = program.lock().unwrap_or_else(|e| e.into_inner());
        match super::profile::measure(&mut *program, &crate::realtime::pause) {
            Ok(findings) => findings.profile,
            Err(e) => {
                *fault.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.sentence);
                Profile::default()
            }
        }
    };
    // Which run last spoke to the program: runs alive at once (a lesson walked while its moments
    // are found) each get the program back in their own state before they speak.
    let speaker = Arc::new(AtomicU64::new(u64::MAX));
    let runs = Arc::new(AtomicU64::new(0));
    Arc::new(move |scenario: &Scenario, _check: FenceCheck| {
        let language = program
            .lock()
            .map(|p| p.language().to_owned())
            .unwrap_or_default();
        let link = Link(Arc::new(Mutex::new(Shadow {
            program: Arc::clone(&program),
            fault: Arc::clone(&fault),
            reference: Reference::default(),
            seen: Seen::default(),
            language,
            profile,
            differences: Differences::default(),
            granted: BTreeMap::new(),
            now: 0.0,
            lease_seconds: scenario.lease_seconds,
            run: runs.fetch_add(1, Ordering::Relaxed),
            speaker: Arc::clone(&speaker),
            said: Vec::new(),
            diverged: false,
        })));
        link.call(&Request::New {
            lease_seconds: Some(scenario.lease_seconds),
            first_token: Some(scenario.first_token),
        });
        let differences = link.shadow().differences.clone();
        Backend {
            locks: Box::new(link.clone()),
            storage: Box::new(RemoteStorage {
                link,
                entries: BTreeMap::new(),
                accepted_highest: BTreeMap::new(),
            }),
            fault: Some(Arc::clone(&fault)),
            differences,
        }
    })
}

/// How a fault from a starter's unwritten method ends.
pub const NOT_IMPLEMENTED: &str = "is not implemented yet";

/// The program, and the seed deciding beside it.
struct Shadow {
    program: Shared,
    fault: Fault,
    reference: Reference,
    seen: Seen,
    language: String,
    /// What the experiments found of the program.
    profile: Profile,
    differences: Differences,
    /// Each lock's latest grant as the program made it: (token, when). The protocol's lease has
    /// no grant time, and a renew keeps the lease's grant, as the library's does.
    granted: BTreeMap<String, (u64, f64)>,
    now: f64,
    lease_seconds: f64,
    /// This run's number among the factory's runs, and the number of the run that last spoke to
    /// the program (none yet: `u64::MAX`).
    run: u64,
    speaker: Arc<AtomicU64>,
    /// Every request this run sent, from its `new`: replayed to the program when another run
    /// spoke to it in between, so the program is back in this run's state.
    said: Vec<Request>,
    /// The program's state has left the seed's (a grant, a refusal or a verdict differed): from
    /// then on its answers are told as they are and compared with nothing, since the seed's
    /// would answer another state and charge the wrong rule.
    diverged: bool,
}

/// One call's answers: the program's reply (`None` once it has failed) and the seed's
/// decision, with whether they agree.
struct Answer {
    reply: Option<Reply>,
    decision: Decision,
    agrees: bool,
}

#[derive(Clone)]
struct Link(Arc<Mutex<Shadow>>);

impl Link {
    fn shadow(&self) -> std::sync::MutexGuard<'_, Shadow> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn call(&self, request: &Request) -> Answer {
        let mut shadow = self.shadow();
        let decision = shadow.reference.decide(request);
        let reply = shadow.ask(request);
        let Some(got) = reply.as_ref().filter(|_| !shadow.diverged) else {
            return Answer {
                reply,
                decision,
                agrees: false,
            };
        };
        let cx = Context {
            profile: shadow.profile,
            seen: &shadow.seen,
            language: &shadow.language,
        };
        let mut divergence = judge(request, &decision, got, &cx);
        // A program whose time is not the clock differs from the seed, in the lesson, because of
        // that: whatever follows from its first difference is that rule's too.
        if shadow.profile.clock_ignored {
            if let Some(d) = &mut divergence {
                d.rule = crate::lab::seed::Rule::ClockOnly;
            }
        }
        shadow.seen.note(request, got, decision.now);
        // Where float rounding alone decides, the program's answer stands, and nothing is noted.
        let noted = divergence.as_ref().filter(|d| d.kind != Kind::Unclear);
        if let Some(d) = noted {
            shadow.diverged |= d.kind == Kind::State;
            let difference = Difference {
                call: request.call(),
                got: got.describe(),
                seed: d.expected.clone(),
                rule: d.rule.id(),
            };
            shadow
                .differences
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(difference);
        }
        Answer {
            agrees: divergence.is_none(),
            reply,
            decision,
        }
    }
}

impl Link {
    /// A call of the backend's own (reading back what the storage holds, for its panel), not one
    /// of the lesson's: answered, not judged.
    fn call_unjudged(&self, request: &Request) -> Option<Reply> {
        let mut shadow = self.shadow();
        shadow.reference.decide(request);
        shadow.ask(request)
    }
}

impl Shadow {
    /// The program's reply, or `None` once it has failed (the fault says why).
    fn ask(&mut self, request: &Request) -> Option<Reply> {
        let mut fault = self.fault.lock().unwrap_or_else(|e| e.into_inner());
        if fault.is_some() {
            return None;
        }
        let mut program = self.program.lock().unwrap_or_else(|e| e.into_inner());
        if self.speaker.load(Ordering::Relaxed) != self.run {
            for earlier in &self.said {
                if let Err(e) = call(&mut *program, earlier) {
                    *fault = Some(e.sentence);
                    return None;
                }
            }
            self.speaker.store(self.run, Ordering::Relaxed);
        }
        self.said.push(request.clone());
        match call(&mut *program, request) {
            Ok(Reply::NotImplemented(method)) => {
                *fault = Some(format!(
                    "{} {NOT_IMPLEMENTED}",
                    super::wire::one_line(&method)
                ));
                None
            }
            Ok(reply) => Some(reply),
            Err(e) => {
                *fault = Some(e.sentence);
                None
            }
        }
    }
}

/// One request and its reply, nothing else in flight.
fn call(program: &mut dyn Subject, request: &Request) -> Result<Reply, super::wire::ProtocolError> {
    program.send(request)?;
    program.receive()
}

/// What the program said when it refused, for the world's event.
fn said(reply: &Option<Reply>) -> Refusal {
    Refusal::Said(match reply {
        Some(Reply::Refused(message)) => super::wire::one_line(message),
        Some(other) => format!("returned {}", other.describe()),
        None => "the program stopped answering".into(),
    })
}

impl Link {
    /// The lease in the program's reply to an acquire or renew (`renewing`), which keeps the
    /// grant's time when it keeps its token.
    fn lease_of(
        &self,
        lock: &str,
        client: &str,
        reply: &Option<Reply>,
        renewing: bool,
    ) -> Option<Lease> {
        let Some(Reply::Lease(Some(l))) = reply else {
            return None;
        };
        let mut shadow = self.shadow();
        let granted_at = match shadow.granted.get(lock) {
            Some(&(token, at)) if renewing && token == l.token => at,
            _ => shadow.now,
        };
        shadow
            .granted
            .insert(lock.to_owned(), (l.token, granted_at));
        Some(Lease {
            name: lock.to_owned(),
            client_id: client.to_owned(),
            token: l.token,
            granted_at,
            // A lease object without an expiry is drawn as the seed's rule would have it.
            expires_at: l.expires_at.unwrap_or(shadow.now + shadow.lease_seconds),
        })
    }
}

impl LockApi for Link {
    fn set_time(&mut self, seconds: f64) {
        if seconds != self.shadow().now {
            self.shadow().now = seconds;
            self.call(&Request::Clock { now: seconds });
        }
    }

    fn acquire(&mut self, lock: &str, client: &str) -> Option<Lease> {
        let answer = self.call(&Request::Acquire {
            name: lock.into(),
            client_id: client.into(),
        });
        let lease = self.lease_of(lock, client, &answer.reply, false);
        match answer.decision.seed {
            Seed::Granted(seed) if answer.agrees => Some(seed),
            _ => lease,
        }
    }

    fn renew(&mut self, lock: &str, client: &str, token: u64) -> Result<Lease, Refusal> {
        let answer = self.call(&Request::Renew {
            name: lock.into(),
            client_id: client.into(),
            token,
        });
        let lease = self.lease_of(lock, client, &answer.reply, true);
        match answer.decision.seed {
            Seed::Renewed(seed) if answer.agrees => Ok(seed),
            Seed::Refused(why) if answer.agrees => Err(Refusal::Lease(why)),
            _ => lease.ok_or_else(|| said(&answer.reply)),
        }
    }

    fn release(&mut self, lock: &str, client: &str, token: u64) -> Result<(), Refusal> {
        let answer = self.call(&Request::Release {
            name: lock.into(),
            client_id: client.into(),
            token,
        });
        let succeeded = matches!(answer.reply, Some(Reply::Succeeded { .. }));
        match answer.decision.seed {
            // The seed's reason, wherever the program refused as the seed did.
            Seed::Refused(why) if !succeeded && answer.reply.is_some() => Err(Refusal::Lease(why)),
            _ if succeeded => Ok(()),
            _ => Err(said(&answer.reply)),
        }
    }

    fn holder(&mut self, lock: &str) -> Option<ClientId> {
        match self.call(&Request::Holder { name: lock.into() }).reply {
            Some(Reply::Holder(h)) => h.as_deref().and_then(ClientId::from_name),
            _ => None,
        }
    }

    fn next_token(&self) -> NextToken {
        NextToken::Unknown
    }
}

struct RemoteStorage {
    link: Link,
    /// What the student's storage says each written key holds, read back after each write.
    entries: BTreeMap<String, StoredValue>,
    /// The highest token each key really accepted, as observed: the verdict's measure of stale.
    accepted_highest: BTreeMap<String, u64>,
}

impl StorageApi for RemoteStorage {
    fn write(&mut self, key: &str, value: &str, token: u64) -> Verdict {
        let key_highest = self.accepted_highest.get(key).copied();
        let any_highest = self.accepted_highest.values().max().copied();
        let answer = self.link.call(&Request::Write {
            key: key.into(),
            value: value.into(),
            token,
        });
        let returned = matches!(answer.reply, Some(Reply::Succeeded { .. }));
        let read = self.link.call_unjudged(&Request::Read { key: key.into() });
        let highest = self
            .link
            .call_unjudged(&Request::HighestToken { key: key.into() });
        // A write that returned normally but left the key's value as it was took nothing: the
        // lesson tells what the storage holds, never a write landing that did not.
        let accepted = returned
            && match &read {
                Some(Reply::Value(stored)) => stored.as_deref() == Some(value),
                _ => true,
            };
        if accepted {
            let highest = self.accepted_highest.entry(key.to_owned()).or_insert(token);
            *highest = (*highest).max(token);
        }
        if let (Some(Reply::Value(Some(value))), Some(Reply::Token(highest))) = (read, highest) {
            let value_token = if accepted {
                token
            } else {
                self.entries.get(key).map_or(token, |e| e.value_token)
            };
            self.entries.insert(
                key.to_owned(),
                StoredValue {
                    value,
                    value_token,
                    highest: highest.unwrap_or(value_token),
                },
            );
        }
        match answer.decision.seed {
            Seed::Wrote { verdict, .. } if answer.agrees => verdict,
            _ => Verdict::observed(token, key_highest, any_highest, accepted),
        }
    }

    fn judge(&self) -> Judge {
        Judge::External
    }

    fn set_check(&mut self, _check: FenceCheck) -> bool {
        false
    }

    fn entries(&self) -> Vec<(String, StoredValue)> {
        self.entries
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests;
