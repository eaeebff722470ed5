//! A run played elsewhere, on a real etcd (`fencing-lab live`), as the UI reads it: the events
//! as they arrive, each client's lane and its belief on its own clock, the lock service's truth
//! as etcd showed it, and the storage as read back from etcd. The live run fills it; the UI
//! draws it, deciding nothing. Its reading of events mirrors the world's (`world.rs`): the same
//! lanes, marks and counts from the same kinds of event.

use std::collections::BTreeMap;

use super::client::{Activity, Belief, Client};
use super::event::{ClientId, Event, EventKind, LockId};
use super::history::{History, Keep, LaneState, MarkKind};
use super::lesson::LeaseBook;
use super::time::{seconds, Ms};
use super::world::{LiveLease, Setup, Stats};

/// One key of the storage as etcd holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRow {
    pub key: String,
    pub value: String,
    /// The highest token the key has accepted.
    pub highest: Option<u64>,
    /// Who wrote the value, and with which token.
    pub by: Option<(ClientId, u64)>,
}

/// The live run so far.
pub struct Board {
    setup: Setup,
    history: History,
    clients: Vec<Client>,
    leases: Vec<Option<LiveLease>>,
    storage: Vec<StoredRow>,
    fencing: bool,
    stats: Stats,
    now: Ms,
    /// What the header says of where the run happens, once etcd is there.
    pub about: Option<About>,
    /// How the run ended, once it has.
    pub ended: Option<String>,
    /// The last thing the real system did that the lesson did not plan, and when (a live run's
    /// new leader, a lease outliving the plan).
    pub news: Option<(Ms, String)>,
    /// When the lesson ends (the scenario's end, or `--until`).
    pub end: Ms,
    /// The TTL the real system grants a lease, in ms, once known.
    pub ttl: Option<Ms>,
}

/// Where a live run happens, as the header says it: "etcd at 127.0.0.1:23791 +2", and the
/// short form for a header with less room, "etcd 127.0.0.1:23791".
#[derive(Clone, Debug)]
pub struct About {
    pub long: String,
    pub short: String,
}

impl Board {
    /// An empty board for `setup` (its scenario, seed and fencing at the start).
    pub fn new(setup: Setup) -> Board {
        let locks = setup.scenario.locks.len();
        let beats = setup.scenario.beats.len();
        let mut board = Board {
            fencing: setup.fencing,
            history: History::new(Keep::All, locks, beats),
            clients: ClientId::ALL.into_iter().map(Client::new).collect(),
            leases: vec![None; locks],
            storage: Vec::new(),
            stats: Stats::default(),
            now: 0,
            about: None,
            ended: None,
            news: None,
            end: setup.scenario.end,
            ttl: None,
            setup,
        };
        board.update_lanes();
        board
    }

    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    pub fn events(&self) -> &[Event] {
        self.history.events()
    }

    /// Real time since the start, in ms, as of the last tick or event.
    pub fn now(&self) -> Ms {
        self.now
    }

    pub fn clients(&self) -> &[Client] {
        &self.clients
    }

    /// The lease etcd holds on `lock`, as the run last saw it.
    pub fn lease(&self, lock: LockId) -> Option<LiveLease> {
        self.leases.get(lock.index()).copied().flatten()
    }

    /// How many ms `lease` has left by its TTL.
    pub fn lease_left(&self, lease: &LiveLease) -> i64 {
        (lease.expires_at * 1000.0).round() as i64 - self.now as i64
    }

    /// The storage as last read back from etcd, by key.
    pub fn storage(&self) -> &[StoredRow] {
        &self.storage
    }

