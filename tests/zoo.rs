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
            (_, Verdict::NotJudged { rule, .. }) if must_not_judge => *rule == broken,
            _ if must_not_judge => false,
            // Its own rule's check fails, charged to it.
            (CheckId::Rule(r), Verdict::Failed(f)) => r == broken && f.rule == broken,
            (CheckId::Rule(r), _) if r == broken => false,
            // Any other check passes, or could not be judged because its rule broke first; a
            // broad check that fails names the same rule.
            (_, Verdict::Passed) => true,
            (_, Verdict::Failed(f)) => f.rule == broken,
            (_, Verdict::NotJudged { rule, .. }) => *rule == broken,
            (_, Verdict::NotRun(_)) => false,
        };
        if !ok {
            wrong.push(describe(o));
        }
    }
    wrong
}

fn describe(o: &Outcome) -> String {
    match &o.verdict {
        Verdict::Passed => format!("{} passed", o.id()),
        Verdict::Failed(f) => format!("{} failed on {}", o.id(), f.rule),
        Verdict::NotJudged { rule, because } => {
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
        let problems = wrong_verdicts(entry, &report);
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
