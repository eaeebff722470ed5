//! What a client believes of its lease, on its own clock, beside what the lock service knows.

use crate::sim::client::Client;
use crate::sim::event::{ClientId, LockId};
use crate::sim::history::{History, LaneState};
use crate::sim::time::Ms;
use crate::sim::world::{LiveLease, World};

/// What a client believes of its lease, on its own clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Believes {
    /// Down after a crash: it believes nothing.
    Down,
    /// Frozen, holding nothing.
    Frozen,
    /// Refused, and asking again.
    Wants,
    /// Holds nothing.
    Nothing,
    /// Believes it holds `token` for `left` more ms (zero or less: it knows it ran out).
    Holds { token: u64, left: i64 },
}

/// What the lock service knows of that lease.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truth {
    /// Nothing to compare.
    Nothing,
    /// It is the live lease, with `left` ms to go.
    Live { left: i64 },
    /// It stopped being live `ago` ms ago.
    Ended { ago: Ms },
    /// The service never granted it that token on that lock (a token named by hand).
    NotItsLease,
}

/// A client's belief beside the lock service's truth; `stale` when they disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeliefTruth {
    pub believes: Believes,
    pub truth: Truth,
    pub stale: bool,
}

/// Where the leases are kept: the simulated world, or a real etcd as the live run's board last
/// read it. A client's belief is set beside either in the one way [`belief_and_truth`] says.
pub trait LeaseBook {
    /// Now, on the run's clock.
    fn now(&self) -> Ms;
    /// How many locks there are.
    fn lock_count(&self) -> usize;
    /// The live lease on `lock`.
    fn lease(&self, lock: LockId) -> Option<LiveLease>;
    /// How many ms the lock service still counts on `lease`.
    fn lease_left(&self, lease: &LiveLease) -> i64;
    /// The run's record, whose lock lanes say when each lease stopped being live.
    fn history(&self) -> &History;
}

impl LeaseBook for World {
    fn now(&self) -> Ms {
        World::now(self)
    }
    fn lock_count(&self) -> usize {
        self.scenario().locks.len()
    }
    fn lease(&self, lock: LockId) -> Option<LiveLease> {
        World::lease(self, lock)
    }
    fn lease_left(&self, lease: &LiveLease) -> i64 {
        World::lease_left(self, lease)
    }
    fn history(&self) -> &History {
        World::history(self)
    }
}

/// What `client` believes of its (first) lease and what the lock service knows of it, now.
pub fn belief_and_truth(book: &impl LeaseBook, client: &Client) -> BeliefTruth {
    let now = book.now();
    if client.is_down() {
        // A crashed process believes nothing, but the lock service may still hold its lease.
        let live = (0..book.lock_count())
            .filter_map(|i| book.lease(LockId(i as u8)))
            .find(|l| l.client == client.id);
        return BeliefTruth {
            believes: Believes::Down,
            truth: live.map_or(Truth::Nothing, |lease| Truth::Live {
                left: book.lease_left(&lease),
            }),
            stale: false,
        };
    }
    let Some((lock, belief)) = client.first_belief() else {
        let believes = if client.is_paused() {
            Believes::Frozen
        } else if client.is_waiting() {
            Believes::Wants
        } else {
            Believes::Nothing
        };
        return BeliefTruth {
            believes,
            truth: Truth::Nothing,
            stale: false,
        };
    };
    let left = client.believed_left(lock, now).unwrap_or(0);
    let believes = Believes::Holds {
        token: belief.token,
        left,
    };
    if let Some(lease) = book
        .lease(lock)
        .filter(|l| l.client == client.id && l.token == belief.token)
    {
        let left = book.lease_left(&lease);
        return BeliefTruth {
            believes,
            truth: Truth::Live { left },
            stale: false,
        };
    }
    let truth = match lease_end(book.history(), lock, client.id, belief.token) {
        Some(t) => Truth::Ended {
            ago: now.saturating_sub(t),
        },
        None => Truth::NotItsLease,
    };
    // They disagree only while the client still counts time left on a lease that has ended.
    BeliefTruth {
        believes,
        truth,
        stale: left > 0,
    }
}

/// When `client`'s lease with `token` on `lock` stopped being live, from the lock's lane.
fn lease_end(history: &History, lock: LockId, client: ClientId, token: u64) -> Option<Ms> {
    let spans = history.lock_lane(lock.index());
    let i = spans
        .iter()
        .rposition(|s| s.holder == Some((client, token)))?;
    spans.get(i + 1).map(|s| s.start)
}

/// Whether a lease a client believes in is the live one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Held {
    /// The lock service agrees: it is the live lease.
    Live,
    /// The client still counts time on it, but the lock service has ended it: the dangerous
    /// stretch (the UI's lane draws it `/`).
    Gone,
}

/// A stretch of what a client believes it holds, from `start` until the next stretch starts:
/// the token and whether the lease is live, or nothing (it holds nothing, it is down, or its
/// own clock told it the lease ran out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeliefSpan {
    pub start: Ms,
    pub belief: Option<(u64, Held)>,
}

