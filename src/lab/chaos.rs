//! The seed's chaos test on the student's code. The chaos world runs on the seed's own rules, and
//! every call it makes (a grant, a renew, a write...) is recorded; those calls are then played on
//! the student's code as one script a seed, so the student's every answer is compared with the
//! seed's, not only the writes that corrupt data. A storage that refuses every write, or a
//! service that grants nothing, fails at its first call.

use std::ops::RangeInclusive;
use std::sync::{Arc, Mutex};

use super::judge::Profile;
use super::reference::{Decision, Reference, Seed};
use super::script::{judge_replies, Call, Mismatch, Scope, Subject};
use super::wire::ProtocolError;
use super::wire::{Reply, Request};
use crate::sim::backend::{Backend, BackendFactory, LockApi, NextToken, StorageApi};
use crate::sim::event::{ClientId, Refusal};
use crate::sim::{Keep, Scenario, Setup, World};
use crate::{FenceCheck, Judge, Lease, StoredValue, Verdict};

/// The seed's calls, recorded as the world makes them.
#[derive(Default)]
struct Recorder {
    reference: Reference,
    calls: Vec<Call>,
    now: f64,
}

impl Recorder {
    fn decide(&mut self, request: Request) -> Decision {
        let decision = self.reference.decide(&request);
        self.calls.push(Call {
            step: None,
            request,
            decision: decision.clone(),
            repeats: None,
        });
        decision
    }
}

#[derive(Clone)]
struct Recording(Arc<Mutex<Recorder>>);

impl Recording {
    fn decide(&self, request: Request) -> Decision {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .decide(request)
    }
}

impl LockApi for Recording {
    fn set_time(&mut self, seconds: f64) {
        let mut recorder = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if recorder.now != seconds {
            recorder.now = seconds;
            recorder.decide(Request::Clock { now: seconds });
        }
    }

    fn acquire(&mut self, lock: &str, client: &str) -> Option<Lease> {
        match self
            .decide(Request::Acquire {
                name: lock.into(),
                client_id: client.into(),
            })
            .seed
        {
            Seed::Granted(lease) => Some(lease),
            _ => None,
        }
    }

    fn renew(&mut self, lock: &str, client: &str, token: u64) -> Result<Lease, Refusal> {
        let request = Request::Renew {
            name: lock.into(),
            client_id: client.into(),
            token,
        };
        match self.decide(request).seed {
            Seed::Renewed(lease) => Ok(lease),
            Seed::Refused(e) => Err(Refusal::Lease(e)),
            other => unreachable!("a renew is renewed or refused, not {other:?}"),
        }
    }

    fn release(&mut self, lock: &str, client: &str, token: u64) -> Result<(), Refusal> {
        let request = Request::Release {
            name: lock.into(),
            client_id: client.into(),
            token,
        };
        match self.decide(request).seed {
            Seed::Refused(e) => Err(Refusal::Lease(e)),
            _ => Ok(()),
        }
    }

    fn holder(&mut self, lock: &str) -> Option<ClientId> {
        match self.decide(Request::Holder { name: lock.into() }).seed {
            Seed::Holder(h) => h.as_deref().and_then(ClientId::from_name),
            _ => None,
        }
    }

    fn next_token(&self) -> NextToken {
        let recorder = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match recorder.reference.service().next_token() {
            Some(t) => NextToken::Is(t),
            None => NextToken::NoneLeft,
        }
    }
}

impl StorageApi for Recording {
    fn write(&mut self, key: &str, value: &str, token: u64) -> Verdict {
        let request = Request::Write {
            key: key.into(),
            value: value.into(),
            token,
        };
        match self.decide(request).seed {
            Seed::Wrote { verdict, .. } => verdict,
            other => unreachable!("a write has a verdict, not {other:?}"),
        }
    }

    fn judge(&self) -> Judge {
        Judge::Check(FenceCheck::PerKey)
    }

    fn set_check(&mut self, _check: FenceCheck) -> bool {
        false
    }

    fn entries(&self) -> Vec<(String, StoredValue)> {
        let recorder = self.0.lock().unwrap_or_else(|e| e.into_inner());
        recorder
            .reference
            .storage()
            .entries()
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.clone()))
            .collect()
    }
}

/// Every call the chaos world makes with `seed`, on the seed's rules, from its `new` on.
pub fn recorded_calls(scenario: &Arc<Scenario>, seed: u64) -> Vec<Call> {
    let recorder = Arc::new(Mutex::new(Recorder::default()));
    let shared = Arc::clone(&recorder);
    let factory: BackendFactory = Arc::new(move |scenario: &Scenario, _check| {
        let recording = Recording(Arc::clone(&shared));
        recording.decide(Request::New {
            lease_seconds: Some(scenario.lease_seconds),
            first_token: Some(scenario.first_token),
        });
        Backend {
            locks: Box::new(recording.clone()),
            storage: Box::new(recording),
            fault: None,
            differences: Default::default(),
        }
    });
    let setup = Setup::new(Arc::clone(scenario)).seed(seed).backend(factory);
    let mut world = World::new(&setup, &[], Keep::Counts);
    world.advance_to(scenario.end, &[]);
    drop(world);
    let calls = std::mem::take(&mut recorder.lock().unwrap_or_else(|e| e.into_inner()).calls);
    calls
}

