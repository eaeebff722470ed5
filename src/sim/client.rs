//! One simulated client: what it is doing, the leases it believes it holds and its own clock,
//! which stands still while it is frozen in a GC pause. That gap between its clock and the
//! world's is where belief and truth part.

use std::collections::VecDeque;

use super::chaos::Job;
use super::event::{ClientId, LockId};
use super::scenario::{ClientAction, MAX_LOCKS};
use super::time::Ms;

/// What a client is doing, apart from being frozen in a GC pause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activity {
    /// Holds nothing, wants nothing right now.
    Idle,
    /// Asked for the lock and was refused; will ask again.
    Waiting,
    /// Believes it holds a lock (the lease may have run out without it knowing).
    Holding,
    /// Down after a crash, until its restart.
    Crashed,
}

/// The lease a client believes it holds, reckoned on the client's own clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Belief {
    /// The token it will send with writes.
    pub token: u64,
    /// When, on the client's own clock, it believes the lease runs out.
    pub expires_local: Ms,
}

/// A scripted acquire that asks again until granted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retry {
    /// Which lock.
    pub lock: LockId,
    /// The next try, on the client's own clock.
    pub at: Ms,
    /// How long between tries.
    pub interval: Ms,
}

/// One simulated client.
#[derive(Clone, Debug)]
pub struct Client {
    /// Which client.
    pub id: ClientId,
    /// What it is doing.
    pub(crate) activity: Activity,
    /// A GC pause in progress: (since, until), in world time.
    pub(crate) pause: Option<(Ms, Ms)>,
    /// The lease it believes it holds on each lock, by [`LockId`].
    pub(crate) beliefs: [Option<Belief>; MAX_LOCKS],
    /// How much world time has passed while it was frozen: its own clock lags by this much.
    pub(crate) lag: Ms,
    /// Scripted actions that came due while it was frozen, with their beat; done when it wakes.
    pub(crate) deferred: VecDeque<(usize, ClientAction)>,
    /// A scripted acquire that asks again.
    pub(crate) retry: Option<Retry>,
    /// A chaos client's current job.
    pub(crate) job: Job,
    /// When a crashed client comes back.
    pub(crate) restart_at: Option<Ms>,
    /// Jobs finished, to label a chaos client's writes.
    pub(crate) jobs_done: u32,
    /// The network will hold this client's next write this long.
    pub(crate) delay_next: Option<Ms>,
}

impl Client {
    /// A client at rest at t = 0.
    pub fn new(id: ClientId) -> Client {
        Client {
            id,
            activity: Activity::Idle,
            pause: None,
            beliefs: [None; MAX_LOCKS],
            lag: 0,
            deferred: VecDeque::new(),
            retry: None,
            job: Job::None,
            restart_at: None,
            jobs_done: 0,
            delay_next: None,
        }
    }

    /// How far its own clock lags the world's: the time it spent frozen.
    pub fn lag(&self) -> Ms {
        self.lag
    }

    /// When a GC pause it is in ends, if it is in one.
    pub fn frozen_until(&self) -> Option<Ms> {
        self.pause.map(|(_, until)| until)
    }

    /// Whether the network will hold its next write.
    pub fn next_write_delayed(&self) -> bool {
        self.delay_next.is_some()
    }

    /// Whether it was refused and is asking again.
    pub fn is_waiting(&self) -> bool {
        self.activity == Activity::Waiting
    }

    /// The client's own clock at world time `now`: it stands still during a GC pause.
    pub fn local_time(&self, now: Ms) -> Ms {
        match self.pause {
            Some((since, _)) => since - self.lag,
            None => now - self.lag,
        }
    }

    /// World time of a moment on the client's own clock (valid while it is not frozen).
    pub fn to_world(&self, local: Ms) -> Ms {
        local + self.lag
    }

    /// The lease it believes it holds on `lock`.
    pub fn belief(&self, lock: LockId) -> Option<Belief> {
        self.beliefs[lock.index()]
    }

    /// The first lock it believes it holds, with that belief.
    pub fn first_belief(&self) -> Option<(LockId, Belief)> {
        self.beliefs
            .iter()
            .enumerate()
            .find_map(|(i, b)| b.map(|b| (LockId(i as u8), b)))
    }