/// What `client` believed it held over the run, beside the truth, read from the history's lanes
/// (the UI's lane is the same record): `Live` where the lane says it holds the lease, `Gone`
/// where it says stale. A frozen client believes what it believed when it froze (its clock
/// stands still), so a pause is `Live` while the lock's lane still names its lease and `Gone`
/// after; a client whose own clock said the lease ran out believes nothing.
pub fn belief_lane(history: &History, client: ClientId) -> Vec<BeliefSpan> {
    let spans = history.lane(client.index());
    let mut out: Vec<BeliefSpan> = Vec::new();
    let mut push = |start: Ms, belief: Option<(u64, Held)>| match out.last_mut() {
        Some(last) if last.belief == belief => {}
        Some(last) if last.start == start => last.belief = belief,
        _ => out.push(BeliefSpan { start, belief }),
    };
    for (k, span) in spans.iter().enumerate() {
        let stop = spans.get(k + 1).map(|s| s.start);
        match (span.state, span.token) {
            (LaneState::Holding, Some(token)) => push(span.start, Some((token, Held::Live))),
            (LaneState::Stale, Some(token)) => push(span.start, Some((token, Held::Gone))),
            (LaneState::Paused, Some(token)) if froze_counting(spans, k, token) => {
                for (start, live) in liveness(history, client, token, span.start, stop) {
                    let held = if live { Held::Live } else { Held::Gone };
                    push(start, Some((token, held)));
                }
            }
            _ => push(span.start, None),
        }
    }
    out
}

/// Whether a client frozen in span `k` on `token` still counts time on it: it froze holding it or
/// believing it held (the stretch before, on the same token), or froze on a grant it had just
/// been handed (the stretch before names another token, or there is none). A lane never holds
/// two equal stretches in a row, so the stretch before is never this same frozen one.
fn froze_counting(spans: &[crate::sim::history::Span], k: usize, token: u64) -> bool {
    match k.checked_sub(1).map(|i| spans[i]) {
        Some(before) if before.token == Some(token) => {
            matches!(before.state, LaneState::Holding | LaneState::Stale)
        }
        _ => true,
    }
}

