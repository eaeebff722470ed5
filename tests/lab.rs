//! The lab's checker against real student code: correct solutions in every language pass, each
//! wrong one fails with the rule it breaks named, and programs that break the protocol are
//! reported in one sentence within the timeout.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fencing_lab::lab::{check, remote, Plan, Program, Report, Target, DEFAULT_TIMEOUT};
use fencing_lab::sim::event::Vocab;
use fencing_lab::sim::{Keep, Scenario, Setup, World};
use serde_json::Value;

fn lab_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lab")
}

/// A tool the test needs: present, or a loud skip (an error in CI, where `.ci/run` installs it).
fn require(what: &str, present: bool) -> bool {
    if present {
        return true;
    }
    assert!(
        std::env::var_os("FENCING_LAB_CI").is_none(),
        "{what} is missing, and .ci/run should have installed it"
    );
    eprintln!("SKIPPED: {what} is not installed; run .ci/run, which installs it");
    false
}

fn has(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn start(target: &Target) -> Program {
    target
        .start(DEFAULT_TIMEOUT)
        .unwrap_or_else(|e| panic!("{}: {e}", target.describe()))
}

fn check_folder(dir: &Path, plan: &Plan) -> Report {
    let target = Target::Folder(dir.to_owned());
    check::run(&target, start(&target), plan).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

fn failed(report: &Report) -> Vec<&str> {
    report
        .outcomes
        .iter()
        .filter(|o| o.failure.is_some())
        .map(|o| o.id.as_str())
        .collect()
}

/// Compiles the TypeScript solution with the pinned compiler in tests/lab/node_modules.
fn compile_typescript() -> Option<PathBuf> {
    let tsc = lab_dir().join("node_modules/.bin/tsc");
    if !require("TypeScript (npm ci --prefix tests/lab)", tsc.is_file()) {
        return None;
    }
    let dir = lab_dir().join("correct/ts");
    let status = Command::new(&tsc)
        .args([
            "--strict",
            "--target",
            "es2022",
            "--module",
            "nodenext",
            "lock_service.mts",
        ])
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(status.success(), "tsc failed on correct/ts");
    Some(dir)
}

#[test]
fn correct_solutions_pass_every_check_in_every_language() {
    let mut dirs = vec![];
    if require("python3", has("python3")) {
        dirs.push(lab_dir().join("correct/python"));
    }
    if require("node", has("node")) {
        dirs.push(lab_dir().join("correct/js"));
        dirs.extend(compile_typescript());
    }
    dirs.push(lab_dir().join("correct/rust"));
    for dir in dirs {
        let report = check_folder(&dir, &Plan::default());
        assert!(
            report.all_passed(),
            "{}:\n{}",
            dir.display(),
            check::text(&report)
        );
        // Every kind of check ran: the rules, random, exhaustive and chaos.
        let ids: Vec<&str> = report.outcomes.iter().map(|o| o.id.as_str()).collect();
        for id in ["defaults", "late-release", "random", "exhaustive", "chaos"] {
            assert!(ids.contains(&id), "{}: no {id} check", dir.display());
        }
        assert!(report.calls > 10_000, "only {} calls", report.calls);
    }
}

#[test]
fn each_wrong_solution_fails_the_rule_it_breaks() {
    let manifest: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(lab_dir().join("wrong/manifest.json")).unwrap(),
    )
    .unwrap();
    assert!(manifest.len() >= 10);
    let rule_ids: Vec<&str> = fencing_lab::lab::rules::all()
        .iter()
        .map(|r| r.id)
        .collect();
    let mut broken = std::collections::BTreeSet::new();
    for entry in &manifest {
        let dir = entry["dir"].as_str().unwrap();
        let breaks = entry["breaks"].as_str().unwrap();
        let language = entry["language"].as_str().unwrap();
        assert!(rule_ids.contains(&breaks), "{dir}: no rule {breaks}");
        let needed = match language {
            "js" => "node",
            "python" => "python3",
            _ => "cargo",
        };
        if !require(needed, has(needed)) {
            continue;
        }
        let report = check_folder(&lab_dir().join("wrong").join(dir), &Plan::default());
        let failures = failed(&report);
        assert!(
            failures.contains(&breaks),
            "{dir} should fail {breaks}, failed {failures:?}:\n{}",
            check::text(&report)
        );
        // The rule's failure shows a transcript ending in what the seed expected.
        let outcome = report.outcomes.iter().find(|o| o.id == breaks).unwrap();
        let failure = outcome.failure.as_ref().unwrap();
        assert!(
            failure.transcript.last().unwrap().contains(", but "),
            "{dir}: {:?}",
            failure.transcript
        );
        assert!(failure.replay.contains(&format!("--only {breaks}")));
        broken.insert(breaks);
    }
    // Across the set, every rule but the seed's own defaults and the storage's ordering has a
    // wrong solution of its own.
    assert!(broken.len() >= 14, "rules broken: {broken:?}");
}

#[test]
fn the_storage_that_checks_nothing_fails_the_chaos_test_with_its_seed() {
    let report = check_folder(
        &lab_dir().join("wrong/rust-write-unchecked"),
        &Plan::default(),
    );
    let chaos = report.outcomes.iter().find(|o| o.id == "chaos").unwrap();
    let failure = chaos.failure.as_ref().expect("chaos should fail");
    let seed = failure.chaos_seed.unwrap();
    assert!(failure.replay.contains(&format!("--seed {seed}")));
    assert!(failure.transcript[0].contains("accepted, but the key had accepted token"));
    // A strict storage refuses honest writes but never accepts a stale one: chaos passes.
    if require("node", has("node")) {
        let strict = check_folder(&lab_dir().join("wrong/js-write-strict"), &Plan::default());
        assert!(!failed(&strict).contains(&"chaos"));
    }
}

#[test]
fn a_failure_is_shrunk_to_a_few_calls() {
    if !require("node", has("node")) {
        return;
    }
    let report = check_folder(&lab_dir().join("wrong/js-write-strict"), &Plan::default());
    for id in ["random", "exhaustive"] {
        let outcome = report.outcomes.iter().find(|o| o.id == id).unwrap();
        let failure = outcome.failure.as_ref().unwrap();
        // Two writes with the same token, and the new LockService line.
        assert!(
            failure.transcript.len() <= 4,
            "{id} not shrunk: {:#?}",
            failure.transcript
        );
    }
}

#[test]
fn a_shrunk_failure_loses_its_failure_without_any_one_of_its_steps() {
    use fencing_lab::lab::explore;
    use fencing_lab::lab::script::play;
    if !require("python3", has("python3")) {
        return;
    }
    let mut shrunk = 0;
    for name in [
        "python-global-highest",
        "python-rejected-write-keeps-value",
        "python-renew-from-old-expiry",
        "python-refused-acquire-bumps",
    ] {
        let target = Target::Folder(lab_dir().join("wrong").join(name));
        let mut program = start(&target);
        let mut calls = 0;
        let found = explore::random(&mut program, explore::Bounds::default(), &mut calls)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let Some((script, mismatch)) = found else {
            continue;
        };
        shrunk += 1;
        assert_eq!(
            mismatch.steps_played,
            script.steps.len(),
            "{name}: ends at its failure"
        );
        // 1-minimal: every step is needed.
        for i in 0..script.steps.len() {
            let mut without = script.clone();
            without.steps.remove(i);
            let still = play(&without, &mut program, &mut calls).unwrap();
            assert!(
                still.is_none(),
                "{name}: step {i} ({:?}) of the shrunk script is not needed: {:?}",
                script.steps[i],
                script.steps
            );
        }
    }
    assert!(shrunk >= 2, "the random check finds these wrong solutions");
}

#[test]
fn a_fresh_starter_reports_every_rule_as_not_implemented() {
    let dir = tempfile::tempdir().unwrap();
    let student = dir.path().join("me");
    fencing_lab::lab::starter::init("python", &student).unwrap();
    let report = check_folder(&student, &Plan::default());
    assert_eq!(report.passed(), 0, "{}", check::text(&report));
    let first = report.outcomes[0].failure.as_ref().unwrap();
    assert!(
        first
            .transcript
            .last()
            .unwrap()
            .contains("not implemented yet"),
        "{:?}",
        first.transcript
    );
    // A second init never overwrites the student's work.
    let again = fencing_lab::lab::starter::init("python", &student).unwrap_err();
    assert!(again.contains("already exists"), "{again}");
}

#[test]
fn the_starters_adapters_are_the_ones_the_test_solutions_use() {
    for (language, adapter) in [
        ("js", "adapter.mjs"),
        ("python", "adapter.py"),
        ("rust", "src/bin/adapter.rs"),
    ] {
        let starter = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets/lab")
            .join(language)
            .join(adapter);
        let starter = std::fs::read_to_string(starter).unwrap();
        for entry in std::fs::read_dir(lab_dir().join("wrong"))
            .unwrap()
            .chain(std::fs::read_dir(lab_dir().join("correct")).unwrap())
        {
            let path = entry.unwrap().path().join(adapter);
            if path.is_file() {
                assert_eq!(
                    std::fs::read_to_string(&path).unwrap(),
                    starter,
                    "{} differs from the starter's",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn programs_that_break_the_protocol_are_one_sentence_within_the_timeout() {
    if !require("python3", has("python3")) {
        return;
    }
    let cases = [
        ("garbage.py", "is not JSON"),
        ("wrong_id.py", "carries id 1 instead of 0"),
        ("hang.py", "did not answer within 2.0 s"),
        ("exits.py", "exited with status 3"),
        ("huge_line.py", "longer than 1 MiB"),
        ("dies_later.py", "exited with status 1"),
        ("silent_stdout_prints.py", "debug: acquiring"),
    ];
    for (file, expected) in cases {
        let target = Target::Command(vec![
            "python3".into(),
            lab_dir().join("faulty").join(file).display().to_string(),
        ]);
        let started = Instant::now();
        let error = match target.start(DEFAULT_TIMEOUT) {
            Err(e) => e,
            Ok(program) => check::run(&target, program, &Plan::default()).unwrap_err(),
        };
        let sentence = error.to_string();
        assert!(sentence.contains(expected), "{file}: {sentence}");
        assert!(sentence.contains("at request"), "{file}: {sentence}");
        assert!(!sentence.contains('\n'), "{file}: {sentence}");
        // Within the timeout, plus the time to start python.
        assert!(
            started.elapsed() < DEFAULT_TIMEOUT + Duration::from_secs(3),
            "{file} took {:?}",
            started.elapsed()
        );
    }
    // A program that dies shows its last stderr lines.
    let target = Target::Command(vec![
        "python3".into(),
        lab_dir().join("faulty/dies_later.py").display().to_string(),
    ]);
    let error = check::run(&target, start(&target), &Plan::default()).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("RuntimeError: the lock table is gone"),
        "{error}"
    );
}

/// The JSON stream of a scenario, without the two fields that name who judged: a student's
/// storage is an `external` judge and its refusals are its own, where the library names its rule.
fn stream(setup: &Setup) -> Vec<Value> {
    let scenario = setup.scenario.clone();
    let mut world = World::new(setup, &[], Keep::All);
    world.advance_to(scenario.end, &[]);
    assert_eq!(world.fault(), None);
    let vocab = Vocab::plain(&scenario.locks);
    world
        .events()
        .iter()
        .map(|e| {
            let mut v = e.to_json(&vocab);
            if let Some(o) = v.as_object_mut() {
                o.remove("check");
                o.remove("reason");
            }
            v
        })
        .collect()
}

#[test]
fn the_lesson_on_a_correct_student_is_event_for_event_the_lesson() {
    if !require("node", has("node")) {
        return;
    }
    let target = Target::Folder(lab_dir().join("correct/js"));
    let program = Arc::new(Mutex::new(start(&target)));
    for scenario in Scenario::all_built_in() {
        let scenario = Arc::new(scenario.clone());
        let built_in = Setup::new(scenario.clone());
        let student = Setup::new(scenario.clone()).backend(remote::factory(program.clone()));
        let (ours, theirs) = (stream(&built_in), stream(&student));
        assert!(ours.len() > 3, "{}", scenario.name);
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(a, b, "{}: event {i} differs", scenario.name);
        }
        assert_eq!(ours.len(), theirs.len(), "{}", scenario.name);
    }
}

const BIN: &str = env!("CARGO_BIN_EXE_fencing-lab");

fn tool(args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(BIN).args(args).output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn the_student_loop_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let student = dir.path().join("mine");
    let student = student.to_str().unwrap();
    let (code, out, _) = tool(&["lab", "init", "python", student]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("lock_service.py") && out.contains("fencing-lab check"),
        "{out}"
    );
    let (code, _, err) = tool(&["lab", "init", "python", student]);
    assert_eq!(code, Some(2), "{err}");
    let (code, _, err) = tool(&["lab", "init", "cobol", student]);
    assert_eq!(code, Some(2));
    assert!(err.contains("use js"), "{err}");
    // A fresh starter: every check fails, exit 1, and the JSON says so too.
    let (code, out, _) = tool(&["check", student, "--format", "json", "--seeds", "2"]);
    assert_eq!(code, Some(1));
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["passed"], 0);
    assert!(report["checks"].as_array().unwrap().len() >= 19);
    // The correct solution: exit 0; one rule only with --only.
    let correct = lab_dir().join("correct/python");
    let correct = correct.to_str().unwrap();
    let (code, out, _) = tool(&["check", correct, "--only", "late-release"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("✓ late-release") && out.contains("1 of 1 checks passed"),
        "{out}"
    );
    let (code, _, err) = tool(&["check", correct, "--only", "nosuch"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("names no rule"), "{err}");
    // Any program, after --; a broken one is exit 2 with one sentence.
    let (code, _, err) = tool(&[
        "check",
        "--",
        "python3",
        lab_dir().join("faulty/garbage.py").to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    let (code, _, err) = tool(&["check", "/no/such/folder"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("is not a folder"), "{err}");
}

#[test]
fn impl_runs_the_lesson_and_the_chaos_test_on_the_students_code() {
    let correct = lab_dir().join("correct/python");
    let correct = correct.to_str().unwrap();
    let strip = |text: &str| -> Vec<Value> {
        text.lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                let o = v.as_object_mut().unwrap();
                o.remove("check");
                o.remove("reason");
                v
            })
            .collect()
    };
    let (code, ours, _) = tool(&["run", "gc-pause", "--format", "json"]);
    assert_eq!(code, Some(0));
    let (code, theirs, err) = tool(&["run", "gc-pause", "--format", "json", "--impl", correct]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(strip(&ours), strip(&theirs));
    // The transcript says whose storage judged.
    let (_, text, _) = tool(&["run", "gc-pause", "--impl", correct]);
    assert!(
        text.contains("writes judged by your FencedStorage"),
        "{text}"
    );
    // The screen does not claim fencing for the student's storage: their code decides.
    let (code, frame, err) = tool(&["frame", "gc-pause", "--at", "16.5", "--impl", correct]);
    assert_eq!(code, Some(0), "{err}");
    let header = frame.lines().next().unwrap();
    assert!(
        header.contains("YOUR CODE") && header.contains("your FencedStorage judges"),
        "{header}"
    );
    assert!(!frame.contains("FENCING"), "{frame}");
    assert!(
        frame.contains("✗ REJECTED"),
        "a correct storage rejects: {frame}"
    );
    // A storage that checks nothing fails the chaos test, with the command that shows it.
    let unchecked = lab_dir().join("wrong/rust-write-unchecked");
    let (code, out, err) = tool(&[
        "chaos",
        "--runs",
        "5",
        "--impl",
        unchecked.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        out.contains("FAILED: your FencedStorage accepted a stale write"),
        "{out}"
    );
    assert!(out.contains("tui chaos --seed 1 --impl"), "{out}");
    // Its rule is the student's: no check to switch.
    let (code, _, err) = tool(&["run", "gc-pause", "--impl", correct, "--no-fencing"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("drop --no-fencing"), "{err}");
}

#[test]
fn the_minimal_case_becomes_a_lesson_the_ui_can_open() {
    if !require("node", has("node")) {
        return;
    }
    let report = check_folder(
        &lab_dir().join("wrong/js-expiry-inclusive"),
        &Plan::default(),
    );
    for outcome in report.outcomes.iter().filter(|o| o.failure.is_some()) {
        let failure = outcome.failure.as_ref().unwrap();
        if failure.chaos_seed.is_some() {
            continue;
        }
        let text = fencing_lab::cli::lab::minimal_case_scenario(&outcome.id, failure);
        let scenario = Scenario::parse("minimal", "minimal.toml", &text)
            .unwrap_or_else(|e| panic!("{}: {e}\n{text}", outcome.id));
        // The first beat says what the check found (it is shown whatever the student's code
        // did), the last is the failure, in the transcript's words.
        let first = &scenario.beats[0].captions.fenced;
        assert!(
            first.starts_with("check found: at ") && first.contains(", but "),
            "{}: {first}",
            outcome.id
        );
        let last = scenario.beats.last().unwrap();
        assert!(
            last.captions.fenced.contains(", but "),
            "{}: {}",
            outcome.id,
            last.captions.fenced
        );
    }
}
