//! The world at one moment: a lock service and a storage (behind the [`backend`](super::backend)
//! traits), three clients, the network's writes in flight, and the history so far.
//!
//! [`World::advance_to`] moves it forward; it never goes back (a [`Session`](super::Session)
//! rebuilds it from t = 0 to travel back). Everything due at an instant is done in one fixed
//! order, pass after pass until nothing more is due (see [`World::settle`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::backend::{Backend, BackendFactory, Difference, NextToken};
use super::chaos::{ChaosDriver, Step};
use super::client::{Activity, Belief, Client, Retry};
use super::event::{ClientId, EventKind, LockId};
use super::history::{Fate, History, Keep, LaneState, MarkKind};
use super::input::{Input, InputKind};
use super::scenario::{BeatAction, ClientAction, Scenario, CLIENT_COUNT};
use super::systems::System;
use super::time::{expiry_tick, Ms};
use crate::{CheckedStorage, FenceCheck, Judge, Outcome, StoredValue, Verdict};

/// Counts for the run's summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub grants: u64,
    pub writes_accepted: u64,
    pub writes_rejected: u64,
    /// Accepted writes whose token was older than one the key had accepted: CORRUPTED DATA!
    /// (the JSON summary's `stale_writes_accepted` and `corruptions` are both this count).
    pub corruptions: u64,
    /// Refused writes sent while the writer's lease was live: a check stricter than the seed's
    /// refusing an honest write.
    pub honest_writes_refused: u64,
    /// Calls a student's implementation answered otherwise than the seed (0 for this library).
    pub differences: u64,
}

impl Stats {
    /// Counts one write's verdict.
    pub fn count(&mut self, verdict: &Verdict, lease_live: bool) {
        if verdict.accepted {
            self.writes_accepted += 1;
        } else {
            self.writes_rejected += 1;
            if lease_live {
                self.honest_writes_refused += 1;
            }
        }
        if verdict.outcome() == Outcome::Corrupted {
            self.corruptions += 1;
        }
    }

    /// Adds another run's counts.
    pub fn add(&mut self, other: &Stats) {
        self.grants += other.grants;
        self.writes_accepted += other.writes_accepted;
        self.writes_rejected += other.writes_rejected;
        self.corruptions += other.corruptions;
        self.honest_writes_refused += other.honest_writes_refused;
        self.differences += other.differences;
    }
}

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

/// Everything that fixes a run apart from the lecturer's inputs: replaying it with the same
/// inputs gives the same history.
#[derive(Clone)]
pub struct Setup {
    pub scenario: Arc<Scenario>,
    pub seed: u64,
    /// Whether fencing is on at t = 0.
    pub fencing: bool,
    /// The storage's check while fencing is on, at t = 0.
    pub check: FenceCheck,
    /// What implements the lock service and the storage.
    pub backend: BackendFactory,
    /// The student's implementation behind `backend`, by name; `None` for this library.
    pub implemented_by: Option<String>,
    /// The real system the lesson speaks as (`--as`): its word for the token.
    pub system: Option<&'static System>,
}

impl Setup {
    /// The built-in library, with the scenario's own seed and fencing setting.
    pub fn new(scenario: Arc<Scenario>) -> Setup {
        Setup {
            seed: scenario.seed,
            fencing: scenario.fencing,
            check: FenceCheck::PerKey,
            backend: super::backend::built_in(),
            implemented_by: None,
            system: None,
            scenario,
        }
    }

    /// The same, told in a real system's words (`--as`); a system with no token runs with
    /// fencing off, since its storage has nothing to check.
    pub fn as_system(mut self, system: &'static System) -> Setup {
        self.system = Some(system);
        if !system.has_token {
            self.fencing = false;
        }
        self
    }

    /// The same, with this seed.
    pub fn seed(mut self, seed: u64) -> Setup {
        self.seed = seed;
        self
    }

    /// The same, with fencing on or off at t = 0.
    pub fn fencing(mut self, on: bool) -> Setup {
        self.fencing = on;
        self
    }

