//! The world at one moment: a lock service and a storage (behind the [`backend`](super::backend)
//! traits), three clients, the network's writes in flight, and the history so far.
//!
//! [`World::advance_to`] moves it forward; it never goes back (a [`Session`](super::Session)
//! rebuilds it from t = 0 to travel back). Everything due at an instant is done in one fixed
//! order, pass after pass until nothing more is due (see [`World::settle`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::backend::{Backend, NextToken};
use super::chaos::ChaosDriver;
use super::client::{Activity, Client};
use super::event::{ClientId, LockId};
use super::history::{History, Keep, LaneState};
use super::input::Input;
use super::scenario::{Scenario, CLIENT_COUNT};
use super::time::Ms;
use crate::{CheckedStorage, FenceCheck, Judge, StoredValue, Verdict};

mod actions;
mod client_life;
mod jobs;
mod service_clock;
mod settle;
mod setup;
mod stats;

use service_clock::ServiceClock;
pub use setup::Setup;
pub use stats::Stats;

/// A lease as the lock service granted it and the world last learned of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LiveLease {
    pub client: ClientId,
    pub token: u64,
    /// On the service's clock, in seconds.
    pub granted_at: f64,
    /// On the service's clock, in seconds.
    pub expires_at: f64,
}

/// A write the network holds.
#[derive(Clone, Debug, PartialEq)]
struct InFlight {
    deliver_at: Ms,
    sent_at: Ms,
    client: ClientId,
    key: String,
    value: String,
    token: u64,
    lease_live: bool,
}

/// The simulated world.
pub struct World {
    setup: Setup,
    now: Ms,
    /// The clock stands at `now` but what is due then has not happened yet ([`World::approach`]).
    before_due: bool,
    backend: Backend,
    fencing: bool,
    check: FenceCheck,
    /// The same writes sent to a storage of every check, in [`FenceCheck::ALL`] order, for the
    /// compare view and `chaos --check all`.
    mirrors: Vec<(CheckedStorage, Stats)>,
    /// Each mirror's verdict on the latest write: (when, who, key, verdict).
    mirror_last: Vec<Option<(Ms, ClientId, String, Verdict)>>,
    clients: [Client; CLIENT_COUNT],
    leases: Vec<Option<LiveLease>>,
    /// Each live lease's first expired tick on the service's clock, beside `leases`: worked out
    /// once a grant or renew, read at every instant.
    lease_ticks: Vec<i64>,
    service: ServiceClock,
    in_flight: Vec<InFlight>,
    next_beat: usize,
    next_input: usize,
    chaos: Option<ChaosDriver>,
    history: History,
    stats: Stats,
    /// Who left each key's current value.
    authors: BTreeMap<String, ClientId>,
}

impl World {
    /// The world at t = 0 of `setup`, with everything due at 0 done.
    pub fn new(setup: &Setup, inputs: &[Input], keep: Keep) -> World {
        let scenario = setup.scenario.clone();
        let active = if setup.fencing {
            setup.check
        } else {
            FenceCheck::Unchecked
        };
        let backend = (setup.backend)(&scenario, active);
        let chaos = scenario
            .chaos
            .clone()
            .map(|params| ChaosDriver::new(params, setup.seed));
        let mut world = World {
            now: 0,
            before_due: false,
            backend,
            fencing: setup.fencing,
            check: setup.check,
            // A storage of each check only where the run keeps every check's counts: a chaos
            // summary of one check writes once a write, not five times.
            mirrors: if keep.every_check() {
                FenceCheck::ALL
                    .iter()
                    .map(|&c| (CheckedStorage::new(c), Stats::default()))
                    .collect()
            } else {
                Vec::new()
            },
            mirror_last: vec![None; FenceCheck::ALL.len()],
            clients: ClientId::ALL.map(Client::new),
            leases: vec![None; scenario.locks.len()],
            lease_ticks: vec![0; scenario.locks.len()],
            service: ServiceClock::default(),
            in_flight: Vec::new(),
            next_beat: 0,
            next_input: 0,
            chaos,
            history: History::new(keep, scenario.locks.len(), scenario.beats.len()),
            stats: Stats::default(),
            authors: BTreeMap::new(),
            setup: setup.clone(),
        };
        world.backend.locks.set_time(0.0);
        if let Some(driver) = &mut world.chaos {
            for client in &mut world.clients {
                client.job = driver.think(0);
            }
        }
        world.settle(inputs);
        world
    }

    /// The scenario being played.
    pub fn scenario(&self) -> &Arc<Scenario> {
        &self.setup.scenario
    }

