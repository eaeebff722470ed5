//! Record and replay: a session saved as JSON (scenario, seed, settings, every input with its
//! time) and loaded back into exactly the same run.

use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::sim::{seconds, to_ms, ClientId, Input, InputKind, Scenario, Session};
use crate::FenceCheck;

const FORMAT: u32 = 1;

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Recording {
    format: u32,
    /// A built-in name or the path the scenario was loaded from.
    scenario: String,
    seed: u64,
    fencing: bool,
    check: String,
    inputs: Vec<RecordedInput>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct RecordedInput {
    /// Seconds.
    at: f64,
    /// pause, crash, fencing or check.
    action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    on: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    check: Option<String>,
}

/// The session as recording JSON.
pub fn to_json(session: &Session) -> String {
    let inputs = session
        .inputs()
        .iter()
        .map(|input| {
            let (action, client, on, check) = match input.kind {
                InputKind::Pause { client } => ("pause", Some(client.number()), None, None),
                InputKind::Crash { client } => ("crash", Some(client.number()), None, None),
                InputKind::Fencing { on } => ("fencing", None, Some(on), None),
                InputKind::Check(c) => ("check", None, None, Some(c.name().to_owned())),
            };
            RecordedInput {
                at: seconds(input.at),
                action: action.to_owned(),
                client,
                on,
                check,
            }
        })
        .collect();
    let recording = Recording {
        format: FORMAT,
        scenario: session.scenario().origin.clone(),
        seed: session.seed(),
        fencing: session.fencing_at_start(),
        check: session.check_at_start().name().to_owned(),
        inputs,
    };
    serde_json::to_string_pretty(&recording).expect("a recording always serializes")
}

/// A session from recording JSON; `source` names it in errors.
pub fn from_json(text: &str, source: &str) -> Result<Session, String> {
    let recording: Recording = serde_json::from_str(text).map_err(|e| {
        format!(
            "{source}, line {}: not a fencing-lab recording: {e}",
            e.line()
        )
    })?;
    if recording.format != FORMAT {
        return Err(format!(
            "{source}: recording format {} is not the supported format {FORMAT}",
            recording.format
        ));
    }
    let scenario = Scenario::load(&recording.scenario)
        .map_err(|e| format!("{source} names scenario {}: {e}", recording.scenario))?;
    let check = FenceCheck::from_name(&recording.check).ok_or_else(|| {
        format!(
            "{source}: field `check` has unknown check '{}'",
            recording.check
        )
    })?;
    let mut inputs = Vec::with_capacity(recording.inputs.len());
    for (i, input) in recording.inputs.iter().enumerate() {
        let where_ = || format!("{source}: input {}", i + 1);
        if !(input.at.is_finite() && input.at >= 0.0) {
            return Err(format!(
                "{}: field `at` must be a time in seconds, got {}",
                where_(),
                input.at
            ));
        }
        let client = || {
            input
                .client
                .and_then(|n| ClientId::from_number(n.into()))
                .ok_or_else(|| format!("{}: field `client` must be 1, 2 or 3", where_()))
        };
        let kind = match input.action.as_str() {
            "pause" => InputKind::Pause { client: client()? },
            "crash" => InputKind::Crash { client: client()? },
            "fencing" => InputKind::Fencing {
                on: input
                    .on
                    .ok_or_else(|| format!("{}: a fencing input needs field `on`", where_()))?,
            },
            "check" => InputKind::Check(
                input
                    .check
                    .as_deref()
                    .and_then(FenceCheck::from_name)
                    .ok_or_else(|| {
                        format!("{}: a check input needs a known field `check`", where_())
                    })?,
            ),
            other => {
                return Err(format!(
                    "{}: field `action` is '{other}'; use pause, crash, fencing or check",
                    where_()
                ))
            }
        };
        inputs.push(Input {
            at: to_ms(input.at),
            kind,
        });
    }
    Ok(Session::with_inputs(
        Arc::new(scenario),
        recording.seed,
        recording.fencing,
        check,
        inputs,
    ))
}

/// Saves the session to `path`.
pub fn save(path: &Path, session: &Session) -> Result<(), String> {
    std::fs::write(path, to_json(session) + "\n")
        .map_err(|e| format!("could not save the recording to {}: {e}", path.display()))
}

/// Loads a recording from `path`.
pub fn load(path: &Path) -> Result<Session, String> {
    let source = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| format!("{source}: cannot read it: {e}"))?;
    if meta.len() > 16 * 1024 * 1024 {
        return Err(format!(
            "{source}: is larger than the 16 MiB a recording may have"
        ));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{source}: cannot read it as text: {e}"))?;
    from_json(&text, &source)
}