    /// The same, with this check.
    pub fn check(mut self, check: FenceCheck) -> Setup {
        self.check = check;
        self
    }

    /// The same, on another implementation.
    pub fn backend(mut self, backend: BackendFactory) -> Setup {
        self.backend = backend;
        self
    }

    /// The same, on a student's implementation, named as the reports name it (its folder).
    pub fn student(mut self, backend: BackendFactory, name: impl Into<String>) -> Setup {
        self.backend = backend;
        self.implemented_by = Some(name.into());
        self
    }
}

/// The lock service's clock: the world's time plus an offset that clock jumps change. The
/// service's time is the highest reading it has seen, so it never goes back.
#[derive(Clone, Copy, Debug, Default)]
struct ServiceClock {
    offset: i64,
    high_water: i64,
}

impl ServiceClock {
    /// Reads the clock at world time `now`, in ms: the raw reading, which steps back when the
    /// clock does (what the implementation is told); the service's time keeps the highest.
    fn read(&mut self, now: Ms) -> i64 {
        let reading = now as i64 + self.offset;
        self.high_water = self.high_water.max(reading);
        reading
    }

    /// The service's time at its latest reading, in ms.
    fn now(&self) -> i64 {
        self.high_water
    }

    /// The first world tick, at or after `now` (the latest reading), at which a lease with
    /// `expires_at` has expired.
    fn expiry(&self, now: Ms, expires_at: f64) -> Ms {
        let tick = expiry_tick(expires_at);
        if self.high_water >= tick {
            now
        } else {
            (tick - self.offset) as Ms
        }
    }
}

/// The simulated world.
pub struct World {
    setup: Setup,
    now: Ms,
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
            backend,
            fencing: setup.fencing,
            check: setup.check,
            mirrors: FenceCheck::ALL
                .iter()
                .map(|&c| (CheckedStorage::new(c), Stats::default()))
                .collect(),
            mirror_last: vec![None; FenceCheck::ALL.len()],
            clients: ClientId::ALL.map(Client::new),
            leases: vec![None; scenario.locks.len()],
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

    // ------------------------------------------------------------------ reading

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

