//! The world at one moment: lock service, storage, three clients, and the history so far.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use super::chaos::{ChaosDriver, Job};
use super::scenario::{BeatAction, ClientAction};
use super::session::{Input, InputKind};
use super::{expiry_tick, seconds, ClientId, Event, EventKind, Ms, Scenario, CLIENT_COUNT};
use crate::{CheckedStorage, FenceCheck, LockService, ManualClock};

/// What a client is doing, apart from being frozen in a GC pause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    /// Holds nothing, wants nothing right now.
    Idle,
    /// Asked for the lock and was refused; will ask again.
    Waiting,
    /// Believes it holds the lock (the lease may have run out without it knowing).
    Holding,
    /// Down after a crash, until its restart.
    Crashed,
}

/// The lease a client believes it holds, reckoned on the client's own clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Belief {
    /// The token it will send with writes.
    pub token: u64,
    /// When, on the client's own clock, it believes the lease runs out.
    expires_local: Ms,
}

/// One simulated client.
#[derive(Clone, Debug)]
pub struct Client {
    /// Which client.
    pub id: ClientId,
    /// What it is doing.
    pub activity: Activity,
    /// A GC pause in progress: (since, until), in world time.
    pub pause: Option<(Ms, Ms)>,
    /// The lease it believes it holds.
    pub belief: Option<Belief>,
    /// How much world time has passed while it was frozen: its own clock lags by this much.
    lag: Ms,
    /// Scripted actions that came due while it was frozen; it does them when it wakes.
    deferred: VecDeque<ClientAction>,
    /// A scripted acquire that asks again: (next try on its own clock, interval).
    retry: Option<(Ms, Ms)>,
    /// A chaos client's current job.
    pub(super) job: Job,
    /// When a crashed client comes back.
    pub restart_at: Option<Ms>,
    /// Jobs finished, to label a chaos client's writes.
    pub(super) jobs_done: u32,
}

impl Client {
    fn new(id: ClientId) -> Client {
        Client {
            id,
            activity: Activity::Idle,
            pause: None,
            belief: None,
            lag: 0,
            deferred: VecDeque::new(),
            retry: None,
            job: Job::None,
            restart_at: None,
            jobs_done: 0,
        }
    }

    /// The client's own clock at world time `now`: it stands still during a GC pause.
    pub fn local_time(&self, now: Ms) -> Ms {
        match self.pause {
            Some((since, _)) => since - self.lag,
            None => now - self.lag,
        }
    }

    /// How long the client believes its lease still lasts (negative: it knows it ran out).
    pub fn believed_left(&self, now: Ms) -> Option<i64> {
        let belief = self.belief?;
        Some(belief.expires_local as i64 - self.local_time(now) as i64)
    }

    /// Frozen in a GC pause.
    pub fn is_paused(&self) -> bool {
        self.pause.is_some()
    }

    fn to_world(&self, local: Ms) -> Ms {
        local + self.lag
    }
}

/// How a client's lane looks over a stretch of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneState {
    Idle,
    Waiting,
    /// Holds the live lease.
    Holding,
    /// Believes it holds the lock, but the lease is gone: the dangerous moment.
    Stale,
    Paused,
    Crashed,
}

/// A stretch of a client's lane from `start` until the next span starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: Ms,
    pub state: LaneState,
    /// The token held or believed held.
    pub token: Option<u64>,
}

/// A stretch of the lock's lane: who holds the live lease, from `start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockSpan {
    pub start: Ms,
    pub holder: Option<(ClientId, u64)>,
}

/// Something that happened at an instant on a client's lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MarkKind {
    // Ordered by how much a student must see it when several share one column.
    Released,
    Renewed,
    Refused,
    LeaseRefusal,
    Accepted,
    Rejected,
    Corrupted,
}

/// An instant on a client's lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    pub t: Ms,
    pub kind: MarkKind,
}

/// Counts for the run's summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub grants: u64,
    pub writes_accepted: u64,
    pub writes_rejected: u64,
    /// Accepted writes whose token was lower than one the key had accepted.
    pub stale_writes_accepted: u64,
    /// Accepted stale writes that replaced data from a higher token.
    pub corruptions: u64,
    /// Rejected writes whose token was not stale for their key (a check that is too strict).
    pub honest_writes_refused: u64,
}

