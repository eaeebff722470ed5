//! `fencing-lab check`: every named rule, random and exhaustive scripts, and the seed's chaos
//! test, run on the student's program; the result as data, then as text or JSON.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{json, Value};

use super::explore::{self, Bounds};
use super::protocol::{Program, ProtocolError};
use super::remote;
use super::rules;
use super::script::{play, Mismatch, Played, Script};
use super::target::Target;
use crate::sim::text::counted;
use crate::sim::{EventKind, Keep, Scenario, Setup, World};

/// How much `check` runs.
#[derive(Clone, Debug)]
pub struct Plan {
    pub bounds: Bounds,
    /// Chaos seeds 1..=N.
    pub chaos_seeds: u64,
    /// Only the rule with this id (and no random, exhaustive or chaos checks).
    pub only: Option<String>,
}

impl Default for Plan {
    fn default() -> Self {
        Plan {
            bounds: Bounds::default(),
            chaos_seeds: 20,
            only: None,
        }
    }
}

/// One check's result.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub id: String,
    /// What it checks, in the seed's words where it is a rule.
    pub words: String,
    /// What was tried ("4,096 scripts of 4 calls").
    pub scope: String,
    pub failure: Option<Failure>,
}

/// How a check failed.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The minimal transcript, one call a line, the last one saying what the seed expected.
    pub transcript: Vec<String>,
    /// The command that shows it again.
    pub replay: String,
    /// The chaos seed that failed, for `--tui`.
    pub chaos_seed: Option<u64>,
    /// The minimal case's calls, for `--tui` to play as a lesson.
    pub played: Vec<Played>,
    /// The settings the minimal case ran with.
    pub lease_seconds: f64,
    pub first_token: u64,
}

/// Everything `check` found.
#[derive(Clone, Debug)]
pub struct Report {
    pub target: String,
    pub language: String,
    pub outcomes: Vec<Outcome>,
    pub calls: u64,
    pub seconds: f64,
}

impl Report {
    pub fn passed(&self) -> usize {
        self.outcomes.iter().filter(|o| o.failure.is_none()).count()
    }

    pub fn all_passed(&self) -> bool {
        self.passed() == self.outcomes.len()
    }

    /// The first failing check's minimal case, for `check --tui`.
    pub fn first_failure(&self) -> Option<&Outcome> {
        self.outcomes.iter().find(|o| o.failure.is_some())
    }
}

fn failure(mismatch: &Mismatch, script: &Script, replay: String) -> Failure {
    Failure {
        transcript: mismatch.lines(),
        replay,
        chaos_seed: None,
        played: mismatch.transcript.clone(),
        lease_seconds: script.lease_seconds.unwrap_or(crate::DEFAULT_LEASE_SECONDS),
        first_token: script.first_token.unwrap_or(crate::DEFAULT_FIRST_TOKEN),
    }
}

