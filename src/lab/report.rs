//! `check`'s report in words: as a test runner prints it (each check's lines as soon as it is
//! decided), and as JSON.

use serde_json::{json, Value};

use super::check::{Failure, Outcome, Report, Verdict};
use super::points::Points;
use crate::sim::text::{counted, printable};

/// Every line a student's text may reach is escaped: a program's messages cannot move the
/// grader's cursor or retitle their terminal.
fn safe(text: &str) -> String {
    printable(text).into_owned()
}

/// The lines of one check, as `check` prints them the moment it is decided.
pub fn text_of(outcome: &Outcome) -> String {
    let scope = if outcome.scope.is_empty() {
        String::new()
    } else {
        format!("  ({})", outcome.scope)
    };
    match &outcome.verdict {
        Verdict::Passed => format!("✓ {}{scope}\n", outcome.id()),
        Verdict::NotJudged { because, .. } => {
            format!("- {}{scope}  not judged: {}\n", outcome.id(), safe(because))
        }
        Verdict::NotRun(why) => format!("- {}  not run: {}\n", outcome.id(), safe(why)),
        Verdict::Failed(failure) => failed(outcome, failure),
    }
}

fn failed(outcome: &Outcome, f: &Failure) -> String {
    // A method still to write: one line says what to do.
    if let Some(method) = &f.not_implemented {
        return format!(
            "✗ {}{}  {} is not implemented yet: write it next\n",
            outcome.id(),
            scope_of(outcome),
            safe(method)
        );
    }
    let broad = outcome.id() != f.rule.id();
    let mut out = if broad {
        format!(
            "✗ {}{}  breaks {}\n",
            outcome.id(),
            scope_of(outcome),
            f.rule
        )
    } else {
        format!("✗ {}{}\n", outcome.id(), scope_of(outcome))
    };
    out.push_str(&format!("    rule: {}\n", f.rule_words));
    let last = f.transcript.len().saturating_sub(1);
    for (i, line) in f.transcript.iter().enumerate() {
        let mark = if i == last { "  ✗ " } else { "    " };
        out.push_str(&format!("{mark}{}\n", safe(line)));
    }
    out.push_str(&format!("      but {}\n", safe(&f.expected)));
    for extra in [&f.hint, &f.note].into_iter().flatten() {
        out.push_str(&format!("      note: {}\n", safe(extra)));
    }
    out.push_str(&format!("    replay: {}\n", f.replay));
    if let Some(watch) = &f.watch {
        out.push_str(&format!("    watch it: {watch}\n"));
    }
    out
}

fn scope_of(outcome: &Outcome) -> String {
    if outcome.scope.is_empty() {
        String::new()
    } else {
        format!("  ({})", outcome.scope)
    }
}

/// The report's first line.
pub fn heading(target: &str, language: &str) -> String {
    if language.is_empty() {
        // A program that never said hello has no language to name.
        return format!("fencing-lab check {}\n", safe(target));
    }
    format!("fencing-lab check {} ({})\n", safe(target), safe(language))
}

/// The report's last lines: the times the program stopped answering and was started again,
/// why the check stopped, if it did, and the counts.
pub fn summary(report: &Report) -> String {
    let mut out = String::new();
    if let Some(line) = stops_line(report) {
        out.push_str(&line);
    }
    if let Some(error) = &report.error {
        out.push_str(&format!("stopped: {}\n", safe(error)));
    }
    let mut counts = vec![format!(
        "{} of {} checks passed",
        report.passed(),
        report.outcomes.len()
    )];
    for (n, what) in [
        (report.failed(), "failed"),
        (report.not_judged(), "not judged"),
        (report.not_run(), "not run"),
    ] {
        if n > 0 {
            counts.push(format!("{n} {what}"));
        }
    }
    out.push_str(&format!(
        "{}; {} in {:.1} s\n",
        counts.join(", "),
        counted(report.calls, "call", "calls"),
        report.seconds
    ));
    if !report.stderr.is_empty() {
        let lines: Vec<String> = report.stderr.iter().map(|l| safe(l)).collect();
        out.push_str(&format!(
            "your program wrote on stderr, last: {}\n",
            lines.join(" | ")
        ));
    }
    out
}

