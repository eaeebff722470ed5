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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::script::double::{Mistake, Student};
    use crate::lab::script::Step;

    fn outcome(id: &str, failure: Option<Failure>) -> Outcome {
        Outcome {
            id: id.into(),
            words: format!("the rule {id}"),
            scope: "3 steps".into(),
            failure,
        }
    }

    fn report(outcomes: Vec<Outcome>) -> Report {
        Report {
            target: "my-lab".into(),
            language: "python 3.12".into(),
            outcomes,
            calls: 1234,
            seconds: 0.46,
        }
    }

    fn a_failure() -> Failure {
        Failure {
            transcript: vec![
                "t=0.0    read(file) -> null".into(),
                "t=1.0    x, but y".into(),
            ],
            replay: "fencing-lab check my-lab --only b".into(),
            chaos_seed: None,
            played: Vec::new(),
            lease_seconds: 10.0,
            first_token: 1,
        }
    }

    #[test]
    fn the_report_counts_what_passed_and_finds_the_first_failure() {
        let all_pass = report(vec![outcome("a", None), outcome("b", None)]);
        assert_eq!(all_pass.passed(), 2);
        assert!(all_pass.all_passed());
        assert!(all_pass.first_failure().is_none());
        let one_fails = report(vec![
            outcome("a", None),
            outcome("b", Some(a_failure())),
            outcome("c", Some(a_failure())),
        ]);
        assert_eq!(one_fails.passed(), 1);
        assert!(!one_fails.all_passed());
        assert_eq!(one_fails.first_failure().map(|o| o.id.as_str()), Some("b"));
    }

    #[test]
    fn the_report_reads_as_a_test_runner_prints_it() {
        let r = report(vec![outcome("a", None), outcome("b", Some(a_failure()))]);
        assert_eq!(
            text(&r),
            "fencing-lab check my-lab (python 3.12)\n\
             ✓ a  (3 steps)\n\
             ✗ b  (3 steps)\n\
             \x20   rule: the rule b\n\
             \x20   t=0.0    read(file) -> null\n\
             \x20   t=1.0    x, but y\n\
             \x20   replay: fencing-lab check my-lab --only b\n\
             1 of 2 checks passed; 1234 calls in 0.5 s\n"
        );
        assert_eq!(
            json(&r),
            json!({
                "target": "my-lab",
                "language": "python 3.12",
                "passed": 1,
                "total": 2,
                "calls": 1234,
                "seconds": 0.46,
                "checks": [
                    {"id": "a", "rule": "the rule a", "scope": "3 steps", "passed": true,
                     "transcript": null, "replay": null},
                    {"id": "b", "rule": "the rule b", "scope": "3 steps", "passed": false,
                     "transcript": ["t=0.0    read(file) -> null", "t=1.0    x, but y"],
                     "replay": "fencing-lab check my-lab --only b"},
                ],
            })
        );
    }

    #[test]
    fn a_failure_keeps_the_minimal_case_and_its_settings() {
        let script = Script {
            lease_seconds: Some(2.5),
            first_token: Some(7),
            steps: vec![
                Step::Acquire {
                    name: "file",
                    client: "client-1",
                },
                Step::Acquire {
                    name: "log",
                    client: "client-2",
                },
            ],
            judge_expiry: true,
        };
        let mismatch = play(&script, &mut Student::new(Mistake::CounterPerLock), &mut 0)
            .unwrap()
            .expect("a counter per lock hands out 7 twice");
        let f = failure(&mismatch, &script, "replay it".into());
        assert_eq!(f.transcript, mismatch.lines());
        assert_eq!(f.played, mismatch.transcript);
        assert_eq!(f.replay, "replay it");
        assert_eq!(
            (f.lease_seconds, f.first_token, f.chaos_seed),
            (2.5, 7, None)
        );
        let defaults = Script {
            lease_seconds: None,
            first_token: None,
            ..script.clone()
        };
        let f = failure(&mismatch, &defaults, String::new());
        assert_eq!((f.lease_seconds, f.first_token), (10.0, 1));
        assert_eq!(
            shrunk_note("fencing-lab check .", &script),
            "fencing-lab check .   (shrunk to 2 steps; lease 2.5 s, first token 7)"
        );
        let one = Script {
            steps: vec![Step::Holder { name: "file" }],
            ..defaults
        };
        assert_eq!(
            shrunk_note("fencing-lab check .", &one),
            "fencing-lab check .   (shrunk to 1 step; lease 10 s, first token 1)"
        );
    }
}

/// `run` on a real program: the Python solution of the lab's tests, whose every request also
/// goes through `tee` into a log, an independent count of the calls.
#[cfg(test)]
mod run_tests {
    use std::path::Path;
    use std::time::Duration;

    use super::*;
    use crate::lab::explore::Bounds;
    use crate::lab::script::double::{lab_path, PATIENT};

    /// The Python solution in `dir`, its requests logged to `log`.
    fn logged(dir: &Path, log: &Path) -> Target {
        Target::Command(vec![
            "sh".into(),
            "-c".into(),
            format!(
                "tee '{}' | python3 '{}'",
                log.display(),
                dir.join("adapter.py").display()
            ),
        ])
    }

    fn small(only: Option<&str>) -> Plan {
        Plan {
            bounds: Bounds {
                random_scripts: 3,
                random_steps: 8,
                exhaustive_length: 1,
                seed: 1,
            },
            chaos_seeds: 2,
            only: only.map(str::to_owned),
        }
    }

    fn run_on(target: &Target, plan: &Plan) -> Result<Report, ProtocolError> {
        run(target, target.start(PATIENT)?, plan)
    }

