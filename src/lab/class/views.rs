//! The class told for people (a text table), for a course's pages (Markdown) and for a grade
//! sheet (CSV). Every view reads the same [`Class`]; none counts anything itself.

use super::{Class, Student, Tally};
use crate::sim::text::{counted, printable};

/// What every view's heading says about the run.
#[derive(Clone, Copy, Debug)]
pub struct Run<'a> {
    /// The folder of submissions, as the teacher named it.
    pub folder: &'a str,
    pub jobs: usize,
    pub seconds: f64,
    /// The submissions that took longest, slowest first, with their seconds.
    pub slowest: &'a [(String, f64)],
    /// How the submissions were kept from each other's folders, if they were.
    pub isolation: Option<&'a str>,
}

impl Run<'_> {
    fn heading(&self, class: &Class) -> String {
        format!(
            "fencing-lab grade {}: {}, {} each, {} at a time, {:.1} s",
            printable(self.folder),
            counted(class.students.len() as u64, "submission", "submissions"),
            counted(class.tallies.len() as u64, "check", "checks"),
            self.jobs,
            self.seconds
        )
    }

    /// "slowest: ada 4.1 s, ben 2.0 s", or nothing when no submission was timed.
    fn slowest_line(&self) -> Option<String> {
        let named: Vec<String> = self
            .slowest
            .iter()
            // A submission that took no time to speak of (one that did not start) is not slow.
            .filter(|(_, seconds)| *seconds >= 0.05)
            .map(|(name, seconds)| format!("{} {seconds:.1} s", printable(name)))
            .collect();
        (!named.is_empty()).then(|| format!("slowest: {}", named.join(", ")))
    }
}

impl Class {
    /// A table a student a row, then a check a row, most failed first.
    pub fn text(&self, run: Run) -> String {
        let mut out = format!("{}\n", run.heading(self));
        if let Some(slowest) = run.slowest_line() {
            out.push_str(&format!("{slowest}\n"));
        }
        if let Some(isolation) = run.isolation {
            out.push_str(&format!("isolation: {isolation}\n"));
        }
        out.push('\n');
        let rows: Vec<[String; 4]> = self
            .students
            .iter()
            .map(|s| {
                [
                    printable(&s.name).into_owned(),
                    language_of(s),
                    self.result_of(s),
                    failing_of(s, Some(TEXT_FAILING_SHOWN)),
                ]
            })
            .collect();
        let result = if self.scored { "Score" } else { "Passed" };
        let head = ["Submission", "Language", result, "Failing"].map(String::from);
        out.push_str(&table(&head, &rows));
        out.push('\n');
        // Why a submission stopped, whole: its cause may come last (a program's last stderr
        // line), so the row only points here.
        let stopped: Vec<String> = self.students.iter().filter_map(why_stopped).collect();
        if !stopped.is_empty() {
            out.push_str(&stopped.join("\n"));
            out.push_str("\n\n");
        }
        // What written code got wrong; a check failed only where a method was still to write
        // is counted below, not listed.
        let (failed, clean): (Vec<&Tally>, Vec<&Tally>) = self
            .tallies
            .iter()
            .partition(|t| t.broken_by() + t.not_judged_by_a_rule() > 0);
        if failed.is_empty() && self.tallies.iter().any(|t| t.failed_by > 0) {
            out.push_str("No written code failed a check; only starters not begun did.\n");
        } else if failed.is_empty() {
            out.push_str("No check failed for any submission judged.\n");
        } else {
            let rows: Vec<[String; 4]> = failed.iter().map(|t| self.tally_row(t)).collect();
            let head = [
                "Check",
                "Failed by",
                "Not judged",
                "Most common first failing step",
            ]
            .map(String::from);
            if self.tallies.iter().any(|t| t.not_run_by > 0) {
                // Checks a stopped submission never reached: counted in a column of their own.
                let with_not_run = |[check, failed, judged, step]: [String; 4], not_run: usize| {
                    [check, failed, judged, not_run.to_string(), step]
                };
                let rows: Vec<[String; 5]> = rows
                    .into_iter()
                    .zip(&failed)
                    .map(|(row, t)| with_not_run(row, t.not_run_by))
                    .collect();
                let [check, failed, judged, step] = head;
                let head = [check, failed, judged, "Not run".to_owned(), step];
                out.push_str(&table(&head, &rows));
            } else {
                out.push_str(&table(&head, &rows));
            }
        }
        let unbegun_only = clean.iter().filter(|t| t.failed_by > 0).count();
        if !clean.is_empty() && !failed.is_empty() {
            let others = match clean.len() {
                1 => "The other check".to_owned(),
                n => format!("The other {n} checks"),
            };
            let but = if unbegun_only > 0 {
                " but those not begun"
            } else {
                ""
            };
            out.push_str(&format!(
                "{others} passed for every submission judged{but}.\n"
            ));
        }
        let broken = self.broken();
        if broken > 0 {
            out.push_str(&format!(
                "{} stopped early or did not start: {} checks not run count as not passed.\n",
                counted(broken as u64, "submission", "submissions"),
                if broken == 1 { "its" } else { "their" }
            ));
        }
        let unwritten = self.students.iter().filter(|s| s.nothing_written).count();
        if unwritten > 0 {
            out.push_str(&format!(
                "{} not begun: a check failed on a method still to write is counted as \
                 \"unwritten\", and its step is shown only where no written code failed.\n",
                counted(unwritten as u64, "submission is", "submissions are")
            ));
        }
        if !self.same_code.is_empty() {
            out.push('\n');
            for group in &self.same_code {
                out.push_str(&format!("same code: {}\n", names_of(group)));
            }
            out.push_str(SAME_CODE);
            out.push('\n');
        }
        out
    }