/// "your program stopped answering 3 times and was started again each time, so the checks
/// went on: at acquire(file, client-2) in lease-live (it did not answer within 2.0 s), ...".
fn stops_line(report: &Report) -> Option<String> {
    let first = report.stops.first()?;
    let times = counted(report.stops.len() as u64, "time", "times");
    let mut places: Vec<String> = Vec::new();
    for stop in &report.stops {
        let place = format!("{} in {}", safe(&stop.call), stop.during);
        if !places.contains(&place) {
            places.push(place);
        }
    }
    let shown = places.len().min(4);
    let more = match places.len() - shown {
        0 => String::new(),
        n => format!(", and {} more", counted(n as u64, "place", "places")),
    };
    Some(format!(
        "your program stopped answering {times} and was started again each time, so the checks \
         went on (it {}): at {}{more}\n",
        safe(&first.how),
        places[..shown].join(", ")
    ))
}

/// The whole report as a test runner prints it.
pub fn text(report: &Report) -> String {
    let mut out = heading(&report.target, &report.language);
    for outcome in &report.outcomes {
        out.push_str(&text_of(outcome));
    }
    out.push_str(&summary(report));
    out
}

/// One check as JSON, with what it scored of what it is worth.
pub fn check_json(outcome: &Outcome, points: &Points) -> Value {
    let worth = points.of(outcome.check);
    let failure = outcome.failure();
    let (verdict, because) = match &outcome.verdict {
        Verdict::Passed => ("passed", None),
        Verdict::Failed(_) => ("failed", None),
        Verdict::NotJudged { because, .. } => ("not_judged", Some(because.clone())),
        Verdict::NotRun(why) => ("not_run", Some(why.clone())),
    };
    let charged = match &outcome.verdict {
        Verdict::Failed(f) => Some(f.rule.id()),
        Verdict::NotJudged { rule, .. } => rule.map(|r| r.id()),
        _ => None,
    };
    json!({
        "id": outcome.id(),
        "rule": outcome.words,
        "scope": outcome.scope,
        "verdict": verdict,
        "passed": outcome.passed(),
        "points": if outcome.passed() { worth } else { 0.0 },
        "max_points": worth,
        "charged_to": charged,
        "charged_rule": failure.map(|f| f.rule_words.clone()),
        "not_implemented": failure.and_then(|f| f.not_implemented.clone()),
        "because": because,
        "transcript": failure.map(|f| f.transcript.clone()),
        "expected": failure.map(|f| f.expected.clone()),
        "hint": failure.and_then(|f| f.hint.clone()),
        "note": failure.and_then(|f| f.note.clone()),
        "replay": failure.map(|f| f.replay.clone()),
        "watch": failure.and_then(|f| f.watch.clone()),
    })
}

/// The whole report as JSON, scored by `points`. Strings are the program's own, escaped by
/// JSON itself.
pub fn json(report: &Report, points: &Points) -> Value {
    json!({
        "target": report.target,
        "language": report.language,
        "passed": report.passed(),
        "failed": report.failed(),
        "not_judged": report.not_judged(),
        "not_run": report.not_run(),
        "total": report.outcomes.len(),
        "score": points.score(report),
        "max_score": points.max_score(report),
        "calls": report.calls,
        "seconds": report.seconds,
        "error": report.error,
        "stderr": report.stderr,
        "stops": report
            .stops
            .iter()
            .map(|s| json!({"call": s.call, "how": s.how, "during": s.during}))
            .collect::<Vec<_>>(),
        "checks": report
            .outcomes
            .iter()
            .map(|o| check_json(o, points))
            .collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests;
