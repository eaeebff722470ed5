//! The seed's chaos test as a pure job machine: each client takes the lock, works (sometimes
//! stalling in a GC pause longer than the lease), writes with its token and releases; one client
//! crashes and restarts. [`ChaosDriver::on_due`] says what a client does next; the world does it.
//! Randomness comes only from ChaCha8, whose output is documented as reproducible across
//! platforms and versions, and is drawn in a fixed order.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::event::ClientId;
use super::scenario::ChaosParams;
use super::time::Ms;

/// A chaos client's job, in the client's own clock (which stands still while it is frozen).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// Not a chaos client, or down.
    None,
    /// Idle until then, then it asks for the lock.
    Think { until: Ms },
    /// Refused; asks again then.
    Retry { at: Ms },
    /// Holds the lock and works until `done`, perhaps stalling on the way.
    Work {
        /// A GC pause to fall into while working: (when, how long).
        stall_at: Option<(Ms, Ms)>,
        done: Ms,
    },
}

impl Job {
    /// When the job next needs the client, on its own clock.
    pub fn due(&self) -> Option<Ms> {
        match *self {
            Job::None => None,
            Job::Think { until } => Some(until),
            Job::Retry { at } => Some(at),
            Job::Work { stall_at, done } => Some(stall_at.map_or(done, |(at, _)| at)),
        }
    }
}

/// What a chaos client does when its job comes due.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Ask for the lock; then tell the driver whether it was granted.
    Acquire,
    /// Freeze in a GC pause for `ms`, then carry on with `then`.
    Stall { ms: Ms, then: Job },
    /// Work done and the lease still looks live on its own clock: write to each key, release,
    /// and think again.
    Finish { keys: Vec<String> },
    /// Work done but its own clock says the lease ran out: forget it, and think again.
    GiveUp,
}

/// The random choices of one chaos run, drawn in a fixed order from one seeded generator.
#[derive(Clone, Debug)]
pub struct ChaosDriver {
    params: ChaosParams,
    rng: ChaCha8Rng,
    /// The planned crash: when, and who.
    crash: Option<(Ms, ClientId)>,
    down: Ms,
}

impl ChaosDriver {
    /// The driver of the run with this seed.
    pub fn new(params: ChaosParams, seed: u64) -> ChaosDriver {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let crash = params.crash.then(|| {
            let at = rng.random_range(params.seconds / 5..=params.seconds * 4 / 5);
            let who = ClientId::ALL[rng.random_range(0..ClientId::ALL.len())];
            (at, who)
        });
        let down = rng.random_range(params.down.0..=params.down.1);
        ChaosDriver {
            params,
            rng,
            crash,
            down,
        }
    }

    fn draw(&mut self, (lo, hi): (Ms, Ms)) -> Ms {
        self.rng.random_range(lo..=hi)
    }

    /// When the planned crash comes, if it has not yet.
    pub fn crash_due(&self) -> Option<Ms> {
        self.crash.map(|(at, _)| at)
    }

    /// The planned crash, once it is due at `now`: who, and how long they stay down.
    pub fn take_crash_due(&mut self, now: Ms) -> Option<(ClientId, Ms)> {
        let (at, client) = self.crash?;
        (at <= now).then(|| {
            self.crash = None;
            (client, self.down)
        })
    }

    /// A thinking job from `local` on the client's own clock.
    pub fn think(&mut self, local: Ms) -> Job {
        Job::Think {
            until: local + self.draw(self.params.think),
        }
    }

    /// What the client does now that `job` is due at `local` on its own clock; `believes_live`
    /// is whether its own clock says its lease is still live.
    pub fn on_due(&mut self, job: Job, local: Ms, believes_live: bool) -> Step {
        match job {
            Job::None | Job::Think { .. } | Job::Retry { .. } => Step::Acquire,
            Job::Work {
                stall_at: Some((at, ms)),
                done,
            } if at <= local => Step::Stall {
                ms,
                then: Job::Work {
                    stall_at: None,
                    done,
                },
            },
            // A careful client checks its own clock before writing; a GC pause is exactly what
            // that check cannot see.
            Job::Work { .. } if believes_live => {
                let writes = self.draw(self.params.writes);
                let keys = (0..writes)
                    .map(|_| {
                        let i = self.rng.random_range(0..self.params.keys.len());
                        self.params.keys[i].clone()
                    })
                    .collect();
                Step::Finish { keys }
            }
            Job::Work { .. } => Step::GiveUp,
        }
    }

    /// The job after an acquire at `local`: work if granted, else ask again later.
    pub fn after_acquire(&mut self, granted: bool, local: Ms) -> Job {
        if !granted {
            return Job::Retry {
                at: local + self.draw(self.params.retry),
            };
        }
        let work = self.draw(self.params.work);
        let stall_at = if self.rng.random_bool(self.params.stall_chance) {
            let offset = self.draw((0, work));
            let ms = self.draw(self.params.stall);
            Some((local + offset, ms))
        } else {
            None
        };
        Job::Work {
            stall_at,
            done: local + work,
        }
    }
}