    /// What fixes this run.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// World time, ms.
    pub fn now(&self) -> Ms {
        self.now
    }

    /// The three clients.
    pub fn clients(&self) -> &[Client; CLIENT_COUNT] {
        &self.clients
    }

    /// Client `id`.
    pub fn client(&self, id: ClientId) -> &Client {
        &self.clients[id.index()]
    }

    /// The live lease on `lock`, as the lock service granted it.
    pub fn lease(&self, lock: LockId) -> Option<LiveLease> {
        self.leases.get(lock.index()).copied().flatten()
    }

    /// How many ms the lock service still counts on `lease`, on its own clock.
    pub fn lease_left(&self, lease: &LiveLease) -> i64 {
        (lease.expires_at * 1000.0).round() as i64 - self.service_now()
    }

    /// The token the lock service's next grant will carry, as far as the implementation says.
    pub fn next_token(&self) -> NextToken {
        self.backend.locks.next_token()
    }

    /// The lock service's clock now, in ms (it differs from world time after a clock jump).
    pub fn service_now(&self) -> i64 {
        self.service.now()
    }

    /// How far the lock service's clock is from the world's, in ms.
    pub fn service_offset(&self) -> i64 {
        self.service_now() - self.now as i64
    }

    /// What the clients' storage holds, in key order.
    pub fn storage_entries(&self) -> Vec<(String, StoredValue)> {
        self.backend.storage.entries()
    }

    /// The rule the clients' storage applies now.
    pub fn judge(&self) -> Judge {
        self.backend.storage.judge()
    }

    /// The storage that received the same writes under `check` from the start (a world that
    /// keeps every check: [`Keep::every_check`]).
    pub fn mirror(&self, check: FenceCheck) -> (&CheckedStorage, &Stats) {
        let i = FenceCheck::ALL
            .iter()
            .position(|&c| c == check)
            .unwrap_or_default();
        let (storage, stats) = &self.mirrors[i];
        (storage, stats)
    }

    /// The latest write as the storage of `check` judged it: (when, who, key, verdict).
    pub fn mirror_last(&self, check: FenceCheck) -> Option<(Ms, ClientId, &str, &Verdict)> {
        let i = FenceCheck::ALL.iter().position(|&c| c == check)?;
        self.mirror_last[i]
            .as_ref()
            .map(|(t, client, key, verdict)| (*t, *client, key.as_str(), verdict))
    }

    /// Who left each key's current value.
    pub fn authors(&self) -> &BTreeMap<String, ClientId> {
        &self.authors
    }

    /// Whether fencing is on now.
    pub fn fencing(&self) -> bool {
        self.fencing
    }

    /// The check the storage applies while fencing is on.
    pub fn fenced_check(&self) -> FenceCheck {
        self.check
    }

    /// The record so far.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Every event so far (see [`Keep`]).
    pub fn events(&self) -> &[super::Event] {
        self.history.events()
    }

    /// The events since the last call, in a streaming run.
    pub fn take_events(&mut self) -> Vec<super::Event> {
        self.history.take_events()
    }

    /// The writes the network holds: (delivery time, client, key, token), soonest first.
    pub fn in_flight(&self) -> impl Iterator<Item = (Ms, ClientId, &str, u64)> {
        self.in_flight
            .iter()
            .map(|f| (f.deliver_at, f.client, f.key.as_str(), f.token))
    }

