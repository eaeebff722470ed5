//! A `[[beat]]` table read into a beat: its time, captions and question, and the action it
//! does, each field the action takes checked and each it does not take named.

use serde::Deserialize;
use toml::Spanned;

use super::fields::{check_name, checked_text, seconds_field};
use super::{lock_named, Beat, BeatAction, Captions, ClientAction, Question, DEFAULT_DOWN_MS};
use crate::sim::event::{ClientId, LockId};
use crate::sim::text::printable;
use crate::sim::time::Ms;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBeat {
    /// Read by the file's reader too: a beat out of time order is named at its `at`.
    pub(super) at: Spanned<f64>,
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

pub(super) fn raw_beat(
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
    let missing = |field: &str| missing_field(at_action, number, name, field);
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
        Some(lock) => match lock_named(locks, lock.get_ref()) {
            Some(lock) => lock,
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
    let action = client_action(raw, name, number, lock, at_action)?;
    Ok(BeatAction::Client { client, action })
}

/// A client's action of beat `number`, its fields checked.
fn client_action(
    raw: &RawBeat,
    name: &str,
    number: usize,
    lock: LockId,
    at_action: Option<usize>,
) -> Result<ClientAction, (Option<usize>, String)> {
    let missing = |field: &str| missing_field(at_action, number, name, field);
    let duration = |field: &Spanned<f64>, what: &str| positive_seconds(field, what, number);
    Ok(match name {
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
    })
}

/// A beat's action lacks a field it needs.
fn missing_field(
    at_action: Option<usize>,
    number: usize,
    action: &str,
    field: &str,
) -> (Option<usize>, String) {
    (
        at_action,
        format!(
            "beat {number} (`do = \"{}\"`) needs the field `{field}`",
            printable(action)
        ),
    )
}

/// A duration field of beat `number`: seconds, at least a millisecond.
fn positive_seconds(
    field: &Spanned<f64>,
    what: &str,
    number: usize,
) -> Result<Ms, (Option<usize>, String)> {
    let ms = seconds_field(field, what).map_err(|(o, m)| (Some(o), m))?;
    if ms == 0 {
        Err((
            Some(field.span().start),
            format!("beat {number}: field `{what}` must be at least 0.001 seconds"),
        ))
    } else {
        Ok(ms)
    }
}
