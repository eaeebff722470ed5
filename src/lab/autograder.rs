//! `check`'s report as autograders read it: JUnit XML (what GitHub Actions, GitLab and Jenkins
//! show), and Gradescope's `results.json`. Both keep every check decided before a protocol
//! error, and the error.

use std::time::Duration;

use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};
use serde_json::{json, Value};

use super::check::{Outcome, Report, Verdict};
use super::points::Points;
use super::report::text_of;
use crate::sim::text::printable;

/// The name of the test case that stands for a protocol error.
pub const PROTOCOL_CASE: &str = "protocol";

/// What a check that is not passed says, in one line: the rule it breaks and why, or why it was
/// not judged or not run.
pub fn summary_of(outcome: &Outcome) -> Option<String> {
    let text = match &outcome.verdict {
        Verdict::Passed => return None,
        Verdict::Failed(f) => match &f.not_implemented {
            Some(method) => format!("{method} is not implemented yet: write it next"),
            None => format!("breaks {}: {}", f.rule, f.expected),
        },
        Verdict::NotJudged { because, .. } => format!("not judged: {because}"),
        Verdict::NotRun(why) => format!("not run: {why}"),
    };
    Some(printable(&text).into_owned())
}

/// The report as JUnit XML: one `testsuite`, one `testcase` a check (a `failure` with the rule
/// and the transcript; a check not judged or not run is a `failure` of type `not-judged` or
/// `not-run`, with why: not passed, as every format scores it), and a `protocol`
/// test case in `error` where the program broke the protocol.
pub fn junit(report: &Report) -> String {
    let mut suite = TestSuite::new(format!("fencing-lab check {}", printable(&report.target)));
    suite.set_time(Duration::from_secs_f64(report.seconds.max(0.0)));
    for outcome in &report.outcomes {
        let mut status = match &outcome.verdict {
            Verdict::Passed => TestCaseStatus::success(),
            Verdict::Failed(f) => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status.set_type(f.rule.id());
                status
            }
            // Not passed, as every format scores it: a failure, of its own type.
            Verdict::NotJudged { .. } => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status.set_type("not-judged");
                status
            }
            Verdict::NotRun(_) => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status.set_type("not-run");
                status
            }
        };
        if let Some(summary) = summary_of(outcome) {
            status.set_message(summary);
            if outcome.failure().is_some() {
                status.set_description(text_of(outcome));
            }
        }
        let mut case = TestCase::new(outcome.id(), status);
        case.set_classname(format!("fencing-lab.{}", class_of(outcome)));
        suite.add_test_case(case);
    }
    if let Some(error) = &report.error {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status.set_message(printable(error).into_owned());
        status.set_type("protocol");
        let mut case = TestCase::new(PROTOCOL_CASE, status);
        case.set_classname("fencing-lab.protocol");
        suite.add_test_case(case);
    }
    if !report.stderr.is_empty() {
        let lines: Vec<String> = report
            .stderr
            .iter()
            .map(|l| printable(l).into_owned())
            .collect();
        suite.set_system_err(lines.join("\n"));
    }
    let mut junit = quick_junit::Report::new("fencing-lab");
    junit.add_test_suite(suite);
    junit
        .to_string()
        .expect("a report of plain strings serializes")
}

/// Rules, and the broad checks, grouped as a CI page lists them.
fn class_of(outcome: &Outcome) -> &'static str {
    match outcome.check {
        super::check::CheckId::Rule(_) => "rules",
        _ => "broad",
    }
}

/// The report as Gradescope's `results.json`: a test a check, worth its points when passed,
/// its lines as `output`; the protocol error, if any, in the submission's `output`.
pub fn gradescope(report: &Report, points: &Points) -> Value {
    let tests: Vec<Value> = report
        .outcomes
        .iter()
        .map(|outcome| {
            let worth = points.of(outcome.check);
            let score = if outcome.passed() { worth } else { 0.0 };
            json!({
                "name": outcome.id(),
                "score": score,
                "max_score": worth,
                "status": if outcome.passed() { "passed" } else { "failed" },
                // Its student text is escaped already; its lines stay lines.
                "output": format!("{}\n\n{}", outcome.words, text_of(outcome)),
                "visibility": "visible",
            })
        })
        .collect();
    let score = points.score(report);
    let mut output = format!(
        "{} of {} checks passed",
        report.passed(),
        report.outcomes.len()
    );
    if !report.language.is_empty() {
        output.push_str(&format!(" ({})", printable(&report.language)));
    }
    match &report.error {
        // A program that never said hello ran no check.
        Some(error) if report.language.is_empty() => {
            output.push_str(&format!(
                "\nThe program did not start: {}",
                printable(error)
            ));
        }
        Some(error) => output.push_str(&format!(
            "\nThe check stopped: {}\nThe checks after it did not run.",
            printable(error)
        )),
        None => {}
    }
    json!({
        "score": score,
        // Whole seconds, rounded up: a check of 0.4 s took time, not none.
        "execution_time": report.seconds.ceil() as u64,
        "output": output,
        "stdout_visibility": "hidden",
        "tests": tests,
    })
}

#[cfg(test)]
mod tests;
