//! A scenario file read into the types: TOML, every limit checked, and each error one sentence
//! naming the line and the field.

use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::beats::{raw_beat, RawBeat};
use super::fields::{check_name, checked_text, seconds_field};
use super::{
    ChaosParams, Scenario, ScenarioError, MAX_EVENTS, MAX_FILE_BYTES, MAX_LOCKS, MAX_TOKEN,
};
use crate::sim::files::read_text_file;
use crate::sim::text::one_line;
use crate::sim::time::{to_ms, Ms, MAX_MS};

impl Scenario {
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

        let locks = lock_names(&raw).map_err(whole)?;

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
                chaos_params(spanned.get_ref())
                    .map_err(|message| at_offset(spanned.span().start, message))?,
            ),
            None => None,
        };
        if beats.is_empty() && chaos.is_none() {
            return Err(whole(
                "has no `[[beat]]` and no `[chaos]` table, so nothing would happen".into(),
            ));
        }

        let first_token = raw.first_token.unwrap_or(crate::DEFAULT_FIRST_TOKEN);
        if first_token > MAX_TOKEN {
            return Err(whole(format!(
                "has first_token = {first_token}, above 2^53 - 1 ({MAX_TOKEN}): the largest token \
                 the lab's protocol carries exactly (a JSON number in every language)"
            )));
        }
        let end = end_of(raw.end.as_ref(), chaos.as_ref(), last_at)
            .map_err(|(offset, message)| at_offset(offset, message))?;

        let scenario = Scenario {
            name: name.to_owned(),
            origin: name.to_owned(),
            title,
            short_title,
            lease_seconds,
            lease_ms,
            first_token,
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
                crate::sim::time::fmt_seconds(scenario.end)
            )));
        }
        Ok(scenario)
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The `[chaos]` table, its defaults filled in and every range checked.
fn chaos_params(raw: &RawChaos) -> Result<ChaosParams, String> {
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

/// The scenario's locks: `lock`, `locks` or the default, each name checked.
fn lock_names(raw: &RawScenario) -> Result<Vec<String>, String> {
    let locks =
        match (&raw.lock, &raw.locks) {
            (Some(_), Some(_)) => return Err(
                "has both `lock` and `locks`; name one lock with `lock` or several with `locks`"
                    .into(),
            ),
            (Some(lock), None) => vec![lock.clone()],
            (None, Some(locks)) => locks.clone(),
            (None, None) => vec!["lock".to_owned()],
        };
    if locks.is_empty() || locks.len() > MAX_LOCKS {
        return Err(format!(
            "field `locks` must name 1 to {MAX_LOCKS} locks, got {}",
            locks.len()
        ));
    }
    for (i, lock) in locks.iter().enumerate() {
        check_name(lock, "a lock name")?;
        if locks[..i].contains(lock) {
            return Err(format!("field `locks` names '{lock}' twice"));
        }
    }
    Ok(locks)
}

/// When the story is over: `end` as written (not before the last beat), else the chaos run's
/// length, else 3 s after the last beat.
fn end_of(
    end: Option<&Spanned<f64>>,
    chaos: Option<&ChaosParams>,
    last_at: Ms,
) -> Result<Ms, (usize, String)> {
    Ok(match end {
        Some(end) => {
            let ms = seconds_field(end, "end")?;
            if ms < last_at {
                return Err((
                    end.span().start,
                    "field `end` comes before the last beat".into(),
                ));
            }
            ms
        }
        None => match chaos {
            Some(params) => params.seconds.max(last_at),
            None => (last_at + 3_000).min(MAX_MS),
        },
    })
}