    #[test]
    fn a_correct_program_passes_every_check_and_every_call_is_counted_once() {
        if !crate::lab::script::double::python3() {
            return;
        }
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let log = dir.join("requests.log");
        let target = logged(&lab_path("correct/python"), &log);
        let report = run_on(&target, &small(None)).unwrap();
        let ids: Vec<&str> = report.outcomes.iter().map(|o| o.id.as_str()).collect();
        let rules: Vec<&str> = rules::all().iter().map(|r| r.id).collect();
        assert_eq!(ids[..16], rules[..]);
        assert_eq!(ids[16..], ["random", "exhaustive", "chaos"]);
        assert!(report.all_passed(), "{}", text(&report));
        assert!(report.language.starts_with("python"), "{}", report.language);
        assert_eq!(report.target, target.describe());
        let random = &report.outcomes[16];
        assert_eq!(random.scope, "3 scripts of 8 steps, seed 1");
        assert_eq!(report.outcomes[17].scope, "8 scripts");
        assert!(report.outcomes[17]
            .words
            .starts_with("Every script of 1 calls over 8 calls"));
        assert_eq!(report.outcomes[18].scope, "2 seeds of 60.0 s");
        // Every request but the greeting. `tee` may still be writing the last one to its log.
        let logged = || std::fs::read_to_string(&log).unwrap().lines().count() as u64;
        let deadline = std::time::Instant::now() + Duration::from_secs(3);
        while logged() != report.calls + 1 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(report.calls, logged() - 1);
    }

    #[test]
    fn only_runs_the_rule_it_names_and_refuses_a_name_that_is_no_rule() {
        if !crate::lab::script::double::python3() {
            return;
        }
        let target = Target::Command(vec![
            "python3".into(),
            lab_path("correct/python/adapter.py").display().to_string(),
        ]);
        let report = run_on(&target, &small(Some("per-key"))).unwrap();
        let ids: Vec<&str> = report.outcomes.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(ids, ["per-key"]);
        assert_eq!(report.outcomes[0].scope, "7 steps");
        let error = run_on(&target, &small(Some("per\u{1b}key"))).unwrap_err();
        assert_eq!(
            error.sentence,
            "--only per\\u{1b}key names no rule; the rules are defaults, expiry-boundary, \
             one-counter, refused-acquire-no-token, holder-acquire-none, renew-keeps-token, \
             renew-extends-from-now, expired-no-renew, expired-no-release, late-release, \
             write-equal-token, write-stale-rejected, rejected-changes-nothing, per-key, holder, \
             clock-only"
        );
    }

    /// A storage that checks nothing corrupts data in the chaos test, at the first seed that
    /// shows it, with the write that did it.
    #[test]
    fn a_storage_that_checks_nothing_fails_the_chaos_test_at_its_first_seed() {
        if !crate::lab::script::double::python3() {
            return;
        }
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        for file in ["adapter.py", "not_implemented.py"] {
            std::fs::copy(lab_path("correct/python").join(file), dir.join(file)).unwrap();
        }
        let service = std::fs::read_to_string(lab_path("correct/python/lock_service.py")).unwrap();
        let unchecked = service.replace("token < entry[1]", "False");
        assert_ne!(unchecked, service);
        std::fs::write(dir.join("lock_service.py"), unchecked).unwrap();
        let target = Target::Command(vec![
            "python3".into(),
            dir.join("adapter.py").display().to_string(),
        ]);
        let plan = Plan {
            chaos_seeds: 20,
            only: None,
            ..small(None)
        };
        let report = run_on(&target, &plan).unwrap();
        let chaos = report.outcomes.iter().find(|o| o.id == "chaos").unwrap();
        let failure = chaos.failure.as_ref().expect("chaos fails");
        let seed = failure.chaos_seed.expect("a seed");
        assert_eq!(
            failure.replay,
            format!(
                "fencing-lab tui chaos --seed {seed} --impl {}",
                target.describe()
            )
        );
        assert_eq!(failure.transcript.len(), 1);
        let line = &failure.transcript[0];
        assert!(line.starts_with(&format!("seed {seed}: t=")), "{line}");
        assert!(
            line.contains(" writes to ")
                && line.contains(": accepted, but the key had accepted token "),
            "{line}"
        );
        assert_eq!((failure.lease_seconds, failure.first_token), (3.0, 1));
        assert!(failure.played.is_empty());
        // The seeds before it pass.
        if seed > 1 {
            let before = Plan {
                chaos_seeds: seed - 1,
                only: None,
                ..small(None)
            };
            let report = run_on(&target, &before).unwrap();
            let chaos = report.outcomes.iter().find(|o| o.id == "chaos").unwrap();
            assert!(chaos.failure.is_none());
        }
    }

    /// A fresh starter fails every check, the chaos test with the method still to write.
    #[test]
    fn a_fresh_starter_fails_the_chaos_test_with_the_method_to_write() {
        if !crate::lab::script::double::python3() {
            return;
        }
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        crate::lab::starter::init("python", dir).unwrap();
        let target = Target::Folder(dir.to_owned());
        let report = run_on(&target, &small(None)).unwrap();
        assert_eq!(report.passed(), 0, "{}", text(&report));
        let chaos = report.outcomes.iter().find(|o| o.id == "chaos").unwrap();
        let failure = chaos.failure.as_ref().expect("chaos fails");
        assert_eq!(failure.chaos_seed, Some(1));
        assert_eq!(
            failure.transcript,
            ["seed 1: LockService.acquire is not implemented yet"]
        );
    }
}
