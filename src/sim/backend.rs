//! The seam between the world and the implementations it drives: a lock service and a storage
//! behind two traits, so the lesson can run on this project's library or on a student's code
//! (the lab's protocol client implements the same traits).

use std::sync::Arc;

use super::event::{ClientId, Refusal};
use super::scenario::Scenario;
use crate::{
    CheckedStorage, FenceCheck, Judge, Lease, LockService, ManualClock, StoredValue, Verdict,
};

/// The lock service as the world uses it. Time reaches it only through [`set_time`](Self::set_time).
pub trait LockApi {
    /// Sets the service's clock, in seconds.
    fn set_time(&mut self, seconds: f64);
    /// `acquire(name, client_id)`: a lease, or `None`.
    fn acquire(&mut self, lock: &str, client: &str) -> Option<Lease>;
    /// `renew(name, client_id, token)`.
    fn renew(&mut self, lock: &str, client: &str, token: u64) -> Result<Lease, Refusal>;
    /// `release(name, client_id, token)`.
    fn release(&mut self, lock: &str, client: &str, token: u64) -> Result<(), Refusal>;
    /// `holder(name)`, as the client it names (none where it names no client of the lesson's).
    fn holder(&mut self, lock: &str) -> Option<ClientId>;
    /// The token the next grant will carry, as far as the implementation can say.
    fn next_token(&self) -> NextToken;
}

/// What a lock service says of its next grant's token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextToken {
    /// The next grant gets this token.
    Is(u64),
    /// Every token has been handed out: no more grants.
    NoneLeft,
    /// The implementation cannot say (a student's).
    Unknown,
}

/// The storage as the world uses it.
pub trait StorageApi {
    /// `write(key, value, token)`, and the verdict on it.
    fn write(&mut self, key: &str, value: &str, token: u64) -> Verdict;
    /// The rule that judges writes now.
    fn judge(&self) -> Judge;
    /// Switches the check; `false` when this storage's rule cannot be changed (a student's).
    fn set_check(&mut self, check: FenceCheck) -> bool;
    /// Every key with what it holds, in key order.
    fn entries(&self) -> Vec<(String, StoredValue)>;
}

/// Where an implementation answered a call otherwise than the seed's rules do (a student's,
/// judged by the lab), in words: the call, what came back, what the seed gives and why, and the
/// id of the rule it breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub call: String,
    pub got: String,
    pub seed: String,
    pub rule: &'static str,
}

/// Why an implementation stopped answering, once it has.
pub type Fault = Arc<std::sync::Mutex<Option<String>>>;

/// The differences an implementation showed, in order, for the world to tell as they come.
pub type Differences = Arc<std::sync::Mutex<Vec<Difference>>>;

/// A lock service and a storage, fresh, for one run.
pub struct Backend {
    pub locks: Box<dyn LockApi>,
    pub storage: Box<dyn StorageApi>,
    /// For an implementation that can stop answering (a student's program, which may crash or
    /// break the protocol): set when it has, and the world stops there, since nothing after it
    /// could be trusted. `None` for one that always answers.
    pub fault: Option<Fault>,
    /// Where its answers differed from the seed's (never, for this library).
    pub differences: Differences,
}

/// Makes a fresh backend for a scenario, whose storage starts with the given check. Time travel
/// replays a run from t = 0, so a session makes one for every replay.
pub type BackendFactory = Arc<dyn Fn(&Scenario, FenceCheck) -> Backend + Send + Sync>;

/// This project's library: [`LockService`] over a [`ManualClock`], and [`CheckedStorage`].
pub fn built_in() -> BackendFactory {
    built_in_numbered(false)
}

/// The library numbering every change to its locks, as etcd's revision and ZooKeeper's zxid do
/// (`every_change`), or one number a grant. A store that numbers its changes has made one
/// before the first grant (etcd's empty store, ZooKeeper's parent znode), so its first grant
/// comes one after the scenario's first token.
pub fn built_in_numbered(every_change: bool) -> BackendFactory {
    Arc::new(move |scenario: &Scenario, check: FenceCheck| {
        let clock = ManualClock::new(0.0);
        let first = scenario.first_token.saturating_add(u64::from(every_change));
        let service = LockService::new(clock.clone(), scenario.lease_seconds, first)
            .expect("scenario validation guarantees a valid lease");
        let service = if every_change {
            service.numbering_every_change()
        } else {
            service
        };
        Backend {
            locks: Box::new(BuiltInLocks { clock, service }),
            storage: Box::new(CheckedStorage::new(check)),
            fault: None,
            differences: Differences::default(),
        }
    })
}

struct BuiltInLocks {
    clock: ManualClock,
    service: LockService<ManualClock>,
}

impl LockApi for BuiltInLocks {
    fn set_time(&mut self, seconds: f64) {
        self.clock.set(seconds);
    }

    fn acquire(&mut self, lock: &str, client: &str) -> Option<Lease> {
        self.service.acquire(lock, client)
    }

    fn renew(&mut self, lock: &str, client: &str, token: u64) -> Result<Lease, Refusal> {
        self.service
            .renew(lock, client, token)
            .map_err(Refusal::Lease)
    }

    fn release(&mut self, lock: &str, client: &str, token: u64) -> Result<(), Refusal> {
        self.service
            .release(lock, client, token)
            .map_err(Refusal::Lease)
    }

    fn holder(&mut self, lock: &str) -> Option<ClientId> {
        self.service.holder(lock).and_then(ClientId::from_name)
    }

    fn next_token(&self) -> NextToken {
        match self.service.next_token() {
            Some(token) => NextToken::Is(token),
            None => NextToken::NoneLeft,
        }
    }
}

impl StorageApi for CheckedStorage {
    fn write(&mut self, key: &str, value: &str, token: u64) -> Verdict {
        CheckedStorage::write(self, key, value, token)
    }

    fn judge(&self) -> Judge {
        Judge::Check(self.check())
    }

    fn set_check(&mut self, check: FenceCheck) -> bool {
        CheckedStorage::set_check(self, check);
        true
    }

    fn entries(&self) -> Vec<(String, StoredValue)> {
        CheckedStorage::entries(self)
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.clone()))
            .collect()
    }
}