    /// How long the client believes its lease on `lock` still lasts, in ms (zero or less: it
    /// knows it ran out).
    pub fn believed_left(&self, lock: LockId, now: Ms) -> Option<i64> {
        let belief = self.belief(lock)?;
        Some(belief.expires_local as i64 - self.local_time(now) as i64)
    }

    /// Frozen in a GC pause.
    pub fn is_paused(&self) -> bool {
        self.pause.is_some()
    }

    /// Down after a crash.
    pub fn is_down(&self) -> bool {
        self.activity == Activity::Crashed
    }

    /// Forgets its lease on `lock` (told by a refusal, or giving up); idle if it holds no other.
    pub fn forget(&mut self, lock: LockId) {
        self.beliefs[lock.index()] = None;
        if self.retry.is_some_and(|r| r.lock == lock) {
            self.retry = None;
        }
        if self.activity == Activity::Holding && self.first_belief().is_none() {
            self.activity = Activity::Idle;
        }
    }

    /// Everything a crash wipes: beliefs, plans, what it was about to do.
    pub fn wipe(&mut self) {
        self.beliefs = [None; MAX_LOCKS];
        self.retry = None;
        self.deferred.clear();
        self.job = Job::None;
        self.delay_next = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clients_clock_stands_still_while_it_is_frozen() {
        let mut client = Client::new(ClientId::ALL[0]);
        assert_eq!(client.local_time(4_000), 4_000);
        // It was frozen for 2 s earlier, and froze again at 7 s.
        client.lag = 2_000;
        assert_eq!(client.local_time(6_000), 4_000);
        client.pause = Some((7_000, 20_000));
        assert_eq!(client.local_time(9_000), 5_000);
        assert_eq!(client.local_time(19_000), 5_000);
        assert_eq!(client.to_world(5_000), 7_000);
        client.beliefs[0] = Some(Belief {
            token: 3,
            expires_local: 8_000,
        });
        assert_eq!(client.believed_left(LockId::FIRST, 19_000), Some(3_000));
        assert_eq!(client.believed_left(LockId(1), 19_000), None);
    }

    #[test]
    fn forgetting_one_lock_keeps_what_belongs_to_another() {
        let (first, second) = (LockId(0), LockId(1));
        let belief = Belief {
            token: 1,
            expires_local: 10_000,
        };
        let mut client = Client::new(ClientId::ALL[1]);
        client.activity = Activity::Holding;
        client.beliefs[0] = Some(belief);
        client.beliefs[1] = Some(belief);
        client.retry = Some(Retry {
            lock: second,
            at: 500,
            interval: 500,
        });
        client.forget(first);
        assert_eq!(client.belief(first), None);
        assert!(client.retry.is_some(), "the retry is for the other lock");
        assert_eq!(
            client.activity,
            Activity::Holding,
            "it still holds the other"
        );
        assert_eq!(client.first_belief(), Some((second, belief)));
        client.forget(second);
        assert_eq!(client.retry, None);
        assert_eq!(client.activity, Activity::Idle);
        // A client that is waiting for a lock keeps waiting when it forgets another.
        let mut waiting = Client::new(ClientId::ALL[2]);
        waiting.activity = Activity::Waiting;
        waiting.forget(first);
        assert_eq!(waiting.activity, Activity::Waiting);
    }

    #[test]
    fn a_crash_wipes_everything_the_client_believed_or_planned() {
        let mut client = Client::new(ClientId::ALL[0]);
        client.beliefs[2] = Some(Belief {
            token: 4,
            expires_local: 1,
        });
        client.retry = Some(Retry {
            lock: LockId(2),
            at: 1,
            interval: 1,
        });
        client
            .deferred
            .push_back((0, ClientAction::Pause { ms: 1 }));
        client.job = Job::Retry { at: 3 };
        client.delay_next = Some(5);
        client.wipe();
        assert_eq!(client.first_belief(), None);
        assert_eq!(client.retry, None);
        assert!(client.deferred.is_empty());
        assert_eq!(client.job, Job::None);
        assert_eq!(client.delay_next, None);
    }
}
