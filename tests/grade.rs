//! `grade` over a generated class: every correct solution and a spread of one-rule bugs from the
//! zoo, in Python and JavaScript, plus submissions that cannot start. Each row the class view
//! prints must be what that submission's own `check` says, in every format and in `-o`'s files.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::zoo::{build, build_as, can_run, entry, zoo, Entry};
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

/// Every correct solution of `language` and every `step`th of its one-rule mutants.
fn class_entries(language: &str, step: usize) -> Vec<Entry> {
    let entries = zoo(language);
    let (correct, wrong): (Vec<Entry>, Vec<Entry>) = entries
        .into_iter()
        .filter(|e| e.is_correct() || e.breaks.is_some())
        .partition(Entry::is_correct);
    correct
        .into_iter()
        .chain(wrong.into_iter().step_by(step))
        .collect()
}

/// A class folder: about twenty zoo submissions, an empty folder, a starter nobody filled in
/// and a program that prints garbage.
fn a_class(root: &Path) -> Vec<Entry> {
    let mut entries = Vec::new();
    for (language, step) in [("python", 6), ("js", 4)] {
        if can_run(language) {
            entries.extend(class_entries(language, step));
        }
    }
    for entry in &entries {
        build(entry, root);
    }
    std::fs::create_dir(root.join("empty-folder")).unwrap();
    fencing_lab::lab::starter::init("python", &root.join("untouched-starter")).unwrap();
    let garbage = root.join("prints-garbage");
    fencing_lab::lab::starter::init("python", &garbage).unwrap();
    std::fs::write(
        garbage.join("adapter.py"),
        "import sys\nfor line in sys.stdin:\n    print('hello?')\n    sys.stdout.flush()\n",
    )
    .unwrap();
    entries
}

