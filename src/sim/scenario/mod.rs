//! Lesson scenarios: a title, the lock service's settings and a script of timed, captioned beats
//! (or a `[chaos]` table of autonomous clients). Pure data and its validation.
//!
//! Built-in scenarios live in `assets/scenarios/*.toml` and are compiled into the binary; a path
//! to a `.toml` file of the same form works too and is validated with errors naming file, line
//! and field (see `docs/scenarios.md`).
//!
//! [`parse`] reads a file into these types, every limit checked, each `[[beat]]` by [`beats`]
//! and each field by the shared checks of [`fields`]; [`built_in`] holds the lessons compiled in.

use std::fmt;

use super::event::{ClientId, LockId};
use super::text::printable;
use super::time::Ms;
use crate::FenceCheck;

mod beats;
mod built_in;
mod fields;
mod parse;

/// How many clients every scenario has.
pub const CLIENT_COUNT: usize = 3;

/// How many locks a scenario may name.
pub const MAX_LOCKS: usize = 3;

/// The largest scenario file read, so a wrong path cannot make the tool read a huge file.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The largest token a scenario may grant: JSON numbers are exact up to 2^53 - 1 in every
/// language a student writes, so the lab's protocol carries no larger one.
pub const MAX_TOKEN: u64 = (1 << 53) - 1;

/// The most events a scenario may be able to make: every run it asks for stays well inside a
/// second and a few tens of MB.
pub const MAX_EVENTS: u64 = 250_000;

/// How long a crashed client stays down unless a beat says otherwise (and after `x` in the UI).
const DEFAULT_DOWN_MS: Ms = 3_000;

/// The longest caption, question or title, in characters.
const MAX_TEXT: usize = 400;

/// The longest key, value or lock name, in characters.
const MAX_NAME: usize = 60;

/// A scenario that could not be loaded: where, and why, as one sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file (or built-in name) at fault.
    pub source: String,
    /// The 1-based line, when the fault has one.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Both parts may quote the file: never let them move the cursor or break the line.
        let source = printable(&self.source);
        let message = printable(&self.message);
        match self.line {
            Some(line) => write!(f, "{source}, line {line}: {message}"),
            None => write!(f, "{source}: {message}"),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// What a client is told to do at a beat.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientAction {
    /// Ask for `lock`; if refused, ask again every `retry` ms until granted (if set).
    Acquire { lock: LockId, retry: Option<Ms> },
    /// Renew the lease on `lock`, with the token the client believes it holds (or `token`).
    Renew { lock: LockId, token: Option<u64> },
    /// Release `lock`, with the token the client believes it holds (or `token`).
    Release { lock: LockId, token: Option<u64> },
    /// Write `value` under `key` with the token of the client's lease on `lock` (or `token`);
    /// with `delay`, the network holds the write that long before the storage sees it.
    Write {
        lock: LockId,
        key: String,
        value: String,
        token: Option<u64>,
        delay: Option<Ms>,
    },
    /// Freeze in a GC pause for this long.
    Pause { ms: Ms },
    /// Crash, losing everything; restart after `down` ms.
    Crash { down: Ms },
}

/// What happens at a beat, if anything besides its caption.
#[derive(Clone, Debug, PartialEq)]
pub enum BeatAction {
    /// One client acts.
    Client {
        client: ClientId,
        action: ClientAction,
    },
    /// The storage's fencing is switched on or off.
    Fencing { on: bool },
    /// The lock service's clock steps by this many ms (negative: back).
    ClockJump { by: i64 },
}

/// A question the lesson asks before a write's verdict is shown: accepted or rejected?
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    /// The question, as a class hears it.
    pub text: String,
}

/// The settings a caption is written for: a lesson's story differs with fencing off and under
/// the wrong checks, and each may have its own sentence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// Fencing on with the seed's rule: the story as written.
    Fenced,
    /// Fencing off: no check at all.
    Unfenced,
    /// Fencing on with the strict check (`token > highest`).
    Strict,
    /// Fencing on with one global highest token.
    Global,
}

impl Variant {
    /// Every variant, the seed's first.
    pub const ALL: [Variant; 4] = [
        Variant::Fenced,
        Variant::Unfenced,
        Variant::Strict,
        Variant::Global,
    ];

    /// The variant of these settings.
    pub fn of(fencing: bool, check: FenceCheck) -> Variant {
        match (fencing, check) {
            (false, _) | (true, FenceCheck::Unchecked) => Variant::Unfenced,
            (true, FenceCheck::PerKey) => Variant::Fenced,
            (true, FenceCheck::Strict) => Variant::Strict,
            (true, FenceCheck::Global) => Variant::Global,
        }
    }

    /// Whether fencing is on in this variant.
    pub fn fencing(self) -> bool {
        self != Variant::Unfenced
    }

    /// The check while fencing is on.
    pub fn check(self) -> FenceCheck {
        match self {
            Variant::Fenced | Variant::Unfenced => FenceCheck::PerKey,
            Variant::Strict => FenceCheck::Strict,
            Variant::Global => FenceCheck::Global,
        }
    }
}

/// A beat's sentences: one as the story is written, and optional ones for other settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Captions {
    /// Fencing on with the seed's rule.
    pub fenced: String,
    /// Fencing off.
    pub unfenced: Option<String>,
    /// The strict check.
    pub strict: Option<String>,
    /// The global check.
    pub global: Option<String>,
}