    /// The storage that received the same writes under `check` from the start.
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
        self.backend.fault.lock().ok().and_then(|f| f.clone())
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
        let beliefs: Vec<(LockId, Belief)> = client
            .beliefs
            .iter()
            .enumerate()
            .filter_map(|(i, b)| b.map(|b| (LockId(i as u8), b)))
            .collect();
        // Stale: it believes, on its own clock, in a lease the service has ended. A client
        // whose own clock says the lease ran out does not think it holds it.
        let stale = beliefs.iter().any(|&(lock, b)| {
            !self.lease_is_live(lock, client.id, b.token)
                && client
                    .believed_left(lock, self.now)
                    .is_some_and(|left| left > 0)
        });
        if stale {
            return LaneState::Stale;
        }
        if beliefs
            .iter()
            .any(|&(lock, b)| self.lease_is_live(lock, client.id, b.token))
        {
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
        let mut next: Option<Ms> = None;
        let mut consider = |t: Ms| next = Some(next.map_or(t, |n: Ms| n.min(t)));
        if let Some(beat) = self.scenario().beats.get(self.next_beat) {
            consider(beat.at);
        }
        if let Some(input) = inputs.get(self.next_input) {
            consider(input.at);
        }
        for lease in self.leases.iter().flatten() {
            consider(self.service.expiry(self.now, lease.expires_at));
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

    // ------------------------------------------------------------------ advancing

    /// Plays everything due up to and including `target`, then stands at `target`. `inputs` must
    /// be the same list, in time order, at every call (entries may be appended after now).
    pub fn advance_to(&mut self, target: Ms, inputs: &[Input]) {
        loop {
            let due = self.next_due(inputs);
            // A client's own clock passing its lease's end changes its lane, though nothing
            // happens: the world stops there too (it is not a moment `n` steps to).
            let Some(t) = [due, self.next_belief_end()].into_iter().flatten().min() else {
                break;
            };
            if t > target {
                break;
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

    /// Applies inputs newly due at the current time (after a session adds one).
    pub fn apply_due_inputs(&mut self, inputs: &[Input]) {
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

    /// Does everything due at `now` until nothing more is, in this order each pass:
    ///
    /// 1. the lock service: leases that ran out expire, so everything a client does at this
    ///    instant sees the lock as the service does;
    /// 2. the network: writes it held arrive at the storage;
    /// 3. clients come back: restarts, then wake-ups (a waking client first does what came due
    ///    while it was frozen);
    /// 4. the script's beats;
    /// 5. chaos: the planned crash, then each client's retry timer and job;
    /// 6. one lecturer input, so a live injection and its replay take exactly the same steps.
    fn settle(&mut self, inputs: &[Input]) {
        let now = self.now;
        loop {
            let mut acted = false;
            for lock in 0..self.leases.len() {
                let due = self.leases[lock]
                    .is_some_and(|l| self.service.expiry(now, l.expires_at) <= now);
                if due {
                    self.expire(LockId(lock as u8));
                    acted = true;
                }
            }
            while self.in_flight.first().is_some_and(|f| f.deliver_at <= now) {
                let flight = self.in_flight.remove(0);
                self.deliver(flight);
                acted = true;
            }
            for i in 0..CLIENT_COUNT {
                if self.clients[i].restart_at.is_some_and(|t| t <= now) {
                    self.restart(i);
                    acted = true;
                }
                if self.clients[i].pause.is_some_and(|(_, until)| until <= now) {
                    self.resume(i);
                    acted = true;
                }
            }
            while let Some(beat) = self.scenario().beats.get(self.next_beat) {
                if beat.at > now {
                    break;
                }
                let index = self.next_beat;
                let action = beat.action.clone();
                self.next_beat += 1;
                match action {
                    Some(BeatAction::Client { client, action }) => {
                        self.order(index, client.index(), action)
                    }
                    Some(BeatAction::Fencing { on }) => {
                        self.set_fencing(on);
                        self.history.set_fate(index, Fate::Narrated);
                    }
                    Some(BeatAction::ClockJump { by }) => {
                        self.jump_clock(by);
                        self.history.set_fate(index, Fate::Narrated);
                    }
                    None => self.history.set_fate(index, Fate::Narrated),
                }
                acted = true;
            }
            if let Some((client, down)) = self.chaos.as_mut().and_then(|c| c.take_crash_due(now)) {
                self.crash(client.index(), down);
                acted = true;
            }
            for i in 0..CLIENT_COUNT {
                acted |= self.step_client(i);
            }
            if let Some(input) = inputs.get(self.next_input).filter(|i| i.at <= now) {
                self.next_input += 1;
                self.apply_input(input.kind);
                acted = true;
            }
            if !acted {
                break;
            }
        }
        self.update_lanes();
    }

    /// A running client does what its retry timer or chaos job says is due.
    fn step_client(&mut self, i: usize) -> bool {
        let client = &self.clients[i];
        if client.is_paused() || client.is_down() {
            return false;
        }
        let local = client.local_time(self.now);
        let mut acted = false;
        if let Some(retry) = client.retry.filter(|r| r.at <= local) {
            self.clients[i].retry = None;
            if !self.try_acquire(i, retry.lock) {
                self.clients[i].retry = Some(Retry {
                    at: local + retry.interval,
                    ..retry
                });
            }
            acted = true;
        }
        if self.clients[i].job.due().is_some_and(|at| at <= local) {
            self.step_job(i);
            acted = true;
        }
        acted
    }

    fn apply_input(&mut self, input: InputKind) {
        match input {
            InputKind::Pause { client } => {
                let ms = self.scenario().injected_pause_ms();
                self.pause(client.index(), ms);
            }
            InputKind::Crash { client } => {
                let down = self.scenario().injected_down_ms();
                self.crash(client.index(), down);
            }
            InputKind::Delay { client } => {
                let ms = self.scenario().injected_delay_ms();
                let client = &mut self.clients[client.index()];
                if !client.is_down() {
                    client.delay_next = Some(ms);
                }
            }
            InputKind::Fencing { on } => self.set_fencing(on),
            InputKind::Check(check) => self.set_check(check),
        }
    }

    // ------------------------------------------------------------------ what clients do

    /// A scripted order to a client: done now, deferred while frozen, dropped while down.
    fn order(&mut self, beat: usize, i: usize, action: ClientAction) {
        let client = &mut self.clients[i];
        if client.is_down() {
            self.history.set_fate(beat, Fate::Dropped { at: self.now });
            return;
        }
        // A frozen process does its work when it wakes; a pause or a crash hits it anyway.
        if client.is_paused()
            && !matches!(
                action,
                ClientAction::Pause { .. } | ClientAction::Crash { .. }
            )
        {
            client.deferred.push_back((beat, action));
            self.history.set_fate(beat, Fate::Deferred);
            return;
        }
        let fate = self.perform(i, action);
        self.history.set_fate(beat, fate);
    }

    fn perform(&mut self, i: usize, action: ClientAction) -> Fate {
        let done = Fate::Done { at: self.now };
        match action {
            ClientAction::Acquire { lock, retry } => {
                if !self.try_acquire(i, lock) {
                    let local = self.clients[i].local_time(self.now);
                    match retry {
                        Some(interval) => {
                            self.clients[i].retry = Some(Retry {
                                lock,
                                at: local + interval,
                                interval,
                            });
                        }
                        // One ask, refused: it does not wait around.
                        None => {
                            if self.clients[i].activity == Activity::Waiting {
                                self.clients[i].activity = Activity::Idle;
                            }
                        }
                    }
                }
                done
            }
            ClientAction::Renew { lock, token } => match self.token_for(i, lock, token) {
                Some(token) => {
                    self.renew(i, lock, token);
                    done
                }
                None => Fate::NoLease { at: self.now },
            },
            ClientAction::Release { lock, token } => match self.token_for(i, lock, token) {
                Some(token) => {
                    self.release(i, lock, token);
                    done
                }
                None => Fate::NoLease { at: self.now },
            },
            ClientAction::Write {
                lock,
                key,
                value,
                token,
                delay,
            } => match self.token_for(i, lock, token) {
                Some(token) => {
                    self.send_write(i, lock, key, value, token, delay);
                    done
                }
                None => Fate::NoLease { at: self.now },
            },
            ClientAction::Pause { ms } => {
                self.pause(i, ms);
                done
            }
            ClientAction::Crash { down } => {
                self.crash(i, down);
                done
            }
        }
    }

    /// The token a client uses on `lock`: the one a beat names, else the one it believes it holds.
    fn token_for(&self, i: usize, lock: LockId, named: Option<u64>) -> Option<u64> {
        named.or_else(|| self.clients[i].belief(lock).map(|b| b.token))
    }

    fn lock_name(&self, lock: LockId) -> String {
        self.scenario().locks[lock.index()].clone()
    }

    fn try_acquire(&mut self, i: usize, lock: LockId) -> bool {
        let id = self.clients[i].id;
        let name = self.lock_name(lock);
        let granted = self.backend.locks.acquire(&name, id.name());
        self.tell_differences(id);
        match granted {
            Some(lease) => {
                // A grant on the tick a lease runs out: its expiry is told first.
                let previous_over = self.leases[lock.index()]
                    .is_some_and(|l| self.service.expiry(self.now, l.expires_at) <= self.now);
                if previous_over {
                    self.expire(lock);
                }
                self.stats.grants += 1;
                self.leases[lock.index()] = Some(LiveLease {
                    client: id,
                    token: lease.token,
                    granted_at: lease.granted_at,
                    expires_at: lease.expires_at,
                });
                let local = self.clients[i].local_time(self.now);
                let lease_ms = self.scenario().lease_ms;
                let client = &mut self.clients[i];
                client.beliefs[lock.index()] = Some(Belief {
                    token: lease.token,
                    expires_local: local + lease_ms,
                });
                client.activity = Activity::Holding;
                if client.retry.is_some_and(|r| r.lock == lock) {
                    client.retry = None;
                }
                let now = self.now;
                self.history.emit(now, || EventKind::Grant {
                    client: id,
                    lock,
                    token: lease.token,
                    expires_at: lease.expires_at,
                });
                true
            }
            None => {
                let holder = self
                    .backend
                    .locks
                    .holder(&name)
                    .and_then(|h| ClientId::from_name(&h));
                self.tell_differences(id);
                if self.clients[i].activity != Activity::Holding {
                    self.clients[i].activity = Activity::Waiting;
                }
                self.history.mark(i, self.now, MarkKind::Refused);
                self.history.emit(self.now, || EventKind::AcquireRefused {
                    client: id,
                    lock,
                    holder,
                });
                false
            }
        }
    }

    fn renew(&mut self, i: usize, lock: LockId, token: u64) {
        let id = self.clients[i].id;
        let name = self.lock_name(lock);
        let believed = self.clients[i].belief(lock).map(|b| b.token) == Some(token);
        let result = self.backend.locks.renew(&name, id.name(), token);
        self.tell_differences(id);
        match result {
            Ok(lease) => {
                // The lease as the implementation renewed it: a student's may carry another
                // token than the one sent, and the story tells what it really returned.
                let token = lease.token;
                self.leases[lock.index()] = Some(LiveLease {
                    client: id,
                    token,
                    granted_at: lease.granted_at,
                    expires_at: lease.expires_at,
                });
                if believed {
                    let local = self.clients[i].local_time(self.now);
                    let lease_ms = self.scenario().lease_ms;
                    self.clients[i].beliefs[lock.index()] = Some(Belief {
                        token,
                        expires_local: local + lease_ms,
                    });
                }
                self.history.mark(i, self.now, MarkKind::Renewed);
                self.history.emit(self.now, || EventKind::Renew {
                    client: id,
                    lock,
                    token,
                    expires_at: lease.expires_at,
                });
            }
            Err(reason) => {
                // The refusal is how the client learns its lease is gone.
                if believed {
                    self.clients[i].forget(lock);
                }
                self.history.mark(i, self.now, MarkKind::LeaseRefusal);
                self.history.emit(self.now, || EventKind::RenewRefused {
                    client: id,
                    lock,
                    token,
                    reason,
                });
            }
        }
    }

    fn release(&mut self, i: usize, lock: LockId, token: u64) {
        let id = self.clients[i].id;
        let name = self.lock_name(lock);
        let result = self.backend.locks.release(&name, id.name(), token);
        self.tell_differences(id);
        if self.clients[i].belief(lock).map(|b| b.token) == Some(token) {
            self.clients[i].forget(lock);
        }
        match result {
            Ok(()) => {
                if self.lease_is_live(lock, id, token) {
                    self.leases[lock.index()] = None;
                }
                self.history.mark(i, self.now, MarkKind::Released);
                self.history.emit(self.now, || EventKind::Release {
                    client: id,
                    lock,
                    token,
                });
            }
            Err(reason) => {
                self.history.mark(i, self.now, MarkKind::LeaseRefusal);
                self.history.emit(self.now, || EventKind::ReleaseRefused {
                    client: id,
                    lock,
                    token,
                    reason,
                });
            }
        }
    }

    /// A client sends a write with `token`; the network delivers it now, or holds it for `delay`
    /// (a beat's, or one the lecturer injected for this client's next write).
    fn send_write(
        &mut self,
        i: usize,
        lock: LockId,
        key: String,
        value: String,
        token: u64,
        delay: Option<Ms>,
    ) {
        let id = self.clients[i].id;
        let lease_live = self.lease_is_live(lock, id, token);
        let delay = delay.or_else(|| self.clients[i].delay_next.take());
        let flight = InFlight {
            deliver_at: self.now + delay.unwrap_or(0),
            sent_at: self.now,
            client: id,
            key,
            value,
            token,
            lease_live,
        };
        if delay.is_none() {
            return self.deliver(flight);
        }
        self.history.mark(i, self.now, MarkKind::Sent);
        let now = self.now;
        self.history.emit(now, || EventKind::Send {
            client: id,
            key: flight.key.clone(),
            token,
            deliver_at: flight.deliver_at,
        });
        let at = self
            .in_flight
            .partition_point(|f| f.deliver_at <= flight.deliver_at);
        self.in_flight.insert(at, flight);
    }

    /// A write reaches the storage (and, for the compare view, a storage of every check).
    fn deliver(&mut self, flight: InFlight) {
        let InFlight {
            sent_at,
            client,
            key,
            value,
            token,
            lease_live,
            ..
        } = flight;
        for ((storage, stats), last) in self.mirrors.iter_mut().zip(&mut self.mirror_last) {
            let verdict = storage.write(&key, value.as_str(), token);
            stats.count(&verdict, lease_live);
            *last = Some((self.now, client, key.clone(), verdict));
        }
        let verdict = self.backend.storage.write(&key, &value, token);
        let differed = self.take_differences();
        self.stats.count(&verdict, lease_live);
        if verdict.accepted {
            self.authors.insert(key.clone(), client);
        }
        let now = self.now;
        self.history
            .mark(client.index(), now, MarkKind::of(verdict.outcome()));
        let sent_at = (sent_at != now).then_some(sent_at);
        if verdict.outcome() == Outcome::Corrupted {
            let highest = verdict.key_highest.unwrap_or_default();
            let corruption = EventKind::Corruption {
                client,
                key: key.clone(),
                token,
                highest,
                overwrote_token: verdict.replaced_token,
            };
            self.history.emit(now, || EventKind::Write {
                client,
                key,
                value,
                verdict,
                sent_at,
                lease_live,
            });
            self.history.emit(now, || corruption);
        } else {
            self.history.emit(now, || EventKind::Write {
                client,
                key,
                value,
                verdict,
                sent_at,
                lease_live,
            });
        }
        // Told after the write they are about.
        self.emit_differences(client, differed);
    }

    /// What the implementation has answered otherwise than the seed since last asked.
    fn take_differences(&mut self) -> Vec<Difference> {
        let mut found = self
            .backend
            .differences
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut *found)
    }

    /// Tells, as events on `client`'s lane, where the implementation just answered otherwise
    /// than the seed (only a student's ever does).
    fn tell_differences(&mut self, client: ClientId) {
        let found = self.take_differences();
        self.emit_differences(client, found);
    }

    fn emit_differences(&mut self, client: ClientId, found: Vec<Difference>) {
        for d in found {
            self.stats.differences += 1;
            self.history
                .mark(client.index(), self.now, MarkKind::Differs);
            self.history.emit(self.now, || EventKind::Differs {
                client: Some(client),
                call: d.call,
                got: d.got,
                seed: d.seed,
                rule: d.rule,
            });
        }
    }

    fn pause(&mut self, i: usize, ms: Ms) {
        let now = self.now;
        let client = &mut self.clients[i];
        if client.is_down() {
            return;
        }
        let until = match client.pause {
            Some((since, until)) => {
                let until = until.max(now + ms);
                client.pause = Some((since, until));
                until
            }
            None => {
                client.pause = Some((now, now + ms));
                now + ms
            }
        };
        let id = client.id;
        self.history
            .emit(now, || EventKind::Pause { client: id, until });
    }

    fn resume(&mut self, i: usize) {
        let client = &mut self.clients[i];
        let Some((since, until)) = client.pause.take() else {
            return;
        };
        client.lag += until - since;
        let id = client.id;
        self.history
            .emit(self.now, || EventKind::Resume { client: id });
        // It carries on as if no time had passed: first what came due while it was frozen.
        // Only calls to the service and the storage wait (a pause or a crash hits a frozen
        // client at once, see `order`), so none of them freezes or crashes it again.
        while let Some((beat, action)) = self.clients[i].deferred.pop_front() {
            let fate = self.perform(i, action);
            self.history.set_fate(beat, fate);
        }
    }

    fn crash(&mut self, i: usize, down: Ms) {
        let now = self.now;
        let client = &mut self.clients[i];
        if client.is_down() {
            return;
        }
        if let Some((since, _)) = client.pause.take() {
            client.lag += now - since;
        }
        let dropped: Vec<usize> = client.deferred.iter().map(|(beat, _)| *beat).collect();
        client.wipe();
        client.activity = Activity::Crashed;
        client.restart_at = Some(now + down);
        let id = client.id;
        for beat in dropped {
            self.history.set_fate(beat, Fate::Dropped { at: now });
        }
        self.history.emit(now, || EventKind::Crash {
            client: id,
            restart_at: now + down,
        });
    }

    fn restart(&mut self, i: usize) {
        let now = self.now;
        let client = &mut self.clients[i];
        client.restart_at = None;
        client.activity = Activity::Idle;
        let id = client.id;
        self.history.emit(now, || EventKind::Restart { client: id });
        if let Some(driver) = &mut self.chaos {
            let local = self.clients[i].local_time(now);
            self.clients[i].job = driver.think(local);
        }
    }

    fn expire(&mut self, lock: LockId) {
        let Some(live) = self.leases[lock.index()].take() else {
            return;
        };
        self.history.emit(self.now, || EventKind::Expire {
            client: live.client,
            lock,
            token: live.token,
        });
    }

    fn set_fencing(&mut self, on: bool) {
        if self.fencing == on {
            return;
        }
        let check = if on {
            self.check
        } else {
            FenceCheck::Unchecked
        };
        if !self.backend.storage.set_check(check) {
            return;
        }
        self.fencing = on;
        self.history.emit(self.now, || EventKind::Fencing { on });
    }

    fn set_check(&mut self, check: FenceCheck) {
        if self.check == check || check == FenceCheck::Unchecked {
            return;
        }
        if self.fencing && !self.backend.storage.set_check(check) {
            return;
        }
        self.check = check;
        self.history.emit(self.now, || EventKind::Check { check });
    }

    fn jump_clock(&mut self, by: i64) {
        self.service.offset += by;
        self.tell_service_the_time();
        let service_now = self.service.now() as f64 / 1000.0;
        self.history
            .emit(self.now, || EventKind::ClockJump { by, service_now });
    }

    // ------------------------------------------------------------------ chaos jobs

    fn step_job(&mut self, i: usize) {
        let local = self.clients[i].local_time(self.now);
        let lock = LockId::FIRST;
        let believes_live = self.clients[i]
            .believed_left(lock, self.now)
            .is_some_and(|left| left > 0);
        let job = self.clients[i].job;
        let Some(driver) = self.chaos.as_mut() else {
            return;
        };
        match driver.on_due(job, believes_live) {
            Step::Acquire => {
                let granted = self.try_acquire(i, lock);
                let driver = self.chaos.as_mut().expect("a chaos run has a driver");
                self.clients[i].job = driver.after_acquire(granted, local);
            }
            Step::Stall { ms, then } => {
                self.clients[i].job = then;
                self.pause(i, ms);
            }
            Step::Finish { keys } => {
                let client = &mut self.clients[i];
                client.jobs_done += 1;
                let value = format!("{} job {}", client.id, client.jobs_done);
                let token = client.belief(lock).map(|b| b.token);
                if let Some(token) = token {
                    for key in keys {
                        self.send_write(i, lock, key, value.clone(), token, None);
                    }
                    self.release(i, lock, token);
                }
                self.think(i, local);
            }
            Step::GiveUp => {
                self.clients[i].forget(lock);
                self.think(i, local);
            }
        }
    }

    fn think(&mut self, i: usize, local: Ms) {
        if let Some(driver) = self.chaos.as_mut() {
            self.clients[i].job = driver.think(local);
        }
    }

    // ------------------------------------------------------------------ history

    fn update_lanes(&mut self) {
        let clients: Vec<(LaneState, Option<u64>)> = self
            .clients
            .iter()
            .map(|c| (self.lane_state(c), c.first_belief().map(|(_, b)| b.token)))
            .collect();
        let locks: Vec<Option<(ClientId, u64)>> = self
            .leases
            .iter()
            .map(|l| l.map(|l| (l.client, l.token)))
            .collect();
        self.history
            .update_lanes(self.now, clients.into_iter(), locks.into_iter());
    }
}