impl Stats {
    fn count_write(&mut self, receipt: &crate::WriteReceipt, token: u64) {
        if receipt.accepted {
            self.writes_accepted += 1;
            if receipt.is_stale_accepted(token) {
                self.stale_writes_accepted += 1;
            }
            if receipt.is_corruption(token) {
                self.corruptions += 1;
            }
        } else {
            self.writes_rejected += 1;
            if receipt.highest_before.is_none_or(|h| token >= h) {
                self.honest_writes_refused += 1;
            }
        }
    }
}

/// The live lease as the world last learned it from the service.
#[derive(Clone, Copy, Debug)]
struct LiveLease {
    client: ClientId,
    token: u64,
    expiry: Ms,
}

/// The simulated world. Advance it with [`advance_to`](World::advance_to); it never goes back
/// (a [`Session`](super::Session) rebuilds it to travel back in time).
pub struct World {
    scenario: Arc<Scenario>,
    now: Ms,
    clock: ManualClock,
    locks: LockService<ManualClock>,
    storage: CheckedStorage,
    fencing: bool,
    fenced_check: FenceCheck,
    /// The same writes sent to a storage of every check, for the compare view and `--check all`.
    mirrors: Vec<(CheckedStorage, Stats)>,
    clients: [Client; CLIENT_COUNT],
    lease: Option<LiveLease>,
    next_beat: usize,
    next_input: usize,
    chaos: Option<ChaosDriver>,
    record: bool,
    events: Vec<Event>,
    lanes: [Vec<Span>; CLIENT_COUNT],
    lock_lane: Vec<LockSpan>,
    marks: [Vec<Mark>; CLIENT_COUNT],
    stats: Stats,
    /// Who left each key's current value (its token and staleness are the storage's to say).
    authors: BTreeMap<String, ClientId>,
}

impl World {
    /// The world at t = 0, with everything due at 0 done. `record` keeps events and lanes (the
    /// UI and event streams need them; chaos summaries only count).
    pub fn new(
        scenario: Arc<Scenario>,
        seed: u64,
        fencing: bool,
        fenced_check: FenceCheck,
        inputs: &[Input],
        record: bool,
    ) -> World {
        let clock = ManualClock::new(0.0);
        let locks = LockService::new(clock.clone(), scenario.lease_seconds, scenario.first_token)
            .expect("scenario validation guarantees a valid lease");
        let active = if fencing {
            fenced_check
        } else {
            FenceCheck::Unchecked
        };
        let chaos = scenario
            .chaos
            .clone()
            .map(|params| ChaosDriver::new(params, seed));
        let mut world = World {
            scenario,
            now: 0,
            clock,
            locks,
            storage: CheckedStorage::new(active),
            fencing,
            fenced_check,
            mirrors: FenceCheck::ALL
                .iter()
                .map(|&c| (CheckedStorage::new(c), Stats::default()))
                .collect(),
            clients: ClientId::ALL.map(Client::new),
            lease: None,
            next_beat: 0,
            next_input: 0,
            chaos,
            record,
            events: Vec::new(),
            lanes: Default::default(),
            lock_lane: Vec::new(),
            marks: Default::default(),
            stats: Stats::default(),
            authors: BTreeMap::new(),
        };
        if world.chaos.is_some() {
            for i in 0..CLIENT_COUNT {
                world.chaos_begin_thinking(i);
            }
        }
        world.settle(inputs);
        world
    }

    // ------------------------------------------------------------------ reading

    /// The scenario being played.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// World time, ms.
    pub fn now(&self) -> Ms {
        self.now
    }

    /// The three clients.
    pub fn clients(&self) -> &[Client; CLIENT_COUNT] {
        &self.clients
    }

    /// The lock service, as it stands now.
    pub fn locks(&self) -> &LockService<ManualClock> {
        &self.locks
    }

    /// The storage the clients write to, as it stands now.
    pub fn storage(&self) -> &CheckedStorage {
        &self.storage
    }