/// How the writes of the chaos runs went, on the seed's rules and on the student's code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Writes {
    pub seed_accepts: u64,
    pub seed_rejects: u64,
    pub student_accepts: u64,
    pub student_rejects: u64,
}

/// What the chaos check found.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub calls: u64,
    pub writes: Writes,
    /// The first seed whose calls the student's code answered differently, and how.
    pub difference: Option<(u64, Mismatch)>,
    /// Seeds judged only up to a call where float rounding, not a rule, decided whether a lease
    /// was live (chaos times are not on a grid exact in binary).
    pub unclear: u64,
    /// The program stopped answering (and was started again), so the seeds after were not
    /// played and the writes are not counted over every seed.
    pub cut_short: bool,
    /// Seeds played, the one cut short included.
    pub played: u64,
}

/// Plays the calls of `seeds` on the student's code.
pub fn check(
    student: &mut dyn Subject,
    seeds: RangeInclusive<u64>,
    profile: Profile,
) -> Result<Found, ProtocolError> {
    let scenario = Arc::new(Scenario::built_in("chaos").expect("chaos is built in"));
    let mut found = Found {
        calls: 0,
        writes: Writes::default(),
        difference: None,
        unclear: 0,
        cut_short: false,
        played: 0,
    };
    // The next seed's calls are recorded and sent while the program answers this one's.
    let send = |seed: u64, student: &mut dyn Subject| -> Result<Vec<Call>, ProtocolError> {
        let calls = recorded_calls(&scenario, seed);
        for call in &calls {
            student.send(&call.request)?;
        }
        student.flush()?;
        Ok(calls)
    };
    let last = *seeds.end();
    let mut next = if seeds.is_empty() {
        None
    } else {
        Some(send(*seeds.start(), student)?)
    };
    for seed in seeds {
        let calls = next
            .take()
            .expect("each seed's calls are sent before it is judged");
        if seed < last {
            next = Some(send(seed + 1, student)?);
        }
        found.calls += calls.len() as u64;
        found.played += 1;
        // The first difference is judged; every write is counted, to say how the storage did.
        let mut rest = 0;
        if found.difference.is_none() {
            let mismatch = judge_replies(&calls, Scope::All, student, profile)?;
            if let Some(m) = mismatch {
                rest = m.transcript.len();
                count_writes(&calls[..rest], &m.transcript, &mut found.writes);
                if m.divergence.kind == super::judge::Kind::Unclear {
                    found.unclear += 1;
                } else {
                    found.difference = Some((seed, m));
                }
            } else {
                rest = calls.len();
                // Every reply was the seed's: each write went as the seed decided.
                for call in &calls {
                    count_one(call, &call.decision.reply, &mut found.writes);
                }
            }
        }
        let stopped = |m: &Mismatch| matches!(m.transcript.last(), Some(p) if p.got.is_stop());
        found.cut_short = found.difference.as_ref().is_some_and(|(_, m)| stopped(m));
        for call in &calls[rest..] {
            if found.cut_short {
                break;
            }
            let got = student.receive()?;
            found.cut_short = got.is_stop();
            count_one(call, &got, &mut found.writes);
        }
        // Each later seed could stop the program again, at the cost of its timeout.
        if found.cut_short {
            student.drain()?;
            break;
        }
    }
    Ok(found)
}

fn count_seed(call: &Call, writes: &mut Writes) {
    if let Seed::Wrote { verdict, .. } = &call.decision.seed {
        if verdict.accepted {
            writes.seed_accepts += 1;
        } else {
            writes.seed_rejects += 1;
        }
    }
}

fn count_one(call: &Call, got: &Reply, writes: &mut Writes) {
    if let Seed::Wrote { .. } = &call.decision.seed {
        count_seed(call, writes);
        if matches!(got, Reply::NotImplemented(_)) {
            // Not the storage's answer: its write is still to be written.
        } else if got.is_refusal() || got.is_unusable() {
            writes.student_rejects += 1;
        } else {
            writes.student_accepts += 1;
        }
    }
}

fn count_writes(calls: &[Call], played: &[super::script::Played], writes: &mut Writes) {
    for (call, played) in calls.iter().zip(played) {
        count_one(call, &played.got, writes);
    }
}

#[cfg(test)]
mod tests;