impl Captions {
    /// The sentence written for `variant`, if any.
    pub fn written_for(&self, variant: Variant) -> Option<&str> {
        match variant {
            Variant::Fenced => Some(&self.fenced),
            Variant::Unfenced => self.unfenced.as_deref(),
            Variant::Strict => self.strict.as_deref(),
            Variant::Global => self.global.as_deref(),
        }
    }

    /// Every sentence with the variant it is written for.
    pub fn all(&self) -> impl Iterator<Item = (Variant, &str)> {
        Variant::ALL
            .into_iter()
            .filter_map(|v| self.written_for(v).map(|text| (v, text)))
    }
}

/// One step of a lesson: a time, an optional action and the sentences that explain it.
#[derive(Clone, Debug, PartialEq)]
pub struct Beat {
    /// When the beat comes, in ms.
    pub at: Ms,
    /// What happens then (a caption-only beat narrates something the world does by itself).
    pub action: Option<BeatAction>,
    /// The sentences, by setting.
    pub captions: Captions,
    /// A prediction to ask before the beat's write is judged.
    pub ask: Option<Question>,
}

impl Beat {
    /// The client the beat's action concerns, if any.
    pub fn client(&self) -> Option<ClientId> {
        match &self.action {
            Some(BeatAction::Client { client, .. }) => Some(*client),
            _ => None,
        }
    }
}

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
    /// The most events runs of `ms` simulated milliseconds could make: per client, a job of at
    /// least `think + work` makes a grant, its writes, a release and a stall's pause and resume;
    /// a refused client asks at most once a `retry`.
    pub fn worst_case_events(&self, ms: Ms) -> u64 {
        let cycle = (self.think.0 + self.work.0).max(1);
        let per_job = self.writes.1 + 5;
        let jobs = ms / cycle + 1;
        let asks = ms / self.retry.0.max(1) + 1;
        CLIENT_COUNT as u64 * (jobs * per_job + asks) + 8
    }
}

/// A lesson or chaos scenario, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Short name: the built-in's name or the file's stem.
    pub name: String,
    /// How to load it again: the built-in's name or the file's path.
    pub origin: String,
    /// One line for `fencing-lab list`, the picker and handouts.
    pub title: String,
    /// A short form of the title for narrow headers (the title itself when not given).
    pub short_title: String,
    /// Lease length in seconds, as the lock service uses it.
    pub lease_seconds: f64,
    /// Lease length rounded to ms, as clients reckon it.
    pub lease_ms: Ms,
    /// The token of the first grant.
    pub first_token: u64,
    /// The locks' names, by [`LockId`]; at least one.
    pub locks: Vec<String>,
    /// When the story is over (headless runs stop here).
    pub end: Ms,
    /// The seed chaos uses unless told otherwise.
    pub seed: u64,
    /// Whether fencing starts on.
    pub fencing: bool,
    /// The script, in time order.
    pub beats: Vec<Beat>,
    /// Autonomous clients taking jobs at random, for the chaos scenario.
    pub chaos: Option<ChaosParams>,
}

impl Scenario {
    /// Every key the lesson writes: its beats' and its chaos jobs', each once, in first use.
    pub fn keys(&self) -> Vec<&str> {
        let mut keys: Vec<&str> = Vec::new();
        let beats = self.beats.iter().filter_map(|beat| match &beat.action {
            Some(BeatAction::Client {
                action: ClientAction::Write { key, .. },
                ..
            }) => Some(key.as_str()),
            _ => None,
        });
        let jobs = self
            .chaos
            .iter()
            .flat_map(|c| c.keys.iter().map(String::as_str));
        for key in beats.chain(jobs) {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        keys
    }

    /// The most events a run of this scenario to `until` could make (see [`MAX_EVENTS`]).
    pub fn worst_case_events(&self, until: Ms) -> u64 {
        let mut events = 16 * self.beats.len() as u64 + 8;
        for beat in &self.beats {
            if let Some(BeatAction::Client {
                action:
                    ClientAction::Acquire {
                        retry: Some(retry), ..
                    },
                ..
            }) = &beat.action
            {
                events += until.saturating_sub(beat.at) / retry.max(&1) + 1;
            }
        }
        if let Some(chaos) = &self.chaos {
            events += chaos.worst_case_events(until);
        }
        events
    }

    /// The index of the latest beat at or before `t`.
    pub fn beat_at(&self, t: Ms) -> Option<usize> {
        self.beats.partition_point(|b| b.at <= t).checked_sub(1)
    }

    /// How long a GC pause injected from the UI lasts: half again the lease, so it outlives it.
    pub fn injected_pause_ms(&self) -> Ms {
        self.lease_ms * 3 / 2
    }

    /// How long a client crashed from the UI stays down.
    pub fn injected_down_ms(&self) -> Ms {
        DEFAULT_DOWN_MS
    }

    /// How long the network holds a write delayed from the UI: half again the lease.
    pub fn injected_delay_ms(&self) -> Ms {
        self.lease_ms * 3 / 2
    }

    /// The lock named `name`.
    pub fn lock_id(&self, name: &str) -> Option<LockId> {
        lock_named(&self.locks, name)
    }
}

/// The lock of `locks` named `name`, by its place in the list.
fn lock_named(locks: &[String], name: &str) -> Option<LockId> {
    locks
        .iter()
        .position(|l| l == name)
        .map(|i| LockId(i as u8))
}