    /// The same tables in Markdown, every cell escaped so a student's text stays text.
    pub fn markdown(&self, run: Run) -> String {
        let mut out = format!("# {}\n\n", markdown_cell(&run.heading(self)));
        if let Some(isolation) = run.isolation {
            out.push_str(&format!(
                "{}\n\n",
                markdown_cell(&format!("Isolation: {isolation}."))
            ));
        }
        if let Some(slowest) = run.slowest_line() {
            out.push_str(&format!("{}\n\n", markdown_cell(&slowest)));
        }
        let result = if self.scored { "Score" } else { "Passed" };
        out.push_str(&format!("| Submission | Language | {result} | Failing |\n"));
        out.push_str("|---|---|---:|---|\n");
        for s in &self.students {
            let cells = [
                &s.name,
                &language_of(s),
                &self.result_of(s),
                &failing_of(s, None),
            ];
            out.push_str(&markdown_row(&cells));
        }
        out.push_str(
            "\n| Check | Failed by | Not judged | Not run | Most common first failing step |\n",
        );
        out.push_str("|---|---:|---:|---:|---|\n");
        for t in &self.tallies {
            let [check, failed, not_judged, step] = self.tally_row(t);
            let not_run = t.not_run_by.to_string();
            out.push_str(&markdown_row(&[
                &check,
                &failed,
                &not_judged,
                &not_run,
                &step,
            ]));
        }
        if !self.same_code.is_empty() {
            out.push_str("\n## Same code\n\n");
            for group in &self.same_code {
                out.push_str(&format!(
                    "- same code: {}\n",
                    markdown_cell(&names_of(group))
                ));
            }
            out.push_str(&format!("\n{}\n", markdown_cell(SAME_CODE)));
        }
        out
    }

    /// A row a submission: its counts, its error, then each check's verdict in the order the
    /// checks run, for a spreadsheet.
    pub fn csv(&self) -> String {
        let mut checks: Vec<_> = self.tallies.iter().map(|t| t.check).collect();
        checks.sort();
        let mut head: Vec<String> = ["submission", "language", "passed", "total", "score"]
            .into_iter()
            .chain(["max_score", "error"])
            .map(String::from)
            .collect();
        head.extend(checks.iter().map(|c| c.id().to_owned()));
        let mut out = csv_row(&head);
        for s in &self.students {
            let mut row = vec![
                s.name.clone(),
                s.language.clone(),
                s.passed.to_string(),
                s.total.to_string(),
                s.score.to_string(),
                s.max_score.to_string(),
                s.error.clone().unwrap_or_default(),
            ];
            row.extend(checks.iter().map(|check| {
                let verdict = s.verdicts.iter().find(|(c, _)| c == check);
                verdict.map_or("", |(_, word)| *word).to_owned()
            }));
            out.push_str(&csv_row(&row));
        }
        out
    }

    fn result_of(&self, s: &Student) -> String {
        if self.scored {
            format!("{}/{}", s.score, s.max_score)
        } else {
            format!("{}/{}", s.passed, s.total)
        }
    }

    fn tally_row(&self, t: &Tally) -> [String; 4] {
        let of = self.students.len();
        // A step of written code is counted among those whose code failed; a method still to
        // write among those who have not begun.
        let step = match &t.first_step {
            Some((step, n)) if t.broken_by() > 0 => format!("{step} ({n} of {})", t.broken_by()),
            Some((step, n)) => format!("{step} ({n} of {})", t.unwritten_by),
            None => "-".to_owned(),
        };
        let failed = match t.unwritten_by {
            0 => format!("{} of {of}", t.failed_by),
            n => format!("{} of {of} ({n} unwritten)", t.failed_by),
        };
        let not_judged = match t.waiting_by {
            0 => t.not_judged_by.to_string(),
            n => format!("{} ({n} unwritten)", t.not_judged_by),
        };
        [t.check.id().to_owned(), failed, not_judged, step]
    }
}