    /// The storage that received the same writes under `check` from the start.
    pub fn mirror(&self, check: FenceCheck) -> (&CheckedStorage, &Stats) {
        let (storage, stats) = &self.mirrors[check_index(check)];
        (storage, stats)
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
        self.fenced_check
    }

    /// Every event so far (empty unless recording).
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The lane of client `index` (recording only).
    pub fn lane(&self, index: usize) -> &[Span] {
        &self.lanes[index]
    }

    /// The instants on client `index`'s lane (recording only).
    pub fn marks(&self, index: usize) -> &[Mark] {
        &self.marks[index]
    }

    /// The lock's lane (recording only).
    pub fn lock_lane(&self) -> &[LockSpan] {
        &self.lock_lane
    }

    /// Counts so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// How a client's lane looks now.
    pub fn lane_state(&self, client: &Client) -> LaneState {
        if client.activity == Activity::Crashed {
            LaneState::Crashed
        } else if client.is_paused() {
            LaneState::Paused
        } else if let Some(belief) = client.belief {
            match self.lease {
                Some(l) if l.client == client.id && l.token == belief.token => LaneState::Holding,
                _ => LaneState::Stale,
            }
        } else if client.activity == Activity::Waiting {
            LaneState::Waiting
        } else {
            LaneState::Idle
        }
    }