/// Runs the plan on a started program. A protocol error stops everything.
pub fn run(target: &Target, mut program: Program, plan: &Plan) -> Result<Report, ProtocolError> {
    let started = Instant::now();
    let mut calls = 0;
    let mut outcomes = Vec::new();
    let replay = target.check_command();
    let rules: Vec<_> = rules::all()
        .into_iter()
        .filter(|r| plan.only.as_deref().is_none_or(|only| only == r.id))
        .collect();
    if let Some(only) = &plan.only {
        if rules.is_empty() {
            return Err(ProtocolError {
                sentence: format!(
                    "--only {} names no rule; the rules are {}",
                    crate::sim::text::printable(only),
                    rules::all()
                        .iter()
                        .map(|r| r.id)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
    }
    for rule in &rules {
        let mismatch = play(&rule.script, &mut program, &mut calls)?;
        outcomes.push(Outcome {
            id: rule.id.to_owned(),
            words: rule.words.to_owned(),
            scope: counted(rule.script.steps.len() as u64, "step", "steps"),
            failure: mismatch
                .as_ref()
                .map(|m| failure(m, &rule.script, format!("{replay} --only {}", rule.id))),
        });
    }
    if plan.only.is_none() {
        let bounds = plan.bounds;
        let found = explore::random(&mut program, bounds, &mut calls)?;
        outcomes.push(Outcome {
            id: "random".into(),
            words: "Random calls and clock steps on a grid that hits each boundary give the same \
                    replies as fencing-lab's own library."
                .into(),
            scope: format!(
                "{} of {} steps, seed {}",
                counted(bounds.random_scripts as u64, "script", "scripts"),
                bounds.random_steps,
                bounds.seed
            ),
            failure: found.map(|(script, m)| failure(&m, &script, shrunk_note(&replay, &script))),
        });
        let (tried, found) =
            explore::exhaustive(&mut program, bounds.exhaustive_length, &mut calls)?;
        outcomes.push(Outcome {
            id: "exhaustive".into(),
            words: format!(
                "Every script of {} calls over {} (acquire, renew, release, writes with the \
                 latest and previous token, the clock to just before and exactly at expiry) \
                 agrees with the library.",
                bounds.exhaustive_length,
                counted(explore::alphabet().len() as u64, "call", "calls")
            ),
            scope: match found {
                None => counted(tried, "script", "scripts"),
                Some(_) => format!(
                    "failed at script {tried} of {}",
                    explore::alphabet().len().pow(bounds.exhaustive_length)
                ),
            },
            failure: found.map(|(script, m)| failure(&m, &script, shrunk_note(&replay, &script))),
        });
        // The chaos runs drive the same program through the simulation; each run begins with
        // `new`.
        let before = program.calls;
        let shared = Arc::new(Mutex::new(program));
        outcomes.push(chaos(&shared, plan.chaos_seeds, target)?);
        program = Arc::into_inner(shared)
            .expect("the chaos runs are over")
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        calls += program.calls - before;
    }
    let language = program.language.clone();
    Ok(Report {
        target: target.describe(),
        language,
        outcomes,
        calls,
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn shrunk_note(replay: &str, script: &Script) -> String {
    format!(
        "{replay}   (shrunk to {}; lease {} s, first token {})",
        counted(script.steps.len() as u64, "step", "steps"),
        script
            .lease_seconds
            .map_or("10".into(), super::protocol::fmt_time),
        script.first_token.unwrap_or(1)
    )
}

/// The seed's chaos test on the student's code: seeds 1..=N, the student's storage must never
/// accept a write with a token older than one it accepted.
fn chaos(
    program: &Arc<Mutex<Program>>,
    seeds: u64,
    target: &Target,
) -> Result<Outcome, ProtocolError> {
    let factory = remote::factory(Arc::clone(program));
    let scenario = Arc::new(Scenario::built_in("chaos").expect("chaos is built in"));
    let mut failed = None;
    for seed in 1..=seeds {
        let setup = Setup::new(scenario.clone())
            .seed(seed)
            .backend(factory.clone());
        let mut world = World::new(&setup, &[], Keep::All);
        world.advance_to(scenario.end, &[]);
        if let Some(fault) = world.fault() {
            // A starter's method still to write fails the check; anything else broke the protocol.
            if fault.ends_with(remote::NOT_IMPLEMENTED) {
                failed = Some((seed, fault));
                break;
            }
            return Err(ProtocolError {
                sentence: format!("in the chaos test (seed {seed}): {fault}"),
            });
        }
        if world.stats().corruptions > 0 {
            let line = world.events().iter().find_map(|e| match &e.kind {
                EventKind::Corruption {
                    client,
                    key,
                    token,
                    highest,
                    ..
                } => Some(format!(
                    "t={} {client} writes to {key} with token {token}: accepted, but the key had \
                     accepted token {highest}",
                    crate::sim::time::fmt_seconds(e.t)
                )),
                _ => None,
            });
            failed = Some((seed, line.unwrap_or_default()));
            break;
        }
    }
    let described = target.describe();
    let outcome = Outcome {
        id: "chaos".into(),
        words: "Three clients, one lock, a 3-second lease, random work and stalls, a crash and \
                restart: storage must never accept a write with a token older than one it has \
                already accepted."
            .into(),
        scope: format!(
            "{} of {} s",
            counted(seeds, "seed", "seeds"),
            crate::sim::time::fmt_seconds(scenario.end)
        ),
        failure: failed.map(|(seed, line)| Failure {
            transcript: vec![format!("seed {seed}: {line}")],
            replay: format!("fencing-lab tui chaos --seed {seed} --impl {described}"),
            chaos_seed: Some(seed),
            played: Vec::new(),
            lease_seconds: scenario.lease_seconds,
            first_token: scenario.first_token,
        }),
    };
    Ok(outcome)
}

/// The report as a test runner prints it.
pub fn text(report: &Report) -> String {
    let mut out = format!(
        "fencing-lab check {} ({})\n",
        report.target, report.language
    );
    for outcome in &report.outcomes {
        let mark = if outcome.failure.is_some() {
            "✗"
        } else {
            "✓"
        };
        out.push_str(&format!("{mark} {}  ({})\n", outcome.id, outcome.scope));
        if let Some(failure) = &outcome.failure {
            out.push_str(&format!("    rule: {}\n", outcome.words));
            for line in &failure.transcript {
                out.push_str(&format!("    {line}\n"));
            }
            out.push_str(&format!("    replay: {}\n", failure.replay));
        }
    }
    out.push_str(&format!(
        "{} of {} checks passed; {} in {:.1} s\n",
        report.passed(),
        report.outcomes.len(),
        counted(report.calls, "call", "calls"),
        report.seconds
    ));
    out
}

/// The report for autograders.
pub fn json(report: &Report) -> Value {
    json!({
        "target": report.target,
        "language": report.language,
        "passed": report.passed(),
        "total": report.outcomes.len(),
        "calls": report.calls,
        "seconds": report.seconds,
        "checks": report.outcomes.iter().map(|o| json!({
            "id": o.id,
            "rule": o.words,
            "scope": o.scope,
            "passed": o.failure.is_none(),
            "transcript": o.failure.as_ref().map(|f| f.transcript.clone()),
            "replay": o.failure.as_ref().map(|f| f.replay.clone()),
        })).collect::<Vec<_>>(),
    })
}
