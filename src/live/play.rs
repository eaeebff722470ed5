//! The lesson's clock: the scenario's beats played at their real seconds on the client
//! processes, pauses as SIGSTOP and SIGCONT, crashes as SIGKILL and a new process, and the
//! observer's readings turned into expiries. What the processes answer is told by `replies`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::fleet::{Fleet, Heard};
use super::gateway::Etcd;
use super::keys::Layout;
use super::observer::{Leaders, Leadership, Observer, Seen};
use super::orders::Order;
use super::plan::{self, chaos_seed};
use super::said::{Fault, Said, Side};
use super::signal;
use crate::sim::chaos::ChaosDriver;
use crate::sim::time::fmt_seconds;
use crate::sim::{BeatAction, ClientAction, ClientId, Event, EventKind, LockId, Ms, Scenario};

/// Something due at a moment of the lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Due {
    /// A scripted beat, by index.
    Beat(usize),
    /// A frozen client's pause is over.
    Thaw(ClientId),
    /// A refused client asks again.
    Retry(ClientId, LockId),
    /// A crashed client comes back.
    Restart(ClientId),
    /// The chaos run's planned crash.
    ChaosCrash,
}

/// A lease etcd holds, as the run knows it.
#[derive(Clone, Copy, Debug)]
pub struct Holding {
    pub client: ClientId,
    pub token: u64,
    pub lease: i64,
    pub expires_at: f64,
}

/// A lease that lived on past its planned end: its token and when etcd now ends it, since
/// the start.
#[derive(Clone, Copy, Debug)]
pub struct Outlived {
    pub token: u64,
    pub ends_about: Ms,
}

impl Outlived {
    /// When its TTL has run out at the latest: etcd tells the TTL left in whole seconds, cut
    /// down, so the end is within a second after [`Outlived::ends_about`].
    pub fn ends_before(&self) -> Ms {
        self.ends_about + 1_000
    }
}

/// A write the network holds: who sent it, when, and whether its lease was live then.
#[derive(Clone, Debug)]
pub struct InFlight {
    pub client: ClientId,
    pub key: String,
    pub token: u64,
    pub sent_at: Ms,
    pub lease_live: bool,
}

/// The run's settings the clock needs.
pub struct Stage {
    pub scenario: Arc<Scenario>,
    pub layout: Layout,
    pub fencing: bool,
    pub seed: u64,
    pub end: Ms,
    pub stop: Arc<AtomicBool>,
    /// The lesson's own etcd's process, watched so its end is seen when it happens.
    pub etcd_pid: Option<u32>,
    /// etcd's endpoints, comma-separated, for the `etcdctl` lines.
    pub endpoints: String,
}

/// How long no member may answer before the lesson says etcd stopped answering: a member
/// answers its status even while the cluster elects a leader, so this is silence, not an
/// election.
pub const SILENCE: Ms = 1_500;

/// A lesson being played.
pub struct Play<'a> {
    pub(super) stage: Stage,
    pub(super) fleet: Fleet,
    pub(super) reader: Etcd,
    observer: Observer,
    leaders: Leaders,
    /// Who led at the last reading of the members' status.
    pub(super) leader: Option<Leadership>,
    /// The last member named as leader, through a round that named none.
    pub(super) last_leader: Option<String>,
    /// When etcd last elected a new leader during the lesson.
    pub(super) elected_at: Option<Ms>,
    /// The leases etcd kept past their planned end, and the tokens whose TTL was asked.
    pub(super) outlived: Vec<Outlived>,
    pub(super) ttl_asked: Vec<u64>,
    /// Every member seen answering: its id (hex) and endpoint.
    pub(super) members: Vec<(String, String)>,
    /// The lesson's own etcd's process, where its state can be read (`/proc`).
    watched_etcd: Option<u32>,
    /// When a member last answered its status, and whether the lesson ended because none did.
    answered_at: Ms,
    pub etcd_silent: bool,
    start: Instant,
    pub(super) say: &'a mut dyn FnMut(Said),
    timeline: Vec<(Ms, Due)>,
    pub(super) fencing: bool,
    pub(super) leases: Vec<Option<Holding>>,
    /// Releases ordered and not yet answered: a lock key they delete is no expiry.
    pub(super) releasing: Vec<(ClientId, LockId)>,
    /// When etcd was seen to end each token's lease.
    pub(super) ended: Vec<(u64, Ms)>,
    pub(super) sends: Vec<InFlight>,
    /// A scripted acquire that asks again every so often.
    pub(super) retry: [Option<(LockId, Ms)>; 3],
    paused: [bool; 3],
    pub(super) down: [bool; 3],
    chaos: Option<ChaosDriver>,
}