/// From `start` until `stop`, whether the lock service's lanes name `client`'s lease with
/// `token` as live, as (from, live) stretches.
fn liveness(
    history: &History,
    client: ClientId,
    token: u64,
    start: Ms,
    stop: Option<Ms>,
) -> Vec<(Ms, bool)> {
    let locks = history.lock_count();
    let live_at = |t: Ms| {
        (0..locks).any(|lock| {
            let lane = history.lock_lane(lock);
            let i = lane.partition_point(|s| s.start <= t);
            i.checked_sub(1)
                .is_some_and(|i| lane[i].holder == Some((client, token)))
        })
    };
    let mut cuts: Vec<Ms> = (0..locks)
        .flat_map(|lock| history.lock_lane(lock).iter().map(|s| s.start))
        .filter(|&t| t > start && stop.is_none_or(|stop| t < stop))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    std::iter::once(start)
        .chain(cuts)
        .map(|t| (t, live_at(t)))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::sim::lesson::tests::played;
    use crate::sim::{Input, InputKind, Scenario, Session, Setup};

    fn at(lane: &[BeliefSpan], t: Ms) -> Option<(u64, Held)> {
        let i = lane.partition_point(|s| s.start <= t);
        i.checked_sub(1).and_then(|i| lane[i].belief)
    }

    /// A lane is a list of stretches, each until the next: in every lesson, and chaos under
    /// several seeds, no two start at one instant and no two in a row believe the same.
    #[test]
    fn a_belief_lane_is_stretches_that_each_start_later_and_believe_otherwise() {
        let mut runs: Vec<Session> = Scenario::built_in_names()
            .map(|name| played(name, &[]))
            .collect();
        let chaos = Arc::new(Scenario::built_in("chaos").expect("built in"));
        for seed in 1..=8 {
            let setup = Setup::new(chaos.clone()).seed(seed);
            runs.push(Session::played_to(setup, chaos.end));
        }
        // And the lecturer's pause or crash of each client at each beat, the instant a grant
        // or a write may also come.
        for name in ["gc-pause", "crash-restart", "two-locks", "renew"] {
            let scenario = Scenario::built_in(name).expect("built in");
            for beat in &scenario.beats {
                for client in ClientId::ALL {
                    for kind in [InputKind::Pause { client }, InputKind::Crash { client }] {
                        runs.push(played(name, &[Input { at: beat.at, kind }]));
                    }
                }
            }
        }
        for session in &runs {
            for client in ClientId::ALL {
                let lane = belief_lane(session.world().history(), client);
                for pair in lane.windows(2) {
                    assert!(
                        pair[0].start < pair[1].start && pair[0].belief != pair[1].belief,
                        "{} {client:?}: {pair:?} in {lane:?}",
                        session.setup().scenario.name
                    );
                }
            }
        }
    }

    /// crash-restart: client 2 crashes at 2 s holding a lease to 5 s. Down, it believes
    /// nothing, but the lock service still holds its lease, with what is left of it.
    #[test]
    fn a_crashed_holder_believes_nothing_while_the_service_still_holds_its_lease() {
        let scenario = Arc::new(Scenario::built_in("crash-restart").expect("built in"));
        let session = Session::played_to(Setup::new(scenario), 3_000);
        let world = session.world();
        let client = &world.clients()[1];
        let bt = belief_and_truth(world, client);
        assert_eq!(
            (bt.believes, bt.truth, bt.stale),
            (Believes::Down, Truth::Live { left: 2_000 }, false)
        );
    }

    #[test]
    fn a_frozen_client_believes_its_lease_live_until_the_service_ends_it_then_gone() {
        let session = played("gc-pause", &[]);
        let lane = belief_lane(session.world().history(), ClientId::ALL[0]);
        assert_eq!(
            at(&lane, 5_000),
            Some((1, Held::Live)),
            "frozen, still live"
        );
        assert_eq!(
            at(&lane, 12_000),
            Some((1, Held::Gone)),
            "frozen, lease ended"
        );
        assert_eq!(
            at(&lane, 16_200),
            Some((1, Held::Gone)),
            "awake, still believes"
        );
    }

    #[test]
    fn a_client_whose_own_clock_ran_out_believes_nothing_as_the_uis_lane_says() {
        // network-delay: client 1's lease runs out at 10 s by its own clock too.
        let session = played("network-delay", &[]);
        let history = session.world().history();
        let lane = belief_lane(history, ClientId::ALL[0]);
        assert_eq!(at(&lane, 5_000), Some((1, Held::Live)));
        assert_eq!(at(&lane, 12_000), None, "it knows t1 ran out");
    }

    /// Wherever the UI's lane says holding or stale, the belief lane says live or gone, in every
    /// lesson (two-locks: client 2's lease is on the second lock).
    #[test]
    fn the_belief_lane_agrees_with_the_uis_lane_in_every_lesson() {
        for name in Scenario::built_in_names() {
            let session = played(name, &[]);
            let history = session.world().history();
            for client in ClientId::ALL {
                let lane = belief_lane(history, client);
                for span in history.lane(client.index()) {
                    let expected = match span.state {
                        LaneState::Holding => span.token.map(|t| (t, Held::Live)),
                        LaneState::Stale => span.token.map(|t| (t, Held::Gone)),
                        LaneState::Paused => continue,
                        _ => None,
                    };
                    assert_eq!(
                        at(&lane, span.start),
                        expected,
                        "{name}: {client} at {}",
                        span.start
                    );
                }
            }
        }
    }

    /// A lease on the second lock counts as much as one on the first: frozen on it, client 2
    /// still holds it live; crashed holding it, the lock service still holds it for client 2.
    #[test]
    fn a_lease_on_the_second_lock_is_read_from_that_locks_lane() {
        let client = ClientId::ALL[1];
        // two-locks: client 2 takes stock-lock, the second lock, at 2 s (token 2).
        let freeze = Input {
            at: 2_500,
            kind: InputKind::Pause { client },
        };
        let session = played("two-locks", &[freeze]);
        let lane = belief_lane(session.world().history(), client);
        assert_eq!(at(&lane, 3_000), Some((2, Held::Live)));
        let crash = Input {
            at: 2_500,
            kind: InputKind::Crash { client },
        };
        let mut session = played("two-locks", &[crash]);
        session.seek(3_000);
        let world = session.world();
        let truth = belief_and_truth(world, world.client(client));
        assert_eq!(truth.believes, Believes::Down);
        assert_eq!(truth.truth, Truth::Live { left: 9_000 });
    }

    /// Frozen the instant it is granted, a client counts time on the grant it was just handed:
    /// its lane goes from waiting straight to frozen on the new token.
    #[test]
    fn a_client_frozen_the_instant_it_is_granted_believes_that_grant_live() {
        let client = ClientId::ALL[1];
        // gc-pause: client 2 takes the lock at 11 s (token 2), its lease to 21 s.
        let freeze = Input {
            at: 11_000,
            kind: InputKind::Pause { client },
        };
        let session = played("gc-pause", &[freeze]);
        let history = session.world().history();
        let spans = history.lane(client.index());
        let frozen = spans
            .iter()
            .position(|s| s.state == LaneState::Paused)
            .expect("client 2 froze");
        assert_eq!(
            (spans[frozen].start, spans[frozen].token),
            (11_000, Some(2))
        );
        assert_ne!(spans[frozen - 1].token, Some(2), "{spans:?}");
        let lane = belief_lane(history, client);
        assert_eq!(at(&lane, 11_500), Some((2, Held::Live)), "{lane:?}");
    }

    #[test]
    fn a_client_that_froze_after_its_clock_ran_out_believes_nothing_while_frozen() {
        // Client 1's lease runs out at 10 s by its own clock; freeze it at 12 s.
        let pause = Input {
            at: 12_000,
            kind: InputKind::Pause {
                client: ClientId::ALL[0],
            },
        };
        let session = played("network-delay", &[pause]);
        let lane = belief_lane(session.world().history(), ClientId::ALL[0]);
        assert_eq!(at(&lane, 12_500), None);
    }
}