/// What a "same code" line means.
const SAME_CODE: &str = "Same code: the student files are the same once whitespace, comments \
                         and the names chosen are set aside (a starter not begun aside): a hint \
                         to look at them side by side, not a verdict.";

/// "ada, ben", each name shown as it is.
fn names_of(group: &[String]) -> String {
    let names: Vec<String> = group.iter().map(|n| printable(n).into_owned()).collect();
    names.join(", ")
}

fn language_of(s: &Student) -> String {
    if s.language.is_empty() {
        "-".to_owned()
    } else {
        printable(&s.language).into_owned()
    }
}

/// How many failing checks a text row names before it counts the rest: a starter nobody filled
/// in fails every check, and a row a screen long hides the class.
const TEXT_FAILING_SHOWN: usize = 5;

/// A submission's error, whole, on a line of its own below the text table: led by its name
/// unless the error itself begins with it (`eve holds no lab starter: ...`).
fn why_stopped(s: &Student) -> Option<String> {
    let error = printable(s.error.as_deref()?);
    let name = printable(&s.name);
    Some(if error.starts_with(&format!("{name} ")) {
        error.into_owned()
    } else {
        format!("{name}: {error}")
    })
}

/// The checks failed (the first `most` of them, then how many more), or why none could run.
fn failing_of(s: &Student, most: Option<usize>) -> String {
    // Not judged counts as not passed, as every format scores it: named, and marked.
    let failing: Vec<String> = s
        .failing
        .iter()
        .map(|c| c.id().to_owned())
        .chain(
            s.not_judged
                .iter()
                .map(|c| format!("{} (not judged)", c.id())),
        )
        .collect();
    let mut text = match most {
        _ if failing.is_empty() => "-".to_owned(),
        _ if s.nothing_written => format!(
            "nothing written yet: {} on a method the starter left",
            counted(s.failing.len() as u64, "check fails", "checks fail")
        ),
        Some(most) if failing.len() > most + 1 => format!(
            "{} and {} more",
            failing[..most].join(", "),
            failing.len() - most
        ),
        _ => failing.join(", "),
    };
    if let Some(error) = &s.error {
        // A text row says where the error is, told whole under the table (never cut before its
        // cause); every other view has it in the row.
        let error = match most {
            Some(_) if s.language.is_empty() => "did not start (below)".to_owned(),
            Some(_) => "stopped (below)".to_owned(),
            None => printable(error).into_owned(),
        };
        text = if failing.is_empty() {
            error
        } else {
            format!("{text}; then: {error}")
        };
    }
    text
}

/// Columns padded to their widest cell; the last column is left to run on.
fn table<const N: usize>(head: &[String; N], rows: &[[String; N]]) -> String {
    let mut widths = head.each_ref().map(|h| h.chars().count());
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    // The last column is padded like the others; the line's end is trimmed.
    let line = |cells: &[String; N]| {
        let mut line = String::new();
        for (cell, width) in cells.iter().zip(widths) {
            let pad = width - cell.chars().count();
            line.push_str(&format!("{cell}{}  ", " ".repeat(pad)));
        }
        line.trim_end().to_owned() + "\n"
    };
    let mut out = line(head);
    for row in rows {
        out.push_str(&line(row));
    }
    out
}

/// A Markdown table cell: control characters shown, every character Markdown or HTML would read
/// escaped, so a name like `<img onerror>` or `*bold*` is printed as it is.
pub fn markdown_cell(text: &str) -> String {
    let mut out = String::new();
    for c in printable(text).chars() {
        if "\\`*_[]<>|~#&!".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn markdown_row(cells: &[&String]) -> String {
    let cells: Vec<String> = cells.iter().map(|c| markdown_cell(c)).collect();
    format!("| {} |\n", cells.join(" | "))
}

/// A CSV field, quoted as RFC 4180 asks; text a spreadsheet would run as a formula (starting
/// with `=`, `+`, `-`, `@`, a tab or a CR) is prefixed with `'` so it stays text.
pub fn csv_field(text: &str) -> String {
    let text = printable(text);
    let numeric = text.parse::<f64>().is_ok();
    let formula = !numeric && text.starts_with(['=', '+', '-', '@', '\t', '\r']);
    let text = if formula {
        format!("'{text}")
    } else {
        text.into_owned()
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

fn csv_row(cells: &[String]) -> String {
    let fields: Vec<String> = cells.iter().map(|c| csv_field(c)).collect();
    fields.join(",") + "\r\n"
}