    /// Counts so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The implementation's fault, if it stopped answering properly.
    pub fn fault(&self) -> Option<String> {
        let fault = self.backend.fault.as_ref()?;
        fault.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Whether the implementation has stopped answering: the run stops where it did, and
    /// nothing is due after it.
    pub(super) fn halted(&self) -> bool {
        self.backend
            .fault
            .as_ref()
            .is_some_and(|f| f.lock().unwrap_or_else(|e| e.into_inner()).is_some())
    }

    /// Whether `client`'s lease on `lock` with `token` is the live lease, by the lock service.
    pub fn lease_is_live(&self, lock: LockId, client: ClientId, token: u64) -> bool {
        self.lease(lock)
            .is_some_and(|l| l.client == client && l.token == token)
    }

    /// How a client's lane looks now.
    pub fn lane_state(&self, client: &Client) -> LaneState {
        if client.is_down() {
            return LaneState::Crashed;
        }
        if client.is_paused() {
            return LaneState::Paused;
        }
        let beliefs = || {
            client
                .beliefs
                .iter()
                .enumerate()
                .filter_map(|(i, b)| b.map(|b| (LockId(i as u8), b)))
        };
        // Stale: it believes, on its own clock, in a lease the service has ended. A client
        // whose own clock says the lease ran out does not think it holds it.
        let stale = beliefs().any(|(lock, b)| {
            !self.lease_is_live(lock, client.id, b.token)
                && client
                    .believed_left(lock, self.now)
                    .is_some_and(|left| left > 0)
        });
        if stale {
            return LaneState::Stale;
        }
        if beliefs().any(|(lock, b)| self.lease_is_live(lock, client.id, b.token)) {
            return LaneState::Holding;
        }
        if client.activity == Activity::Waiting {
            LaneState::Waiting
        } else {
            LaneState::Idle
        }
    }

    /// The next moment a running client's own clock reaches the end of a lease it believes in.
    fn next_belief_end(&self) -> Option<Ms> {
        self.clients
            .iter()
            .filter(|c| !c.is_paused() && !c.is_down())
            .flat_map(|c| {
                c.beliefs
                    .iter()
                    .flatten()
                    .map(move |b| c.to_world(b.expires_local))
            })
            .filter(|&t| t > self.now)
            .min()
    }

    /// The next moment anything is due, after now.
    pub fn next_due(&self, inputs: &[Input]) -> Option<Ms> {
        if self.halted() {
            return None;
        }
        let mut next: Option<Ms> = None;
        let mut consider = |t: Ms| next = Some(next.map_or(t, |n: Ms| n.min(t)));
        if let Some(beat) = self.scenario().beats.get(self.next_beat) {
            consider(beat.at);
        }
        if let Some(input) = inputs.get(self.next_input) {
            consider(input.at);
        }
        for (lease, &tick) in self.leases.iter().zip(&self.lease_ticks) {
            if lease.is_some() {
                consider(self.service.expiry_at_tick(self.now, tick));
            }
        }
        if let Some(flight) = self.in_flight.first() {
            consider(flight.deliver_at);
        }
        if let Some(crash) = self.chaos.as_ref().and_then(ChaosDriver::crash_due) {
            consider(crash);
        }
        for client in &self.clients {
            if let Some(t) = client.restart_at {
                consider(t);
            }
            if let Some((_, until)) = client.pause {
                consider(until);
                continue;
            }
            if client.is_down() {
                continue;
            }
            if let Some(retry) = client.retry {
                consider(client.to_world(retry.at));
            }
            if let Some(at) = client.job.due() {
                consider(client.to_world(at));
            }
        }
        next
    }

    /// Plays everything due up to and including `target`, then stands at `target`. `inputs` must
    /// be the same list, in time order, at every call (entries may be appended after now).
    pub fn advance_to(&mut self, target: Ms, inputs: &[Input]) {
        loop {
            if self.halted() {
                // The time stays where the implementation stopped: the run did not go on.
                return;
            }
            let due = self.next_due(inputs);
            // A client's own clock passing its lease's end changes its lane, though nothing
            // happens: the world stops there too (it is not a moment `n` steps to), where lanes
            // are kept at all.
            let belief_end = if self.history.keep() == Keep::All {
                self.next_belief_end()
            } else {
                None
            };
            let Some(t) = [due, belief_end].into_iter().flatten().min() else {
                break;
            };
            if t > target {
                break;
            }
            if t == self.now && self.before_due {
                // Standing just before this moment: now it happens.
                self.before_due = false;
                self.settle(inputs);
                continue;
            }
            if t <= self.now {
                // Settling leaves nothing due at now; if something is, never spin on it.
                debug_assert!(false, "work still due at {} after settling", self.now);
                break;
            }
            self.set_now(t);
            self.settle(inputs);
        }
        // Stand at the target; a target already reached leaves the time as it is.
        self.set_now(target.max(self.now));
    }

    /// Plays every moment before `t` and stands at `t` with what is due then not yet done: the
    /// screen a question about that moment is asked on. The next advance, even to `t`, plays it.
    pub fn approach(&mut self, t: Ms, inputs: &[Input]) {
        self.advance_to(t.saturating_sub(1), inputs);
        if !self.halted() && t > self.now {
            self.set_now(t);
            self.before_due = true;
        }
    }

    /// Applies inputs newly due at the current time (after a session adds one).
    pub fn apply_due_inputs(&mut self, inputs: &[Input]) {
        self.before_due = false;
        self.settle(inputs);
    }

    fn set_now(&mut self, t: Ms) {
        self.now = t;
        self.tell_service_the_time();
    }

    fn tell_service_the_time(&mut self) {
        let reading = self.service.read(self.now);
        self.backend.locks.set_time(reading as f64 / 1000.0);
    }
}
