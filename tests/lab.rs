//! The lab on real programs beyond the zoo's verdicts (tests/zoo.rs): programs that break the
//! protocol, programs that misbehave in each language, the command line a student uses, and the
//! lesson run on a student's code.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::zoo::{build, can_run, has, lab_dir, require, zoo, Edit, Entry};
use fencing_lab::lab::check::{self, CheckId, Plan, Report, Verdict};
use fencing_lab::lab::{remote, report, Rule, Target, Timeouts, DEFAULT_TIMEOUT};
use fencing_lab::sim::Vocab;
use fencing_lab::sim::{Keep, Scenario, Setup, World};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_fencing-lab");

fn tool(args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(BIN).args(args).output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn check_target(target: &Target, plan: &Plan) -> Report {
    let program = target
        .start(Timeouts::default())
        .unwrap_or_else(|e| panic!("{}: {e}", target.describe()));
    check::run(target, program, plan, &mut |_| {})
}

/// The zoo entry called `name`, of `language`.
fn entry(language: &str, name: &str) -> Entry {
    zoo(language)
        .into_iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no zoo entry {name}"))
}

/// A correct solution with some lines changed: a misbehaving student, built like a zoo mutant.
fn variant(language: &str, base: &str, edits: &[(&str, &str)], into: &Path) -> PathBuf {
    let mut e = entry(language, base);
    let n = std::fs::read_dir(into).map_or(0, |d| d.count());
    e.name = format!("{base}/variant-{n}");
    e.base = Some(base.into());
    // The one file the edits are made in (a Java folder has two of the student's).
    e.file = Some(
        match language {
            "python" => "lock_service.py",
            "js" => "lock_service.mjs",
            "ts" => "lock_service.mts",
            "rust" => "lib.rs",
            _ => "LockService.java",
        }
        .into(),
    );
    e.edit = edits
        .iter()
        .map(|(find, replace)| Edit {
            find: (*find).into(),
            replace: (*replace).into(),
        })
        .collect();
    build(&e, into)
}

#[test]
fn a_program_slow_on_every_answer_is_ended_by_the_deadline_with_the_checks_not_run() {
    if !require("python3", has("python3")) {
        return;
    }
    let path = lab_dir().join("faulty/slow.py");
    let started = Instant::now();
    let (code, out, err) = tool(&[
        "check",
        "--deadline",
        "2",
        "--format",
        "json",
        "--",
        "python3",
        path.to_str().unwrap(),
    ]);
    let took = started.elapsed();
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(
        err.contains("deadline of 2.0 s passed (--deadline)"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(took < Duration::from_secs(6), "took {took:?}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let not_run = report["not_run"].as_u64().unwrap();
    assert!(not_run >= 1, "{report}");
    assert_eq!(
        report["error"].as_str(),
        err.trim_end().strip_prefix("fencing-lab: ")
    );
}

#[test]
fn programs_that_break_the_protocol_are_one_sentence_within_the_timeout() {
    if !require("python3", has("python3")) {
        return;
    }
    let cases = [
        ("garbage.py", "is not JSON"),
        ("wrong_id.py", "carries id 1 instead of 0"),
        (
            "hang.py",
            "did not answer within 2.0 s at request 0 (hello)",
        ),
        ("exits.py", "exited with status 3"),
        ("huge_line.py", "longer than 1 MiB"),
        ("dies_later.py", "exited with status 1"),
        ("silent_stdout_prints.py", "debug: acquiring"),
    ];
    for (file, expected) in cases {
        let path = lab_dir().join("faulty").join(file);
        let started = Instant::now();
        let (code, out, err) = tool(&[
            "check",
            "--startup-timeout",
            "2",
            "--",
            "python3",
            path.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(2), "{file}: {out}{err}");
        assert!(err.contains(expected), "{file}: {err}");
        assert!(err.contains("at request"), "{file}: {err}");
        assert_eq!(err.lines().count(), 1, "{file}: {err}");
        // Within the timeout, plus the time to start python and the experiments.
        assert!(
            started.elapsed() < DEFAULT_TIMEOUT + Duration::from_secs(5),
            "{file} took {:?}",
            started.elapsed()
        );
    }
    // A program that dies shows its last stderr lines; the report keeps what ran before it.
    let path = lab_dir().join("faulty/dies_later.py");
    let (code, out, err) = tool(&[
        "check",
        "--format",
        "json",
        "--",
        "python3",
        path.to_str().unwrap(),
    ]);
    // It dies at every acquire: started again each time, until it has been too often.
    assert_eq!(code, Some(2));
    assert!(
        err.contains("RuntimeError: the lock table is gone"),
        "{err}"
    );
    let report: Value = serde_json::from_str(&out).unwrap();
    let error = report["error"].as_str().unwrap();
    assert!(error.contains("exited with status 1"), "{error}");
    assert!(
        error.contains(
            "(it had stopped answering 24 times before, and was started again each time)"
        ),
        "{error}"
    );
    assert_eq!(report["stops"].as_array().unwrap().len(), 24, "{report}");
    let verdicts: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts.len(), CheckId::all().len());
    assert_ne!(verdicts[0], "not_run", "new-starts-over is judged");
    assert_eq!(verdicts.last(), Some(&"not_run"), "{verdicts:?}");
}

/// What is appended to a correct solution to make its `acquire` of a lock already held block
/// forever, or end the program: the same bug in every idiom of the language.
fn acquire_stops_when_held(language: &str, how: &str, source: &str) -> Edit {
    let (find, stop, patch) = match language {
        "python" => (
            "class FencedStorage",
            if how == "blocks" { "while True: pass" } else { "import sys; sys.exit(3)" },
            "_acquire = LockService.acquire\n\n\ndef _stopping_acquire(self, name, client_id):\n    \
             try:\n        got = _acquire(self, name, client_id)\n    except Exception:\n        \
             got = None\n    if got is None or got is False:\n        STOP\n    return got\n\n\n\
             LockService.acquire = _stopping_acquire\n\n\nclass FencedStorage",
        ),
        _ => (
            "export class FencedStorage",
            if how == "blocks" { "for (;;) {}" } else { "process.exit(3);" },
            "const _acquire = LockService.prototype.acquire;\nLockService.prototype.acquire = \
             function (name, clientId) {\n  let got;\n  try {\n    got = _acquire.call(this, \
             name, clientId);\n  } catch {\n    got = null;\n  }\n  if (got == null || got === \
             false) {\n    STOP\n  }\n  return got;\n};\n\nexport class FencedStorage",
        ),
    };
    // A JavaScript service written as constructor functions and prototypes, not classes.
    let find = if source.contains(find) {
        find
    } else {
        "export function FencedStorage"
    };
    let patch = patch.replace("export class FencedStorage", find);
    Edit {
        find: find.into(),
        replace: patch.replace("STOP", stop),
    }
}

/// Generated over the zoo's correct solutions of two languages: an `acquire` that blocks forever (or ends the
/// program) when the lock is taken costs exactly the checks whose calls wait on such an
/// acquire; the program is started again each time, the storage's rules are judged and pass,
/// and each failure ends at the call that got no answer.
#[test]
fn an_acquire_that_blocks_or_dies_costs_its_rules_in_every_idiom() {
    let scratch = tempfile::tempdir().unwrap();
    let costs = [
        "lease-live",
        "holder-acquire-none",
        "renew-extends-from-now",
        "late-release",
        "random",
        "exhaustive",
        "chaos",
    ];
    let mut cases: Vec<(Entry, &str)> = Vec::new();
    for language in ["python", "js"] {
        if !can_run(language) {
            continue;
        }
        let file = if language == "python" {
            "lock_service.py"
        } else {
            "lock_service.mjs"
        };
        let solutions = zoo(language)
            .into_iter()
            .filter(|e| e.base.is_none() && e.is_correct())
            .take(3);
        // The patch wraps whatever acquire the idiom wrote, so three idioms a language show it;
        // one blocks, where each stop costs a request's whole timeout.
        for (i, solution) in solutions.enumerate() {
            let hows: &[&str] = match (language, i) {
                ("python", 0) => &["dies", "blocks"],
                _ => &["dies"],
            };
            for how in hows {
                let source =
                    std::fs::read_to_string(lab_dir().join("zoo").join(&solution.name).join(file))
                        .unwrap();
                let mut e = solution.clone();
                e.name = format!("{}/acquire-{how}", solution.name);
                e.base = Some(solution.name.clone());
                e.file = Some(file.into());
                e.edit = vec![acquire_stops_when_held(language, how, &source)];
                cases.push((e, how));
            }
        }
    }
    let plan = Plan {
        timeouts: Timeouts {
            request: Duration::from_millis(500),
            ..Timeouts::default()
        },
        ..Plan::default()
    };
    // Two at a time, one a core: most of a case is waiting for its programs to start.
    let next = Mutex::new(cases.iter());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let Some((e, _)) = next.lock().unwrap().next() else {
                    return;
                };
                let dir = build(e, scratch.path());
                let report = check_target(&Target::Folder(dir.clone()), &plan);
                let text = report::text(&report);
                assert_eq!(report.error, None, "{}: {text}", e.name);
                let failed: Vec<&str> = report
                    .outcomes
                    .iter()
                    .filter(|o| o.failure().is_some())
                    .map(|o| o.id())
                    .collect();
                assert_eq!(failed, costs, "{}: {text}", e.name);
                for o in &report.outcomes {
                    if let Some(f) = o.failure() {
                        let last = f.transcript.last().unwrap();
                        assert!(last.contains("-> no answer: it "), "{}: {last}", e.name);
                    }
                    if let CheckId::Rule(r) = o.check {
                        if r.about()
                            .iter()
                            .all(|op| ["write", "read", "highest_token"].contains(op))
                            && !r.about().is_empty()
                        {
                            assert!(o.passed(), "{}: {}\n{text}", e.name, o.id());
                        }
                    }
                }
                assert!(
                    !report.stops.is_empty() && report.stops.len() < 24,
                    "{text}"
                );
                assert!(text.contains("your program stopped answering"), "{text}");
            });
        }
    });
}