/// `fencing-lab ARGS` run in `dir`.
fn tool_in(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// One submission's `check NAME --format json`, run in its class's folder, as the replay lines
/// of `grade`'s reports name it.
fn own_check(dir: &Path) -> Value {
    let class = dir.parent().unwrap();
    let name = dir.file_name().unwrap().to_str().unwrap();
    let (code, out, err) = tool_in(class, &["check", name, "--format", "json"]);
    assert!(
        matches!(code, Some(0..=2)),
        "{}: {code:?} {err}",
        dir.display()
    );
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{}: {e}: {out}", dir.display()))
}

fn failing_of(report: &Value) -> Vec<String> {
    let checks = report["checks"].as_array().unwrap();
    checks
        .iter()
        .filter(|c| c["verdict"] == "failed")
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn every_row_of_a_graded_class_is_that_submissions_own_check_in_every_view() {
    let class = tempfile::tempdir().unwrap();
    let entries = a_class(class.path());
    let reports = tempfile::tempdir().unwrap();
    let out_dir = reports.path().join("per-student");
    let (code, out, err) = tool(&[
        "grade",
        class.path().to_str().unwrap(),
        "--format",
        "json",
        "--jobs",
        "2",
        "-o",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.is_empty(), "no progress bar off a terminal: {err}");
    let graded: Value = serde_json::from_str(&out).unwrap();
    let rows = graded["submissions"].as_array().unwrap();
    let shown_root = class.path().display().to_string();
    let mut names: Vec<String> = std::fs::read_dir(class.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let listed: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(listed, names, "every submission once, by name");

    let mut failed_by: BTreeMap<String, u64> = BTreeMap::new();
    for row in rows {
        let name = row["name"].as_str().unwrap();
        let own = own_check(&class.path().join(name));
        for field in ["passed", "total", "error", "language", "score", "max_score"] {
            assert_eq!(row[field], own[field], "{name}: {field}");
        }
        let failing = failing_of(&own);
        assert_eq!(row["failing"], serde_json::json!(failing), "{name}");
        for id in &failing {
            *failed_by.entry(id.clone()).or_default() += 1;
        }
        // -o: the student's own report, as check gives it (but for its timing).
        let saved: Value = serde_json::from_str(
            &std::fs::read_to_string(out_dir.join(format!("{name}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(
            saved["checks"].as_array().map(Vec::len),
            own["checks"].as_array().map(Vec::len)
        );
        assert_eq!(failing_of(&saved), failing, "{name}.json");
        let junit = std::fs::read_to_string(out_dir.join(format!("{name}.junit.xml"))).unwrap();
        let xml = roxmltree::Document::parse(&junit).unwrap();
        let failures = xml
            .descendants()
            .filter(|n| n.has_tag_name("failure"))
            .count();
        // Every check not passed is a JUnit failure: failed, not judged or not run.
        let not_passed = own["total"].as_u64().unwrap() - own["passed"].as_u64().unwrap();
        assert_eq!(failures as u64, not_passed, "{name}.junit.xml");
        let text = std::fs::read_to_string(out_dir.join(format!("{name}.txt"))).unwrap();
        let counts = format!("{} of {} checks passed", own["passed"], own["total"]);
        assert!(text.contains(&counts), "{name}.txt: {text}");
        // Named as the class's folder names it, nowhere by a path of this machine; a replay
        // line is the command to run in the class's folder.
        assert_eq!(saved["target"], name, "{name}.json");
        for report in [&text, &junit, &saved.to_string()] {
            assert!(!report.contains(&shown_root), "{name}: {report}");
        }
        for check in saved["checks"].as_array().unwrap() {
            if let Some(replay) = check["replay"].as_str() {
                let expected = format!(
                    "fencing-lab check --only {} {name}",
                    check["id"].as_str().unwrap()
                );
                assert_eq!(replay, expected, "{name}");
            }
        }
    }
    for rule in graded["rules"].as_array().unwrap() {
        let id = rule["id"].as_str().unwrap();
        let expected = failed_by.get(id).copied().unwrap_or(0);
        assert_eq!(rule["failed_by"].as_u64(), Some(expected), "{id}");
    }

    // The class really holds both: every correct solution passes, every bug fails its rule.
    for entry in &entries {
        let name = entry.name.replace('/', "--");
        let row = rows.iter().find(|r| r["name"] == name.as_str()).unwrap();
        match &entry.breaks {
            None => assert_eq!(row["passed"], row["total"], "{name}"),
            Some(rule) => assert!(
                row["failing"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|f| f == rule.as_str()),
                "{name} must fail {rule}: {row}"
            ),
        }
    }
    for broken in ["empty-folder", "prints-garbage"] {
        let row = rows.iter().find(|r| r["name"] == broken).unwrap();
        assert!(row["error"].is_string(), "{broken}: {row}");
        assert_eq!(row["passed"], 0, "{broken}");
    }
}

#[test]
fn the_text_csv_and_markdown_views_name_each_submission_with_its_count() {
    if !can_run("python") {
        return;
    }
    let class = tempfile::tempdir().unwrap();
    let entries = zoo("python");
    let correct = entries.iter().find(|e| e.is_correct()).unwrap();
    let wrong = entries.iter().find(|e| e.breaks.is_some()).unwrap();
    build(correct, class.path());
    build(wrong, class.path());
    let folder = class.path().to_str().unwrap();
    let (_, json, _) = tool(&["grade", folder, "--format", "json"]);
    let json: Value = serde_json::from_str(&json).unwrap();
    for format in ["text", "csv", "markdown"] {
        let (code, out, err) = tool(&["grade", folder, "--format", format]);
        assert_eq!(code, Some(0), "{format}: {err}");
        if format != "text" {
            // A page and a grade sheet carry no path of the grader's machine.
            assert!(!out.contains(folder), "{format}: {out}");
        }
        for row in json["submissions"].as_array().unwrap() {
            let name = row["name"].as_str().unwrap();
            let line = out
                .lines()
                .filter(|l| !l.starts_with("slowest: "))
                .find(|l| l.contains(name))
                .unwrap_or_else(|| panic!("{format}: no row for {name}:\n{out}"));
            let count = match format {
                "csv" => format!(",{},{},", row["passed"], row["total"]),
                _ => format!("{}/{}", row["passed"], row["total"]),
            };
            assert!(line.contains(&count), "{format}: {line}");
        }
    }
}

#[test]
fn grading_that_cannot_run_is_one_sentence_and_exit_2_before_any_program_starts() {
    let root = tempfile::tempdir().unwrap();
    let file = root.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let class = root.path().join("class");
    std::fs::create_dir(&class).unwrap();
    std::fs::create_dir(class.join("ada")).unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![root.path().join("missing").display().to_string()],
            "there is no such folder",
        ),
        (
            vec![file.display().to_string()],
            "it is a file, not a folder of submissions",
        ),
        (
            vec![root.path().join("class/ada").display().to_string()],
            "it holds no submission folders",
        ),
        (
            vec![
                class.display().to_string(),
                "-o".into(),
                file.display().to_string(),
            ],
            "it is a file, not a folder for the reports",
        ),
        (
            vec![class.display().to_string(), "--jobs".into(), "0".into()],
            "from 1 to 1024",
        ),
        (
            vec![
                class.display().to_string(),
                "--points".into(),
                file.display().to_string(),
            ],
            "--points",
        ),
    ];
    // One student's folder given where a class was meant: the sentence says how to check it.
    let one = root.path().join("one");
    fencing_lab::lab::starter::init("python", &one).unwrap();
    std::fs::create_dir(one.join("__pycache__")).unwrap();
    let cases = cases.into_iter().chain([(
        vec![one.display().to_string()],
        "it is one student's lab folder, not a folder of submissions; check it with `fencing-lab check",
    )]);
    for (args, says) in cases {
        let mut all = vec!["grade".to_owned()];
        all.extend(args);
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let (code, out, err) = tool(&refs);
        assert_eq!(code, Some(2), "{all:?}: {err}");
        assert!(out.is_empty(), "{all:?}: {out}");
        assert!(err.contains(says), "{all:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{all:?}: {err}");
    }
}

/// The `command:` of each graded step of the workflow `lab init --ci github` wrote.
fn graded_commands(workflow: &str) -> Vec<String> {
    workflow
        .lines()
        .filter_map(|l| l.trim().strip_prefix("command: "))
        .map(str::to_owned)
        .collect()
}

/// Runs a CI step's command in `dir` as the runner would, with this build as `fencing-lab`.
fn run_step(command: &str, dir: &Path) -> Option<i32> {
    let line = command.replacen("fencing-lab", BIN, 1);
    Command::new("sh")
        .arg("-c")
        .arg(&line)
        .current_dir(dir)
        .output()
        .unwrap()
        .status
        .code()
}

#[test]
fn every_graded_step_of_the_written_workflow_passes_correct_code_and_fails_the_rule_a_bug_breaks() {
    if !can_run("python") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let entries = zoo("python");
    let correct = entries.iter().find(|e| e.is_correct()).unwrap();
    let wrong = entries
        .iter()
        .find(|e| e.breaks.as_deref() == Some("write-stale-rejected"))
        .unwrap();
    for entry in [correct, wrong] {
        let dir = build(entry, root.path());
        let ci = root.path().join(format!("{}-ci", entry.name));
        let (code, out, err) = tool(&[
            "lab",
            "init",
            "python",
            ci.to_str().unwrap(),
            "--ci",
            "github",
        ]);
        assert_eq!(code, Some(0), "{err}");
        assert!(out.contains("FENCING_LAB_GIT"), "{out}");
        std::fs::copy(dir.join("lock_service.py"), ci.join("lock_service.py")).unwrap();
        let workflow = std::fs::read_to_string(ci.join(".github/workflows/classroom.yml")).unwrap();
        let commands = graded_commands(&workflow);
        assert_eq!(commands.len(), 25, "{workflow}");
        for command in &commands {
            let code = run_step(command, &ci);
            let id = command.rsplit(' ').next().unwrap();
            let expected = match &entry.breaks {
                Some(rule) if rule == id => Some(1),
                Some(_) => code.filter(|c| *c <= 1),
                None => Some(0),
            };
            assert_eq!(code, expected, "{}: {command}", entry.name);
        }
        let junit = workflow
            .lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix("run: fencing-lab check . --format junit")
            })
            .map(|rest| format!("fencing-lab check . --format junit{rest}"))
            .expect("a JUnit step");
        assert_eq!(run_step(&junit, &ci), Some(0), "{junit}");
        let xml = std::fs::read_to_string(ci.join("fencing-lab.junit.xml")).unwrap();
        let cases = roxmltree::Document::parse(&xml)
            .unwrap()
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .count();
        assert_eq!(cases, commands.len());
    }
}

/// A student's report that cannot be written (a FIFO where `NAME.txt` goes) is said after the
/// class's tables, never instead of them: the teacher still gets the whole class.
#[test]
fn a_report_that_cannot_be_written_leaves_the_class_table_whole() {
    if !can_run("python") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let class = root.path().join("class");
    std::fs::create_dir(&class).unwrap();
    build_as(&entry("python", "python-raise-none"), &class, "ada");
    let reports = root.path().join("reports");
    std::fs::create_dir(&reports).unwrap();
    let fifo = reports.join("ada.txt");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let (code, out, err) = tool(&[
        "grade",
        class.to_str().unwrap(),
        "-o",
        reports.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        out.contains("ada ") && out.contains("25/25"),
        "the table: {out}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// `grade -o DIR` says which earlier reports it removed (those the last grading into DIR wrote,
/// for a submission no longer in the class) and which it kept (any other file named like a
/// report); the last run's times are kept beside the reports, or in the class's folder without
/// `-o`, and the text names the slowest submissions.
#[test]
fn earlier_reports_are_removed_or_kept_and_said_and_the_runs_times_are_kept() {
    if !can_run("python") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let class = root.path().join("class");
    std::fs::create_dir(&class).unwrap();
    let correct = zoo("python").into_iter().find(Entry::is_correct).unwrap();
    for name in ["ada", "ivy"] {
        build_as(&correct, &class, name);
    }
    let reports = root.path().join("reports");
    let grade_to = |reports: &Path| {
        tool(&[
            "grade",
            class.to_str().unwrap(),
            "-o",
            reports.to_str().unwrap(),
        ])
    };
    let (code, out, err) = grade_to(&reports);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.is_empty(), "nothing earlier to say: {err}");
    assert!(
        out.lines().nth(1).unwrap().starts_with("slowest: "),
        "{out}"
    );
    let times: Value = serde_json::from_str(
        &std::fs::read_to_string(reports.join(".fencing-lab-times.json")).unwrap(),
    )
    .unwrap();
    let names: Vec<&String> = times["seconds"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["ada", "ivy"]);
    assert!(
        !class.join(".fencing-lab-times.json").exists(),
        "kept with the reports"
    );

    // Ivy leaves the class; a file of the teacher's is named like a report.
    std::fs::remove_dir_all(class.join("ivy")).unwrap();
    std::fs::write(reports.join("notes.txt"), "mine").unwrap();
    std::fs::write(reports.join("grades.csv"), "mine").unwrap();
    let (code, _, err) = grade_to(&reports);
    assert_eq!(code, Some(0), "{err}");
    let shown = reports.display();
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [
            format!("fencing-lab: -o {shown}: removed ivy.json, ivy.junit.xml and ivy.txt: the last grading into it wrote them, for submissions no longer in the class"),
            format!("fencing-lab: -o {shown}: kept notes.txt: named like reports of submissions not in the class, but not written by the last grading into it; remove them by hand if they are stale"),
        ]
    );
    for gone in ["ivy.txt", "ivy.json", "ivy.junit.xml"] {
        assert!(!reports.join(gone).exists(), "{gone}");
    }
    for kept in [
        "notes.txt",
        "grades.csv",
        "ada.txt",
        "ada.json",
        "ada.junit.xml",
    ] {
        assert!(reports.join(kept).exists(), "{kept}");
    }

    // Without -o the times are kept in the class's folder; a corrupt record is no record.
    std::fs::write(class.join(".fencing-lab-times.json"), "{not json").unwrap();
    let (code, out, err) = tool(&["grade", class.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("slowest: ada "), "{out}");
    let times: Value = serde_json::from_str(
        &std::fs::read_to_string(class.join(".fencing-lab-times.json")).unwrap(),
    )
    .unwrap();
    assert!(times["seconds"]["ada"].as_f64().unwrap() > 0.0, "{times}");
}

/// A broken submission's error is told whole under the text table, named relative to the
/// class's folder, however long its cause.
#[test]
fn a_broken_submissions_error_is_told_whole_and_relative() {
    if !can_run("python") {
        return;
    }
    let class = tempfile::tempdir().unwrap();
    let gus = class.path().join("gus");
    fencing_lab::lab::starter::init("python", &gus).unwrap();
    let cause =
        "NameError: name 'leases_by_name_of_the_lock_as_the_student_wrote_it' is not defined";
    std::fs::write(
        gus.join("lock_service.py"),
        "x = leases_by_name_of_the_lock_as_the_student_wrote_it\n",
    )
    .unwrap();
    std::fs::create_dir(class.path().join("eve")).unwrap();
    let (code, out, err) = tool(&["grade", class.path().to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let row = out.lines().find(|l| l.starts_with("gus ")).unwrap();
    assert!(
        row.ends_with("did not start (below)") || row.ends_with("stopped (below)"),
        "{out}"
    );
    let why = out
        .lines()
        .find(|l| l.starts_with("gus") && l.contains(cause))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(!why.contains(&class.path().display().to_string()), "{why}");
    assert!(
        out.lines().any(
            |l| l.starts_with("eve holds no lab starter: expected lock_service.mjs")
                && l.ends_with("as `fencing-lab lab init` writes them")
        ),
        "{out}"
    );
}

/// A folder holding `fencing-lab`, a link to this build, to put first on a script's PATH.
fn this_build_on_path(root: &Path) -> String {
    let bin = root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join("fencing-lab");
    if !link.exists() {
        std::os::unix::fs::symlink(BIN, &link).unwrap();
    }
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Gradescope's layout under `root` (its /autograder): the autograder's files in `source`, the
/// upload in `submission`, as Gradescope lays them out; `run_autograder` run there (with this
/// build as fencing-lab), and the `results.json` it wrote.
fn run_gradescope(root: &Path, autograder: &Path, upload: &[(&str, String)]) -> Value {
    let source = root.join("source");
    std::fs::create_dir_all(&source).unwrap();
    for file in ["setup.sh", "run_autograder", "points.toml"] {
        std::fs::copy(autograder.join(file), source.join(file)).unwrap();
    }
    for (path, text) in upload {
        let path = root.join("submission").join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::create_dir_all(root.join("submission")).unwrap();
    let output = Command::new("bash")
        .arg(source.join("run_autograder"))
        .env("AUTOGRADER_ROOT", root)
        .env("PATH", this_build_on_path(root))
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let results = std::fs::read_to_string(root.join("results/results.json")).unwrap();
    serde_json::from_str(&results).unwrap_or_else(|e| panic!("{e}: {results}"))
}

/// `lab init python DIR --ci gradescope` writes an autograder that grades an upload of
/// `lock_service.py` alone (at the top or in a folder of its own), in a fresh starter: a correct
/// one scores every point, a wrong one none for the rule it breaks; a student's own adapter is
/// never run, and an upload without the file scores 0 and says what to upload.
#[test]
fn the_gradescope_autograder_scores_an_uploaded_lock_service_alone() {
    if !can_run("python") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let autograder = root.path().join("autograder");
    let (code, out, err) = tool(&[
        "lab",
        "init",
        "python",
        autograder.to_str().unwrap(),
        "--ci",
        "gradescope",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("zip -r ../autograder.zip ."), "{out}");
    assert!(
        !autograder.join("lock_service.py").exists(),
        "no starter: {out}"
    );
    for script in ["setup.sh", "run_autograder"] {
        let syntax = Command::new("bash")
            .arg("-n")
            .arg(autograder.join(script))
            .status()
            .unwrap();
        assert!(syntax.success(), "{script} parses");
    }
    let entries = zoo("python");
    let correct = entries.iter().find(|e| e.is_correct()).unwrap();
    let wrong = entries
        .iter()
        .find(|e| e.breaks.as_deref() == Some("write-stale-rejected"))
        .unwrap();
    let student_file = |entry: &Entry| {
        let dir = build(entry, &root.path().join("built"));
        std::fs::read_to_string(dir.join("lock_service.py")).unwrap()
    };
    // A correct upload, with an adapter of the student's own that would pass anything.
    let results = run_gradescope(
        &root.path().join("correct"),
        &autograder,
        &[
            ("lock_service.py", student_file(correct)),
            ("adapter.py", "print('{\"id\": 0}')\n".to_owned()),
        ],
    );
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 25, "{results}");
    assert_eq!(results["score"], 25.0, "{results}");
    assert!(tests.iter().all(|t| t["status"] == "passed"), "{results}");
    // A wrong one, uploaded in a folder of its own.
    let results = run_gradescope(
        &root.path().join("wrong"),
        &autograder,
        &[("my-lab/lock_service.py", student_file(wrong))],
    );
    let score = results["score"].as_f64().unwrap();
    assert!(score < 25.0, "{results}");
    let stale = results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "write-stale-rejected")
        .unwrap();
    assert_eq!(stale["status"], "failed", "{stale}");
    assert_eq!(stale["score"], 0.0, "{stale}");
    let output = stale["output"].as_str().unwrap();
    assert!(
        output.contains("fencing-lab check --only write-stale-rejected ."),
        "{output}"
    );
    assert!(
        !output.contains(&root.path().display().to_string()),
        "{output}"
    );
    // Nothing to grade.
    let results = run_gradescope(
        &root.path().join("empty"),
        &autograder,
        &[("notes.txt", "hi".to_owned())],
    );
    assert_eq!(results["score"], 0, "{results}");
    assert!(results["output"]
        .as_str()
        .unwrap()
        .starts_with("Your upload has no lock_service.py"));
}

/// `ada`'s file with other names, comments, docstrings and indentation: the same code.
fn disguised(text: &str) -> String {
    let mut out = String::from("# my own solution, written alone\n");
    let mut in_docstring = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = "  ".repeat((line.len() - trimmed.len()) / 4);
        let quotes = trimmed.matches("\"\"\"").count();
        // Docstrings of other words: a docstring alone is a class's whole body.
        if in_docstring {
            if quotes > 0 {
                out.push_str(&format!("{indent}\"\"\"\n"));
                in_docstring = false;
            }
            continue;
        }
        if trimmed.starts_with("\"\"\"") {
            in_docstring = quotes == 1;
            let close = if in_docstring { "" } else { "\"\"\"" };
            out.push_str(&format!("{indent}\"\"\"My own words.{close}\n"));
            continue;
        }
        let code = match line.find("  # ") {
            Some(at) => &line[..at],
            None => line,
        };
        let depth = (code.len() - code.trim_start().len()) / 4;
        let renamed = code
            .trim_start()
            .replace("_live", "_current")
            .replace("self.leases", "self.grants");
        out.push_str(&format!("{}{renamed}   \n", "  ".repeat(depth)));
    }
    out
}

/// What the class got wrong, in a generated class: the rules to re-teach lead the check table,
/// the broad checks after them; submissions that are the same code up to whitespace, names
/// and comments are listed together, a one-rule mutant of the same solution and two starters
/// nobody began are not.
#[test]
fn a_class_is_told_the_rules_to_reteach_first_and_the_same_code() {
    if !can_run("python") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let class = root.path().join("class");
    std::fs::create_dir(&class).unwrap();
    let entries = zoo("python");
    let place = |entry: &Entry, name: &str| build_as(entry, &class, name);
    let base = entries
        .iter()
        .find(|e| e.name == "python-raise-none")
        .unwrap();
    let ada = place(base, "ada");
    let ben = place(base, "ben");
    let text = std::fs::read_to_string(ada.join("lock_service.py")).unwrap();
    let copy = disguised(&text);
    assert_ne!(copy, text);
    std::fs::write(ben.join("lock_service.py"), copy).unwrap();
    let mutants: Vec<&Entry> = entries
        .iter()
        .filter(|e| {
            e.base.as_deref() == Some("python-raise-none")
                && e.breaks.is_some()
                && e.unwritten.is_none()
        })
        .take(3)
        .collect();
    for (mutant, name) in mutants.iter().zip(["cho", "dan", "fay"]) {
        place(mutant, name);
    }
    let other = entries
        .iter()
        .find(|e| e.name == "python-dict-leases")
        .unwrap();
    place(other, "gil");
    for unbegun in ["hal", "ivy"] {
        fencing_lab::lab::starter::init("python", &class.join(unbegun)).unwrap();
    }
    let (code, out, err) = tool(&["grade", class.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let graded: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        graded["same_code"],
        serde_json::json!([["ada", "ben"]]),
        "{out}"
    );
    let ben_row = graded["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "ben")
        .unwrap();
    assert_eq!(
        ben_row["passed"], ben_row["total"],
        "the disguised copy still works: {ben_row}"
    );

    // The rules written code broke, most students first, then the broad checks, then the rest.
    let rules = graded["rules"].as_array().unwrap();
    let broken = |r: &Value| r["failed_by"].as_u64().unwrap() - r["unwritten_by"].as_u64().unwrap();
    let broad = |r: &Value| ["random", "exhaustive", "chaos"].contains(&r["id"].as_str().unwrap());
    let standing: Vec<(u8, std::cmp::Reverse<u64>)> = rules
        .iter()
        .map(|r| match (broad(r), broken(r)) {
            (true, n) => (1, std::cmp::Reverse(n)),
            (false, 0) => (2, std::cmp::Reverse(0)),
            (false, n) => (0, std::cmp::Reverse(n)),
        })
        .collect();
    assert!(standing.windows(2).all(|w| w[0] <= w[1]), "{standing:?}");
    assert!(
        standing.first().is_some_and(|s| s.0 == 0),
        "a rule leads: {standing:?}"
    );
    for rule in rules.iter().filter(|r| broken(r) > 0) {
        assert!(rule["first_step"].is_string(), "{rule}");
        assert!(rule["first_step_count"].as_u64().unwrap() >= 1, "{rule}");
    }
    let (_, text, _) = tool(&["grade", class.to_str().unwrap()]);
    assert!(text.contains("\nsame code: ada, ben\n"), "{text}");
}

/// A submission whose code deletes every folder beside its own, relative (`../*`) and by the
/// class's own path, harms no other: each program runs in a private copy, with namespaces where
/// the machine has them (the other folders read-only: nothing is changed) and by copies alone
/// where it has not (FENCING_LAB_ISOLATION=copies: what the program changed is put back, and
/// said). The other submission is graded as its own check grades it, and its folder is byte for
/// byte what it was; the class's report says which isolation was used.
#[test]
fn a_submission_that_deletes_its_neighbours_harms_no_other() {
    if !can_run("js") {
        return;
    }
    for isolation in ["namespaces", "copies"] {
        let class = tempfile::tempdir().unwrap();
        let root = class.path().canonicalize().unwrap();
        let correct = entry("js", "js-throw-map");
        let vandal = build_as(&correct, &root, "a-vandal");
        let code = std::fs::read_to_string(vandal.join("lock_service.mjs")).unwrap();
        let prologue = format!(
            "import * as fs from \"node:fs\";\n\
             const me = process.cwd().split(\"/\").pop();\n\
             for (const place of [\"..\", {class:?}]) {{\n\
               try {{ for (const name of fs.readdirSync(place)) if (name !== me && name !== \"a-vandal\")\n\
                 try {{ fs.rmSync(place + \"/\" + name, {{recursive: true, force: true}}); }} catch {{}} }} catch {{}}\n\
             }}\n",
            class = root.display().to_string()
        );
        std::fs::write(vandal.join("lock_service.mjs"), prologue + &code).unwrap();
        let neighbour = build(&correct, &root);
        let before = files_of(&neighbour);
        let own = own_check(&neighbour);
        let output = Command::new(BIN)
            .args([
                "grade",
                root.to_str().unwrap(),
                "--format",
                "json",
                "--jobs",
                "1",
            ])
            .env(
                "FENCING_LAB_ISOLATION",
                if isolation == "copies" { "copies" } else { "" },
            )
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let graded: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{isolation}: {e}: {stderr}"));
        assert_eq!(
            files_of(&neighbour),
            before,
            "{isolation}: the neighbour is unchanged"
        );
        let row = graded["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == neighbour.file_name().unwrap().to_str().unwrap())
            .unwrap_or_else(|| panic!("{isolation}: {graded}"));
        assert_eq!(row["passed"], own["passed"], "{isolation}: {row}");
        assert_eq!(row["passed"], row["total"], "{isolation}: {row}");
        let said = graded["isolation"].as_str().unwrap_or_default();
        assert!(said.contains("private copy"), "{isolation}: {said}");
        // Asked for copies, copies it is; else namespaces where this machine has them.
        let by_copies = said.contains("no namespaces");
        if isolation == "copies" {
            assert!(by_copies, "{said}");
        }
        // Read-only, the folder was never changed; by copies alone, it was and is put back.
        let put_back = format!(
            "{}'s folder was changed while the class was graded",
            correct.name
        );
        assert_eq!(
            stderr.contains(&put_back),
            by_copies,
            "{isolation}: {stderr}"
        );
    }
}

/// Every file under `dir` (build caches apart) with its bytes.
fn files_of(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut folders = vec![dir.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            let name = path.strip_prefix(dir).unwrap().display().to_string();
            if name.starts_with(".fencing-lab") || name.starts_with("target") {
                continue;
            }
            if path.is_dir() {
                folders.push(path);
            } else {
                files.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// A fork bomb, graded as a user held to a few processes (`ulimit -u`, which binds no root, so
/// the grading runs as nobody): the bomb is graded failed, the class after it is graded as its
/// own checks grade it, and the grader never panics for want of a thread or a process.
#[test]
fn a_fork_bomb_fails_alone_and_the_class_goes_on() {
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout == b"0\n");
    let has_setpriv = Command::new("setpriv").arg("--version").output().is_ok();
    if !can_run("js") || !is_root || !has_setpriv {
        eprintln!("SKIPPED: needs node, root and setpriv (to grade as nobody under ulimit -u)");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let place = tempfile::tempdir().unwrap();
    let root = place.path().canonicalize().unwrap();
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
    let bin = root.join("fencing-lab");
    std::fs::copy(BIN, &bin).unwrap();
    let class = root.join("class");
    let correct = entry("js", "js-throw-map");
    let bomb = build_as(&correct, &class, "a-bomb");
    let code = std::fs::read_to_string(bomb.join("lock_service.mjs")).unwrap();
    // Forks without end and never gets to answer: the machine is out of processes meanwhile.
    let prologue = "import { spawnSync } from \"node:child_process\";\n\
        for (;;) spawnSync(\"sh\", [\"-c\", \"sleep 30 & sleep 30 & sleep 30 &\"]);\n";
    std::fs::write(bomb.join("lock_service.mjs"), prologue.to_owned() + &code).unwrap();
    for name in ["b-ok", "c-ok"] {
        build_as(&correct, &class, name);
    }
    let chown = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(&class)
        .status()
        .unwrap();
    assert!(chown.success());
    // `set -e`: a shell whose `ulimit` fails would grade without the limit (dash has no -u).
    let script = format!(
        "set -e; ulimit -u 150; exec {} grade {} --format json --jobs 1",
        bin.display(),
        class.display()
    );
    let output = Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "bash",
            "-c",
            &script,
        ])
        .env("HOME", &root)
        .current_dir(&root)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{:?}: {stderr}",
        output.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let graded: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let rows = graded["submissions"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{graded}");
    for row in rows {
        let whole = row["passed"] == row["total"];
        assert_eq!(whole, row["name"] != "a-bomb", "{row}");
    }
}

/// Submissions named to harm: 250 bytes, an escape sequence, a newline. Their reports in `-o`
/// get safe file names of their own (no control character, each within the file system's 255
/// bytes), and nothing raw reaches the terminal. A submission that is a link out of the class's
/// folder is not graded, and said; a link inside one that points out of it is left out of what
/// is graded, and said.
#[test]
fn hostile_names_and_links_out_are_graded_safely_and_said() {
    if !can_run("js") {
        return;
    }
    let place = tempfile::tempdir().unwrap();
    let class = place.path().join("class");
    let correct = entry("js", "js-throw-map");
    let names = [
        "x".repeat(250),
        "esc\u{1b}[2Jname".to_owned(),
        "new\nline".to_owned(),
    ];
    for name in &names {
        build_as(&correct, &class, name);
    }
    // A link out of the class, and a link out of a submission (to a file it does not own).
    let outside = build_as(&correct, place.path(), "outside");
    std::os::unix::fs::symlink(&outside, class.join("linked")).unwrap();
    let secret = place.path().join("secret.txt");
    std::fs::write(&secret, "the teacher's").unwrap();
    let reaching = build_as(&correct, &class, "reaching");
    std::os::unix::fs::symlink(&secret, reaching.join("notes.txt")).unwrap();
    let reports = place.path().join("reports");
    let (code, out, err) = tool(&[
        "grade",
        class.to_str().unwrap(),
        "-o",
        reports.to_str().unwrap(),
        "--jobs",
        "1",
    ]);
    assert!(matches!(code, Some(0 | 1)), "{code:?}: {err}");
    for text in [&out, &err] {
        assert!(!text.contains('\u{1b}'), "no raw escape: {text:?}");
    }
    let files: Vec<String> = std::fs::read_dir(&reports)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().into_string().unwrap())
        .filter(|f| !f.starts_with('.'))
        .collect();
    // Three reports a submission: the three hostile names, the link and the reaching one.
    assert_eq!(files.len(), 15, "{files:?}");
    for file in &files {
        assert!(
            file.len() <= 255 && !file.chars().any(char::is_control),
            "{file:?}"
        );
    }
    assert!(
        out.contains("its folder is a link out of the class's folder"),
        "{out}"
    );
    assert!(
        err.contains("reaching: left out of its copy, as links out of its folder: notes.txt"),
        "{err}"
    );
    let graded: Value = {
        let (_, json, _) = tool(&["grade", class.to_str().unwrap(), "--format", "json"]);
        serde_json::from_str(&json).unwrap()
    };
    let passed = |name: &str| {
        let row = graded["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name);
        row.map(|r| r["passed"] == r["total"])
    };
    assert_eq!(passed("linked"), Some(false), "{graded}");
    assert_eq!(passed("reaching"), Some(true), "{graded}");
    assert_eq!(passed(&names[0]), Some(true), "{graded}");
}

/// Graded in a private copy, a Java submission's compiled classes come back with a record that
/// names them (their inode), so the next grading trusts them and compiles nothing again.
#[test]
fn a_copys_build_cache_comes_back_trusted() {
    use std::os::unix::fs::MetadataExt;
    if !can_run("java") {
        return;
    }
    let place = tempfile::tempdir().unwrap();
    let class = place.path().join("class");
    let correct = entry("java", "java-correct");
    let student = build(&correct, &class);
    for round in 0..2 {
        let (code, out, err) = tool(&["grade", class.to_str().unwrap(), "--jobs", "1"]);
        assert_eq!(code, Some(0), "{out}{err}");
        let classes = std::fs::metadata(student.join(".fencing-lab/classes")).unwrap();
        let record = std::fs::read_to_string(student.join(".fencing-lab/compiled-from")).unwrap();
        assert!(
            record.ends_with(&format!("outputs: {}:{}\n", classes.dev(), classes.ino())),
            "round {round}: the record names the classes now in the folder: {record}"
        );
    }
}

/// Every submission is held in memory while its class is graded, so one that holds more than a
/// lab needs (5 MiB here: a committed node_modules, or a file meant to exhaust the grader) is not
/// graded, and its row says why; the class goes on.
#[test]
fn a_submission_too_large_to_hold_is_refused_in_its_row() {
    if !can_run("js") {
        return;
    }
    let place = tempfile::tempdir().unwrap();
    let class = place.path().join("class");
    let correct = entry("js", "js-throw-map");
    let large = build_as(&correct, &class, "large");
    std::fs::write(large.join("blob.bin"), vec![7u8; 5 * 1024 * 1024]).unwrap();
    build_as(&correct, &class, "small");
    let (code, json, err) = tool(&["grade", class.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let graded: Value = serde_json::from_str(&json).unwrap();
    let row = |name: &str| {
        graded["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .cloned()
            .unwrap()
    };
    let large = row("large");
    assert_eq!(large["passed"], 0, "{large}");
    assert!(
        large["error"]
            .as_str()
            .unwrap()
            .contains("more than the 4 MiB"),
        "{large}"
    );
    let small = row("small");
    assert_eq!(small["passed"], small["total"], "{small}");
}
