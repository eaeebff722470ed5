//! Lesson scenarios: a title, the lock service's settings and a script of timed, captioned beats
//! (or a `[chaos]` table of autonomous clients). Pure data and its validation.
//!
//! Built-in scenarios live in `assets/scenarios/*.toml` and are compiled into the binary; a path
//! to a `.toml` file of the same form works too and is validated with errors naming file, line
//! and field (see `docs/scenarios.md`).

use std::fmt;
use std::io::Read;
use std::path::Path;
use std::sync::OnceLock;

use serde::Deserialize;
use toml::Spanned;

use super::event::{ClientId, LockId};
use super::text::{first_control, one_line, printable};
use super::time::{to_ms, Ms, MAX_MS};
use crate::FenceCheck;

/// How many clients every scenario has.
pub const CLIENT_COUNT: usize = 3;

/// How many locks a scenario may name.
pub const MAX_LOCKS: usize = 3;

/// The largest scenario file read, so a wrong path cannot make the tool read a huge file.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The most events a scenario may be able to make: every run it asks for stays well inside a
/// second and a few tens of MB.
pub const MAX_EVENTS: u64 = 250_000;

/// How long a crashed client stays down unless a beat says otherwise (and after `x` in the UI).
const DEFAULT_DOWN_MS: Ms = 3_000;

/// The longest caption, question or title, in characters.
const MAX_TEXT: usize = 400;

/// The longest key, value or lock name, in characters.
const MAX_NAME: usize = 60;