    /// The next moment anything is due, after now.
    pub fn next_due(&self, inputs: &[Input]) -> Option<Ms> {
        let mut next: Option<Ms> = None;
        let mut consider = |t: Ms| next = Some(next.map_or(t, |n: Ms| n.min(t)));
        if let Some(beat) = self.scenario.beats.get(self.next_beat) {
            consider(beat.at);
        }
        if let Some(input) = inputs.get(self.next_input) {
            consider(input.at);
        }
        if let Some(lease) = self.lease {
            consider(lease.expiry);
        }
        if let Some(crash) = self.chaos.as_ref().and_then(|c| c.crash) {
            consider(crash.0);
        }
        for client in &self.clients {
            if let Some(t) = client.restart_at {
                consider(t);
            }
            if let Some((_, until)) = client.pause {
                consider(until);
                continue;
            }
            if client.activity == Activity::Crashed {
                continue;
            }
            if let Some((at, _)) = client.retry {
                consider(client.to_world(at));
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
        while let Some(t) = self.next_due(inputs) {
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
        if target > self.now {
            self.set_now(target);
        }
    }

    /// Applies inputs newly due at the current time (after [`Session`](super::Session) adds one).
    pub fn apply_due_inputs(&mut self, inputs: &[Input]) {
        self.settle(inputs);
    }

    fn set_now(&mut self, t: Ms) {
        self.now = t;
        self.clock.set(seconds(t));
    }

    /// Does everything due at `now`, in a fixed order, until nothing more is.
    fn settle(&mut self, inputs: &[Input]) {
        let now = self.now;
        loop {
            let mut acted = false;
            // First what the lock service decides by itself, so everything a client does at
            // this instant sees the lock as the service does.
            if self.lease.is_some_and(|l| l.expiry <= now) {
                self.expire();
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
            while let Some(beat) = self.scenario.beats.get(self.next_beat) {
                if beat.at > now {
                    break;
                }
                let action = beat.action.clone();
                self.next_beat += 1;
                match action {
                    Some(BeatAction::Client { client, action }) => {
                        self.order(client.index(), action)
                    }
                    Some(BeatAction::Fencing { on }) => self.set_fencing(on),
                    None => {}
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
            // One input a pass, so a live injection and its replay take exactly the same steps.
            if let Some(input) = inputs.get(self.next_input).filter(|i| i.at <= now) {
                self.next_input += 1;
                self.apply_input(input.kind);
                acted = true;
            }
            if !acted {
                break;
            }
        }
        if self.record {
            self.update_lanes();
        }
    }

    /// A running client does what its retry timer or chaos job says is due.
    fn step_client(&mut self, i: usize) -> bool {
        let client = &self.clients[i];
        if client.is_paused() || client.activity == Activity::Crashed {
            return false;
        }
        let local = client.local_time(self.now);
        let mut acted = false;
        if let Some((at, interval)) = client.retry {
            if at <= local {
                self.clients[i].retry = None;
                if !self.try_acquire(i) {
                    self.clients[i].retry = Some((local + interval, interval));
                }
                acted = true;
            }
        }
        if self.clients[i].job.due().is_some_and(|at| at <= local) {
            self.chaos_step(i);
            acted = true;
        }
        acted
    }

    fn apply_input(&mut self, input: InputKind) {
        match input {
            InputKind::Pause { client } => {
                let ms = self.scenario.injected_pause_ms();
                self.pause(client.index(), ms);
            }
            InputKind::Crash { client } => {
                let down = self.scenario.injected_down_ms();
                self.crash(client.index(), down);
            }
            InputKind::Fencing { on } => self.set_fencing(on),
            InputKind::Check(check) => {
                self.fenced_check = check;
                if self.fencing {
                    self.storage.set_check(check);
                }
            }
        }
    }

    // ------------------------------------------------------------------ what clients do

    /// A scripted order to a client: done now, deferred while frozen, dropped while down.
    fn order(&mut self, i: usize, action: ClientAction) {
        let client = &mut self.clients[i];
        if client.activity == Activity::Crashed {
            return;
        }
        if client.is_paused() && !matches!(action, ClientAction::Pause { .. }) {
            client.deferred.push_back(action);
            return;
        }
        self.perform(i, action);
    }

    fn perform(&mut self, i: usize, action: ClientAction) {
        match action {
            ClientAction::Acquire { retry } => {
                if !self.try_acquire(i) {
                    match retry {
                        Some(interval) => {
                            let local = self.clients[i].local_time(self.now);
                            self.clients[i].retry = Some((local + interval, interval));
                        }
                        // One ask, refused: it does not wait around.
                        None => self.clients[i].activity = Activity::Idle,
                    }
                }
            }
            ClientAction::Renew => self.renew(i),
            ClientAction::Release => self.release(i),
            ClientAction::Write { key, value } => self.write(i, &key, value),
            ClientAction::Pause { ms } => self.pause(i, ms),
            ClientAction::Crash { down } => self.crash(i, down),
        }
    }

    pub(super) fn try_acquire(&mut self, i: usize) -> bool {
        let id = self.clients[i].id;
        match self.locks.acquire(&self.scenario.lock, id.name()) {
            Some(lease) => {
                // A grant means the lease before it is over; its expiry is told first.
                if self.lease.is_some() {
                    self.expire();
                }
                self.stats.grants += 1;
                self.lease = Some(LiveLease {
                    client: id,
                    token: lease.token,
                    expiry: expiry_tick(lease.expires_at),
                });
                let local = self.clients[i].local_time(self.now);
                let client = &mut self.clients[i];
                client.belief = Some(Belief {
                    token: lease.token,
                    expires_local: local + self.scenario.lease_ms,
                });
                client.activity = Activity::Holding;
                client.retry = None;
                self.emit(|| EventKind::Grant {
                    client: id,
                    token: lease.token,
                    expires_at: lease.expires_at,
                });
                true
            }
            None => {
                let holder = self
                    .locks
                    .holder(&self.scenario.lock)
                    .and_then(ClientId::from_name);
                self.clients[i].activity = Activity::Waiting;
                self.mark(i, MarkKind::Refused);
                self.emit(|| EventKind::AcquireRefused { client: id, holder });
                false
            }
        }
    }

    fn renew(&mut self, i: usize) {
        let id = self.clients[i].id;
        let Some(belief) = self.clients[i].belief else {
            return;
        };
        match self
            .locks
            .renew(&self.scenario.lock, id.name(), belief.token)
        {
            Ok(lease) => {
                if let Some(live) = &mut self.lease {
                    live.expiry = expiry_tick(lease.expires_at);
                }
                let local = self.clients[i].local_time(self.now);
                self.clients[i].belief = Some(Belief {
                    token: belief.token,
                    expires_local: local + self.scenario.lease_ms,
                });
                self.mark(i, MarkKind::Renewed);
                self.emit(|| EventKind::Renew {
                    client: id,
                    token: belief.token,
                    expires_at: lease.expires_at,
                });
            }
            Err(reason) => {
                // The refusal is how the client learns its lease is gone.
                self.forget_lease(i);
                self.mark(i, MarkKind::LeaseRefusal);
                self.emit(|| EventKind::RenewRefused {
                    client: id,
                    token: belief.token,
                    reason,
                });
            }
        }
    }

    pub(super) fn release(&mut self, i: usize) {
        let id = self.clients[i].id;
        let Some(belief) = self.clients[i].belief else {
            return;
        };
        let result = self
            .locks
            .release(&self.scenario.lock, id.name(), belief.token);
        self.forget_lease(i);
        match result {
            Ok(()) => {
                self.lease = None;
                self.mark(i, MarkKind::Released);
                self.emit(|| EventKind::Release {
                    client: id,
                    token: belief.token,
                });
            }
            Err(reason) => {
                self.mark(i, MarkKind::LeaseRefusal);
                self.emit(|| EventKind::ReleaseRefused {
                    client: id,
                    token: belief.token,
                    reason,
                });
            }
        }
    }

    pub(super) fn forget_lease(&mut self, i: usize) {
        let client = &mut self.clients[i];
        client.belief = None;
        client.retry = None;
        if client.activity == Activity::Holding {
            client.activity = Activity::Idle;
        }
    }

    /// Writes with the token the client believes it holds; a client with none cannot write.
    pub(super) fn write(&mut self, i: usize, key: &str, value: String) {
        let id = self.clients[i].id;
        let Some(Belief { token, .. }) = self.clients[i].belief else {
            return;
        };
        for (storage, stats) in &mut self.mirrors {
            let receipt = storage.write(key, value.as_str(), token);
            stats.count_write(&receipt, token);
        }
        let receipt = self.storage.write(key, value.as_str(), token);
        self.stats.count_write(&receipt, token);
        let stale = receipt.is_stale_accepted(token);
        if receipt.accepted {
            match self.authors.get_mut(key) {
                Some(slot) => *slot = id,
                None => {
                    self.authors.insert(key.to_owned(), id);
                }
            }
        }
        let kind = if !receipt.accepted {
            MarkKind::Rejected
        } else if stale {
            MarkKind::Corrupted
        } else {
            MarkKind::Accepted
        };
        self.mark(i, kind);
        self.emit(|| EventKind::Write {
            client: id,
            key: key.to_owned(),
            value,
            token,
            accepted: receipt.accepted,
            highest: receipt.highest_before,
        });
        if receipt.is_corruption(token) {
            let overwrote_token = receipt.replaced_token.unwrap_or_default();
            self.emit(|| EventKind::Corruption {
                client: id,
                key: key.to_owned(),
                token,
                overwrote_token,
            });
        }
    }

    pub(super) fn pause(&mut self, i: usize, ms: Ms) {
        let now = self.now;
        let client = &mut self.clients[i];
        if client.activity == Activity::Crashed {
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
        self.emit(|| EventKind::Pause { client: id, until });
    }

    fn resume(&mut self, i: usize) {
        let client = &mut self.clients[i];
        let Some((since, until)) = client.pause.take() else {
            return;
        };
        client.lag += until - since;
        let id = client.id;
        self.emit(|| EventKind::Resume { client: id });
        // It carries on as if no time had passed: first what came due while it was frozen.
        while let Some(action) = self.clients[i].deferred.pop_front() {
            self.perform(i, action);
            if self.clients[i].is_paused() || self.clients[i].activity == Activity::Crashed {
                break;
            }
        }
    }

    fn crash(&mut self, i: usize, down: Ms) {
        let now = self.now;
        let client = &mut self.clients[i];
        if client.activity == Activity::Crashed {
            return;
        }
        if let Some((since, _)) = client.pause.take() {
            client.lag += now - since;
        }
        client.belief = None;
        client.retry = None;
        client.deferred.clear();
        client.job = Job::None;
        client.activity = Activity::Crashed;
        client.restart_at = Some(now + down);
        let id = client.id;
        self.emit(|| EventKind::Crash { client: id });
    }

    fn restart(&mut self, i: usize) {
        let client = &mut self.clients[i];
        client.restart_at = None;
        client.activity = Activity::Idle;
        let id = client.id;
        self.emit(|| EventKind::Restart { client: id });
        if self.chaos.is_some() {
            self.chaos_begin_thinking(i);
        }
    }

    fn expire(&mut self) {
        let Some(live) = self.lease.take() else {
            return;
        };
        debug_assert!(self.locks.holder(&self.scenario.lock).is_none());
        self.emit(|| EventKind::Expire {
            client: live.client,
            token: live.token,
        });
    }

    fn set_fencing(&mut self, on: bool) {
        if self.fencing == on {
            return;
        }
        self.fencing = on;
        self.storage.set_check(if on {
            self.fenced_check
        } else {
            FenceCheck::Unchecked
        });
        self.emit(|| EventKind::Fencing { on });
    }

    // ------------------------------------------------------------------ chaos jobs

    fn chaos_begin_thinking(&mut self, i: usize) {
        if let Some(driver) = &mut self.chaos {
            let local = self.clients[i].local_time(self.now);
            self.clients[i].job = Job::Think {
                until: local + driver.think(),
            };
        }
    }

    fn chaos_step(&mut self, i: usize) {
        let local = self.clients[i].local_time(self.now);
        let Some(driver) = self.chaos.as_mut() else {
            return;
        };
        match self.clients[i].job {
            Job::None => {}
            Job::Think { .. } | Job::Retry { .. } => {
                let granted = self.try_acquire(i);
                let driver = self.chaos.as_mut().expect("chaos runs have a driver");
                self.clients[i].job = if granted {
                    driver.job(local)
                } else {
                    Job::Retry {
                        at: local + driver.retry(),
                    }
                };
            }
            Job::Work {
                stall_at: Some((at, ms)),
                done,
            } if at <= local => {
                self.clients[i].job = Job::Work {
                    stall_at: None,
                    done,
                };
                self.pause(i, ms);
            }
            Job::Work { .. } => {
                // Done working. A careful client checks its own clock before writing; a GC
                // pause is exactly what that check cannot see.
                let believes_live = self.clients[i]
                    .believed_left(self.now)
                    .is_some_and(|left| left > 0);
                if believes_live {
                    let writes = driver.write_count();
                    let client = &mut self.clients[i];
                    client.jobs_done += 1;
                    let value = format!("{} job {}", client.id, client.jobs_done);
                    for _ in 0..writes {
                        let key = self.chaos.as_mut().expect("chaos driver").pick_key();
                        self.write(i, &key, value.clone());
                    }
                    self.release(i);
                } else {
                    self.forget_lease(i);
                }
                self.chaos_begin_thinking(i);
            }
        }
    }

    // ------------------------------------------------------------------ history

    fn emit(&mut self, kind: impl FnOnce() -> EventKind) {
        if self.record {
            self.events.push(Event {
                t: self.now,
                kind: kind(),
            });
        }
    }

    fn mark(&mut self, i: usize, kind: MarkKind) {
        if self.record {
            self.marks[i].push(Mark { t: self.now, kind });
        }
    }

    fn update_lanes(&mut self) {
        for i in 0..CLIENT_COUNT {
            let client = &self.clients[i];
            let span = Span {
                start: self.now,
                state: self.lane_state(client),
                token: client.belief.map(|b| b.token),
            };
            let lane = &mut self.lanes[i];
            match lane.last_mut() {
                Some(last) if (last.state, last.token) == (span.state, span.token) => {}
                Some(last) if last.start == span.start => *last = span,
                _ => lane.push(span),
            }
        }
        let span = LockSpan {
            start: self.now,
            holder: self.lease.map(|l| (l.client, l.token)),
        };
        match self.lock_lane.last_mut() {
            Some(last) if last.holder == span.holder => {}
            Some(last) if last.start == span.start => *last = span,
            _ => self.lock_lane.push(span),
        }
    }
}

fn check_index(check: FenceCheck) -> usize {
    FenceCheck::ALL
        .iter()
        .position(|&c| c == check)
        .unwrap_or_default()
}