impl<'a> Play<'a> {
    /// A lesson on `fleet`, starting now.
    pub fn new(
        stage: Stage,
        fleet: Fleet,
        reader: Etcd,
        (observer, leaders): (Observer, Leaders),
        start: Instant,
        say: &'a mut dyn FnMut(Said),
    ) -> Play<'a> {
        let scenario = Arc::clone(&stage.scenario);
        let mut timeline: Vec<(Ms, Due)> = scenario
            .beats
            .iter()
            .enumerate()
            .map(|(i, b)| (b.at, Due::Beat(i)))
            .collect();
        let chaos = scenario.chaos.clone().map(|params| {
            let driver = ChaosDriver::new(params, stage.seed);
            if let Some(at) = driver.crash_due() {
                timeline.push((at, Due::ChaosCrash));
            }
            driver
        });
        timeline.sort_by_key(|(at, _)| *at);
        // Where /proc cannot be read, no process's state can, and none is watched.
        let watched_etcd = stage
            .etcd_pid
            .filter(|_| signal::state(std::process::id()).is_some());
        Play {
            fencing: stage.fencing,
            leases: vec![None; scenario.locks.len()],
            stage,
            fleet,
            reader,
            observer,
            leaders,
            leader: None,
            last_leader: None,
            elected_at: None,
            outlived: Vec::new(),
            ttl_asked: Vec::new(),
            members: Vec::new(),
            watched_etcd,
            answered_at: 0,
            etcd_silent: false,
            start,
            say,
            timeline,
            releasing: Vec::new(),
            ended: Vec::new(),
            sends: Vec::new(),
            retry: [None; 3],
            paused: [false; 3],
            down: [false; 3],
            chaos,
        }
    }

    /// Real ms since the start.
    pub(super) fn now(&self) -> Ms {
        self.start.elapsed().as_millis() as Ms
    }

    fn schedule(&mut self, at: Ms, due: Due) {
        let i = self.timeline.partition_point(|(t, _)| *t <= at);
        self.timeline.insert(i, (at, due));
    }

    /// Tells an event of the lesson, with what really happened for it.
    pub(super) fn emit(
        &mut self,
        t: Ms,
        kind: EventKind,
        extra: Map<String, Value>,
        side: Option<Side>,
    ) {
        (self.say)(Said::Event {
            event: Event { t, kind },
            extra,
            side,
        });
    }

    /// Plays the lesson to its end; when it ended.
    pub fn run(&mut self) -> Result<Ms, Fault> {
        if self.stage.scenario.chaos.is_some() {
            for client in ClientId::ALL {
                self.start_chaos(client)?;
            }
        }
        loop {
            let now = self.now();
            if self.stage.stop.load(Ordering::SeqCst) {
                return Err(Fault(format!(
                    "interrupted at {} s, before the lesson's end at {} s",
                    fmt_seconds(now),
                    fmt_seconds(self.stage.end)
                )));
            }
            if now >= self.stage.end {
                return Ok(self.stage.end);
            }
            while let Some(&(at, due)) = self.timeline.first() {
                if at > now || at > self.stage.end {
                    break;
                }
                self.timeline.remove(0);
                self.due(due)?;
            }
            // Everything the processes said so far comes before a reading of the lock keys:
            // a release a client announced is then known when its key is seen gone.
            while let Some(heard) = self.fleet.recv(Duration::ZERO) {
                self.heard(heard)?;
            }
            while let Ok(seen) = self.observer.rx.try_recv() {
                let seen = seen.map_err(|e| Fault(format!("etcd stopped answering: {e}")))?;
                self.seen(seen);
            }
            while let Ok(leadership) = self.leaders.rx.try_recv() {
                if !leadership.members.is_empty() {
                    self.answered_at = self.answered_at.max(leadership.at.as_millis() as Ms);
                }
                self.leadership(leadership);
            }
            self.watch_etcd()?;
            let next = self.timeline.first().map_or(self.stage.end, |(at, _)| *at);
            let wait = next
                .min(self.stage.end)
                .saturating_sub(self.now())
                .clamp(1, 20);
            if let Some(heard) = self.fleet.recv(Duration::from_millis(wait)) {
                self.heard(heard)?;
            }
            let now = self.now();
            (self.say)(Said::Tick(now));
        }
    }

    /// Ends the lesson when etcd is gone: the lesson's own etcd ended (it is this program's
    /// child, so its end is seen at once), or no member has answered for [`SILENCE`].
    fn watch_etcd(&mut self) -> Result<(), Fault> {
        let now = self.now();
        if let Some(pid) = self.watched_etcd {
            // A process that ended and is not yet reaped shows `Z`.
            if matches!(signal::state(pid), None | Some('Z')) {
                return Err(Fault(format!(
                    "the lesson's etcd (pid {pid}) ended at about {} s, in the middle of the \
                     lesson, so the lesson cannot go on",
                    fmt_seconds(now)
                )));
            }
        }
        let silent = now.saturating_sub(self.answered_at);
        if silent > SILENCE {
            self.etcd_silent = true;
            return Err(Fault(format!(
                "etcd stopped answering: no member has answered for {} s (since {} s), so the \
                 lesson stops at {} s",
                fmt_seconds(silent),
                fmt_seconds(self.answered_at),
                fmt_seconds(now)
            )));
        }
        Ok(())
    }

    fn due(&mut self, due: Due) -> Result<(), Fault> {
        match due {
            Due::Beat(i) => self.beat(i),
            Due::Thaw(client) => self.thaw(client),
            Due::Retry(client, lock) => {
                if self.retry[client.index()].is_some_and(|(l, _)| l == lock) {
                    let order = Order::Acquire {
                        lock: self.stage.scenario.locks[lock.index()].clone(),
                        ttl: plan::ttl_of(self.stage.scenario.lease_seconds),
                    };
                    self.order(client, &order)?;
                }
                Ok(())
            }
            Due::Restart(client) => self.restart(client),
            Due::ChaosCrash => {
                let now = self.now();
                let crash = self.chaos.as_mut().and_then(|d| d.take_crash_due(now));
                if let Some((client, down)) = crash {
                    self.crash(client, down);
                }
                Ok(())
            }
        }
    }

    fn order(&mut self, client: ClientId, order: &Order) -> Result<(), Fault> {
        self.fleet.order(client, order).map_err(Fault)
    }

    fn beat(&mut self, i: usize) -> Result<(), Fault> {
        let scenario = Arc::clone(&self.stage.scenario);
        let beat = &scenario.beats[i];
        match &beat.action {
            None => Ok(()),
            Some(BeatAction::Fencing { on }) => {
                if self.fencing != *on {
                    self.fencing = *on;
                    let now = self.now();
                    self.emit(now, EventKind::Fencing { on: *on }, Map::new(), None);
                }
                Ok(())
            }
            Some(BeatAction::ClockJump { .. }) => {
                Err(Fault("a clock jump cannot be played on a real etcd".into()))
            }
            Some(BeatAction::Client { client, action }) => {
                if self.down[client.index()] {
                    let text = format!("{client} is down after a crash: its beat never happens");
                    let t = self.now();
                    (self.say)(Said::Note { t, text });
                    return Ok(());
                }
                match action {
                    ClientAction::Pause { ms } => self.pause(*client, *ms),
                    ClientAction::Crash { down } => {
                        self.crash(*client, *down);
                        Ok(())
                    }
                    ClientAction::Acquire { lock, retry } => {
                        self.retry[client.index()] = retry.map(|every| (*lock, every));
                        self.ordered(*client, action)
                    }
                    ClientAction::Release { lock, .. } => {
                        self.releasing.push((*client, *lock));
                        self.ordered(*client, action)
                    }
                    _ => self.ordered(*client, action),
                }
            }
        }
    }

    fn ordered(&mut self, client: ClientId, action: &ClientAction) -> Result<(), Fault> {
        match plan::order_of(&self.stage.scenario, action, self.fencing) {
            Some(order) => self.order(client, &order),
            None => Ok(()),
        }
    }

    fn signal_fields(pid: u32, signal: &str) -> Map<String, Value> {
        let mut extra = Map::new();
        extra.insert("pid".into(), json!(pid));
        extra.insert("signal".into(), json!(signal));
        extra
    }

    /// Freezes `client`'s process for `ms`: the GC pause.
    pub(super) fn pause(&mut self, client: ClientId, ms: Ms) -> Result<(), Fault> {
        let now = self.now();
        let pid = self.fleet.stop(client).map_err(Fault)?;
        self.paused[client.index()] = true;
        self.schedule(now + ms, Due::Thaw(client));
        let os = format!("SIGSTOP to {client}'s process {pid}: every thread of it stops");
        let kind = EventKind::Pause {
            client,
            until: now + ms,
        };
        self.emit(
            now,
            kind,
            Play::signal_fields(pid, "SIGSTOP"),
            Some(Side::Os(os)),
        );
        Ok(())
    }

    fn thaw(&mut self, client: ClientId) -> Result<(), Fault> {
        if !self.paused[client.index()] {
            return Ok(());
        }
        let now = self.now();
        let pid = self.fleet.cont(client).map_err(Fault)?;
        self.paused[client.index()] = false;
        let os = format!("SIGCONT to process {pid}: it runs on from where it stopped");
        let extra = Play::signal_fields(pid, "SIGCONT");
        self.emit(now, EventKind::Resume { client }, extra, Some(Side::Os(os)));
        if self.chaos.is_some() {
            self.order(client, &Order::Go)?;
        }
        Ok(())
    }

    /// Kills `client`'s process (SIGKILL); it comes back after `down`.
    fn crash(&mut self, client: ClientId, down: Ms) {
        let now = self.now();
        let pid = self.fleet.pid(client).unwrap_or(0);
        self.fleet.crash(client);
        self.down[client.index()] = true;
        self.paused[client.index()] = false;
        self.retry[client.index()] = None;
        self.schedule(now + down, Due::Restart(client));
        let os =
            format!("SIGKILL to process {pid}: its lease lives on in etcd until its TTL runs out");
        let kind = EventKind::Crash {
            client,
            restart_at: now + down,
        };
        self.emit(
            now,
            kind,
            Play::signal_fields(pid, "SIGKILL"),
            Some(Side::Os(os)),
        );
    }

    fn restart(&mut self, client: ClientId) -> Result<(), Fault> {
        let pid = self.fleet.spawn(client).map_err(Fault)?;
        self.down[client.index()] = false;
        let now = self.now();
        let mut extra = Map::new();
        extra.insert("pid".into(), json!(pid));
        let os = format!("a new process {pid}, with a new connection and no lease");
        self.emit(
            now,
            EventKind::Restart { client },
            extra,
            Some(Side::Os(os)),
        );
        if self.chaos.is_some() {
            self.start_chaos(client)?;
        }
        Ok(())
    }

    fn start_chaos(&mut self, client: ClientId) -> Result<(), Fault> {
        let generation = u64::from(self.fleet.generation(client).unwrap_or(1));
        let seed = chaos_seed(
            self.stage
                .seed
                .wrapping_add((generation - 1).wrapping_mul(1_000_003)),
            client.number(),
        );
        let scenario = &self.stage.scenario;
        let order = Order::Chaos {
            scenario: scenario.origin.clone(),
            lock: scenario.locks[0].clone(),
            ttl: plan::ttl_of(scenario.lease_seconds),
            fenced: self.fencing,
            seed,
        };
        self.order(client, &order)
    }

    /// A reading of the lock keys: a lease whose key is gone, with no release on its way,
    /// was ended by etcd (its TTL ran out).
    fn seen(&mut self, seen: Seen) {
        let at = seen.at.as_millis() as Ms;
        for i in 0..self.leases.len() {
            let Some(holding) = self.leases[i] else {
                continue;
            };
            // A reading from before the grant says nothing of this lease.
            if seen.revision < holding.token {
                continue;
            }
            let name = &self.stage.scenario.locks[i];
            let still = seen
                .locks
                .iter()
                .any(|(lock, kv)| lock == name && kv.create_revision == holding.token);
            let releasing = self.releasing.contains(&(holding.client, LockId(i as u8)));
            if !still && !releasing {
                self.expired(LockId(i as u8), holding, at);
            }
        }
        self.check_leases(at, false);
    }

    /// Tells that etcd ended `holding`'s lease on `lock`, seen at `at`.
    pub(super) fn expired(&mut self, lock: LockId, holding: Holding, at: Ms) {
        self.leases[lock.index()] = None;
        self.ended.push((holding.token, at));
        let key = format!("lock/{}", self.stage.scenario.locks[lock.index()]);
        let etcd = format!(
            "lease {:x} ran out of TTL: etcd revoked it and deleted {key} with it",
            holding.lease
        );
        let kind = EventKind::Expire {
            client: holding.client,
            lock,
            token: holding.token,
        };
        let mut extra = Map::new();
        extra.insert("lease".into(), json!(format!("{:x}", holding.lease)));
        self.emit(at.max(1), kind, extra, Some(Side::Etcd(etcd)));
    }

    fn heard(&mut self, heard: Heard) -> Result<(), Fault> {
        match heard {
            Heard::Reply(client, generation, reply) => {
                if self.fleet.generation(client) == Some(generation) {
                    self.reply(client, reply)?;
                }
                Ok(())
            }
            Heard::Ended(client, generation, last) => {
                if self.fleet.generation(client) != Some(generation) {
                    return Ok(());
                }
                let pid = self.fleet.pid(client).unwrap_or(0);
                let how = self.fleet.reap(client);
                Err(Fault(format!(
                    "{client}'s process {pid} {how} in the middle of the lesson{}, so the lesson cannot go on",
                    super::fleet::said(&last)
                )))
            }
        }
    }

    /// Schedules a refused client's next try, if its beat asked for retries.
    pub(super) fn retry_later(&mut self, client: ClientId, lock: LockId) {
        if let Some((l, every)) = self.retry[client.index()] {
            if l == lock {
                let at = self.now() + every;
                self.schedule(at, Due::Retry(client, lock));
            }
        }
    }
}
