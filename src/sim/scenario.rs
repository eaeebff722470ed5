//! Lesson scenarios: a title, the lock's settings and a script of timed, captioned beats.
//!
//! Built-in scenarios live in `assets/scenarios/*.toml` and are compiled into the binary; a path
//! to a `.toml` file of the same form works too and is validated with errors naming file, line
//! and field.

use std::fmt;
use std::path::Path;
use std::sync::OnceLock;

use serde::Deserialize;
use toml::Spanned;

use super::chaos::ChaosParams;
use super::{to_ms, ClientId, Ms};

/// How many clients every scenario has.
pub const CLIENT_COUNT: usize = 3;

/// The largest scenario file read, so a wrong path cannot make the tool read a huge file.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// How long a crashed client stays down unless a beat says otherwise (and after `x` in the UI).
const DEFAULT_DOWN_MS: Ms = 3_000;

/// The longest time a scenario may name: a day, far beyond any lesson.
const MAX_SECONDS: f64 = 86_400.0;

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
        "lapsed-write",
        include_str!("../../assets/scenarios/lapsed-write.toml"),
    ),
    (
        "crash-restart",
        include_str!("../../assets/scenarios/crash-restart.toml"),
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
        match self.line {
            Some(line) => write!(f, "{}, line {}: {}", self.source, line, self.message),
            None => write!(f, "{}: {}", self.source, self.message),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// What a client is told to do at a beat.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientAction {
    /// Ask for the lock; if refused, ask again every `retry` ms until granted (if set).
    Acquire { retry: Option<Ms> },
    /// Renew the lease the client believes it holds.
    Renew,
    /// Release the lease the client believes it holds.
    Release,
    /// Write `value` under `key` with the client's token.
    Write { key: String, value: String },
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
}

/// A question the lesson asks before a beat's outcome is shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    /// The question, answered yes or no.
    pub text: String,
}

/// One step of a lesson: a time, an optional action and the sentence that explains it.
#[derive(Clone, Debug, PartialEq)]
pub struct Beat {
    /// When the beat comes, in ms.
    pub at: Ms,
    /// What happens then (a caption-only beat narrates something the world does by itself).
    pub action: Option<BeatAction>,
    /// The sentence shown while this beat is the latest.
    pub caption: String,
    /// The sentence shown instead when fencing is off at this beat.
    pub caption_unfenced: Option<String>,
    /// A prediction to ask before the beat's outcome is revealed.
    pub ask: Option<Question>,
}

impl Beat {
    /// The caption for the given fencing setting.
    pub fn caption_for(&self, fencing: bool) -> &str {
        match (&self.caption_unfenced, fencing) {
            (Some(unfenced), false) => unfenced,
            _ => &self.caption,
        }
    }
}

