//! The seed's chaos test as a world driver: clients take jobs at random, some stall in GC pauses
//! longer than the lease, and one crashes and restarts. Randomness comes only from ChaCha8, whose
//! output is documented as reproducible across platforms and versions.

use std::sync::Arc;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

use super::scenario::RawChaos;
use super::world::{Stats, World};
use super::{to_ms, ClientId, Ms, Scenario};
use crate::FenceCheck;

/// The knobs of a chaos run; every range is in ms, both ends included.
#[derive(Clone, Debug, PartialEq)]
pub struct ChaosParams {
    /// How long a headless run lasts.
    pub seconds: Ms,
    /// The keys jobs write to; each write picks one at random.
    pub keys: Vec<String>,
    /// How many writes a job makes with its token, at least and at most.
    pub writes: (u64, u64),
    /// Idle time between jobs.
    pub think: (Ms, Ms),
    /// Wait before asking again after a refusal.
    pub retry: (Ms, Ms),
    /// How long a job works before it writes.
    pub work: (Ms, Ms),
    /// The chance a job stalls in a GC pause while it works.
    pub stall_chance: f64,
    /// How long a stall lasts.
    pub stall: (Ms, Ms),
    /// Whether one client crashes and restarts during the run.
    pub crash: bool,
    /// How long the crashed client stays down.
    pub down: (Ms, Ms),
}

impl Default for ChaosParams {
    fn default() -> Self {
        ChaosParams {
            seconds: 60_000,
            keys: vec!["file".into(), "log".into()],
            writes: (1, 2),
            think: (100, 1_000),
            retry: (200, 600),
            work: (200, 2_000),
            stall_chance: 0.25,
            stall: (500, 6_000),
            crash: true,
            down: (1_000, 4_000),
        }
    }
}

impl ChaosParams {
    pub(super) fn from_raw(raw: &RawChaos) -> Result<ChaosParams, String> {
        let d = ChaosParams::default();
        let range = |name: &str, value: Option<[f64; 2]>, default: (Ms, Ms)| {
            match value {
            None => Ok(default),
            Some([lo, hi]) if lo.is_finite() && hi.is_finite() && 0.001 <= lo && lo <= hi && hi <= 86_400.0 => {
                Ok((to_ms(lo), to_ms(hi)))
            }
            Some([lo, hi]) => Err(format!(
                "`[chaos]` field `{name}` must be [low, high] seconds with 0.001 <= low <= high, got [{lo}, {hi}]"
            )),
        }
        };
        let seconds = match raw.seconds {
            None => d.seconds,
            Some(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => to_ms(s),
            Some(s) => {
                return Err(format!(
                    "`[chaos]` field `seconds` must be between 0 and 86400, got {s}"
                ))
            }
        };
        let stall_chance = raw.stall_chance.unwrap_or(d.stall_chance);
        if !(0.0..=1.0).contains(&stall_chance) {
            return Err(format!(
                "`[chaos]` field `stall_chance` must be between 0 and 1, got {stall_chance}"
            ));
        }
        let keys = raw.keys.clone().unwrap_or(d.keys);
        if keys.is_empty() || keys.iter().any(|k| k.is_empty()) {
            return Err("`[chaos]` field `keys` must list at least one non-empty key".into());
        }
        let writes = match raw.writes {
            None => d.writes,
            Some([lo, hi]) if 1 <= lo && lo <= hi && hi <= 100 => (lo, hi),
            Some([lo, hi]) => {
                return Err(format!(
                    "`[chaos]` field `writes` must be [low, high] with 1 <= low <= high <= 100, got [{lo}, {hi}]"
                ))
            }
        };
        Ok(ChaosParams {
            seconds,
            keys,
            writes,
            think: range("think", raw.think, d.think)?,
            retry: range("retry", raw.retry, d.retry)?,
            work: range("work", raw.work, d.work)?,
            stall_chance,
            stall: range("stall", raw.stall, d.stall)?,
            crash: raw.crash.unwrap_or(d.crash),
            down: range("down", raw.down, d.down)?,
        })
    }
}

/// A chaos client's job, in the client's own clock (which stands still while it is frozen).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Job {
    None,
    Think {
        until: Ms,
    },
    Retry {
        at: Ms,
    },
    Work {
        /// A GC pause to fall into while working: (when, how long).
        stall_at: Option<(Ms, Ms)>,
        done: Ms,
    },
}

impl Job {
    /// When the job next needs the client, on its own clock.
    pub(super) fn due(&self) -> Option<Ms> {
        match *self {
            Job::None => None,
            Job::Think { until } => Some(until),
            Job::Retry { at } => Some(at),
            Job::Work { stall_at, done } => Some(stall_at.map_or(done, |(at, _)| at)),
        }
    }
}

/// The random choices of one chaos run, drawn in a fixed order from one seeded generator.
#[derive(Clone, Debug)]
pub(super) struct ChaosDriver {
    pub(super) params: ChaosParams,
    rng: ChaCha8Rng,
    /// The planned crash: when, and who.
    pub(super) crash: Option<(Ms, ClientId)>,
    down: Ms,
}

impl ChaosDriver {
    pub(super) fn new(params: ChaosParams, seed: u64) -> ChaosDriver {
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

    /// The planned crash, once it is due at `now`: who, and how long they stay down.
    pub(super) fn take_crash_due(&mut self, now: Ms) -> Option<(ClientId, Ms)> {
        let (at, client) = self.crash?;
        (at <= now).then(|| {
            self.crash = None;
            (client, self.down)
        })
    }

    pub(super) fn think(&mut self) -> Ms {
        self.draw(self.params.think)
    }

    pub(super) fn retry(&mut self) -> Ms {
        self.draw(self.params.retry)
    }

    /// How many writes a finished job makes.
    pub(super) fn write_count(&mut self) -> u64 {
        self.draw(self.params.writes)
    }

    /// The key of one write.
    pub(super) fn pick_key(&mut self) -> String {
        let i = self.rng.random_range(0..self.params.keys.len());
        self.params.keys[i].clone()
    }

    /// A new job starting at `local` on the client's own clock.
    pub(super) fn job(&mut self, local: Ms) -> Job {
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

/// The outcome of one headless run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunSummary {
    pub scenario: String,
    pub seed: Option<u64>,
    pub fencing: bool,
    pub check: FenceCheck,
    pub stats: Stats,
}

impl RunSummary {
    /// The summary of `world`'s run so far.
    pub fn of(world: &World, seed: Option<u64>, fencing: bool) -> RunSummary {
        RunSummary {
            scenario: world.scenario().name.clone(),
            seed,
            fencing,
            check: world.fenced_check(),
            stats: *world.stats(),
        }
    }

    /// The `summary` line of SPEC.md section 4 (`t` is when the run stopped).
    pub fn to_json(&self, t: f64) -> Value {
        json!({
            "t": t,
            "event": "summary",
            "scenario": self.scenario,
            "seed": self.seed,
            "fencing": self.fencing,
            "check": self.check.name(),
            "grants": self.stats.grants,
            "writes_accepted": self.stats.writes_accepted,
            "writes_rejected": self.stats.writes_rejected,
            "stale_writes_accepted": self.stats.stale_writes_accepted,
            "corruptions": self.stats.corruptions,
        })
    }
}

/// Plays one chaos run of `scenario` to its end without recording events, for summaries.
pub fn run_chaos(scenario: &Arc<Scenario>, seed: u64, fencing: bool, check: FenceCheck) -> World {
    let mut world = World::new(scenario.clone(), seed, fencing, check, &[], false);
    world.advance_to(scenario.end, &[]);
    world
}
