//! The lesson on a student's code, in the views that walk it (the page, the asciicast): a
//! correct implementation tells the built-in lesson word for word, step by step, in every
//! built-in scenario and every idiom of the zoo. These views play the run more than once while
//! they walk it (the moments to stop at, the walk itself, each answer to the question), so runs
//! over one program overlap: each must find the program in its own state.

mod common;

use std::path::Path;
use std::process::Command;

use common::zoo::{build, can_run, zoo, Entry};

fn fencing_lab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fencing-lab"))
        .args(args)
        .output()
        .unwrap()
}

fn built_in_scenarios() -> Vec<String> {
    let out = fencing_lab(&["list"]);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().to_owned())
        .collect()
}

/// What the page's fenced run tells, step by step: each step's captions and its events.
fn told(page: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let start = page
        .find("<section class=\"run\" id=\"run-on\"")
        .expect("the page has a run");
    let end = start + page[start..].find("</section>").unwrap();
    let section = &page[start..end];
    section
        .split("<li class=\"step")
        .skip(1)
        .map(|step| {
            let pieces = |open: &str, close: &str| -> Vec<String> {
                step.split(open)
                    .skip(1)
                    .map(|p| common::html_text(p.split(close).next().unwrap()))
                    .collect()
            };
            let captions = pieces("<p class=\"caption", "</p>");
            let events = step
                .split("<ul class=\"events\"")
                .nth(1)
                .map(|list| {
                    list.split("</ul>")
                        .next()
                        .unwrap()
                        .split("<li>")
                        .skip(1)
                        .map(|e| common::html_text(e.split("</li>").next().unwrap()))
                        .collect()
                })
                .unwrap_or_default();
            (captions, events)
        })
        .collect()
}

