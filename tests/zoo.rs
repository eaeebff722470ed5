//! The zoo (tests/lab/zoo): correct solutions in the idioms students write pass every check, and
//! each one-rule mutant fails the check of the rule it breaks, with every failure charged to that
//! rule. Generated over every entry of every language's manifest, on the real programs.

mod common;

use std::path::Path;

use common::zoo::{build, can_run, zoo, Entry};
use fencing_lab::lab::check::{self, CheckId, Outcome, Plan, Report, Verdict};
use fencing_lab::lab::{report, Rule, Target, Timeouts};

fn check_folder(dir: &Path) -> Report {
    let target = Target::Folder(dir.to_owned());
    let program = target
        .start(Timeouts::default())
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    check::run(&target, program, &Plan::default(), &mut |_| {})
}

/// What is wrong with an entry's report, if anything.
fn wrong_verdicts(entry: &Entry, report: &Report) -> Vec<String> {
    if let Some(error) = &report.error {
        return vec![format!("stopped: {error}")];
    }
    if let Some(op) = &entry.unwritten {
        return unwritten_verdicts(entry, op, report);
    }
    let Some(breaks) = &entry.breaks else {
        return report
            .outcomes
            .iter()
            .filter(|o| !o.passed())
            .map(|o| format!("{} is not passed", o.id()))
            .collect();
    };
    let broken =
        Rule::from_id(breaks).unwrap_or_else(|| panic!("{}: no rule {breaks}", entry.name));
    let mut wrong = Vec::new();
    for id in &entry.not_judged {
        assert!(Rule::from_id(id).is_some(), "{}: no rule {id}", entry.name);
    }
    for o in &report.outcomes {
        let must_not_judge = entry.not_judged.iter().any(|id| id == o.id());
        let ok = match (o.check, &o.verdict) {
            (CheckId::Rule(r), Verdict::Failed(f)) if entry.alone => {
                r == broken && f.rule == broken
            }
            (CheckId::Rule(r), _) if entry.alone && r == broken => false,
            (_, v) if entry.alone => *v == Verdict::Passed,
            (_, Verdict::NotJudged { rule, .. }) if must_not_judge => *rule == Some(broken),
            _ if must_not_judge => false,
            // Its own rule's check fails, charged to it.
            (CheckId::Rule(r), Verdict::Failed(f)) => r == broken && f.rule == broken,
            (CheckId::Rule(r), _) if r == broken => false,
            // Any other check passes, or could not be judged because its rule broke first; a
            // broad check that fails names the same rule.
            (_, Verdict::Passed) => true,
            (_, Verdict::Failed(f)) => f.rule == broken,
            (_, Verdict::NotJudged { rule, .. }) => *rule == Some(broken),
            (_, Verdict::NotRun(_)) => false,
        };
        if !ok {
            wrong.push(describe(o));
        }
    }
    wrong
}

/// What is wrong with the report of an entry with a method still to write (`op`): a check of a
/// rule about it fails as not implemented under that rule; another named check passes, or is
/// not judged for want of the method where the entry lists it; a broad check fails as not
/// implemented, or passes where it never calls the method.
fn unwritten_verdicts(entry: &Entry, op: &str, report: &Report) -> Vec<String> {
    let listed = |id: &str| entry.not_judged.iter().any(|n| n == id);
    let needs = ", not written yet";
    report
        .outcomes
        .iter()
        .filter(|o| {
            let ok = match (o.check, &o.verdict) {
                (CheckId::Rule(r), Verdict::Failed(f)) if r.about().contains(&op) => {
                    f.rule == r && f.not_implemented.is_some()
                }
                (CheckId::Rule(r), _) if r.about().contains(&op) => false,
                (CheckId::Rule(_), Verdict::Passed) => !listed(o.id()),
                (
                    CheckId::Rule(_),
                    Verdict::NotJudged {
                        rule: None,
                        because,
                    },
                ) => listed(o.id()) && because.ends_with(needs),
                (CheckId::Rule(_), _) => false,
                (_, Verdict::Failed(f)) => f.not_implemented.is_some(),
                (_, Verdict::Passed) => true,
                (_, _) => false,
            };
            !ok
        })
        .map(describe)
        .collect()
}

/// A broad check's minimal case is shrunk as far as its rule's own: where the rule's named
/// check shows the difference on the lesson's 10 s lease, a random, exhaustive or chaos case of
/// it is on that lease too, every call at a time on the scripts' 1/8 s grid.
fn shrunk_short_of_its_rule(report: &Report) -> Vec<String> {
    let own_lease = |rule| {
        report
            .outcomes
            .iter()
            .find_map(|o| match (o.check, o.failure()) {
                (CheckId::Rule(r), Some(f)) if r == rule => Some(f.lease_seconds),
                _ => None,
            })
    };
    let on_grid = |t: f64| (t * 8.0).fract() == 0.0;
    report
        .outcomes
        .iter()
        .filter(|o| !matches!(o.check, CheckId::Rule(_)))
        .filter_map(|o| Some((o, o.failure()?)))
        .filter(|(_, f)| f.note.as_deref().is_some_and(|n| n.contains("shrunk: ")))
        .filter(|(_, f)| own_lease(f.rule) == Some(10.0))
        .filter(|(_, f)| f.lease_seconds != 10.0 || !f.played.iter().all(|p| on_grid(p.now)))
        .map(|(o, f)| {
            format!(
                "{} shrunk to a {} s lease, at {:?}, where {} shows it on 10 s",
                o.id(),
                f.lease_seconds,
                f.played.iter().map(|p| p.now).collect::<Vec<_>>(),
                f.rule
            )
        })
        .collect()
}

