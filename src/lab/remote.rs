//! The student's program as the simulation's backend: the world's [`LockApi`] and
//! [`StorageApi`] answered over the protocol, so the lesson and the chaos test run on the
//! student's code. A protocol failure is latched in the backend's `fault` and every later call is
//! refused, so a broken program stops the story instead of inventing one.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use super::protocol::{Program, Reply, Request};
use crate::sim::backend::{Backend, BackendFactory, LockApi, NextToken, StorageApi};
use crate::sim::event::Refusal;
use crate::sim::Scenario;
use crate::{FenceCheck, Judge, Lease, StoredValue, Verdict};

/// One program, shared by every run a session replays.
pub type Shared = Arc<Mutex<Program>>;
/// Why the program stopped answering, once it has.
pub type Fault = Arc<Mutex<Option<String>>>;

/// A factory that gives each run a fresh service and storage in the same program (`new`).
/// Every run shares one fault: once the program has failed it is stopped, so a replay cannot
/// bring it back.
pub fn factory(program: Shared) -> BackendFactory {
    factory_with_fault(program, Arc::default())
}

/// As [`factory`], with the fault the caller watches (the command line reports it at the end).
pub fn factory_with_fault(program: Shared, fault: Fault) -> BackendFactory {
    Arc::new(move |scenario: &Scenario, _check: FenceCheck| {
        let fault = Arc::clone(&fault);
        let link = Link {
            program: Arc::clone(&program),
            fault: Arc::clone(&fault),
        };
        link.call(&Request::New {
            lease_seconds: Some(scenario.lease_seconds),
            first_token: Some(scenario.first_token),
        });
        Backend {
            locks: Box::new(RemoteLocks {
                link: link.clone(),
                lease_seconds: scenario.lease_seconds,
                now: 0.0,
            }),
            storage: Box::new(RemoteStorage {
                link,
                entries: BTreeMap::new(),
                accepted_highest: BTreeMap::new(),
            }),
            fault,
        }
    })
}

/// How a fault from a starter's unwritten method ends.
pub const NOT_IMPLEMENTED: &str = "is not implemented yet";

#[derive(Clone)]
struct Link {
    program: Shared,
    fault: Fault,
}

impl Link {
    /// The reply, or `None` once the program has failed (the fault says why).
    fn call(&self, request: &Request) -> Option<Reply> {
        let mut fault = self.fault.lock().unwrap_or_else(|e| e.into_inner());
        if fault.is_some() {
            return None;
        }
        let mut program = self.program.lock().unwrap_or_else(|e| e.into_inner());
        match program.call(request) {
            Ok(Reply::NotImplemented(method)) => {
                *fault = Some(format!("{method} {NOT_IMPLEMENTED}"));
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

struct RemoteLocks {
    link: Link,
    lease_seconds: f64,
    now: f64,
}

impl RemoteLocks {
    fn lease(&self, lock: &str, client: &str, reply: Option<Reply>) -> Result<Lease, Refusal> {
        match reply {
            Some(Reply::Lease(Some(l))) => Ok(Lease {
                name: lock.to_owned(),
                client_id: client.to_owned(),
                token: l.token,
                granted_at: self.now,
                // A lease object without an expiry is drawn as the seed's rule would have it.
                expires_at: l.expires_at.unwrap_or(self.now + self.lease_seconds),
            }),
            Some(Reply::Refused(message)) => Err(Refusal::Said(message)),
            Some(Reply::Lease(None)) => Err(Refusal::Said("returned none".into())),
            _ => Err(Refusal::Said("the program stopped answering".into())),
        }
    }
}

impl LockApi for RemoteLocks {
    fn set_time(&mut self, seconds: f64) {
        if seconds != self.now {
            self.now = seconds;
            self.link.call(&Request::Clock { now: seconds });
        }
    }

    fn acquire(&mut self, lock: &str, client: &str) -> Option<Lease> {
        let reply = self.link.call(&Request::Acquire {
            name: lock.into(),
            client_id: client.into(),
        });
        self.lease(lock, client, reply).ok()
    }

    fn renew(&mut self, lock: &str, client: &str, token: u64) -> Result<Lease, Refusal> {
        let reply = self.link.call(&Request::Renew {
            name: lock.into(),
            client_id: client.into(),
            token,
        });
        self.lease(lock, client, reply)
    }

    fn release(&mut self, lock: &str, client: &str, token: u64) -> Result<(), Refusal> {
        match self.link.call(&Request::Release {
            name: lock.into(),
            client_id: client.into(),
            token,
        }) {
            Some(Reply::Done) => Ok(()),
            Some(Reply::Refused(message)) => Err(Refusal::Said(message)),
            _ => Err(Refusal::Said("the program stopped answering".into())),
        }
    }

    fn holder(&mut self, lock: &str) -> Option<String> {
        match self.link.call(&Request::Holder { name: lock.into() }) {
            Some(Reply::Holder(h)) => h,
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
        let accepted = matches!(
            self.link.call(&Request::Write {
                key: key.into(),
                value: value.into(),
                token,
            }),
            Some(Reply::Done)
        );
        if accepted {
            let highest = self.accepted_highest.entry(key.to_owned()).or_insert(token);
            *highest = (*highest).max(token);
        }
        let read = self.link.call(&Request::Read { key: key.into() });
        let highest = self.link.call(&Request::HighestToken { key: key.into() });
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
        Verdict::observed(token, key_highest, any_highest, accepted)
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
