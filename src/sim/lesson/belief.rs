//! What a client believes of its lease, on its own clock, beside what the lock service knows.

use crate::sim::client::Client;
use crate::sim::event::{ClientId, LockId};
use crate::sim::time::Ms;
use crate::sim::world::World;

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

/// What `client` believes of its (first) lease and what the lock service knows of it, now.
pub fn belief_and_truth(world: &World, client: &Client) -> BeliefTruth {
    let now = world.now();
    if client.is_down() {
        // A crashed process believes nothing, but the lock service may still hold its lease.
        let live = (0..world.scenario().locks.len())
            .filter_map(|i| world.lease(LockId(i as u8)))
            .find(|l| l.client == client.id);
        return BeliefTruth {
            believes: Believes::Down,
            truth: live.map_or(Truth::Nothing, |lease| Truth::Live {
                left: world.lease_left(&lease),
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
    if let Some(lease) = world
        .lease(lock)
        .filter(|l| l.client == client.id && l.token == belief.token)
    {
        let left = world.lease_left(&lease);
        return BeliefTruth {
            believes,
            truth: Truth::Live { left },
            stale: false,
        };
    }
    let truth = match lease_end(world, lock, client.id, belief.token) {
        Some(t) => Truth::Ended { ago: now - t },
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
fn lease_end(world: &World, lock: LockId, client: ClientId, token: u64) -> Option<Ms> {
    let spans = world.history().lock_lane(lock.index());
    let i = spans
        .iter()
        .rposition(|s| s.holder == Some((client, token)))?;
    spans.get(i + 1).map(|s| s.start)
}