    pub fn fencing(&self) -> bool {
        self.fencing
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Time passes with nothing said: the lanes move on.
    pub fn tick(&mut self, now: Ms) {
        if now > self.now {
            self.now = now;
        }
    }

    /// What etcd holds now, read back after a write.
    pub fn set_storage(&mut self, rows: Vec<StoredRow>) {
        let mut sorted: BTreeMap<String, StoredRow> = BTreeMap::new();
        for row in rows {
            sorted.insert(row.key.clone(), row);
        }
        self.storage = sorted.into_values().collect();
    }

    /// The real system kept `token`'s lease on `lock` past its planned end (a new leader
    /// renewed it at `renewed`, in ms): it now ends at `expires_at` (seconds). No client did
    /// this, so no client's belief or lane changes: only the lock service's truth.
    pub fn lease_outlived(&mut self, lock: LockId, token: u64, renewed: Ms, expires_at: f64) {
        if let Some(lease) = self.leases.get_mut(lock.index()).and_then(Option::as_mut) {
            if lease.token == token {
                lease.granted_at = seconds(renewed);
                lease.expires_at = expires_at;
            }
        }
    }

    /// Records one event of the run, as the world would: lease truth, beliefs, marks, counts.
    pub fn apply(&mut self, event: Event) {
        let t = event.t;
        self.tick(t);
        if !self.lease_event(t, &event.kind) {
            self.client_event(t, &event.kind);
        }
        self.history.emit(t, || event.kind.clone());
        self.update_lanes();
    }

    /// An event about a lease (a grant, renew, release, refusal or expiry); whether it was one.
    fn lease_event(&mut self, t: Ms, kind: &EventKind) -> bool {
        let now_s = seconds(t);
        match kind {
            EventKind::Grant {
                client,
                lock,
                token,
                expires_at,
            } => {
                self.stats.grants += 1;
                self.leases[lock.index()] = Some(LiveLease {
                    client: *client,
                    token: *token,
                    granted_at: now_s,
                    expires_at: *expires_at,
                });
                let c = &mut self.clients[client.index()];
                let lease_ms = ((expires_at - now_s) * 1000.0).round().max(0.0) as Ms;
                c.beliefs[lock.index()] = Some(Belief {
                    token: *token,
                    expires_local: c.local_time(t) + lease_ms,
                });
                c.activity = Activity::Holding;
            }
            EventKind::AcquireRefused { client, .. } => {
                let c = &mut self.clients[client.index()];
                if c.activity != Activity::Holding {
                    c.activity = Activity::Idle;
                }
                self.history.mark(client.index(), t, MarkKind::Refused);
            }
            EventKind::Renew {
                client,
                lock,
                token,
                expires_at,
            } => {
                if let Some(lease) = self.leases[lock.index()].as_mut() {
                    if lease.client == *client && lease.token == *token {
                        lease.expires_at = *expires_at;
                    }
                }
                let c = &mut self.clients[client.index()];
                let left = ((expires_at - now_s) * 1000.0).round().max(0.0) as Ms;
                let local = c.local_time(t);
                if let Some(b) = c.beliefs[lock.index()].as_mut() {
                    if b.token == *token {
                        b.expires_local = local + left;
                    }
                }
                self.history.mark(client.index(), t, MarkKind::Renewed);
            }
            EventKind::RenewRefused { client, lock, .. }
            | EventKind::ReleaseRefused { client, lock, .. } => {
                self.clients[client.index()].forget(*lock);
                self.history.mark(client.index(), t, MarkKind::LeaseRefusal);
            }
            EventKind::Release {
                client,
                lock,
                token,
            } => {
                if self
                    .lease(*lock)
                    .is_some_and(|l| l.client == *client && l.token == *token)
                {
                    self.leases[lock.index()] = None;
                }
                self.clients[client.index()].forget(*lock);
                self.history.mark(client.index(), t, MarkKind::Released);
            }
            EventKind::Expire { lock, token, .. } => {
                if self.lease(*lock).is_some_and(|l| l.token == *token) {
                    self.leases[lock.index()] = None;
                }
            }
            _ => return false,
        }
        true
    }

    /// An event about a client's process, a write or the storage's setting.
    fn client_event(&mut self, t: Ms, kind: &EventKind) {
        match kind {
            EventKind::Pause { client, until } => {
                let c = &mut self.clients[client.index()];
                c.pause = Some((t, (*until).max(t)));
            }
            EventKind::Resume { client } => {
                let c = &mut self.clients[client.index()];
                if let Some((since, _)) = c.pause.take() {
                    c.lag += t.saturating_sub(since);
                }
            }
            EventKind::Crash { client, restart_at } => {
                let c = &mut self.clients[client.index()];
                c.pause = None;
                c.beliefs = Default::default();
                c.activity = Activity::Crashed;
                c.restart_at = Some(*restart_at);
            }
            EventKind::Restart { client } => {
                let c = &mut self.clients[client.index()];
                c.activity = Activity::Idle;
                c.restart_at = None;
            }
            EventKind::Send { client, .. } => self.history.mark(client.index(), t, MarkKind::Sent),
            EventKind::Write {
                client,
                verdict,
                lease_live,
                ..
            } => {
                self.stats.count(verdict, *lease_live);
                self.history
                    .mark(client.index(), t, MarkKind::of(verdict.outcome()));
            }
            EventKind::Fencing { on } => self.fencing = *on,
            _ => {}
        }
    }

    fn lease_is_live(&self, lock: LockId, client: ClientId, token: u64) -> bool {
        self.lease(lock)
            .is_some_and(|l| l.client == client && l.token == token)
    }

    /// How a client's lane looks now, as the world decides it.
    pub fn lane_state(&self, client: &Client) -> LaneState {
        if client.is_down() {
            return LaneState::Crashed;
        }
        if client.is_paused() {
            return LaneState::Paused;
        }
        let beliefs = client
            .beliefs
            .iter()
            .enumerate()
            .filter_map(|(i, b)| b.map(|b| (LockId(i as u8), b)));
        let mut holding = false;
        for (lock, b) in beliefs {
            if self.lease_is_live(lock, client.id, b.token) {
                holding = true;
            } else if client.believed_left(lock, self.now).is_some_and(|l| l > 0) {
                return LaneState::Stale;
            }
        }
        if holding {
            LaneState::Holding
        } else if client.activity == Activity::Waiting {
            LaneState::Waiting
        } else {
            LaneState::Idle
        }
    }

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

/// etcd's leases, as the run last read them, on the run's real clock.
impl LeaseBook for Board {
    fn now(&self) -> Ms {
        self.now
    }
    fn lock_count(&self) -> usize {
        self.leases.len()
    }
    fn lease(&self, lock: LockId) -> Option<LiveLease> {
        Board::lease(self, lock)
    }
    fn lease_left(&self, lease: &LiveLease) -> i64 {
        Board::lease_left(self, lease)
    }
    fn history(&self) -> &History {
        &self.history
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::lesson::{belief_and_truth, Believes, Truth};
    use crate::sim::Scenario;
    use crate::{FenceCheck, Verdict};
    use std::sync::Arc;

    fn board() -> Board {
        let scenario = Arc::new(Scenario::built_in("gc-pause").unwrap());
        Board::new(Setup::new(scenario))
    }

    fn at(t: Ms, kind: EventKind) -> Event {
        Event { t, kind }
    }

    /// The gc-pause story with etcd's revisions as tokens: the lanes, beliefs and counts the
    /// world would show.
    #[test]
    fn the_story_reads_as_the_world_would_tell_it() {
        let (c1, c2) = (ClientId::ALL[0], ClientId::ALL[1]);
        let lock = LockId::FIRST;
        let mut b = board();
        b.apply(at(
            12,
            EventKind::Grant {
                client: c1,
                lock,
                token: 8,
                expires_at: 10.012,
            },
        ));
        b.apply(at(
            1_003,
            EventKind::Pause {
                client: c1,
                until: 16_003,
            },
        ));
        b.tick(5_000);
        let c = &b.clients()[0];
        assert_eq!(b.lane_state(c), LaneState::Paused);
        b.apply(at(
            10_400,
            EventKind::Expire {
                client: c1,
                lock,
                token: 8,
            },
        ));
        b.apply(at(
            11_010,
            EventKind::Grant {
                client: c2,
                lock,
                token: 11,
                expires_at: 21.01,
            },
        ));
        let verdict = Verdict::judge(FenceCheck::PerKey, 11, None, None);
        b.apply(at(
            12_020,
            EventKind::Write {
                client: c2,
                key: "file".into(),
                value: "client 2's data".into(),
                verdict,
                sent_at: None,
                lease_live: true,
            },
        ));
        b.apply(at(16_010, EventKind::Resume { client: c1 }));
        let c = &b.clients()[0];
        // Frozen for 15.007 s: its own clock says 10 - 1.003 + 0.012 ... about 9 s are left.
        let bt = belief_and_truth(&b, c);
        match bt.believes {
            Believes::Holds { token: 8, left } => assert!((8_900..9_100).contains(&left), "{left}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            bt.truth,
            Truth::Ended {
                ago: 16_010 - 10_400
            }
        );
        assert!(bt.stale);
        assert_eq!(b.lane_state(c), LaneState::Stale);
        let late = Verdict {
            accepted: false,
            ..Verdict::judge(FenceCheck::PerKey, 8, Some(11), None)
        };
        b.apply(at(
            16_520,
            EventKind::Write {
                client: c1,
                key: "file".into(),
                value: "client 1's data".into(),
                verdict: late,
                sent_at: None,
                lease_live: false,
            },
        ));
        assert_eq!(
            b.history().marks(0).last().unwrap().kind,
            MarkKind::Rejected
        );
        let stats = b.stats();
        assert_eq!(
            (
                stats.grants,
                stats.writes_accepted,
                stats.writes_rejected,
                stats.corruptions
            ),
            (2, 1, 1, 0)
        );
        assert_eq!(b.lease(lock).map(|l| (l.client, l.token)), Some((c2, 11)));
        assert_eq!(b.events().len(), 7);
        b.set_storage(vec![
            StoredRow {
                key: "log".into(),
                value: "x".into(),
                highest: Some(3),
                by: None,
            },
            StoredRow {
                key: "file".into(),
                value: "client 2's data".into(),
                highest: Some(11),
                by: Some((c2, 11)),
            },
        ]);
        assert_eq!(b.storage()[0].key, "file", "sorted by key");
    }
    /// Renewals, releases, refusals, a crash and its restart, fencing switched: each moves the
    /// lanes, beliefs, marks and truth as the world's own events would.
    #[test]
    fn every_kind_of_event_moves_the_board() {
        use crate::sim::Refusal;
        use crate::LeaseError;
        let (c1, c2, c3) = (ClientId::ALL[0], ClientId::ALL[1], ClientId::ALL[2]);
        let lock = LockId::FIRST;
        let mut b = board();
        assert_eq!(
            b.end, 23_000,
            "the scenario's end until the run says otherwise"
        );
        assert_eq!(
            belief_and_truth(&b, &b.clients()[0]).believes,
            Believes::Nothing
        );
        b.apply(at(
            0,
            EventKind::Grant {
                client: c1,
                lock,
                token: 2,
                expires_at: 3.0,
            },
        ));
        b.apply(at(
            1_000,
            EventKind::Renew {
                client: c1,
                lock,
                token: 2,
                expires_at: 4.0,
            },
        ));
        assert_eq!(
            b.lease(lock).map(|l| l.expires_at),
            Some(4.0),
            "renewed on etcd"
        );
        let bt = belief_and_truth(&b, &b.clients()[0]);
        assert_eq!(
            bt.believes,
            Believes::Holds {
                token: 2,
                left: 3_000
            }
        );
        assert_eq!(bt.truth, Truth::Live { left: 3_000 });
        assert!(!bt.stale);
        assert_eq!(b.history().marks(0).last().unwrap().kind, MarkKind::Renewed);
        b.apply(at(
            1_500,
            EventKind::Release {
                client: c1,
                lock,
                token: 2,
            },
        ));
        assert!(b.lease(lock).is_none(), "released");
        assert_eq!(
            b.history().marks(0).last().unwrap().kind,
            MarkKind::Released
        );
        assert_eq!(b.lane_state(&b.clients()[0]), LaneState::Idle);
        // A release with a stale token changes nobody's lease.
        b.apply(at(
            2_000,
            EventKind::Grant {
                client: c2,
                lock,
                token: 5,
                expires_at: 5.0,
            },
        ));
        b.apply(at(
            2_100,
            EventKind::Release {
                client: c1,
                lock,
                token: 2,
            },
        ));
        assert_eq!(b.lease(lock).map(|l| (l.client, l.token)), Some((c2, 5)));
        let refused = Refusal::Lease(LeaseError::NotHeld {
            lock: "file-lock".into(),
            client_id: "client-3".into(),
        });
        b.apply(at(
            2_200,
            EventKind::ReleaseRefused {
                client: c3,
                lock,
                token: 1,
                reason: refused.clone(),
            },
        ));
        b.apply(at(
            2_300,
            EventKind::RenewRefused {
                client: c3,
                lock,
                token: 1,
                reason: refused,
            },
        ));
        assert_eq!(b.history().marks(2).len(), 2);
        assert!(b
            .history()
            .marks(2)
            .iter()
            .all(|m| m.kind == MarkKind::LeaseRefusal));
        b.apply(at(
            2_400,
            EventKind::AcquireRefused {
                client: c3,
                lock,
                holder: Some(c2),
            },
        ));
        assert_eq!(b.history().marks(2).last().unwrap().kind, MarkKind::Refused);
        // The holder crashes: it believes nothing, but etcd still holds its lease.
        b.apply(at(
            2_500,
            EventKind::Crash {
                client: c2,
                restart_at: 4_500,
            },
        ));
        let c = &b.clients()[1];
        assert_eq!(b.lane_state(c), LaneState::Crashed);
        let bt = belief_and_truth(&b, c);
        assert_eq!(
            (bt.believes, bt.truth),
            (Believes::Down, Truth::Live { left: 2_500 })
        );
        b.apply(at(4_500, EventKind::Restart { client: c2 }));
        assert_eq!(b.lane_state(&b.clients()[1]), LaneState::Idle);
        // An expiry of an older token leaves the live lease alone; its own ends it.
        b.apply(at(
            4_600,
            EventKind::Expire {
                client: c1,
                lock,
                token: 2,
            },
        ));
        assert!(b.lease(lock).is_some());
        b.apply(at(
            5_300,
            EventKind::Expire {
                client: c2,
                lock,
                token: 5,
            },
        ));
        assert!(b.lease(lock).is_none());
        // A frozen client that holds nothing believes it is frozen; a sent write is marked.
        b.apply(at(
            5_400,
            EventKind::Pause {
                client: c3,
                until: 6_000,
            },
        ));
        assert_eq!(
            belief_and_truth(&b, &b.clients()[2]).believes,
            Believes::Frozen
        );
        b.apply(at(6_000, EventKind::Resume { client: c3 }));
        assert_eq!(b.clients()[2].lag, 600);
        b.apply(at(
            6_100,
            EventKind::Send {
                client: c1,
                key: "file".into(),
                token: 2,
                deliver_at: 8_000,
                injected: false,
            },
        ));
        assert_eq!(b.history().marks(0).last().unwrap().kind, MarkKind::Sent);
        assert!(b.fencing());
        b.apply(at(6_200, EventKind::Fencing { on: false }));
        assert!(!b.fencing());
        assert_eq!(b.stats().grants, 2);
        assert_eq!(b.now(), 6_200);
        b.tick(6_100);
        assert_eq!(b.now(), 6_200, "time never goes back");
    }
    /// The edges the world's own rules draw: a belief that ends exactly now is no longer
    /// stale; a lease is live only for its own client and token; a refused holder keeps
    /// holding; a renew or release of another token changes nothing.
    #[test]
    fn a_lease_is_live_only_for_its_own_client_and_token() {
        let (c1, c2) = (ClientId::ALL[0], ClientId::ALL[1]);
        let lock = LockId::FIRST;
        let mut b = board();
        b.apply(at(
            2_000,
            EventKind::Grant {
                client: c1,
                lock,
                token: 2,
                expires_at: 5.0,
            },
        ));
        let bt = belief_and_truth(&b, &b.clients()[0]);
        assert_eq!(
            bt.believes,
            Believes::Holds {
                token: 2,
                left: 3_000
            },
            "a 3 s lease from 2 s"
        );
        assert_eq!(b.lane_state(&b.clients()[0]), LaneState::Holding);
        // Asking again while it holds: refused, and it still holds.
        b.apply(at(
            2_100,
            EventKind::AcquireRefused {
                client: c1,
                lock,
                holder: Some(c1),
            },
        ));
        assert_eq!(b.lane_state(&b.clients()[0]), LaneState::Holding);
        assert_eq!(b.clients()[0].activity, Activity::Holding);
        // A renew or release naming another token leaves the lease as it is.
        b.apply(at(
            2_200,
            EventKind::Renew {
                client: c1,
                lock,
                token: 9,
                expires_at: 8.0,
            },
        ));
        assert_eq!(b.lease(lock).map(|l| l.expires_at), Some(5.0));
        // etcd ends the lease early (as seen), and hands the same number to client 2: client
        // 1's belief is not that lease.
        b.apply(at(
            2_400,
            EventKind::Expire {
                client: c1,
                lock,
                token: 2,
            },
        ));
        b.apply(at(
            2_500,
            EventKind::Grant {
                client: c2,
                lock,
                token: 2,
                expires_at: 5.5,
            },
        ));
        let c = &b.clients()[0];
        assert_eq!(
            b.lane_state(c),
            LaneState::Stale,
            "client 1 counts time on a lease that ended"
        );
        let bt = belief_and_truth(&b, c);
        assert_eq!(bt.truth, Truth::Ended { ago: 100 });
        assert!(bt.stale);
        // Exactly when its own clock says the lease ran out, it no longer thinks it holds it.
        b.tick(5_000);
        let c = &b.clients()[0];
        assert_eq!(c.believed_left(lock, 5_000), Some(0));
        assert_eq!(b.lane_state(c), LaneState::Idle);
        assert!(!belief_and_truth(&b, c).stale);
        // A release naming another token than the live lease's ends nothing.
        b.apply(at(
            5_100,
            EventKind::Release {
                client: c2,
                lock,
                token: 9,
            },
        ));
        assert_eq!(b.lease(lock).map(|l| (l.client, l.token)), Some((c2, 2)));
    }

    /// A crashed client's lease on the second of two locks is still etcd's: the board looks
    /// through every lock the scenario has, not the first alone.
    #[test]
    fn a_crashed_holder_of_the_second_lock_still_has_its_lease_on_etcd() {
        let scenario = Arc::new(Scenario::built_in("two-locks").unwrap());
        let mut b = Board::new(Setup::new(scenario));
        let c1 = ClientId::ALL[0];
        let second = LockId(1);
        b.apply(at(
            0,
            EventKind::Grant {
                client: c1,
                lock: second,
                token: 5,
                expires_at: 10.0,
            },
        ));
        b.apply(at(
            1_000,
            EventKind::Crash {
                client: c1,
                restart_at: 6_000,
            },
        ));
        let bt = belief_and_truth(&b, &b.clients()[0]);
        assert_eq!(
            (bt.believes, bt.truth),
            (Believes::Down, Truth::Live { left: 9_000 })
        );
    }
}