/// A program that exits inside a method is that call's answer in every language, and the
/// program is started again; one that returns a value of the wrong type fails the check that
/// asked, saying what came back.
#[test]
fn misbehaving_programs_are_judged_alike_in_every_language() {
    let scratch = tempfile::tempdir().unwrap();
    let mut cases: Vec<(PathBuf, &str)> = Vec::new();
    if can_run("python") {
        let dir = variant(
            "python",
            "python-raise-none",
            &[(
                "    def holder(self, name):\n",
                "    def holder(self, name):\n        import sys; sys.exit(3)\n",
            )],
            scratch.path(),
        );
        cases.push((dir, "exited with status 3"));
    }
    if can_run("js") {
        let base = entry("js", "js-throw-map");
        let source =
            std::fs::read_to_string(lab_dir().join("zoo/js-throw-map/lock_service.mjs")).unwrap();
        let holder = source
            .lines()
            .find(|l| l.trim_start().starts_with("holder(name) {"))
            .expect("a holder method");
        let dir = variant(
            "js",
            &base.name,
            &[(holder, &format!("{holder} process.exit(3);"))],
            scratch.path(),
        );
        cases.push((dir, "exited with status 3"));
    }
    // Each call of holder ends the program: holder fails at it, the program started again.
    for (dir, expected) in &cases {
        let (code, out, err) = tool(&["check", dir.to_str().unwrap(), "--only", "holder"]);
        assert_eq!(code, Some(1), "{}: {out}{err}", dir.display());
        assert!(out.contains("✗ holder"), "{out}");
        let answer = format!(") -> no answer: it {expected} before answering");
        assert!(
            out.contains(&answer) && out.contains("✗ t=0.0    holder("),
            "{out}"
        );
        assert!(out.contains("your program stopped answering"), "{out}");
    }
    if !can_run("python") {
        return;
    }
    // A holder that returns a number fails `holder`, with the number in the transcript.
    let dir = variant(
        "python",
        "python-raise-none",
        &[(
            "    def holder(self, name):\n",
            "    def holder(self, name):\n        return 42\n",
        )],
        scratch.path(),
    );
    let (code, out, _) = tool(&["check", dir.to_str().unwrap(), "--only", "holder"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("✗ holder"), "{out}");
    assert!(
        out.contains("holder(file) -> 42, not a string or none"),
        "{out}"
    );
}

/// Debugging output, written the ways each language's students write it (print, a write to
/// file descriptor 1, console.log, fs.writeSync(1, ...), println!, System.out), goes to stderr:
/// it never breaks the protocol, in any language, and the check passes.
#[test]
fn debugging_output_on_stdout_is_harmless_in_every_language() {
    let scratch = tempfile::tempdir().unwrap();
    let mut cases: Vec<PathBuf> = Vec::new();
    if can_run("python") {
        cases.push(variant(
            "python",
            "python-raise-none",
            &[(
                "    def holder(self, name):\n",
                "    def holder(self, name):\n        print('debug', name)\n        import os; os.write(1, b'raw\\n')\n",
            )],
            scratch.path(),
        ));
    }
    if can_run("js") {
        cases.push(variant(
            "js",
            "js-throw-map",
            &[(
                "  holder(name) {",
                "  holder(name) { console.log('debug', name); process.stdout.write('w\\n'); fs.writeSync(1, 'raw\\n');",
            ), (
                "export class LockError",
                "import fs from \"node:fs\";\nexport class LockError",
            )],
            scratch.path(),
        ));
    }
    if can_run("rust") {
        cases.push(variant(
            "rust",
            "rust-correct",
            &[(
                "    pub fn holder(&self, name: &str) -> Option<&str> {",
                "    pub fn holder(&self, name: &str) -> Option<&str> {\n        println!(\"debug {name}\");",
            )],
            scratch.path(),
        ));
    }
    if can_run("java") {
        cases.push(variant(
            "java",
            "java-correct",
            &[(
                "    public String holder(String name) {",
                "    public String holder(String name) {\n        System.out.println(\"debug \" + name);",
            )],
            scratch.path(),
        ));
    }
    for dir in &cases {
        let (code, out, err) = tool(&["check", dir.to_str().unwrap(), "--only", "holder"]);
        assert_eq!(code, Some(0), "{}: {out}{err}", dir.display());
        assert!(out.contains("✓ holder"), "{out}");
    }
}

/// Text a student's program sends reaches the report escaped: its language, its refusals and
/// its values cannot move the grader's cursor or retitle the terminal.
#[test]
fn a_programs_text_reaches_every_report_escaped() {
    if !require("python3", has("python3")) {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let program = scratch.path().join("hostile.py");
    std::fs::write(
        &program,
        r#"import json, sys
for line in sys.stdin:
    r = json.loads(line)
    op = r["op"]
    if op == "hello":
        out = {"hello": "x", "language": "py\u001b]0;PWN\u0007"}
    elif op in ("new", "clock"):
        out = {"done": True}
    else:
        out = {"threw": "no\u001b[2J\u001b[31m"}
    print(json.dumps(dict(out, id=r["id"])), flush=True)
"#,
    )
    .unwrap();
    for format in ["text", "json"] {
        let (code, out, err) = tool(&[
            "check",
            "--format",
            format,
            "--",
            "python3",
            program.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(1), "{err}");
        assert!(
            !out.contains('\u{1b}') && !out.contains('\u{7}'),
            "{format}: {out:?}"
        );
        assert!(!err.contains('\u{1b}'), "{err:?}");
    }
    let (_, out, _) = tool(&["check", "--", "python3", program.to_str().unwrap()]);
    assert!(out.starts_with("fencing-lab check python3 "), "{out}");
    assert!(out.contains("(py\\u{1b}]0;PWN\\u{7})"), "{out}");
}

/// A program whose `new` does not start over is judged on a fresh program for each rule, so its
/// one bug fails new-starts-over only; a program reading the system's clock fails clock-only.
#[test]
fn state_kept_across_new_and_a_real_clock_are_each_charged_to_their_own_rule() {
    if !can_run("python") {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let leaky = build(
        &entry("python", "python-raise-none/leases-class-attribute"),
        scratch.path(),
    );
    let report = check_target(&Target::Folder(leaky), &Plan::default());
    for o in &report.outcomes {
        match (o.check, &o.verdict) {
            (CheckId::Rule(Rule::NewStartsOver), Verdict::Failed(_)) => {}
            (CheckId::Rule(_), Verdict::Passed) => {}
            (
                _,
                Verdict::NotJudged {
                    rule: Some(Rule::NewStartsOver),
                    ..
                },
            ) => {}
            (_, v) => panic!("{}: {v:?}\n{}", o.id(), report::text(&report)),
        }
    }
    let clockless = build(
        &entry("python", "python-compact/monotonic-clock"),
        scratch.path(),
    );
    let report = check_target(&Target::Folder(clockless), &Plan::default());
    let clock = report
        .outcomes
        .iter()
        .find(|o| o.check == CheckId::Rule(Rule::ClockOnly))
        .unwrap();
    let failure = clock.failure().expect("clock-only fails");
    assert!(
        failure
            .expected
            .ends_with("time comes from somewhere else than clock.now()"),
        "{}",
        failure.expected
    );
    for o in &report.outcomes {
        if let Verdict::Failed(f) = &o.verdict {
            assert_eq!(f.rule, Rule::ClockOnly, "{}", o.id());
        }
    }
}

#[test]
fn the_student_loop_on_the_command_line() {
    if !require("python3", has("python3")) {
        return;
    }
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
    // A fresh starter: every check fails as not implemented, or is not judged for want of a
    // method, exit 1, and the JSON says so too.
    let (code, out, _) = tool(&["check", student, "--format", "json", "--seeds", "2"]);
    assert_eq!(code, Some(1));
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["passed"], 0);
    assert_eq!(
        report["checks"].as_array().unwrap().len(),
        CheckId::all().len()
    );
    for c in report["checks"].as_array().unwrap() {
        match c["verdict"].as_str() {
            Some("failed") => assert_eq!(
                c["expected"], "the seed's rules need it: write it next",
                "{c}"
            ),
            Some("not_judged") => {
                assert!(
                    c["because"]
                        .as_str()
                        .unwrap()
                        .ends_with(", not written yet"),
                    "{c}"
                );
                assert_eq!(c["charged_to"], Value::Null, "{c}");
            }
            _ => panic!("{c}"),
        }
    }
    // A correct solution: exit 0; one check only with --only, any id check prints.
    let scratch = tempfile::tempdir().unwrap();
    let correct = build(&entry("python", "python-raise-none"), scratch.path());
    let correct = correct.to_str().unwrap();
    for id in ["late-release", "random", "exhaustive", "chaos"] {
        let (code, out, _) = tool(&["check", correct, "--only", id]);
        assert_eq!(code, Some(0), "{out}");
        assert!(
            out.contains(&format!("✓ {id}")) && out.contains("1 of 1 checks passed"),
            "{out}"
        );
    }
    let (code, _, err) = tool(&["check", correct, "--only", "nosuch"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("names no check; the checks are new-starts-over, "),
        "{err}"
    );
    assert!(err.ends_with("random, exhaustive, chaos\n"), "{err}");
    let (code, _, err) = tool(&["check", "/no/such/folder"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("is not a folder"), "{err}");
}

/// Every replay line a failing check prints reruns that check alone, as printed, with the same
/// verdict.
#[test]
fn every_printed_replay_line_works_when_pasted() {
    if !can_run("python") {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let spaced = scratch.path().join("with space");
    std::fs::create_dir_all(&spaced).unwrap();
    let dir = build(
        &entry("python", "python-return-false/write-unchecked"),
        &spaced,
    );
    let (code, out, _) = tool(&[
        "check",
        dir.to_str().unwrap(),
        "--seeds",
        "3",
        "--timeout",
        "4",
        "--startup-timeout",
        "15",
    ]);
    assert_eq!(code, Some(1));
    let replays: Vec<&str> = out
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("replay: "))
        .collect();
    assert!(replays.len() >= 3, "{out}");
    for replay in replays {
        // The options a slow program needed come with it.
        assert!(
            replay.contains(" --timeout 4.0 --startup-timeout 15.0 "),
            "{replay}"
        );
        let id = replay
            .split("--only ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap();
        let line = replay.replacen("fencing-lab", &format!("'{BIN}'"), 1);
        let output = Command::new("sh").arg("-c").arg(&line).output().unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(1), "{line}: {text}");
        assert!(text.contains(&format!("✗ {id}")), "{line}: {text}");
        assert!(text.contains("0 of 1 checks passed"), "{line}: {text}");
    }
    // A command's replay puts the options before `--`.
    let adapter = dir.join("adapter.py");
    let (_, out, _) = tool(&["check", "--", "python3", adapter.to_str().unwrap()]);
    let replay = out
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("replay: "))
        .unwrap();
    assert!(replay.starts_with("fencing-lab check --only "), "{replay}");
    assert!(replay.contains(" -- python3 "), "{replay}");
}

/// The JSON stream of a scenario.
fn stream(setup: &Setup) -> Vec<Value> {
    let scenario = setup.scenario.clone();
    let mut world = World::new(setup, &[], Keep::All);
    world.advance_to(scenario.end, &[]);
    assert_eq!(world.fault(), None);
    let vocab = Vocab::plain(&scenario.locks);
    world.events().iter().map(|e| e.to_json(&vocab)).collect()
}

/// On a correct implementation, in any idiom and language, every lesson is the built-in lesson
/// event for event: the same reasons, the same checks, nothing different.
#[test]
fn every_lesson_on_every_correct_solution_is_the_built_in_lesson() {
    let scratch = tempfile::tempdir().unwrap();
    for language in ["python", "js", "ts", "java"] {
        if !can_run(language) {
            continue;
        }
        for solution in zoo(language)
            .into_iter()
            .filter(|e| e.base.is_none() && e.is_correct())
        {
            let dir = build(&solution, scratch.path());
            let target = Target::Folder(dir);
            let program = Arc::new(Mutex::new(target.start(Timeouts::default()).unwrap()));
            for scenario in Scenario::all_built_in() {
                let scenario = Arc::new(scenario.clone());
                let built_in = Setup::new(scenario.clone());
                let student =
                    Setup::new(scenario.clone()).backend(remote::factory(program.clone()));
                let (ours, theirs) = (stream(&built_in), stream(&student));
                assert!(ours.len() > 3, "{}", scenario.name);
                for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                    assert_eq!(
                        a, b,
                        "{} on {}: event {i} differs",
                        scenario.name, solution.name
                    );
                }
                assert_eq!(
                    ours.len(),
                    theirs.len(),
                    "{} on {}",
                    scenario.name,
                    solution.name
                );
            }
        }
    }
}

/// `run --impl` on a correct solution is `run` line for line, but for the summary naming the
/// implementation; the transcript has every caption the built-in lesson has.
#[test]
fn run_on_a_correct_implementation_tells_the_built_in_lesson() {
    if !can_run("python") {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let dir = build(&entry("python", "python-dict-leases"), scratch.path());
    let dir = dir.to_str().unwrap();
    for scenario in Scenario::all_built_in() {
        let name = scenario.name.as_str();
        let (code, ours, _) = tool(&["run", name, "--format", "json"]);
        assert_eq!(code, Some(0));
        let (code, theirs, err) = tool(&["run", name, "--format", "json", "--impl", dir]);
        assert_eq!(code, Some(0), "{name}: {err}");
        let (ours, theirs): (Vec<&str>, Vec<&str>) =
            (ours.lines().collect(), theirs.lines().collect());
        assert_eq!(ours.len(), theirs.len(), "{name}");
        let last = ours.len() - 1;
        assert_eq!(ours[..last], theirs[..last], "{name}");
        let mut summary: Value = serde_json::from_str(theirs[last]).unwrap();
        let implementation = summary.as_object_mut().unwrap().remove("implementation");
        assert_eq!(
            implementation,
            Some(Value::String(dir.to_owned())),
            "{name}"
        );
        assert_eq!(
            summary,
            serde_json::from_str::<Value>(ours[last]).unwrap(),
            "{name}"
        );
        let (_, ours, _) = tool(&["run", name]);
        let (_, theirs, _) = tool(&["run", name, "--impl", dir]);
        for caption in ours.lines().filter(|l| l.trim_start().starts_with('"')) {
            assert!(theirs.contains(caption), "{name}: {caption}");
        }
    }
}

/// On a wrong implementation the lesson shows what the student's code really returned, and marks
/// each step where it differs from the seed, with the rule.
#[test]
fn the_lesson_on_a_wrong_implementation_marks_each_difference_with_its_rule() {
    if !can_run("python") {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let dir = build(
        &entry("python", "python-return-false/write-unchecked"),
        scratch.path(),
    );
    let (code, out, err) = tool(&[
        "run",
        "gc-pause",
        "--format",
        "json",
        "--impl",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let events: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let differs: Vec<&Value> = events.iter().filter(|e| e["event"] == "differs").collect();
    assert_eq!(differs.len(), 1, "{out}");
    let d = differs[0];
    assert_eq!(d["rule"], "write-stale-rejected");
    assert_eq!(d["client"], "client-1");
    assert!(
        d["call"].as_str().unwrap().starts_with("write(file, "),
        "{d}"
    );
    assert_eq!(d["got"], "ok");
    // It comes right after the write it is about, which landed: CORRUPTED DATA!
    let at = events.iter().position(|e| e["event"] == "differs").unwrap();
    assert_eq!(events[at - 1]["event"], "corruption");
    let (_, text, _) = tool(&["run", "gc-pause", "--impl", dir.to_str().unwrap()]);
    assert!(text.contains("your code: write(file, "), "{text}");
    assert!(text.contains("(write-stale-rejected)"), "{text}");
    // The summary says whose storage judged, and that it did not judge as the seed's check.
    let summary = events.last().unwrap();
    assert_eq!(summary["check"], "external");
    assert_eq!(summary["implementation"], dir.to_str().unwrap());
}

/// The caption box's words, its rows joined: a wrapped sentence is one sentence again.
fn lesson_box(screen: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    common::boxed(&lines, "Lesson")
        .map(|(_, rows)| rows.iter().map(|r| r.trim()).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// Every one-rule bug of the Python zoo, on the built-in lesson: each difference from the seed is
/// told at the call it is about, and at each moment the run says the student's code differs,
/// the screen's caption says so, with the call, the seed's answer and the rule.
#[test]
fn the_screen_says_where_a_wrong_implementation_differs_and_which_rule_it_breaks() {
    if !can_run("python") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (mut shown, mut calls_placed) = (0, 0);
    for entry in zoo("python").iter().filter(|e| e.breaks.is_some()) {
        let folder = build(entry, dir.path());
        let folder = folder.to_str().unwrap();
        let (_, out, _) = tool(&["run", "gc-pause", "--format", "json", "--impl", folder]);
        let events: Vec<Value> = out
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .collect();
        let differs: Vec<&Value> = events.iter().filter(|e| e["event"] == "differs").collect();
        // Each difference is told at the call it is about: by that client, at that moment.
        for d in &differs {
            let call = d["call"].as_str().unwrap();
            let kinds: &[&str] = match call.split('(').next().unwrap() {
                "acquire" => &["grant", "acquire_refused"],
                "renew" => &["renew", "renew_refused"],
                "release" => &["release", "release_refused"],
                "write" => &["write"],
                // A refused acquire asks who holds the lock, to say so.
                "holder" => &["acquire_refused"],
                // The service's own making, before any client calls.
                "new LockService" => continue,
                other => panic!(
                    "{}: a difference in an unknown call {other}: {d}",
                    entry.name
                ),
            };
            assert!(
                events.iter().any(|e| e["t"] == d["t"]
                    && e["client"] == d["client"]
                    && kinds.contains(&e["event"].as_str().unwrap_or_default())),
                "{}: {d} is told where no such call was made",
                entry.name
            );
            calls_placed += 1;
        }
        // The first difference at each moment: the caption tells the moment's first.
        let mut told_at = Vec::new();
        for d in differs {
            let at = d["t"].as_f64().unwrap();
            if told_at.contains(&at) {
                continue;
            }
            told_at.push(at);
            let (_, screen, _) = tool(&[
                "frame",
                "gc-pause",
                "--at",
                &format!("{at:.1}"),
                "--size",
                "120x40",
                "--impl",
                folder,
            ]);
            let caption = lesson_box(&screen);
            // The student's answer itself may differ between runs (a wall-clock reading).
            let said = [
                format!(
                    "Your code differs from the seed here: {} -> ",
                    d["call"].as_str().unwrap()
                ),
                format!(
                    ", but {} ({}).",
                    d["seed"].as_str().unwrap(),
                    d["rule"].as_str().unwrap()
                ),
            ];
            assert!(
                said.iter().all(|part| caption.contains(part)),
                "{} at {at} s: the caption does not say\n  {said:?}\nit says\n  {caption}",
                entry.name
            );
            shown += 1;
        }
    }
    assert!(shown >= 5, "only {shown} differences shown");
    assert!(
        calls_placed >= 10,
        "only {calls_placed} differences placed at their calls"
    );
}

#[test]
fn what_a_hostile_program_sends_is_escaped_in_every_format_and_in_its_minimal_case() {
    if !require("python3", has("python3")) {
        return;
    }
    let path = lab_dir().join("faulty/hostile_text.py");
    let program = path.to_str().unwrap();
    let acts = |c: char| (c.is_control() && c != '\n') || c == '\u{202e}';
    let raw = |text: &str| text.chars().any(acts);
    for format in ["text", "json", "junit", "gradescope"] {
        let (code, out, err) = tool(&["check", "--format", format, "--", "python3", program]);
        assert_eq!(code, Some(1), "{format}: {err}");
        assert!(
            !raw(&out),
            "{format}: a control character reached stdout: {out:?}"
        );
        assert!(
            out.contains("PWNED"),
            "{format}: the text is shown, escaped: {out}"
        );
        if matches!(format, "json" | "gradescope") {
            // Nor inside a JSON string, once decoded (`jq -r` would print it raw).
            let value: Value = serde_json::from_str(&out).unwrap();
            let mut strings = Vec::new();
            every_string(&value, &mut strings);
            for text in strings {
                assert!(!raw(&text), "{format}: a decoded string acts: {text:?}");
            }
        }
    }
    let run = [
        "run", "gc-pause", "--format", "json", "--", "python3", program,
    ];
    let (_, out, err) = tool(&run);
    assert!(out.contains("\"differs\""), "{out}{err}");
    for line in out.lines() {
        let value: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {err}"));
        let mut strings = Vec::new();
        every_string(&value, &mut strings);
        for text in strings {
            assert!(!raw(&text), "run --impl: a decoded string acts: {text:?}");
        }
    }
    let target = Target::Command(vec!["python3".into(), program.into()]);
    let report = check_target(&target, &Plan::default());
    let failure = report
        .first_failure()
        .and_then(|o| o.failure())
        .expect("it fails");
    let text = fencing_lab::cli::lab::minimal_case_scenario("lease-live", failure);
    let scenario = Scenario::parse("minimal", "the minimal case", &text)
        .unwrap_or_else(|e| panic!("the minimal case is a lesson: {e}\n{text}"));
    for beat in &scenario.beats {
        assert!(!raw(&beat.captions.fenced), "{:?}", beat.captions.fenced);
    }
}

#[test]
fn the_minimal_case_becomes_a_lesson_the_ui_can_open() {
    if !can_run("js") {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let dir = build(
        &entry("js", "js-throw-map/expiry-inclusive"),
        scratch.path(),
    );
    let report = check_target(&Target::Folder(dir), &Plan::default());
    let mut shown = 0;
    for outcome in report.outcomes.iter().filter(|o| o.failure().is_some()) {
        let failure = outcome.failure().unwrap();
        if failure.chaos_seed.is_some() {
            continue;
        }
        let text = fencing_lab::cli::lab::minimal_case_scenario(outcome.id(), failure);
        let scenario = Scenario::parse("minimal", "minimal.toml", &text)
            .unwrap_or_else(|e| panic!("{}: {e}\n{text}", outcome.id()));
        // The first beat says what the check found (it is shown whatever the student's code
        // did), the last is the failure, in the transcript's words.
        let first = &scenario.beats[0].captions.fenced;
        assert!(
            first.starts_with("check found: at ") && first.contains(", but "),
            "{}: {first}",
            outcome.id()
        );
        let last = scenario.beats.last().unwrap();
        assert!(
            last.captions.fenced.contains(", but "),
            "{}: {}",
            outcome.id(),
            last.captions.fenced
        );
        assert!(
            last.captions.fenced.ends_with("(expiry-boundary)"),
            "{}",
            last.captions.fenced
        );
        shown += 1;
    }
    assert!(shown >= 2);
}

/// A folder named relative to where `check` runs works in every language, and a build leaves
/// nothing outside the folder.
#[test]
fn a_folder_given_by_a_relative_path_is_checked_where_it_is() {
    let scratch = tempfile::tempdir().unwrap();
    for (language, name) in [("java", "java-correct"), ("rust", "rust-correct")] {
        if !can_run(language) {
            continue;
        }
        let dir = build(&entry(language, name), scratch.path());
        let relative = dir.file_name().unwrap().to_str().unwrap();
        let output = Command::new(BIN)
            .current_dir(scratch.path())
            .args(["check", relative, "--only", "holder"])
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{language}: {out}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(out.contains("✓ holder"), "{out}");
        assert!(
            !dir.join(relative).exists(),
            "{language}: a folder inside itself"
        );
    }
}

/// A program whose `new` keeps state is found out even when another bug shows first in the
/// script that asks: the second pass is compared with the student's own first.
#[test]
fn state_kept_across_new_is_found_whatever_shows_first() {
    if !can_run("python") {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let mut leaky = entry("python", "python-raise-none/leases-class-attribute");
    leaky.name = "leaky-and-zero".into();
    leaky.edit.push(Edit {
        find: "        return entry[1] if entry is not None else None\n".into(),
        replace: "        return entry[1] if entry is not None else 0\n".into(),
    });
    let dir = build(&leaky, scratch.path());
    let report = check_target(&Target::Folder(dir), &Plan::default());
    let starts_over = &report.outcomes[0];
    assert_eq!(starts_over.check, CheckId::Rule(Rule::NewStartsOver));
    let failure = starts_over
        .failure()
        .unwrap_or_else(|| panic!("{:?}", starts_over.verdict));
    assert!(
        failure
            .expected
            .starts_with("before `new`, the same call answered "),
        "{}",
        failure.expected
    );
    // Every other rule's check ran on a fresh program: only never-written's own check fails.
    for o in &report.outcomes[1..] {
        if let Verdict::Failed(f) = &o.verdict {
            assert_eq!(
                f.rule,
                Rule::NeverWritten,
                "{}\n{}",
                o.id(),
                report::text(&report)
            );
        }
    }
}

/// In the lesson, too, a clock read from elsewhere is charged to clock-only.
#[test]
fn the_lesson_charges_a_clock_read_elsewhere_to_clock_only() {
    if !can_run("python") {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let dir = build(
        &entry("python", "python-compact/monotonic-clock"),
        scratch.path(),
    );
    let (code, out, err) = tool(&[
        "run",
        "gc-pause",
        "--format",
        "json",
        "--impl",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let rules: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["event"] == "differs")
        .map(|e| e["rule"].as_str().unwrap().to_owned())
        .collect();
    assert!(!rules.is_empty());
    assert!(rules.iter().all(|r| r == "clock-only"), "{rules:?}");
}

/// What the program wrote on stderr is shown under the report, escaped: a warning, a student's
/// print.
#[test]
fn what_the_program_wrote_on_stderr_closes_the_report() {
    if !can_run("python") {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let dir = variant(
        "python",
        "python-raise-none",
        &[(
            "    def holder(self, name):\n",
            "    def holder(self, name):\n        print('checking holder of', name)\n",
        )],
        scratch.path(),
    );
    let (code, out, _) = tool(&["check", dir.to_str().unwrap(), "--only", "holder"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.trim_end().ends_with("checking holder of file"), "{out}");
    assert!(
        out.contains("your program wrote on stderr, last: "),
        "{out}"
    );
}

/// A fresh starter's report is one line a check: what to write next.
#[test]
fn a_fresh_starter_is_told_what_to_write_next_one_line_a_check() {
    let dir = tempfile::tempdir().unwrap();
    let student = dir.path().join("mine");
    fencing_lab::lab::starter::init("python", &student).unwrap();
    if !can_run("python") {
        return;
    }
    let (code, out, _) = tool(&["check", student.to_str().unwrap(), "--seeds", "2"]);
    assert_eq!(code, Some(1));
    let lines: Vec<&str> = out.lines().collect();
    // The heading, a line each check, the summary.
    assert_eq!(lines.len(), 1 + CheckId::all().len() + 1, "{out}");
    // Each check names the method to write: its rule's own, or the one it cannot do without.
    for line in &lines[1..lines.len() - 1] {
        let to_write =
            line.starts_with("✗ ") && line.ends_with("is not implemented yet: write it next");
        let needs = line.starts_with("- ") && line.ends_with(", not written yet");
        assert!(to_write || needs, "{line}");
    }
}

/// A folder holding two languages' starters is checked in the first of them, and the report
/// says right under its heading which one, and what it did not check.
#[test]
fn a_folder_with_two_starters_says_which_one_it_checked() {
    if !can_run("js") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let student = dir.path().join("both");
    fencing_lab::lab::starter::init("python", &student).unwrap();
    let js = dir.path().join("js");
    fencing_lab::lab::starter::init("js", &js).unwrap();
    for file in std::fs::read_dir(&js).unwrap() {
        let file = file.unwrap();
        if file.path().is_file() {
            std::fs::copy(file.path(), student.join(file.file_name())).unwrap();
        }
    }
    let (code, out, _) = tool(&["check", student.to_str().unwrap(), "--only", "holder"]);
    assert_eq!(code, Some(1), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].contains("(node "), "{out}");
    assert_eq!(
        lines[1],
        "note: only the JavaScript starter was checked; this folder also holds Python \
         (lock_service.py, adapter.py): a folder is checked in one language, the first of \
         JavaScript, Python, Rust and Java it holds"
    );
}

/// A recording is a file people send each other: replaying one that names an implementation
/// runs nothing until the implementation is given again, and says how to give it.
#[test]
fn a_recording_never_runs_the_program_it_names() {
    if !require("python3", has("python3")) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let student = dir.path().join("theirs");
    let (code, _, _) = tool(&["lab", "init", "python", student.to_str().unwrap()]);
    assert_eq!(code, Some(0));
    // The program leaves a mark the moment it starts.
    let mark = dir.path().join("it-ran");
    let adapter = student.join("adapter.py");
    let code = std::fs::read_to_string(&adapter).unwrap();
    std::fs::write(
        &adapter,
        format!("open({:?}, 'w').close()\n{code}", mark.to_str().unwrap()),
    )
    .unwrap();
    let recording = dir.path().join("session.json");
    std::fs::write(
        &recording,
        format!(
            r#"{{"format":1,"scenario":"gc-pause","seed":1,"fencing":true,"check":"per-key","implementation":{:?},"inputs":[]}}"#,
            student.to_str().unwrap()
        ),
    )
    .unwrap();
    let (code, _, err) = tool(&["tui", "--replay", recording.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("recording never runs a program")
            && err.contains(&format!("--impl {}", student.to_str().unwrap())),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!mark.exists(), "replaying the recording ran the program");
    // A name from a file someone sent is quoted in the hint, so a paste runs nothing else.
    let sent = dir.path().join("sent.json");
    std::fs::write(
        &sent,
        r#"{"format":1,"scenario":"gc-pause","seed":1,"fencing":true,"check":"per-key","implementation":"x; rm -rf ~","inputs":[]}"#,
    )
    .unwrap();
    let (code, _, err) = tool(&["tui", "--replay", sent.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("`--impl 'x; rm -rf ~'`"), "{err}");
    // Given again, it runs (then the UI finds no terminal).
    let (code, _, err) = tool(&[
        "tui",
        "--replay",
        recording.to_str().unwrap(),
        "--impl",
        student.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("needs a terminal"), "{err}");
    assert!(mark.exists(), "the mark shows when the program runs");
}

/// A syntax error in the student's file is one sentence that names the file, the line and the
/// error, in every language, whatever the interpreter prints around it.
#[test]
fn a_syntax_error_names_its_file_line_and_error_in_every_language() {
    let scratch = tempfile::tempdir().unwrap();
    let mut cases: Vec<(PathBuf, Vec<String>)> = Vec::new();
    let made = std::cell::Cell::new(0);
    let starter = |language: &str| {
        made.set(made.get() + 1);
        let dir = scratch.path().join(format!("{language}-{}", made.get()));
        let (code, _, _) = tool(&["lab", "init", language, dir.to_str().unwrap()]);
        assert_eq!(code, Some(0));
        dir
    };
    if can_run("python") {
        let dir = starter("python");
        std::fs::write(
            dir.join("lock_service.py"),
            "class LockService:\n    def acquire(self, name\n",
        )
        .unwrap();
        let expected = vec![
            "lock_service.py\", line 2".into(),
            "SyntaxError: '(' was never closed".into(),
        ];
        cases.push((dir, expected));
    }
    if can_run("js") {
        for (source, at, error) in [
            (
                "export class LockService {\n  acquire(name) { return name +; }\n}\n",
                "lock_service.mjs:2:32",
                "SyntaxError: Unexpected token ';'",
            ),
            // At the end of the file node prints no caret.
            (
                "export class LockService {\n  acquire( {\n}\n",
                "lock_service.mjs:4",
                "SyntaxError: Unexpected end of input",
            ),
        ] {
            let dir = starter("js");
            std::fs::write(dir.join("lock_service.mjs"), source).unwrap();
            cases.push((dir, vec![at.into(), error.into()]));
        }
    }
    if can_run("java") {
        let dir = starter("java");
        let file = dir.join("LockService.java");
        let source = std::fs::read_to_string(&file).unwrap();
        let line = source.lines().position(|l| l.contains('{')).unwrap() + 1;
        std::fs::write(&file, source.replacen('{', "{ int x = ;", 1)).unwrap();
        cases.push((
            dir,
            vec![
                format!("LockService.java:{line}: error: illegal start of expression"),
                "does not compile".into(),
            ],
        ));
    }
    for (dir, expected) in cases {
        let (code, out, err) = tool(&["check", dir.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{}: {err}", dir.display());
        assert!(out.is_empty() || !out.contains('✓'), "{out}");
        assert_eq!(err.lines().count(), 1, "{err}");
        for part in expected {
            assert!(
                err.contains(&part),
                "{}: no {part:?} in {err}",
                dir.display()
            );
        }
        assert!(!err.contains("node:internal"), "{err}");
        assert!(!err.contains("TypeScript"), "{err}");
        // An autograder's report of a program that did not start carries what it wrote on
        // stderr, as the sentence quotes it (javac's words are the compiler's, not the program's).
        let (code, json, _) = tool(&["check", dir.to_str().unwrap(), "--format", "json"]);
        assert_eq!(code, Some(2), "{json}");
        let report: Value = serde_json::from_str(&json).unwrap();
        let stderr: Vec<&str> = report["stderr"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        if !dir.join("LockService.java").exists() {
            assert!(
                stderr.iter().any(|l| l.contains("SyntaxError")),
                "{}: {json}",
                dir.display()
            );
        } else {
            assert!(stderr.is_empty(), "{json}");
        }
    }
}

/// The same check in every autograder format: JUnit's test cases and failures are the JSON's
/// checks, Gradescope's tests carry its documented fields and the points file's points, and
/// every format keeps the checks decided before a protocol error, and the error.
#[test]
fn every_report_format_tells_the_same_checks() {
    if !can_run("python") {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let wrong = build(
        &entry("python", "python-raise-none/renew-ignores-token"),
        scratch.path(),
    );
    // Dies in its 300th holder call, after some checks have passed, and will not start again:
    // a program that stopped answering is started again, and this one cannot be.
    let dies = variant(
        "python",
        "python-raise-none",
        &[
            (
                "    def holder(self, name):\n",
                "    def holder(self, name):\n        global calls\n        calls = globals().get('calls', 0) + 1\n        if calls == 300: open(DEAD, 'w').close(); sys.exit(3)\n",
            ),
            (
                "class LockService:\n",
                "import os, sys\nDEAD = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'dead')\nif os.path.exists(DEAD): sys.exit(4)\n\n\nclass LockService:\n",
            ),
        ],
        scratch.path(),
    );
    let points = scratch.path().join("points.toml");
    std::fs::write(&points, "late-renew = 4\nchaos = 2.5\n").unwrap();
    let points = points.to_str().unwrap();
    for (dir, code) in [(&wrong, 1), (&dies, 2)] {
        let dir = dir.to_str().unwrap();
        // Each run starts where the first did: with a program that starts.
        let run = |args: &[&str]| {
            let _ = std::fs::remove_file(Path::new(dir).join("dead"));
            tool(args)
        };
        let (c, json, _) = run(&["check", dir, "--format", "json", "--points", points]);
        assert_eq!(c, Some(code), "{json}");
        let json: Value = serde_json::from_str(&json).unwrap();
        let checks = json["checks"].as_array().unwrap();
        let (c, xml, _) = run(&["check", dir, "--format", "junit"]);
        assert_eq!(c, Some(code), "{xml}");
        let doc = roxmltree::Document::parse(&xml).expect("JUnit is XML");
        let cases: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        let protocol = cases
            .iter()
            .filter(|c| c.attribute("name") == Some("protocol"));
        assert_eq!(protocol.count(), usize::from(code == 2), "{xml}");
        let cases: Vec<_> = cases
            .into_iter()
            .filter(|c| c.attribute("name") != Some("protocol"))
            .collect();
        assert_eq!(cases.len(), checks.len());
        for (case, check) in cases.iter().zip(checks) {
            assert_eq!(case.attribute("name"), check["id"].as_str());
            let inner = case.children().find(|c| c.is_element());
            let kind = inner.map_or("passed", |e| e.tag_name().name());
            // Every verdict but passed is a failure, as every score counts it: the rule it
            // breaks, or not-judged, or not-run.
            let verdict = check["verdict"].as_str().unwrap();
            let expected = if verdict == "passed" {
                "passed"
            } else {
                "failure"
            };
            assert_eq!(kind, expected, "{}", check["id"]);
            let of_type = match verdict {
                "failed" => check["charged_to"].as_str(),
                "not_judged" => Some("not-judged"),
                "not_run" => Some("not-run"),
                _ => None,
            };
            assert_eq!(inner.and_then(|i| i.attribute("type")), of_type);
        }
        let (c, results, _) = run(&["check", dir, "--format", "gradescope", "--points", points]);
        assert_eq!(c, Some(code), "{results}");
        let results: Value = serde_json::from_str(&results).unwrap();
        let tests = results["tests"].as_array().unwrap();
        assert_eq!(tests.len(), checks.len());
        for (test, check) in tests.iter().zip(checks) {
            assert_eq!(test["name"], check["id"]);
            assert_eq!(test["score"], check["points"]);
            assert_eq!(test["max_score"], check["max_points"]);
            assert_eq!(test["status"] == "passed", check["passed"] == true);
            assert!(test["output"]
                .as_str()
                .unwrap()
                .contains(check["id"].as_str().unwrap()));
        }
        assert_eq!(results["score"], json["score"]);
        assert!(
            results["execution_time"].as_u64() >= Some(1),
            "a check takes time"
        );
        // The text says the score too, where points were given.
        let (_, text, _) = run(&["check", dir, "--points", points]);
        let score = format!(
            "score: {} of {} points",
            json["score"].as_f64().unwrap(),
            json["max_score"].as_f64().unwrap()
        );
        assert!(text.contains(&score), "{score}: {text}");
        if code == 1 {
            let late = checks.iter().find(|c| c["id"] == "late-renew").unwrap();
            assert_eq!(
                (late["points"].as_f64(), late["max_points"].as_f64()),
                (Some(0.0), Some(4.0))
            );
            assert_eq!(json["max_score"], 4.0 + 2.5 + 23.0);
        } else {
            // The checks decided before the program died are kept, some of them passed.
            assert!(json["passed"].as_u64().unwrap() > 0, "{json}");
            assert!(json["not_run"].as_u64().unwrap() > 0, "{json}");
            assert!(json["error"]
                .as_str()
                .unwrap()
                .contains("exited with status 3"));
            let said = results["output"].as_str().unwrap();
            assert!(
                said.contains("The check stopped: the program exited with status 3"),
                "{said}"
            );
        }
    }
}

/// A check ended by SIGTERM, SIGINT or SIGHUP ends the student's program and whatever it
/// started (here a `sleep` that ignores SIGTERM), and exits as the signal would (128 + N).
#[test]
fn a_check_ended_by_a_signal_ends_everything_the_program_started() {
    for (signal, code) in [
        (libc::SIGTERM, 143),
        (libc::SIGINT, 130),
        (libc::SIGHUP, 129),
    ] {
        let scratch = tempfile::tempdir().unwrap();
        let pidfile = scratch.path().join("pid");
        let program = format!(
            "(trap '' TERM; sh -c 'echo $PPID' > {}; exec sleep 300) & \
             read l; echo '{{\"id\":0,\"hello\":\"fencing-lab-adapter\",\"language\":\"sh\"}}'; \
             exec sleep 300",
            pidfile.display()
        );
        let mut check = Command::new(BIN)
            .args(["check", "--timeout", "60", "--", "sh", "-c", &program])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let grandchild = loop {
            if let Some(pid) = std::fs::read_to_string(&pidfile)
                .ok()
                .and_then(|t| t.trim().parse::<i32>().ok())
            {
                break pid;
            }
            assert!(started.elapsed() < Duration::from_secs(30), "never started");
            std::thread::sleep(Duration::from_millis(10));
        };
        // The check is waiting for its second reply when the signal comes.
        std::thread::sleep(Duration::from_millis(200));
        // SAFETY: kill(2) on the check we started.
        unsafe { libc::kill(check.id() as i32, signal) };
        let status = check.wait().unwrap();
        assert_eq!(status.code(), Some(code), "signal {signal}");
        let gone = || {
            std::fs::read_to_string(format!("/proc/{grandchild}/stat")).map_or(true, |s| {
                s.split(") ").nth(1).is_some_and(|r| r.starts_with('Z'))
            })
        };
        let waited = Instant::now();
        while !gone() && waited.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(
            gone(),
            "signal {signal}: the program's own child {grandchild} outlived the check"
        );
    }
}

/// Every string in a JSON value, keys included.
fn every_string(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::String(s) => into.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| every_string(v, into)),
        Value::Object(fields) => {
            for (key, v) in fields {
                into.push(key.clone());
                every_string(v, into);
            }
        }
        _ => {}
    }
}

/// A Java method declared `void` returns no value: its normal return is told as "returned
/// normally", never as null, in the transcript and in the hint of how to refuse.
#[test]
fn a_java_void_method_is_told_as_returning_normally() {
    if !can_run("java") {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let mut e = entry("java", "java-correct");
    e.name = "java-correct/stale-write-returns".into();
    e.base = Some("java-correct".into());
    e.file = Some("FencedStorage.java".into());
    e.edit = vec![Edit {
        find: "            throw new IllegalStateException(\"token \" + token + \" is older than token \" + entry.highest()\n                    + \", the highest key '\" + key + \"' has accepted\");\n".into(),
        replace: "            return;\n".into(),
    }];
    let dir = build(&e, scratch.path());
    let (code, out, err) = tool(&[
        "check",
        dir.to_str().unwrap(),
        "--only",
        "write-stale-rejected",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("-> ok (returned normally)"), "{out}");
    assert!(
        out.contains("note: write returned normally, which counts as accepted; to refuse, throw an exception"),
        "{out}"
    );
    assert!(!out.contains("returned null"), "{out}");
}