fn describe(o: &Outcome) -> String {
    match &o.verdict {
        Verdict::Passed => format!("{} passed", o.id()),
        Verdict::Failed(f) => format!("{} failed on {}", o.id(), f.rule),
        Verdict::NotJudged { rule, because } => {
            let rule = rule.map_or("none broken".into(), |r| r.to_string());
            format!("{} not judged ({rule}): {because}", o.id())
        }
        Verdict::NotRun(why) => format!("{} not run: {why}", o.id()),
    }
}

/// Every entry of `language`'s manifest, checked; panics listing every wrong verdict.
fn zoo_of(language: &str) {
    if !can_run(language) {
        return;
    }
    let entries = zoo(language);
    assert!(!entries.is_empty());
    let scratch = tempfile::tempdir().unwrap();
    let mut wrong = Vec::new();
    for entry in &entries {
        let dir = build(entry, scratch.path());
        let report = check_folder(&dir);
        let mut problems = wrong_verdicts(entry, &report);
        problems.extend(shrunk_short_of_its_rule(&report));
        if !problems.is_empty() {
            wrong.push(format!(
                "{} ({}):\n  {}\n{}",
                entry.name,
                entry.breaks.as_deref().unwrap_or("correct"),
                problems.join("\n  "),
                report::text(&report)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn the_python_zoo() {
    zoo_of("python");
}

#[test]
fn the_javascript_zoo() {
    zoo_of("js");
}

#[test]
fn the_typescript_zoo() {
    zoo_of("ts");
}

#[test]
fn the_rust_zoo() {
    zoo_of("rust");
}

#[test]
fn the_java_zoo() {
    zoo_of("java");
}

/// The zoo covers every rule: each has a mutant that breaks it, in some language.
#[test]
fn every_rule_has_a_mutant_in_the_zoo() {
    let broken: std::collections::BTreeSet<String> = ["python", "js", "ts", "rust", "java"]
        .iter()
        .flat_map(|l| zoo(l))
        .filter_map(|e| e.breaks)
        .collect();
    for rule in Rule::ALL {
        assert!(broken.contains(rule.id()), "no mutant breaks {rule}");
    }
}

/// The lesson on a mutant charges its bug to the rule it breaks: in every built-in lesson, every
/// step where the code answers otherwise than the seed (`differs`) names that rule, as `check`
/// does; after a difference that leaves the program's state unlike the seed's, no later answer
/// is charged to another rule. Played by the real binary, as `run LESSON --impl DIR` runs it.
fn lessons_charge_the_broken_rule(language: &str) {
    if !can_run(language) {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let mutants: Vec<(String, std::path::PathBuf)> = zoo(language)
        .into_iter()
        .filter_map(|entry| {
            let breaks = entry.breaks.clone()?;
            Some((breaks, build(&entry, scratch.path())))
        })
        .collect();
    let lessons: Vec<&str> = fencing_lab::sim::Scenario::built_in_names().collect();
    let jobs: Vec<(&str, &std::path::Path, &str)> = mutants
        .iter()
        .flat_map(|(breaks, dir)| {
            lessons
                .iter()
                .map(move |l| (breaks.as_str(), dir.as_path(), *l))
        })
        .collect();
    let wrong = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(breaks, dir, lesson)) = jobs.get(i) else {
                    break;
                };
                let output = std::process::Command::new(env!("CARGO_BIN_EXE_fencing-lab"))
                    .args(["run", lesson, "--format", "json", "--impl"])
                    .arg(dir)
                    .output()
                    .unwrap();
                let stdout = String::from_utf8_lossy(&output.stdout);
                let otherwise = stdout
                    .lines()
                    .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                    .find(|e| e["event"] == "differs" && e["rule"] != breaks);
                let code = output.status.code();
                let problem = match otherwise {
                    _ if !matches!(code, Some(0 | 1)) => Some(format!(
                        "exit {code:?}: {}",
                        String::from_utf8_lossy(&output.stderr)
                    )),
                    Some(e) => Some(format!("differs: {e}")),
                    None => None,
                };
                if let Some(problem) = problem {
                    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
                    wrong
                        .lock()
                        .unwrap()
                        .push(format!("{name} in {lesson}: {problem}"));
                }
            });
        }
    });
    let wrong = wrong.into_inner().unwrap();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_lesson_on_a_python_mutant_charges_the_rule_it_breaks() {
    lessons_charge_the_broken_rule("python");
}

#[test]
fn every_lesson_on_a_javascript_mutant_charges_the_rule_it_breaks() {
    lessons_charge_the_broken_rule("js");
}
