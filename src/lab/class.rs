//! What a class got wrong: one row a student and one row a check, computed once from the
//! students' own reports, and told as text, JSON, CSV or Markdown.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::check::{CheckId, Outcome, Report, Verdict};
use super::points::Points;
use crate::sim::text::printable;

pub mod same;
mod views;
pub use views::{csv_field, markdown_cell, Run};

/// One student's row.
#[derive(Clone, Debug, PartialEq)]
pub struct Student {
    pub name: String,
    pub language: String,
    pub passed: usize,
    pub total: usize,
    pub score: f64,
    pub max_score: f64,
    /// The checks failed, in the order they run.
    pub failing: Vec<CheckId>,
    pub not_judged: Vec<CheckId>,
    pub not_run: Vec<CheckId>,
    /// Every check failed on a method still to write: a starter not yet begun.
    pub nothing_written: bool,
    /// Why the check stopped or never started, if it did.
    pub error: Option<String>,
    /// Each check's verdict, for CSV's columns.
    pub verdicts: Vec<(CheckId, &'static str)>,
    pub seconds: f64,
}

/// One check's row: how the class did on it.
#[derive(Clone, Debug, PartialEq)]
pub struct Tally {
    pub check: CheckId,
    pub passed_by: usize,
    pub failed_by: usize,
    pub not_judged_by: usize,
    pub not_run_by: usize,
    /// Of those who failed, how many failed only on a method still to write: a starter not
    /// begun there, not a rule broken.
    pub unwritten_by: usize,
    /// Of those not judged, how many for want of a method still to write, no rule broken.
    pub waiting_by: usize,
    /// The step the most failing students' minimal cases end on, and how many end there: a
    /// call of written code where there is one, a method still to write only where none is.
    pub first_step: Option<(String, usize)>,
}

impl Tally {
    /// Those who failed with code of their own: what the class got wrong.
    pub fn broken_by(&self) -> usize {
        self.failed_by - self.unwritten_by
    }

    /// Those not judged because a rule of theirs broke first: a rule still to re-teach.
    pub fn not_judged_by_a_rule(&self) -> usize {
        self.not_judged_by - self.waiting_by
    }
}

/// The class: its students by name, its checks the rules to re-teach first.
#[derive(Clone, Debug, PartialEq)]
pub struct Class {
    pub students: Vec<Student>,
    pub tallies: Vec<Tally>,
    /// Points were given, so a score means more than a count.
    pub scored: bool,
    /// Groups of two or more submissions that are the same code up to whitespace, names and
    /// comments (`same::groups`), found from their files by whoever has them; none by default.
    pub same_code: Vec<Vec<String>>,
}

/// Where a check's row stands in the table: the named rules written code broke first (what
/// to re-teach), then the broad checks (random, exhaustive, chaos: each a way to find a rule
/// broken, named in its step), then the rules failed only where a method was still to write
/// or not judged.
fn standing(t: &Tally) -> u8 {
    match (t.check, t.broken_by()) {
        (CheckId::Rule(_), 1..) => 0,
        (CheckId::Rule(_), 0) => 2,
        _ => 1,
    }
}

/// A verdict's one word, as CSV and JSON say it.
pub fn verdict_word(verdict: &Verdict) -> &'static str {
    match verdict {
        Verdict::Passed => "passed",
        Verdict::Failed(_) => "failed",
        Verdict::NotJudged { .. } => "not judged",
        Verdict::NotRun(_) => "not run",
    }
}

/// How a step that reached a method still to write ends.
const NOT_IMPLEMENTED: &str = " not implemented yet";

/// The step a failure ends on, as a class shares it: the differing call without its time
/// (`renew(file, client-1, 1)`), or the method still to write; for a broad check, with the rule
/// it was charged to, since random scripts differ.
pub fn step_of(outcome: &Outcome) -> Option<String> {
    let failure = outcome.failure()?;
    if let Some(method) = &failure.not_implemented {
        return Some(format!("{method}{NOT_IMPLEMENTED}"));
    }
    let line = failure.transcript.last().map_or("", String::as_str);
    let call = line.split(" -> ").next().unwrap_or(line);
    // "t=10.0   renew(...)": the time is the student's case's own, not the step's.
    let call = match call.strip_prefix("t=") {
        Some(rest) => rest.split_once(' ').map_or(rest, |(_, c)| c).trim_start(),
        None => call,
    };
    let call = printable(call).into_owned();
    Some(if outcome.id() == failure.rule.id() {
        call
    } else {
        format!("{}: {call}", failure.rule.id())
    })
}

