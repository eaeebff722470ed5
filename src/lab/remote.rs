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
                granted: BTreeMap::new(),
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
    /// Each lock's latest grant: (token, when). The protocol's lease has no grant time, and a
    /// renew keeps the lease's grant, as the library's does.
    granted: BTreeMap<String, (u64, f64)>,
}

impl RemoteLocks {
    /// The lease in a reply to an acquire, or to a renew (`renewing`), which keeps the grant's
    /// time when it keeps its token.
    fn lease(
        &mut self,
        lock: &str,
        client: &str,
        reply: Option<Reply>,
        renewing: bool,
    ) -> Result<Lease, Refusal> {
        match reply {
            Some(Reply::Lease(Some(l))) => {
                let granted_at = match self.granted.get(lock) {
                    Some(&(token, at)) if renewing && token == l.token => at,
                    _ => self.now,
                };
                self.granted.insert(lock.to_owned(), (l.token, granted_at));
                Ok(Lease {
                    name: lock.to_owned(),
                    client_id: client.to_owned(),
                    token: l.token,
                    granted_at,
                    // A lease object without an expiry is drawn as the seed's rule would have it.
                    expires_at: l.expires_at.unwrap_or(self.now + self.lease_seconds),
                })
            }
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
        self.lease(lock, client, reply, false).ok()
    }

    fn renew(&mut self, lock: &str, client: &str, token: u64) -> Result<Lease, Refusal> {
        let reply = self.link.call(&Request::Renew {
            name: lock.into(),
            client_id: client.into(),
            token,
        });
        self.lease(lock, client, reply, true)
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

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::*;
    use crate::lab::script::double::{lab_path, PATIENT, SH_HELLO};
    use crate::sim::backend::Backend;

    fn share(command: Command) -> Shared {
        Arc::new(Mutex::new(Program::start(command, PATIENT).unwrap()))
    }

    /// The correct Python solution.
    fn python() -> Shared {
        let mut command = Command::new("python3");
        command.arg(lab_path("correct/python/adapter.py"));
        share(command)
    }

    /// A program that says hello, then answers the next requests with `replies` in turn (`#`
    /// stands for the request's id), whatever they ask, and exits.
    fn scripted(replies: &[&str]) -> Shared {
        let mut script = SH_HELLO.to_owned();
        for (id, reply) in replies.iter().enumerate() {
            script += &format!(
                "\nread l; echo '{}'",
                reply.replace('#', &(id + 1).to_string())
            );
        }
        let mut command = Command::new("sh");
        command.arg("-c").arg(script);
        share(command)
    }

    /// gc-pause, with a lease and a first token no implementation defaults to.
    fn scenario() -> Scenario {
        let mut scenario = Scenario::built_in("gc-pause").unwrap();
        scenario.lease_seconds = 8.0;
        scenario.first_token = 40;
        scenario
    }

    fn calls(program: &Shared) -> u64 {
        program.lock().unwrap().calls
    }

    fn fault(backend: &Backend) -> Option<String> {
        backend.fault.lock().unwrap().clone()
    }

    fn lease(client: &str, token: u64, granted_at: f64, expires_at: f64) -> Lease {
        Lease {
            name: "file-lock".into(),
            client_id: client.into(),
            token,
            granted_at,
            expires_at,
        }
    }

    fn said(message: &str) -> Refusal {
        Refusal::Said(message.into())
    }

    fn verdict(token: u64, key: Option<u64>, any: Option<u64>, accepted: bool) -> Verdict {
        Verdict {
            judge: Judge::External,
            token,
            key_highest: key,
            any_highest: any,
            accepted,
            replaced_token: None,
        }
    }

    fn stored(key: &str, value: &str, value_token: u64, highest: u64) -> (String, StoredValue) {
        let value = value.to_owned();
        let stored = StoredValue {
            value,
            value_token,
            highest,
        };
        (key.to_owned(), stored)
    }

    #[test]
    fn the_backend_runs_the_lock_service_and_storage_of_the_students_program() {
        if !crate::lab::script::double::python3() {
            return;
        }
        let program = python();
        let Backend {
            mut locks,
            mut storage,
            fault,
        } = factory(Arc::clone(&program))(&scenario(), FenceCheck::PerKey);
        assert_eq!(calls(&program), 2, "hello and new");
        assert_eq!(locks.next_token(), NextToken::Unknown);

        // The clock is sent only when it changes.
        locks.set_time(0.0);
        assert_eq!(calls(&program), 2);
        assert_eq!(
            locks.acquire("file-lock", "client-1"),
            Some(lease("client-1", 40, 0.0, 8.0))
        );
        assert_eq!(calls(&program), 3);
        locks.set_time(3.0);
        assert_eq!(calls(&program), 4);
        locks.set_time(3.0);
        assert_eq!(calls(&program), 4);

        let held = said("lock 'file-lock' is held by client-1, not by client-3");
        assert_eq!(locks.acquire("file-lock", "client-3"), None);
        assert_eq!(locks.holder("file-lock"), Some("client-1".into()));
        assert_eq!(
            locks.renew("file-lock", "client-1", 40),
            Ok(lease("client-1", 40, 0.0, 11.0)),
            "a renew keeps the grant's time, as the library's does"
        );
        assert_eq!(locks.renew("file-lock", "client-3", 40), Err(held.clone()));
        assert_eq!(locks.release("file-lock", "client-3", 40), Err(held));
        assert_eq!(locks.release("file-lock", "client-1", 40), Ok(()));
        assert_eq!(locks.holder("file-lock"), None);
        assert_eq!(
            locks.acquire("file-lock", "client-3"),
            Some(lease("client-3", 41, 3.0, 11.0))
        );
        assert_eq!(calls(&program), 12);

        assert_eq!(storage.judge(), Judge::External);
        for check in FenceCheck::ALL {
            assert!(!storage.set_check(check));
        }
        assert_eq!(storage.entries(), []);
        assert_eq!(storage.write("file", "a", 2), verdict(2, None, None, true));
        assert_eq!(storage.entries(), [stored("file", "a", 2, 2)]);
        // Refused: the key keeps the value and token of its last accepted write.
        assert_eq!(
            storage.write("file", "b", 1),
            verdict(1, Some(2), Some(2), false)
        );
        assert_eq!(storage.entries(), [stored("file", "a", 2, 2)]);
        assert_eq!(
            storage.write("other", "c", 3),
            verdict(3, None, Some(2), true)
        );
        assert_eq!(
            storage.write("file", "d", 5),
            verdict(5, Some(2), Some(3), true)
        );
        assert_eq!(
            storage.entries(),
            [stored("file", "d", 5, 5), stored("other", "c", 3, 3)]
        );
        assert_eq!(calls(&program), 12 + 4 * 3);
        assert_eq!(*fault.lock().unwrap(), None);
    }

    #[test]
    fn what_the_program_answers_is_what_the_world_sees() {
        let program = scripted(&[
            r#"{"id":#,"done":true}"#,
            r#"{"id":#,"done":true}"#,
            r#"{"id":#,"lease":{"token":7}}"#,
            r#"{"id":#,"lease":{"token":7,"expires_at":null}}"#,
            r#"{"id":#,"done":true}"#,
            r#"{"id":#,"lease":{"token":8,"expires_at":13}}"#,
            r#"{"id":#,"lease":null}"#,
            r#"{"id":#,"refused":"token 6 is not yours"}"#,
            r#"{"id":#,"refused":"not yours"}"#,
            r#"{"id":#,"done":true}"#,
            r#"{"id":#,"holder":"client-9"}"#,
            r#"{"id":#,"refused":"busy"}"#,
            // write k 3: accepted; the storage has no highest token for it.
            r#"{"id":#,"done":true}"#,
            r#"{"id":#,"value":"v"}"#,
            r#"{"id":#,"token":null}"#,
            // write j 4: refused, yet the key holds a value.
            r#"{"id":#,"refused":"stale"}"#,
            r#"{"id":#,"value":"old"}"#,
            r#"{"id":#,"token":9}"#,
            // write k 2: refused.
            r#"{"id":#,"refused":"stale"}"#,
            r#"{"id":#,"value":"v"}"#,
            r#"{"id":#,"token":3}"#,
            // write k 5: accepted, but read back as nothing.
            r#"{"id":#,"done":true}"#,
            r#"{"id":#,"value":null}"#,
            r#"{"id":#,"token":5}"#,
            // write j 1: accepted.
            r#"{"id":#,"done":true}"#,
            r#"{"id":#,"value":"new"}"#,
            r#"{"id":#,"token":9}"#,
        ]);
        let Backend {
            mut locks,
            mut storage,
            fault,
        } = factory(Arc::clone(&program))(&scenario(), FenceCheck::PerKey);
        locks.set_time(4.0);
        // A lease without an expiry ends a scenario's lease after now.
        assert_eq!(
            locks.acquire("file-lock", "client-1"),
            Some(lease("client-1", 7, 4.0, 12.0))
        );
        assert_eq!(
            locks.renew("file-lock", "client-1", 7),
            Ok(lease("client-1", 7, 4.0, 12.0))
        );
        // A renew that hands out a new token is drawn as a new grant.
        locks.set_time(5.0);
        assert_eq!(
            locks.renew("file-lock", "client-1", 7),
            Ok(lease("client-1", 8, 5.0, 13.0))
        );
        assert_eq!(
            locks.renew("file-lock", "client-1", 7),
            Err(said("returned none"))
        );
        assert_eq!(
            locks.renew("file-lock", "client-1", 6),
            Err(said("token 6 is not yours"))
        );
        assert_eq!(
            locks.release("file-lock", "client-1", 6),
            Err(said("not yours"))
        );
        assert_eq!(locks.release("file-lock", "client-1", 7), Ok(()));
        assert_eq!(locks.holder("file-lock"), Some("client-9".into()));
        assert_eq!(locks.acquire("file-lock", "client-2"), None);

        assert_eq!(storage.write("k", "v", 3), verdict(3, None, None, true));
        assert_eq!(storage.entries(), [stored("k", "v", 3, 3)]);
        assert_eq!(storage.write("j", "x", 4), verdict(4, None, Some(3), false));
        assert_eq!(
            storage.write("k", "y", 2),
            verdict(2, Some(3), Some(3), false)
        );
        assert_eq!(
            storage.entries(),
            [stored("j", "old", 4, 9), stored("k", "v", 3, 3)]
        );
        assert_eq!(
            storage.write("k", "z", 5),
            verdict(5, Some(3), Some(3), true)
        );
        assert_eq!(
            storage.write("j", "new", 1),
            verdict(1, None, Some(5), true)
        );
        assert_eq!(
            storage.entries(),
            [stored("j", "new", 1, 9), stored("k", "v", 3, 3)]
        );
        assert_eq!(calls(&program), 28);
        assert_eq!(*fault.lock().unwrap(), None);
    }

    #[test]
    fn a_method_not_implemented_stops_every_run_without_another_request() {
        let program = scripted(&[
            r#"{"id":#,"done":true}"#,
            r#"{"id":#,"done":true}"#,
            r#"{"id":#,"not_implemented":"LockService.acquire"}"#,
        ]);
        let watched = Fault::default();
        let factory = factory_with_fault(Arc::clone(&program), Arc::clone(&watched));
        let mut backend = factory(&scenario(), FenceCheck::PerKey);
        assert!(Arc::ptr_eq(&backend.fault, &watched));
        backend.locks.set_time(2.0);
        assert_eq!(backend.locks.acquire("file-lock", "client-1"), None);
        let stopped = "LockService.acquire is not implemented yet";
        assert_eq!(fault(&backend).as_deref(), Some(stopped));
        assert_eq!(calls(&program), 4);

        let locks = &mut backend.locks;
        let silent = said("the program stopped answering");
        assert_eq!(locks.acquire("file-lock", "client-1"), None);
        assert_eq!(
            locks.renew("file-lock", "client-1", 40),
            Err(silent.clone())
        );
        assert_eq!(locks.release("file-lock", "client-1", 40), Err(silent));
        assert_eq!(locks.holder("file-lock"), None);
        locks.set_time(5.0);
        assert_eq!(
            backend.storage.write("k", "v", 40),
            verdict(40, None, None, false)
        );
        assert_eq!(backend.storage.entries(), []);
        // A replay's backend shares the fault and does not send `new`.
        let replay = factory(&scenario(), FenceCheck::PerKey);
        assert_eq!(fault(&replay).as_deref(), Some(stopped));
        assert_eq!(calls(&program), 4);
        assert_eq!(program.lock().unwrap().stderr_tail(), Vec::<String>::new());
    }

    #[test]
    fn a_protocol_error_is_the_fault_s_sentence() {
        let program = scripted(&[r#"{"id":#,"done":true}"#, "oops"]);
        let mut backend = factory(Arc::clone(&program))(&scenario(), FenceCheck::PerKey);
        assert_eq!(backend.locks.acquire("file-lock", "client-1"), None);
        assert_eq!(
            fault(&backend).as_deref(),
            Some(
                "the program replied 'oops', which is not JSON (print debugging output on stderr, \
                 never on stdout) at request 2 (acquire(file-lock, client-1)); it wrote nothing \
                 on stderr"
            )
        );
        assert_eq!(backend.locks.holder("file-lock"), None);
        assert_eq!(calls(&program), 2);
    }
}