fn page(scenario: &str, extra: &[&str], dir: &Path) -> String {
    let file = dir.join(format!("{scenario}-{}.html", extra.len()));
    let mut args = vec!["export", scenario, "-o", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = fencing_lab(&args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&file).unwrap()
}

fn correct(language: &str) -> Vec<Entry> {
    zoo(language)
        .into_iter()
        .filter(|e| e.is_correct() && e.base.is_none())
        .collect()
}

/// Every built-in scenario on the language's first correct solution, and gc-pause and chaos on
/// every other.
fn a_correct_page_tells_the_built_in_lesson(language: &str) {
    if !can_run(language) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let solutions = correct(language);
    assert!(!solutions.is_empty(), "no correct {language} solution");
    let mut compared = 0;
    for (n, entry) in solutions.iter().enumerate() {
        let folder = build(entry, dir.path());
        let scenarios = if n == 0 {
            built_in_scenarios()
        } else {
            vec!["gc-pause".to_owned(), "chaos".to_owned()]
        };
        for scenario in scenarios {
            let built_in = page(&scenario, &[], dir.path());
            let student = page(&scenario, &["--impl", folder.to_str().unwrap()], dir.path());
            assert!(
                student.contains("On your code: every write judged by your FencedStorage"),
                "{}: {scenario}: the page's heading",
                entry.name
            );
            assert!(
                !student.contains("id=\"fencing\""),
                "{}: {scenario}: a fencing switch on a student's page",
                entry.name
            );
            // A caption that names a storage setting ("with fencing on") is not said of a
            // student's storage, whose rule is its code's: the step then tells its events.
            let unsaid =
                |steps: Vec<(Vec<String>, Vec<String>)>| -> Vec<(Vec<String>, Vec<String>)> {
                    steps
                        .into_iter()
                        .map(|(captions, events)| {
                            let kept = captions
                                .into_iter()
                                .filter(|c| !fencing_lab::sim::lesson::names_a_setting(c))
                                .collect();
                            (kept, events)
                        })
                        .collect()
                };
            let (expected, got) = (unsaid(told(&built_in)), told(&student));
            assert!(expected.len() >= 3, "{scenario}: {} steps", expected.len());
            for (i, (want, have)) in expected.iter().zip(&got).enumerate() {
                assert_eq!(
                    want,
                    have,
                    "{}: {scenario}: step {} differs from the built-in lesson",
                    entry.name,
                    i + 1
                );
            }
            assert_eq!(expected.len(), got.len(), "{}: {scenario}", entry.name);
            compared += 1;
        }
    }
    assert!(compared >= 11, "{language}: only {compared} pages compared");
}

#[test]
fn a_correct_python_page_tells_the_built_in_lesson() {
    a_correct_page_tells_the_built_in_lesson("python");
}

#[test]
fn a_correct_javascript_page_tells_the_built_in_lesson() {
    a_correct_page_tells_the_built_in_lesson("js");
}

#[test]
fn a_program_that_stops_answering_writes_no_page_and_keeps_the_old_one() {
    if !can_run("python") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // It answers the experiments, then dies at the lesson's first write.
    let folder = exiting_in("write", "key != \"ledger\"", dir.path());

    let target = dir.path().join("lesson.html");
    std::fs::write(&target, "the earlier page").unwrap();
    let out = fencing_lab(&[
        "export",
        "gc-pause",
        "--impl",
        folder.to_str().unwrap(),
        "-o",
        target.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("your implementation stopped answering")
            && stderr.contains("exited with status 3")
            && stderr.trim_end().ends_with("no page was written"),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "the earlier page"
    );
}

#[test]
fn a_command_after_the_double_dash_makes_the_same_page_as_its_folder() {
    if !can_run("python") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let entry = correct("python").remove(0);
    let folder = build(&entry, dir.path());
    let by_folder = page(
        "gc-pause",
        &["--impl", folder.to_str().unwrap()],
        dir.path(),
    );
    let adapter = folder.join("adapter.py");
    let by_command = page(
        "gc-pause",
        &["--", "python3", adapter.to_str().unwrap()],
        dir.path(),
    );
    assert_eq!(told(&by_folder), told(&by_command));
    assert!(by_command.contains("On your code"));
}

/// A Python solution from the zoo whose `method` begins with `os._exit(3)` when `when` holds.
fn exiting_in(method: &str, when: &str, dir: &std::path::Path) -> std::path::PathBuf {
    let entry = correct("python").remove(0);
    let folder = build(&entry, dir);
    let source = folder.join("lock_service.py");
    let text = std::fs::read_to_string(&source).unwrap();
    let at = text
        .find(&format!("    def {method}(self"))
        .unwrap_or_else(|| panic!("a {method} method"));
    let body = text[at..].find(":\n").unwrap() + at + 2;
    let mut broken = text.clone();
    broken.insert_str(
        body,
        &format!("        if {when}: import os; os._exit(3)\n"),
    );
    std::fs::write(&source, broken).unwrap();
    folder
}

/// The times of a transcript's timed lines ("  0.5 s  ...").
fn times(transcript: &str) -> Vec<f64> {
    transcript
        .lines()
        .filter_map(|l| l.trim_start().split_once(" s ").map(|(t, _)| t))
        .filter_map(|t| t.parse().ok())
        .collect()
}

/// A program that dies at the lesson's first write (after the experiments' writes, which it
/// answers): the transcript tells the lesson up to that moment and not a moment after it (no
/// invented refusals), its summary is at that moment, and the error says the run stopped there.
#[test]
fn a_program_that_stops_answering_mid_lesson_stops_the_story_there() {
    if !can_run("python") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let folder = exiting_in("write", "key != \"ledger\"", dir.path());
    let built_in = fencing_lab(&["run", "gc-pause"]);
    let built_in = String::from_utf8_lossy(&built_in.stdout).into_owned();
    let first_write = built_in
        .lines()
        .find(|l| l.contains(" writes "))
        .and_then(|l| times(l).first().copied())
        .expect("the lesson writes");
    let out = fencing_lab(&["run", "gc-pause", "--impl", folder.to_str().unwrap()]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("your implementation stopped answering, so the run stops there")
            && stderr.contains("exited with status 3"),
        "{stderr}"
    );
    let told = times(&stdout);
    assert!(told.len() > 1, "{stdout}");
    assert!(
        told.iter().all(|&t| t <= first_write),
        "told past the write at {first_write} s:\n{stdout}"
    );
    assert!(
        stdout.contains(&format!("summary at {first_write:.1} s")),
        "{stdout}"
    );
    // The screen says why the story stops, where the caption would be.
    let frame = fencing_lab(&["frame", "gc-pause", "--impl", folder.to_str().unwrap()]);
    let screen = String::from_utf8_lossy(&frame.stdout);
    assert_eq!(frame.status.code(), Some(2));
    assert!(
        screen.contains("Stopped") && screen.contains("Your program stopped answering"),
        "{screen}"
    );
    // The write it died on is told neither as accepted nor as refused.
    assert!(stdout.contains("0 writes accepted, 0 rejected"), "{stdout}");
    assert!(!stdout.contains("stopped answering"), "{stdout}");
}

/// A program that dies in the experiments `--impl` runs first tells no lesson at all: one
/// sentence on stderr, nothing on stdout.
#[test]
fn a_program_that_fails_before_the_lesson_tells_none() {
    if !can_run("python") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let folder = exiting_in("acquire", "True", dir.path());
    for command in [
        &["run", "gc-pause"][..],
        &["run", "gc-pause", "--format", "json"],
    ] {
        let mut args = command.to_vec();
        args.extend(["--impl", folder.to_str().unwrap()]);
        let out = fencing_lab(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{command:?}");
        assert!(
            stderr.contains("stopped answering before the lesson began")
                && stderr.contains("exited with status 3"),
            "{stderr}"
        );
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    }
}