const BUILT_IN: &[(&str, &str)] = &[
    (
        "gc-pause",
        include_str!("../../assets/scenarios/gc-pause.toml"),
    ),
    (
        "late-release",
        include_str!("../../assets/scenarios/late-release.toml"),
    ),
    ("renew", include_str!("../../assets/scenarios/renew.toml")),
    (
        "heartbeat",
        include_str!("../../assets/scenarios/heartbeat.toml"),
    ),
    (
        "per-key",
        include_str!("../../assets/scenarios/per-key.toml"),
    ),
    (
        "two-locks",
        include_str!("../../assets/scenarios/two-locks.toml"),
    ),
    (
        "lapsed-write",
        include_str!("../../assets/scenarios/lapsed-write.toml"),
    ),
    (
        "crash-restart",
        include_str!("../../assets/scenarios/crash-restart.toml"),
    ),
    (
        "network-delay",
        include_str!("../../assets/scenarios/network-delay.toml"),
    ),
    (
        "clock-jump",
        include_str!("../../assets/scenarios/clock-jump.toml"),
    ),
    ("chaos", include_str!("../../assets/scenarios/chaos.toml")),
];

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

    fn from_raw(raw: &RawChaos) -> Result<ChaosParams, String> {
        let d = ChaosParams::default();
        let range = |name: &str, value: Option<[f64; 2]>, default: (Ms, Ms)| {
            match value {
            None => Ok(default),
            Some([lo, hi])
                if lo.is_finite() && hi.is_finite() && 0.001 <= lo && lo <= hi && hi <= 86_400.0 =>
            {
                Ok((to_ms(lo), to_ms(hi)))
            }
            Some([lo, hi]) => Err(format!(
                "`[chaos]` field `{name}` must be [low, high] seconds with 0.001 <= low <= high <= 86400, got [{lo}, {hi}]"
            )),
        }
        };
        let seconds = match raw.seconds {
            None => d.seconds,
            Some(s) if s.is_finite() && (0.001..=86_400.0).contains(&s) => to_ms(s),
            Some(s) => {
                return Err(format!(
                    "`[chaos]` field `seconds` must be between 0.001 and 86400, got {s}"
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
        if keys.is_empty() || keys.len() > 8 {
            return Err("`[chaos]` field `keys` must list 1 to 8 keys".into());
        }
        for key in &keys {
            check_name(key, "`[chaos]` field `keys`")?;
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
    /// The names of the built-in scenarios, in lesson order.
    pub fn built_in_names() -> impl Iterator<Item = &'static str> {
        BUILT_IN.iter().map(|(name, _)| *name)
    }

    /// The built-in scenario `name`.
    pub fn built_in(name: &str) -> Option<Scenario> {
        Scenario::all_built_in()
            .iter()
            .find(|s| s.name == name)
            .cloned()
    }

    /// Every built-in scenario, in lesson order, parsed once (the picker lists them per frame).
    pub fn all_built_in() -> &'static [Scenario] {
        static PARSED: OnceLock<Vec<Scenario>> = OnceLock::new();
        PARSED.get_or_init(|| {
            BUILT_IN
                .iter()
                .map(|(name, text)| {
                    match Scenario::parse(name, &format!("built-in scenario '{name}'"), text) {
                        Ok(scenario) => scenario,
                        Err(err) => panic!("a built-in scenario is invalid: {err}"),
                    }
                })
                .collect()
        })
    }

    /// A built-in name, or else a path to a `.toml` file.
    pub fn load(name_or_path: &str) -> Result<Scenario, ScenarioError> {
        if let Some(scenario) = Scenario::built_in(name_or_path) {
            return Ok(scenario);
        }
        let path = Path::new(name_or_path);
        let looks_like_path = name_or_path.ends_with(".toml") || name_or_path.contains('/');
        if !looks_like_path && !path.exists() {
            let names: Vec<_> = Scenario::built_in_names().collect();
            return Err(ScenarioError {
                source: name_or_path.to_owned(),
                line: None,
                message: format!(
                    "no built-in scenario has this name and no such file exists; \
                     the built-in ones are {}",
                    names.join(", ")
                ),
            });
        }
        Scenario::from_file(path)
    }

    /// Reads and validates a scenario file.
    pub fn from_file(path: &Path) -> Result<Scenario, ScenarioError> {
        let source = path.display().to_string();
        let text = read_text_file(path, MAX_FILE_BYTES, "a scenario file").map_err(|message| {
            ScenarioError {
                source: source.clone(),
                line: None,
                message,
            }
        })?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "scenario".into());
        let mut scenario = Scenario::parse(&name, &source, &text)?;
        scenario.origin = source;
        Ok(scenario)
    }

    /// Parses and validates scenario text; `source` names it in errors.
    pub fn parse(name: &str, source: &str, text: &str) -> Result<Scenario, ScenarioError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let at_offset = |offset: usize, message: String| ScenarioError {
            source: source.to_owned(),
            line: Some(line_of(text, offset)),
            message,
        };
        let whole = |message: String| ScenarioError {
            source: source.to_owned(),
            line: None,
            message,
        };
        let raw: RawScenario = toml::from_str(text).map_err(|e| toml_error(e, source, text))?;

        let lease_seconds = *raw.lease.get_ref();
        if !(lease_seconds.is_finite() && (0.001..=86_400.0).contains(&lease_seconds)) {
            return Err(at_offset(
                raw.lease.span().start,
                format!("field `lease` must be a number of seconds from 0.001 to 86400, got {lease_seconds}"),
            ));
        }
        let lease_ms = to_ms(lease_seconds).max(1);
        let title = checked_text(&raw.title, "field `title`").map_err(whole)?;
        let short_title = match &raw.short {
            Some(short) => checked_text(short, "field `short`").map_err(whole)?,
            None => title.clone(),
        };

        let locks = match (&raw.lock, &raw.locks) {
            (Some(_), Some(_)) => return Err(whole(
                "has both `lock` and `locks`; name one lock with `lock` or several with `locks`"
                    .into(),
            )),
            (Some(lock), None) => vec![lock.clone()],
            (None, Some(locks)) => locks.clone(),
            (None, None) => vec!["lock".to_owned()],
        };
        if locks.is_empty() || locks.len() > MAX_LOCKS {
            return Err(whole(format!(
                "field `locks` must name 1 to {MAX_LOCKS} locks, got {}",
                locks.len()
            )));
        }
        for (i, lock) in locks.iter().enumerate() {
            check_name(lock, "a lock name").map_err(whole)?;
            if locks[..i].contains(lock) {
                return Err(whole(format!("field `locks` names '{lock}' twice")));
            }
        }

        let mut beats = Vec::with_capacity(raw.beat.len());
        let mut last_at = 0;
        for (index, spanned) in raw.beat.iter().enumerate() {
            let start = spanned.span().start;
            let beat = raw_beat(spanned.get_ref(), index + 1, &locks)
                .map_err(|(offset, message)| at_offset(offset.unwrap_or(start), message))?;
            if beat.at < last_at {
                return Err(at_offset(
                    spanned.get_ref().at.span().start,
                    format!(
                        "beat {} has `at = {}`, earlier than the beat before it; beats must be in time order",
                        index + 1,
                        spanned.get_ref().at.get_ref()
                    ),
                ));
            }
            last_at = beat.at;
            beats.push(beat);
        }

        let chaos = match &raw.chaos {
            Some(spanned) => Some(
                ChaosParams::from_raw(spanned.get_ref())
                    .map_err(|message| at_offset(spanned.span().start, message))?,
            ),
            None => None,
        };
        if beats.is_empty() && chaos.is_none() {
            return Err(whole(
                "has no `[[beat]]` and no `[chaos]` table, so nothing would happen".into(),
            ));
        }

        let end = match &raw.end {
            Some(end) => {
                let ms = seconds_field(end, "end")
                    .map_err(|(offset, message)| at_offset(offset, message))?;
                if ms < last_at {
                    return Err(at_offset(
                        end.span().start,
                        "field `end` comes before the last beat".into(),
                    ));
                }
                ms
            }
            None => match &chaos {
                Some(params) => params.seconds.max(last_at),
                None => (last_at + 3_000).min(MAX_MS),
            },
        };

        let scenario = Scenario {
            name: name.to_owned(),
            origin: name.to_owned(),
            title,
            short_title,
            lease_seconds,
            lease_ms,
            first_token: raw.first_token.unwrap_or(crate::DEFAULT_FIRST_TOKEN),
            locks,
            end,
            seed: raw.seed.unwrap_or(1),
            fencing: raw.fencing.unwrap_or(true),
            beats,
            chaos,
        };
        let worst = scenario.worst_case_events(scenario.end);
        if worst > MAX_EVENTS {
            return Err(whole(format!(
                "could make up to {worst} events by its end at {} s, more than the {MAX_EVENTS} a scenario may; \
                 make its retry, think or work times longer, or its end or `[chaos]` seconds shorter",
                super::time::fmt_seconds(scenario.end)
            )));
        }
        Ok(scenario)
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
        self.locks
            .iter()
            .position(|l| l == name)
            .map(|i| LockId(i as u8))
    }
}

/// Reads a text file of at most `max` bytes: only a regular file (a FIFO or a device would block
/// or never end), never more than `max + 1` bytes, a byte-order mark dropped.
pub fn read_text_file(path: &Path, max: u64, what: &str) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read it: {e}"))?;
    if meta.is_dir() {
        return Err(format!("is a folder, not {what}"));
    }
    if !meta.is_file() {
        return Err(format!(
            "is not a regular file (a pipe or a device?), so it cannot be {what}"
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() as u64 > max {
        let limit = if max.is_multiple_of(1024 * 1024) {
            format!("{} MiB", max / (1024 * 1024))
        } else {
            format!("{} KiB", max / 1024)
        };
        return Err(format!("is more than the {limit} {what} may have"));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "is not UTF-8 text (byte {} is not)",
            e.utf8_error().valid_up_to()
        )
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_owned(),
        None => text,
    })
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// toml's error as one sentence naming the line and, for a type error, the field.
fn toml_error(e: toml::de::Error, source: &str, text: &str) -> ScenarioError {
    let line = e.span().map(|s| line_of(text, s.start));
    let mut message = one_line(e.message());
    // toml names the type, not the field: name the field from the line it points at.
    if message.starts_with("invalid type") || message.starts_with("invalid value") {
        let field = line
            .and_then(|n| text.lines().nth(n - 1))
            .and_then(|l| l.split_once('='))
            .map(|(key, _)| key.trim().to_owned());
        if let Some(field) = field.filter(|f| !f.is_empty() && !f.starts_with('[')) {
            message = format!("field `{field}`: {message}");
        }
    }
    ScenarioError {
        source: source.to_owned(),
        line,
        message: message.replace("expected f64", "expected a number"),
    }
}

/// A caption, question or title: no control characters, line breaks folded, not too long.
fn checked_text(text: &str, what: &str) -> Result<String, String> {
    let folded = one_line(text);
    if let Some(c) = first_control(&folded) {
        return Err(format!(
            "{what} contains the control character U+{:04X}; remove it",
            c as u32
        ));
    }
    if folded.is_empty() {
        return Err(format!("{what} is empty"));
    }
    if folded.chars().count() > MAX_TEXT {
        return Err(format!("{what} is longer than {MAX_TEXT} characters"));
    }
    Ok(folded)
}

/// A key, value or lock name: one line of printable text, not too long.
fn check_name(name: &str, what: &str) -> Result<(), String> {
    if let Some(c) = first_control(name) {
        return Err(format!(
            "{what} contains the control character U+{:04X}; remove it",
            c as u32
        ));
    }
    if name.trim().is_empty() {
        return Err(format!("{what} is empty"));
    }
    if name.chars().count() > MAX_NAME {
        return Err(format!("{what} is longer than {MAX_NAME} characters"));
    }
    Ok(())
}

/// A time field in seconds, as ms; errors carry the field's offset.
fn seconds_field(value: &Spanned<f64>, field: &str) -> Result<Ms, (usize, String)> {
    let seconds = *value.get_ref();
    if seconds.is_finite() && (0.0..=86_400.0).contains(&seconds) {
        Ok(to_ms(seconds))
    } else {
        Err((
            value.span().start,
            format!("field `{field}` must be a number of seconds from 0 to 86400, got {seconds}"),
        ))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    title: String,
    short: Option<String>,
    lease: Spanned<f64>,
    first_token: Option<u64>,
    lock: Option<String>,
    locks: Option<Vec<String>>,
    end: Option<Spanned<f64>>,
    seed: Option<u64>,
    fencing: Option<bool>,
    chaos: Option<Spanned<RawChaos>>,
    #[serde(default)]
    beat: Vec<Spanned<RawBeat>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBeat {
    at: Spanned<f64>,
    caption: String,
    caption_unfenced: Option<String>,
    caption_strict: Option<String>,
    caption_global: Option<String>,
    ask: Option<String>,
    client: Option<Spanned<i64>>,
    #[serde(rename = "do")]
    action: Option<Spanned<String>>,
    lock: Option<Spanned<String>>,
    key: Option<String>,
    value: Option<String>,
    token: Option<u64>,
    delay: Option<Spanned<f64>>,
    seconds: Option<Spanned<f64>>,
    retry: Option<Spanned<f64>>,
    on: Option<bool>,
}

/// The `[chaos]` table as written; every field has a default.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawChaos {
    seconds: Option<f64>,
    keys: Option<Vec<String>>,
    writes: Option<[u64; 2]>,
    think: Option<[f64; 2]>,
    retry: Option<[f64; 2]>,
    work: Option<[f64; 2]>,
    stall_chance: Option<f64>,
    stall: Option<[f64; 2]>,
    crash: Option<bool>,
    down: Option<[f64; 2]>,
}

const ACTIONS: &str = "acquire, renew, release, write, pause, crash, fencing or clock-jump";

/// The action fields each `do` takes; a field it does not take is a mistake worth naming (a
/// `token` on an acquire would otherwise be silently ignored).
fn fields_of(action: &str) -> Option<&'static [&'static str]> {
    Some(match action {
        "acquire" => &["client", "lock", "retry"],
        "renew" | "release" => &["client", "lock", "token"],
        "write" => &["client", "lock", "key", "value", "token", "delay"],
        "pause" | "crash" => &["client", "seconds"],
        "fencing" => &["on"],
        "clock-jump" => &["seconds"],
        _ => return None,
    })
}

/// The action fields a beat sets.
fn present_fields(raw: &RawBeat) -> impl Iterator<Item = &'static str> + '_ {
    [
        ("client", raw.client.is_some()),
        ("lock", raw.lock.is_some()),
        ("key", raw.key.is_some()),
        ("value", raw.value.is_some()),
        ("token", raw.token.is_some()),
        ("delay", raw.delay.is_some()),
        ("seconds", raw.seconds.is_some()),
        ("retry", raw.retry.is_some()),
        ("on", raw.on.is_some()),
    ]
    .into_iter()
    .filter_map(|(field, set)| set.then_some(field))
}

fn raw_beat(
    raw: &RawBeat,
    number: usize,
    locks: &[String],
) -> Result<Beat, (Option<usize>, String)> {
    let at = seconds_field(&raw.at, "at").map_err(|(o, m)| (Some(o), m))?;
    let text = |value: &str, field: &str| {
        checked_text(value, &format!("beat {number}'s `{field}`")).map_err(|m| (None, m))
    };
    let optional =
        |value: &Option<String>, field: &str| value.as_deref().map(|v| text(v, field)).transpose();
    let captions = Captions {
        fenced: text(&raw.caption, "caption")?,
        unfenced: optional(&raw.caption_unfenced, "caption_unfenced")?,
        strict: optional(&raw.caption_strict, "caption_strict")?,
        global: optional(&raw.caption_global, "caption_global")?,
    };
    let action = match &raw.action {
        None => {
            if let Some(field) = present_fields(raw).next() {
                return Err((
                    Some(raw.at.span().start),
                    format!(
                        "beat {number} sets `{field}` but has no `do`, so nothing would use it"
                    ),
                ));
            }
            None
        }
        Some(action) => Some(beat_action(raw, action, number, locks)?),
    };
    let ask = optional(&raw.ask, "ask")?.map(|text| Question { text });
    // A narration beat asks about the write the network delivers at its instant.
    if ask.is_some()
        && !matches!(
            action,
            None | Some(BeatAction::Client {
                action: ClientAction::Write { .. },
                ..
            })
        )
    {
        return Err((
            None,
            format!(
                "beat {number} has `ask`, but only a `write` beat or a narration beat (for a \
                 write the network delivers then) can ask a question"
            ),
        ));
    }
    Ok(Beat {
        at,
        action,
        captions,
        ask,
    })
}

fn beat_action(
    raw: &RawBeat,
    action: &Spanned<String>,
    number: usize,
    locks: &[String],
) -> Result<BeatAction, (Option<usize>, String)> {
    let name = action.get_ref().as_str();
    let at_action = Some(action.span().start);
    let missing = |field: &str| {
        (
            at_action,
            format!(
                "beat {number} (`do = \"{}\"`) needs the field `{field}`",
                printable(name)
            ),
        )
    };
    let duration = |field: &Spanned<f64>, what: &str| {
        let ms = seconds_field(field, what).map_err(|(o, m)| (Some(o), m))?;
        if ms == 0 {
            Err((
                Some(field.span().start),
                format!("beat {number}: field `{what}` must be at least 0.001 seconds"),
            ))
        } else {
            Ok(ms)
        }
    };
    if let Some(allowed) = fields_of(name) {
        if let Some(extra) = present_fields(raw).find(|f| !allowed.contains(f)) {
            return Err((
                at_action,
                format!(
                    "beat {number} (`do = \"{name}\"`) does not take the field `{extra}`; it takes {}",
                    allowed.join(", ")
                ),
            ));
        }
    }
    match name {
        "fencing" => {
            let on = raw.on.ok_or_else(|| missing("on"))?;
            return Ok(BeatAction::Fencing { on });
        }
        "clock-jump" => {
            let by = raw.seconds.as_ref().ok_or_else(|| missing("seconds"))?;
            let seconds = *by.get_ref();
            if !(seconds.is_finite() && seconds.abs() <= 86_400.0 && seconds != 0.0) {
                return Err((
                    Some(by.span().start),
                    format!("beat {number}: a clock jump of `seconds = {seconds}` must be a non-zero number of seconds within a day"),
                ));
            }
            return Ok(BeatAction::ClockJump {
                by: (seconds * 1000.0).round() as i64,
            });
        }
        _ => {}
    }
    let client_field = raw.client.as_ref().ok_or_else(|| missing("client"))?;
    let client = u64::try_from(*client_field.get_ref())
        .ok()
        .and_then(ClientId::from_number)
        .ok_or_else(|| {
            (
                Some(client_field.span().start),
                format!(
                    "beat {number} names client {}, but the clients are 1, 2 and 3",
                    client_field.get_ref()
                ),
            )
        })?;
    let lock = match &raw.lock {
        None => LockId::FIRST,
        Some(lock) => match locks.iter().position(|l| l == lock.get_ref()) {
            Some(i) => LockId(i as u8),
            None => {
                return Err((
                    Some(lock.span().start),
                    format!(
                        "beat {number} names lock '{}', but the scenario's locks are {}",
                        printable(lock.get_ref()),
                        locks.join(", ")
                    ),
                ))
            }
        },
    };
    let action = match name {
        "acquire" => ClientAction::Acquire {
            lock,
            retry: raw
                .retry
                .as_ref()
                .map(|r| duration(r, "retry"))
                .transpose()?,
        },
        "renew" => ClientAction::Renew {
            lock,
            token: raw.token,
        },
        "release" => ClientAction::Release {
            lock,
            token: raw.token,
        },
        "write" => {
            let key = raw.key.clone().ok_or_else(|| missing("key"))?;
            let value = raw.value.clone().ok_or_else(|| missing("value"))?;
            check_name(&key, &format!("beat {number}'s `key`")).map_err(|m| (None, m))?;
            check_name(&value, &format!("beat {number}'s `value`")).map_err(|m| (None, m))?;
            ClientAction::Write {
                lock,
                key,
                value,
                token: raw.token,
                delay: raw
                    .delay
                    .as_ref()
                    .map(|d| duration(d, "delay"))
                    .transpose()?,
            }
        }
        "pause" => ClientAction::Pause {
            ms: duration(
                raw.seconds.as_ref().ok_or_else(|| missing("seconds"))?,
                "seconds",
            )?,
        },
        "crash" => ClientAction::Crash {
            down: match &raw.seconds {
                Some(s) => duration(s, "seconds")?,
                None => DEFAULT_DOWN_MS,
            },
        },
        other => {
            return Err((
                at_action,
                format!(
                    "beat {number} has `do = \"{}\"`, which is not an action; use {ACTIONS}",
                    printable(other)
                ),
            ))
        }
    };
    Ok(BeatAction::Client { client, action })
}