/// A lesson or chaos scenario, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Short name: the built-in's name or the file's stem.
    pub name: String,
    /// How to load it again: the built-in's name or the file's path.
    pub origin: String,
    /// One line for `fencing-lab list` and the header.
    pub title: String,
    /// Lease length in seconds, as the lock service uses it.
    pub lease_seconds: f64,
    /// Lease length rounded to ms, as clients reckon it.
    pub lease_ms: Ms,
    /// The token of the first grant.
    pub first_token: u64,
    /// The lock's name.
    pub lock: String,
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
    /// The names and titles of the built-in scenarios, in lesson order.
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
        let fail = |message: String| ScenarioError {
            source: source.clone(),
            line: None,
            message,
        };
        let meta = std::fs::metadata(path).map_err(|e| fail(format!("cannot read it: {e}")))?;
        if meta.is_dir() {
            return Err(fail("is a folder, not a scenario file".into()));
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(fail(format!(
                "is {} bytes, more than the 1 MiB a scenario file may have",
                meta.len()
            )));
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| fail(format!("cannot be read as UTF-8 text: {e}")))?;
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
        let at_offset = |offset: usize, message: String| ScenarioError {
            source: source.to_owned(),
            line: Some(line_of(text, offset)),
            message,
        };
        let raw: RawScenario = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            let mut message = e.message().trim_end_matches('\n').to_owned();
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
        })?;

        let lease_seconds = *raw.lease.get_ref();
        if !(lease_seconds.is_finite() && lease_seconds > 0.0 && lease_seconds <= MAX_SECONDS) {
            return Err(at_offset(
                raw.lease.span().start,
                format!("field `lease` must be a number of seconds greater than 0 (and at most a day), got {lease_seconds}"),
            ));
        }
        let lease_ms = to_ms(lease_seconds).max(1);

        let mut beats = Vec::with_capacity(raw.beat.len());
        let mut last_at = 0;
        for (index, spanned) in raw.beat.iter().enumerate() {
            let start = spanned.span().start;
            let beat = raw_beat(spanned.get_ref(), index + 1)
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
            return Err(ScenarioError {
                source: source.to_owned(),
                line: None,
                message: "has no `[[beat]]` and no `[chaos]` table, so nothing would happen".into(),
            });
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
                None => last_at + 3_000,
            },
        };

        Ok(Scenario {
            name: name.to_owned(),
            origin: name.to_owned(),
            title: raw.title,
            lease_seconds,
            lease_ms,
            first_token: raw.first_token.unwrap_or(crate::DEFAULT_FIRST_TOKEN),
            lock: raw.lock.unwrap_or_else(|| "lock".into()),
            end,
            seed: raw.seed.unwrap_or(1),
            fencing: raw.fencing.unwrap_or(true),
            beats,
            chaos,
        })
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
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// A time field in seconds, as ms; errors carry the field's offset.
fn seconds_field(value: &Spanned<f64>, field: &str) -> Result<Ms, (usize, String)> {
    let seconds = *value.get_ref();
    if seconds.is_finite() && (0.0..=MAX_SECONDS).contains(&seconds) {
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
    lease: Spanned<f64>,
    first_token: Option<u64>,
    lock: Option<String>,
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
    ask: Option<String>,
    client: Option<Spanned<i64>>,
    #[serde(rename = "do")]
    action: Option<Spanned<String>>,
    key: Option<String>,
    value: Option<String>,
    seconds: Option<Spanned<f64>>,
    retry: Option<Spanned<f64>>,
    on: Option<bool>,
}

/// The `[chaos]` table as written; every field has a default.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawChaos {
    pub seconds: Option<f64>,
    pub keys: Option<Vec<String>>,
    pub writes: Option<[u64; 2]>,
    pub think: Option<[f64; 2]>,
    pub retry: Option<[f64; 2]>,
    pub work: Option<[f64; 2]>,
    pub stall_chance: Option<f64>,
    pub stall: Option<[f64; 2]>,
    pub crash: Option<bool>,
    pub down: Option<[f64; 2]>,
}

const ACTIONS: &str = "acquire, renew, release, write, pause, crash or fencing";

fn raw_beat(raw: &RawBeat, number: usize) -> Result<Beat, (Option<usize>, String)> {
    let at = seconds_field(&raw.at, "at").map_err(|(o, m)| (Some(o), m))?;
    let action = match &raw.action {
        None => None,
        Some(action) => Some(beat_action(raw, action, number)?),
    };
    if raw.ask.is_some()
        && !matches!(
            action,
            Some(BeatAction::Client {
                action: ClientAction::Write { .. },
                ..
            })
        )
    {
        return Err((
            None,
            format!("beat {number} has `ask`, but only a `write` beat can ask a question"),
        ));
    }
    Ok(Beat {
        at,
        action,
        caption: raw.caption.clone(),
        caption_unfenced: raw.caption_unfenced.clone(),
        ask: raw.ask.clone().map(|text| Question { text }),
    })
}

fn beat_action(
    raw: &RawBeat,
    action: &Spanned<String>,
    number: usize,
) -> Result<BeatAction, (Option<usize>, String)> {
    let name = action.get_ref().as_str();
    let at_action = Some(action.span().start);
    let missing = |field: &str| {
        (
            at_action,
            format!("beat {number} (`do = \"{name}\"`) needs the field `{field}`"),
        )
    };
    if name == "fencing" {
        let on = raw.on.ok_or_else(|| missing("on"))?;
        return Ok(BeatAction::Fencing { on });
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
    let seconds = |field: &Spanned<f64>, what: &str| {
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
    let action = match name {
        "acquire" => ClientAction::Acquire {
            retry: raw
                .retry
                .as_ref()
                .map(|r| seconds(r, "retry"))
                .transpose()?,
        },
        "renew" => ClientAction::Renew,
        "release" => ClientAction::Release,
        "write" => ClientAction::Write {
            key: raw.key.clone().ok_or_else(|| missing("key"))?,
            value: raw.value.clone().ok_or_else(|| missing("value"))?,
        },
        "pause" => ClientAction::Pause {
            ms: seconds(
                raw.seconds.as_ref().ok_or_else(|| missing("seconds"))?,
                "seconds",
            )?,
        },
        "crash" => ClientAction::Crash {
            down: match &raw.seconds {
                Some(s) => seconds(s, "seconds")?,
                None => DEFAULT_DOWN_MS,
            },
        },
        other => {
            return Err((
                at_action,
                format!(
                    "beat {number} has `do = \"{other}\"`, which is not an action; use {ACTIONS}"
                ),
            ))
        }
    };
    Ok(BeatAction::Client { client, action })
}
