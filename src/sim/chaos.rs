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

    /// What the client does now that `job` is due (see [`Job::due`]); `believes_live` is
    /// whether its own clock says its lease is still live.
    pub fn on_due(&mut self, job: Job, believes_live: bool) -> Step {
        match job {
            Job::None | Job::Think { .. } | Job::Retry { .. } => Step::Acquire,
            // A job with a stall is due at the stall (see `Job::due`), before its work is done.
            Job::Work {
                stall_at: Some((_, ms)),
                done,
            } => Step::Stall {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> ChaosParams {
        ChaosParams {
            keys: vec!["a".into(), "b".into(), "c".into()],
            writes: (2, 3),
            think: (100, 200),
            retry: (300, 400),
            work: (1_000, 1_500),
            stall_chance: 1.0,
            stall: (5_000, 6_000),
            ..ChaosParams::default()
        }
    }

    #[test]
    fn a_job_is_due_at_its_next_step_on_the_clients_own_clock() {
        assert_eq!(Job::None.due(), None);
        assert_eq!(Job::Think { until: 7 }.due(), Some(7));
        assert_eq!(Job::Retry { at: 9 }.due(), Some(9));
        let stalling = Job::Work {
            stall_at: Some((3, 100)),
            done: 8,
        };
        assert_eq!(stalling.due(), Some(3), "the stall comes first");
        let working = Job::Work {
            stall_at: None,
            done: 8,
        };
        assert_eq!(working.due(), Some(8));
    }

    #[test]
    fn each_job_leads_to_its_step() {
        let mut driver = ChaosDriver::new(params(), 7);
        for job in [Job::None, Job::Think { until: 0 }, Job::Retry { at: 0 }] {
            assert_eq!(driver.on_due(job, false), Step::Acquire);
        }
        let stall = driver.on_due(
            Job::Work {
                stall_at: Some((40, 5_500)),
                done: 900,
            },
            true,
        );
        assert_eq!(
            stall,
            Step::Stall {
                ms: 5_500,
                then: Job::Work {
                    stall_at: None,
                    done: 900
                }
            }
        );
        let work = Job::Work {
            stall_at: None,
            done: 900,
        };
        match driver.on_due(work, true) {
            Step::Finish { keys } => {
                assert!((2..=3).contains(&keys.len()), "{keys:?}");
                assert!(keys.iter().all(|k| ["a", "b", "c"].contains(&k.as_str())));
            }
            other => panic!("a job whose lease looks live finishes, not {other:?}"),
        }
        assert_eq!(
            driver.on_due(work, false),
            Step::GiveUp,
            "its own clock says the lease ran out"
        );
    }

    #[test]
    fn draws_stay_inside_their_ranges() {
        let mut driver = ChaosDriver::new(params(), 11);
        for local in [0, 1_000, 50_000] {
            match driver.think(local) {
                Job::Think { until } => assert!((local + 100..=local + 200).contains(&until)),
                other => panic!("{other:?}"),
            }
            match driver.after_acquire(false, local) {
                Job::Retry { at } => assert!((local + 300..=local + 400).contains(&at)),
                other => panic!("{other:?}"),
            }
            match driver.after_acquire(true, local) {
                Job::Work {
                    stall_at: Some((at, ms)),
                    done,
                } => {
                    assert!((local + 1_000..=local + 1_500).contains(&done));
                    assert!(
                        (local..=done).contains(&at),
                        "the stall falls within the work"
                    );
                    assert!((5_000..=6_000).contains(&ms));
                }
                other => panic!("every job stalls at chance 1: {other:?}"),
            }
        }
        let calm = ChaosParams {
            stall_chance: 0.0,
            ..params()
        };
        let mut driver = ChaosDriver::new(calm, 11);
        assert!(matches!(
            driver.after_acquire(true, 0),
            Job::Work { stall_at: None, .. }
        ));
    }

    #[test]
    fn the_planned_crash_comes_once_in_the_middle_of_the_run() {
        let mut driver = ChaosDriver::new(ChaosParams::default(), 3);
        let at = driver.crash_due().expect("a crash is planned");
        assert!(
            (12_000..=48_000).contains(&at),
            "within the middle 60%: {at}"
        );
        assert_eq!(driver.take_crash_due(at - 1), None);
        let (_, down) = driver.take_crash_due(at).expect("due at its time");
        assert!((1_000..=4_000).contains(&down));
        assert_eq!(driver.crash_due(), None);
        assert_eq!(driver.take_crash_due(at), None, "only once");
        let calm = ChaosParams {
            crash: false,
            ..ChaosParams::default()
        };
        assert_eq!(ChaosDriver::new(calm, 3).crash_due(), None);
    }
}