impl Class {
    /// The class from each student's name and report.
    pub fn of(graded: &[(String, Report)], points: &Points, scored: bool) -> Class {
        let students: Vec<Student> = graded
            .iter()
            .map(|(name, report)| student(name, report, points))
            .collect();
        let mut checks: Vec<CheckId> = Vec::new();
        for (_, report) in graded {
            for o in &report.outcomes {
                if !checks.contains(&o.check) {
                    checks.push(o.check);
                }
            }
        }
        checks.sort();
        let mut tallies: Vec<Tally> = checks
            .into_iter()
            .map(|check| tally(check, graded))
            .collect();
        // The rules to re-teach, most students first; then the broad checks; then the rest,
        // each part most broken by written code first, then most failed, ties in the order the
        // checks run.
        tallies.sort_by(|a, b| {
            standing(a)
                .cmp(&standing(b))
                .then((b.broken_by(), b.failed_by).cmp(&(a.broken_by(), a.failed_by)))
                .then(a.check.cmp(&b.check))
        });
        Class {
            students,
            tallies,
            scored,
            same_code: Vec::new(),
        }
    }

    /// Students whose program did not start or broke the protocol.
    pub fn broken(&self) -> usize {
        self.students.iter().filter(|s| s.error.is_some()).count()
    }

    pub fn json(&self, seconds: f64, jobs: usize) -> Value {
        json!({
            "submissions": self.students.iter().map(|s| json!({
                "name": s.name,
                "language": s.language,
                "passed": s.passed,
                "total": s.total,
                "score": s.score,
                "max_score": s.max_score,
                "failing": ids(&s.failing),
                "not_judged": ids(&s.not_judged),
                "not_run": ids(&s.not_run),
                "nothing_written": s.nothing_written,
                "error": s.error,
                "seconds": s.seconds,
            })).collect::<Vec<_>>(),
            "rules": self.tallies.iter().map(|t| json!({
                "id": t.check.id(),
                "failed_by": t.failed_by,
                "passed_by": t.passed_by,
                "not_judged_by": t.not_judged_by,
                "not_run_by": t.not_run_by,
                "unwritten_by": t.unwritten_by,
                "first_step": t.first_step.as_ref().map(|(s, _)| s),
                "first_step_count": t.first_step.as_ref().map(|(_, n)| n),
            })).collect::<Vec<_>>(),
            "same_code": self.same_code,
            "seconds": seconds,
            "jobs": jobs,
        })
    }
}

fn ids(checks: &[CheckId]) -> Vec<&'static str> {
    checks.iter().map(|c| c.id()).collect()
}

fn student(name: &str, report: &Report, points: &Points) -> Student {
    let with = |which: fn(&Verdict) -> bool| -> Vec<CheckId> {
        let matching = report.outcomes.iter().filter(|o| which(&o.verdict));
        matching.map(|o| o.check).collect()
    };
    Student {
        name: name.to_owned(),
        language: report.language.clone(),
        passed: report.passed(),
        total: report.outcomes.len(),
        score: points.score(report),
        max_score: points.max_score(report),
        failing: with(|v| matches!(v, Verdict::Failed(_))),
        not_judged: with(|v| matches!(v, Verdict::NotJudged { .. })),
        not_run: with(|v| matches!(v, Verdict::NotRun(_))),
        nothing_written: report.passed() == 0
            && report.failed() > 0
            && report.outcomes.iter().all(|o| match &o.verdict {
                Verdict::Failed(f) => f.not_implemented.is_some(),
                _ => true,
            }),
        error: report.error.clone(),
        verdicts: report
            .outcomes
            .iter()
            .map(|o| (o.check, verdict_word(&o.verdict)))
            .collect(),
        seconds: report.seconds,
    }
}

fn tally(check: CheckId, graded: &[(String, Report)]) -> Tally {
    let outcomes: Vec<&Outcome> = graded
        .iter()
        .filter_map(|(_, r)| r.outcomes.iter().find(|o| o.check == check))
        .collect();
    let count = |which: fn(&Verdict) -> bool| outcomes.iter().filter(|o| which(&o.verdict)).count();
    let mut steps: BTreeMap<String, usize> = BTreeMap::new();
    for step in outcomes.iter().filter_map(|o| step_of(o)) {
        *steps.entry(step).or_default() += 1;
    }
    // The most common call of written code (what a teacher brings to the lecture), however
    // many starters were not begun; a method still to write only where no code failed. Ties go
    // to the step first in order, so the row never changes.
    let unwritten = |step: &str| step.ends_with(NOT_IMPLEMENTED);
    let first_step =
        steps.into_iter().fold(
            None,
            |best: Option<(String, usize)>, (step, n)| match &best {
                Some((kept, m))
                    if (unwritten(&step), std::cmp::Reverse(n))
                        >= (unwritten(kept), std::cmp::Reverse(*m)) =>
                {
                    best
                }
                _ => Some((step, n)),
            },
        );
    Tally {
        check,
        passed_by: count(|v| *v == Verdict::Passed),
        failed_by: count(|v| matches!(v, Verdict::Failed(_))),
        not_judged_by: count(|v| matches!(v, Verdict::NotJudged { .. })),
        not_run_by: count(|v| matches!(v, Verdict::NotRun(_))),
        unwritten_by: count(|v| matches!(v, Verdict::Failed(f) if f.not_implemented.is_some())),
        waiting_by: count(|v| matches!(v, Verdict::NotJudged { rule: None, .. })),
        first_step,
    }
}

#[cfg(test)]
mod tests;
