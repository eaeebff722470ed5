use proptest::prelude::*;

use super::*;
use crate::lab::seed::Rule;
use crate::lab::testing::reports::{a_failure, outcome, report};
use crate::sim::text::counted;

/// The run every view's heading names, in the tests that do not read the heading.
const RUN: Run<'static> = Run {
    folder: "subs",
    jobs: 1,
    seconds: 0.0,
    slowest: &[],
    isolation: None,
};

/// A verdict of each kind, the failing ones ending on one of three steps.
fn verdict(kind: u8, step: u8) -> Verdict {
    let rule = Rule::WriteStaleRejected;
    match kind % 4 {
        0 => Verdict::Passed,
        1 => {
            let mut failure = a_failure(rule);
            failure
                .transcript
                .push(format!("t=1.5    write(file, \"v{step}\", {step}) -> ok"));
            Verdict::Failed(failure)
        }
        2 => Verdict::NotJudged {
            rule: Some(rule),
            because: "a difference came first".into(),
        },
        _ => Verdict::NotRun("the program stopped".into()),
    }
}

/// A class of reports: each student a verdict a check over the first `checks` checks.
fn class_of(kinds: &[Vec<(u8, u8)>], error_every: usize) -> Vec<(String, Report)> {
    kinds
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let outcomes = CheckId::all()
                .into_iter()
                .zip(row)
                .map(|(check, &(kind, step))| outcome(check, verdict(kind, step % 3)))
                .collect();
            let mut r = report(outcomes);
            if error_every > 0 && i % error_every == 0 {
                r.error = Some(format!("student {i}'s program stopped"));
            }
            (format!("student-{i:02}"), r)
        })
        .collect()
}

fn a_class() -> impl Strategy<Value = (Vec<Vec<(u8, u8)>>, usize)> {
    let row = prop::collection::vec((0u8..4, 0u8..3), 1..=CheckId::all().len());
    (prop::collection::vec(row, 1..12), 0usize..4)
}

/// The CSV's records, each field unquoted (the fields the tests write hold no line breaks).
fn csv_records(csv: &str) -> Vec<Vec<String>> {
    csv.split("\r\n")
        .filter(|l| !l.is_empty())
        .map(|line| {
            let mut fields = Vec::new();
            let mut field = String::new();
            let mut quoted = false;
            let mut chars = line.chars().peekable();
            while let Some(c) = chars.next() {
                match (c, quoted) {
                    ('"', true) if chars.peek() == Some(&'"') => {
                        field.push('"');
                        chars.next();
                    }
                    ('"', _) => quoted = !quoted,
                    (',', false) => fields.push(std::mem::take(&mut field)),
                    _ => field.push(c),
                }
            }
            fields.push(field);
            fields
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Every check's row counts each student who ran it exactly once, and agrees with the
    /// students' own rows and reports.
    #[test]
    fn each_check_row_counts_every_student_once((kinds, error_every) in a_class()) {
        let graded = class_of(&kinds, error_every);
        let class = Class::of(&graded, &Points::default(), false);
        for t in &class.tallies {
            let ran = graded.iter().filter(|(_, r)| r.outcomes.iter().any(|o| o.check == t.check));
            prop_assert_eq!(
                t.passed_by + t.failed_by + t.not_judged_by + t.not_run_by,
                ran.count()
            );
            let failing = class.students.iter().filter(|s| s.failing.contains(&t.check)).count();
            prop_assert_eq!(t.failed_by, failing);
            match &t.first_step {
                Some((_, n)) => prop_assert!(*n >= 1 && *n <= t.failed_by),
                None => prop_assert_eq!(t.failed_by, 0),
            }
        }
        for (s, (name, r)) in class.students.iter().zip(&graded) {
            prop_assert_eq!(&s.name, name);
            prop_assert_eq!(s.passed, r.passed());
            prop_assert_eq!(s.failing.len(), r.failed());
            prop_assert_eq!(s.not_judged.len(), r.not_judged());
            prop_assert_eq!(s.not_run.len(), r.not_run());
            prop_assert_eq!(s.total, r.outcomes.len());
        }
        // The named rules written code broke first, most students first; then the broad
        // checks; then the rules failed only where a method was still to write, or not judged.
        let standing = |t: &Tally| match (t.check, t.broken_by()) {
            (CheckId::Rule(_), 0) => 2,
            (CheckId::Rule(_), _) => 0,
            _ => 1,
        };
        let order: Vec<(u8, std::cmp::Reverse<usize>)> = class
            .tallies
            .iter()
            .map(|t| (standing(t), std::cmp::Reverse(t.broken_by())))
            .collect();
        prop_assert!(order.windows(2).all(|w| w[0] <= w[1]), "{:?}", order);
    }

    /// JSON, CSV, Markdown and the text table tell the same counts for every student and check.
    #[test]
    fn every_view_tells_the_same_counts((kinds, error_every) in a_class()) {
        let graded = class_of(&kinds, error_every);
        let class = Class::of(&graded, &Points::default(), false);
        let run = Run { folder: "subs", jobs: 2, seconds: 1.25, slowest: &[], isolation: None };
        let json = class.json(1.25, 2);
        let csv = csv_records(&class.csv());
        let text = class.text(run);
        let markdown = class.markdown(run);
        let head = &csv[0];
        // The text and the page open with the same heading, the run's counts in it.
        let heading = format!(
            "fencing-lab grade subs: {}, {} each, 2 at a time, 1.2 s",
            counted(class.students.len() as u64, "submission", "submissions"),
            counted(class.tallies.len() as u64, "check", "checks"),
        );
        prop_assert_eq!(text.lines().next(), Some(heading.as_str()));
        let page_heading = format!("# {}", markdown_cell(&heading));
        prop_assert_eq!(markdown.lines().next(), Some(page_heading.as_str()));
        prop_assert_eq!(csv.len(), class.students.len() + 1);
        for (i, s) in class.students.iter().enumerate() {
            let row = &json["submissions"][i];
            prop_assert_eq!(row["passed"].as_u64(), Some(s.passed as u64));
            prop_assert_eq!(row["failing"].as_array().map(Vec::len), Some(s.failing.len()));
            let record = &csv[i + 1];
            prop_assert_eq!(&record[0], &s.name);
            prop_assert_eq!(&record[2], &s.passed.to_string());
            let failed_in_csv = record.iter().filter(|f| *f == "failed").count();
            prop_assert_eq!(failed_in_csv, s.failing.len());
            for (check, word) in &s.verdicts {
                let column = head.iter().position(|h| h == check.id()).unwrap();
                prop_assert_eq!(&record[column], word);
            }
            let passed = format!("{}/{}", s.passed, s.total);
            let line = text.lines().find(|l| l.starts_with(&s.name)).unwrap();
            prop_assert!(line.contains(&passed), "{}", line);
            let md = markdown.lines().find(|l| l.contains(&markdown_cell(&s.name))).unwrap();
            prop_assert!(md.contains(&passed), "{}", md);
        }
        for (i, t) in class.tallies.iter().enumerate() {
            prop_assert_eq!(json["rules"][i]["id"].as_str(), Some(t.check.id()));
            prop_assert_eq!(json["rules"][i]["failed_by"].as_u64(), Some(t.failed_by as u64));
            let of = format!("{} of {}", t.failed_by, class.students.len());
            let listed = text
                .lines()
                .any(|l| l.split_whitespace().next() == Some(t.check.id()) && l.contains(&of));
            prop_assert_eq!(listed, t.failed_by + t.not_judged_by > 0, "{}", t.check.id());
        }
    }
}

#[test]
fn the_most_common_first_failing_step_is_named_with_its_count() {
    // Three fail on step 2, one on step 1: the row names step 2, "3 of 4".
    let kinds: Vec<Vec<(u8, u8)>> = [2, 2, 1, 2].iter().map(|&s| vec![(1, s)]).collect();
    let class = Class::of(&class_of(&kinds, 0), &Points::default(), false);
    let t = &class.tallies[0];
    assert_eq!(t.failed_by, 4);
    assert_eq!(
        t.first_step,
        Some(("write-stale-rejected: write(file, \"v2\", 2)".to_owned(), 3))
    );
    let text = class.text(RUN);
    assert!(
        text.contains("write-stale-rejected: write(file, \"v2\", 2) (3 of 4)"),
        "{text}"
    );
    // Every check ran for every submission: the table has no column for checks not run.
    assert!(!text.contains("Not run"), "{text}");
}

/// A class whose only failures are methods a blank starter left is told so, not that nothing
/// failed.
#[test]
fn a_class_whose_only_failures_are_a_blank_starters_says_so() {
    let stale = CheckId::Rule(Rule::WriteStaleRejected);
    let mut todo = a_failure(Rule::WriteStaleRejected);
    todo.not_implemented = Some("FencedStorage.write".into());
    let graded = vec![
        (
            "ann".to_owned(),
            report(vec![outcome(stale, Verdict::Passed)]),
        ),
        (
            "bob".to_owned(),
            report(vec![outcome(stale, Verdict::Failed(todo))]),
        ),
    ];
    let class = Class::of(&graded, &Points::default(), false);
    let text = class.text(RUN);
    assert!(
        text.contains("No written code failed a check; only starters not begun did."),
        "{text}"
    );
    assert!(!text.contains("No check failed"), "{text}");
}

#[test]
fn a_tie_between_steps_goes_to_the_first_in_order_every_time() {
    let kinds: Vec<Vec<(u8, u8)>> = [2, 1].iter().map(|&s| vec![(1, s)]).collect();
    let class = Class::of(&class_of(&kinds, 0), &Points::default(), false);
    let (step, n) = class.tallies[0].first_step.clone().unwrap();
    assert_eq!(
        (step.as_str(), n),
        ("write-stale-rejected: write(file, \"v1\", 1)", 1)
    );
}

#[test]
fn a_rules_own_failure_names_its_step_without_the_rule_and_a_starter_method_by_name() {
    let stale = CheckId::Rule(Rule::WriteStaleRejected);
    let own = outcome(stale, Verdict::Failed(a_failure(Rule::WriteStaleRejected)));
    assert_eq!(step_of(&own).as_deref(), Some("write(file, \"a\", 1)"));
    let mut todo = a_failure(Rule::WriteStaleRejected);
    todo.not_implemented = Some("write".into());
    let todo = outcome(stale, Verdict::Failed(todo));
    assert_eq!(step_of(&todo).as_deref(), Some("write not implemented yet"));
    assert_eq!(step_of(&outcome(stale, Verdict::Passed)), None);
}

#[test]
fn a_students_text_is_shown_not_run_in_every_view() {
    let mut r = report(vec![outcome(CheckId::Random, Verdict::Passed)]);
    r.language = "py\u{1b}]0;PWN\u{7}".into();
    let graded = vec![(
        "=HYPERLINK(\"x\") <img src=x onerror=alert(1)> *b*".to_owned(),
        r,
    )];
    let class = Class::of(&graded, &Points::default(), false);
    for view in [class.text(RUN), class.markdown(RUN), class.csv()] {
        assert!(!view.contains('\u{1b}'), "{view}");
        assert!(!view.contains('\u{7}'), "{view}");
    }
    let markdown = class.markdown(RUN);
    assert!(
        markdown.contains("\\<img src=x onerror=alert(1)\\>"),
        "{markdown}"
    );
    assert!(markdown.contains("\\*b\\*"), "{markdown}");
    let csv = class.csv();
    let record = csv.lines().nth(1).unwrap();
    assert!(record.starts_with("\"'=HYPERLINK(\"\"x\"\")"), "{record}");
}

#[test]
fn a_csv_field_is_quoted_only_when_it_must_be() {
    assert_eq!(csv_field("alice"), "alice");
    assert_eq!(csv_field("a,b"), "\"a,b\"");
    assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    assert_eq!(csv_field("-1.5"), "-1.5");
    assert_eq!(csv_field("-rm"), "'-rm");
    assert_eq!(csv_field("@SUM(A1)"), "'@SUM(A1)");
    assert_eq!(csv_field("+1-2"), "'+1-2");
}

#[test]
fn points_turn_the_passed_column_into_a_score() {
    let points = Points::parse("defaults = 5\nrandom = 0.5", "points.toml").unwrap();
    let outcomes = vec![
        outcome(CheckId::Rule(Rule::Defaults), Verdict::Passed),
        outcome(CheckId::Random, Verdict::Failed(a_failure(Rule::Defaults))),
    ];
    let class = Class::of(&[("ada".into(), report(outcomes))], &points, true);
    let text = class.text(RUN);
    let row = text.lines().find(|l| l.starts_with("ada")).unwrap();
    assert!(row.contains("5/5.5"), "{row}");
    assert!(text.contains("Score"), "{text}");
}

#[test]
fn a_class_that_passed_everything_says_so_and_names_no_step() {
    let outcomes = CheckId::all()
        .into_iter()
        .map(|c| outcome(c, Verdict::Passed))
        .collect();
    let class = Class::of(
        &[("ada".into(), report(outcomes))],
        &Points::default(),
        false,
    );
    let text = class.text(RUN);
    assert!(
        text.contains("No check failed for any submission judged."),
        "{text}"
    );
    assert!(!text.contains("Most common"), "{text}");
}

#[test]
fn a_submission_that_did_not_start_shows_why_and_is_counted_as_broken() {
    let mut r = report(vec![outcome(CheckId::Random, Verdict::NotRun("x".into()))]);
    r.error = Some("python3 is not installed".into());
    r.language = String::new();
    let class = Class::of(&[("bob".into(), r.clone())], &Points::default(), false);
    assert_eq!(class.broken(), 1);
    // A program that never started wrote nothing the checks could see, but it is not a blank
    // starter: it failed no check on a method left to write.
    assert!(!class.students[0].nothing_written);
    // Counted one a submission, beside those that ran.
    let passed = report(vec![outcome(CheckId::Random, Verdict::Passed)]);
    let mixed = [
        ("ada".into(), passed.clone()),
        ("bob".into(), r.clone()),
        ("cy".into(), passed),
        ("dee".into(), r.clone()),
    ];
    assert_eq!(Class::of(&mixed, &Points::default(), false).broken(), 2);
    assert_eq!(
        Class::of(&mixed[..1], &Points::default(), false).broken(),
        0
    );
    let text = class.text(RUN);
    let row = text.lines().find(|l| l.starts_with("bob")).unwrap();
    assert!(row.ends_with("did not start (below)"), "{row}");
    assert!(row.contains("0/1"), "{row}");
    assert!(text.contains("\nbob: python3 is not installed\n"), "{text}");
    assert!(
        text.contains("1 submission stopped early or did not start"),
        "{text}"
    );
}

/// Where a submission stopped part way, the text's check table counts the checks it never
/// reached in a column of their own, as the Markdown does.
#[test]
fn checks_not_run_have_a_column_of_their_own_in_the_text() {
    let stale = CheckId::Rule(Rule::WriteStaleRejected);
    let graded = vec![
        (
            "ann".to_owned(),
            report(vec![
                outcome(stale, Verdict::Failed(a_failure(Rule::WriteStaleRejected))),
                outcome(CheckId::Random, Verdict::Passed),
            ]),
        ),
        (
            "bob".to_owned(),
            report(vec![
                outcome(stale, Verdict::Failed(a_failure(Rule::WriteStaleRejected))),
                outcome(CheckId::Random, Verdict::NotRun("stopped".into())),
            ]),
        ),
    ];
    let text = Class::of(&graded, &Points::default(), false).text(RUN);
    let head = text.lines().find(|l| l.starts_with("Check ")).unwrap();
    assert!(head.contains("Not judged  Not run  Most common"), "{head}");
    let row = text.lines().find(|l| l.starts_with("write-stale")).unwrap();
    assert!(
        row.contains("2 of 2     0           0        write("),
        "{row}"
    );
}

#[test]
fn a_text_row_names_five_failing_checks_then_counts_the_rest_and_markdown_names_all() {
    let outcomes: Vec<Outcome> = CheckId::all()
        .into_iter()
        .map(|c| outcome(c, Verdict::Failed(a_failure(Rule::Defaults))))
        .collect();
    let all = outcomes.len();
    let class = Class::of(
        &[("eve".into(), report(outcomes))],
        &Points::default(),
        false,
    );
    let text = class.text(RUN);
    let row = text.lines().find(|l| l.starts_with("eve")).unwrap();
    let named: Vec<&str> = CheckId::all().iter().map(|c| c.id()).collect();
    assert!(
        row.ends_with(&format!("{} and {} more", named[..5].join(", "), all - 5)),
        "{row}"
    );
    let markdown = class.markdown(RUN);
    let row = markdown.lines().find(|l| l.contains("eve")).unwrap();
    assert!(row.contains(&markdown_cell(&named.join(", "))), "{row}");
    // Six are named whole: "and 1 more" would save nothing.
    for failing in 1..=6 {
        let outcomes = CheckId::all()
            .into_iter()
            .enumerate()
            .map(|(i, c)| match i < failing {
                true => outcome(c, Verdict::Failed(a_failure(Rule::Defaults))),
                false => outcome(c, Verdict::Passed),
            })
            .collect();
        let class = Class::of(
            &[("eve".into(), report(outcomes))],
            &Points::default(),
            false,
        );
        let text = class.text(RUN);
        let row = text.lines().find(|l| l.starts_with("eve")).unwrap();
        assert!(row.ends_with(&named[..failing].join(", ")), "{row}");
    }
}

#[test]
fn a_tie_goes_to_a_real_call_over_a_method_not_written_and_a_blank_starter_is_named_so() {
    let stale = CheckId::Rule(Rule::WriteStaleRejected);
    let mut todo = a_failure(Rule::WriteStaleRejected);
    todo.not_implemented = Some("FencedStorage.write".into());
    let real = a_failure(Rule::WriteStaleRejected);
    // "FencedStorage..." sorts before "write(...)": the real call must win the tie anyway,
    // whichever student comes first.
    for (first, second) in [(todo.clone(), real.clone()), (real, todo)] {
        let graded = vec![
            (
                "ann".to_owned(),
                report(vec![outcome(stale, Verdict::Failed(first))]),
            ),
            (
                "bob".to_owned(),
                report(vec![outcome(stale, Verdict::Failed(second))]),
            ),
        ];
        let class = Class::of(&graded, &Points::default(), false);
        let (step, n) = class.tallies[0].first_step.clone().unwrap();
        assert_eq!((step.as_str(), n), ("write(file, \"a\", 1)", 1));
        let blank: Vec<&Student> = class
            .students
            .iter()
            .filter(|s| s.nothing_written)
            .collect();
        assert_eq!(
            blank.len(),
            1,
            "only the student whose every failure is a method to write"
        );
        let text = class.text(RUN);
        let row = text
            .lines()
            .find(|l| l.starts_with(&blank[0].name))
            .unwrap();
        assert!(
            row.ends_with("nothing written yet: 1 check fails on a method the starter left"),
            "{row}"
        );
        assert_eq!(
            class.json(0.0, 1)["submissions"][0]["nothing_written"],
            blank[0].name == "ann"
        );
    }
}

/// Starters not begun do not hide what written code got wrong: one real failure beats three
/// methods still to write, the check with real failures comes first, and the failed count says
/// how many were unwritten.
#[test]
fn unwritten_starters_do_not_swamp_what_the_class_got_wrong() {
    let stale = CheckId::Rule(Rule::WriteStaleRejected);
    let boundary = CheckId::Rule(Rule::ExpiryBoundary);
    let mut todo = a_failure(Rule::WriteStaleRejected);
    todo.not_implemented = Some("FencedStorage.write".into());
    let real = a_failure(Rule::ExpiryBoundary);
    let mut graded: Vec<(String, Report)> = ["ann", "bob", "cy"]
        .into_iter()
        .map(|name| {
            let outcomes = vec![
                outcome(boundary, Verdict::Failed(todo.clone())),
                outcome(stale, Verdict::Failed(todo.clone())),
            ];
            (name.to_owned(), report(outcomes))
        })
        .collect();
    graded.push((
        "dee".to_owned(),
        report(vec![
            outcome(boundary, Verdict::Failed(real)),
            outcome(stale, Verdict::Passed),
        ]),
    ));
    let class = Class::of(&graded, &Points::default(), false);
    let first = &class.tallies[0];
    assert_eq!(first.check, boundary, "real failures first");
    assert_eq!(
        (first.failed_by, first.unwritten_by, first.broken_by()),
        (4, 3, 1)
    );
    let (step, n) = first.first_step.clone().unwrap();
    assert_eq!((step.as_str(), n), ("write(file, \"a\", 1)", 1));
    let text = class.text(RUN);
    let row = text
        .lines()
        .find(|l| l.starts_with("expiry-boundary"))
        .unwrap();
    assert!(row.contains("4 of 4 (3 unwritten)"), "{row}");
    assert!(row.ends_with("write(file, \"a\", 1) (1 of 1)"), "{row}");
    // A check failed only by starters not begun is counted in the text, not listed; the course
    // page lists it, with the method still to write as its step.
    assert!(!text.contains("\nwrite-stale-rejected"), "{text}");
    assert!(
        text.contains("The other check passed for every submission judged but those not begun."),
        "{text}"
    );
    let markdown = class.markdown(RUN);
    let row = markdown
        .lines()
        .find(|l| l.starts_with("| write-stale-rejected"))
        .unwrap();
    assert!(
        row.contains("FencedStorage.write not implemented yet (3 of 3)"),
        "{row}"
    );
    assert!(text.contains("3 submissions are not begun"), "{text}");
    assert_eq!(class.json(0.0, 1)["rules"][0]["unwritten_by"], 3);
}

/// Below the table of failed checks, the checks nobody failed are summed up, and only when
/// there are some; "but those not begun" only when a blank starter failed one of them.
#[test]
fn the_checks_nobody_failed_are_summed_up_only_when_there_are_some() {
    let stale = CheckId::Rule(Rule::WriteStaleRejected);
    let failed = || outcome(stale, Verdict::Failed(a_failure(Rule::WriteStaleRejected)));
    let text_of = |outcomes: Vec<Outcome>| {
        let graded = vec![("ann".to_owned(), report(outcomes))];
        Class::of(&graded, &Points::default(), false).text(RUN)
    };
    let one_clean = text_of(vec![failed(), outcome(CheckId::Random, Verdict::Passed)]);
    assert!(
        one_clean.contains("\nThe other check passed for every submission judged.\n"),
        "{one_clean}"
    );
    let none_clean = text_of(vec![failed()]);
    assert!(!none_clean.contains("The other"), "{none_clean}");
}

/// A text row names the language (or "-" where none was heard) and the checks written code
/// failed; the sentences about submissions that stopped or were not begun appear only when
/// there are some.
#[test]
fn a_row_names_its_language_and_failed_checks_and_no_sentence_counts_zero() {
    let stale = CheckId::Rule(Rule::WriteStaleRejected);
    let failed = outcome(stale, Verdict::Failed(a_failure(Rule::WriteStaleRejected)));
    let graded = vec![(
        "ann".to_owned(),
        report(vec![failed, outcome(CheckId::Random, Verdict::Passed)]),
    )];
    let text = Class::of(&graded, &Points::default(), false).text(RUN);
    let row = text.lines().find(|l| l.starts_with("ann")).unwrap();
    let cells: Vec<&str> = row
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(
        cells,
        ["ann", "python 3.12", "1/2", "write-stale-rejected"],
        "{row}"
    );
    assert!(!text.contains("stopped early"), "{text}");
    assert!(!text.contains("not begun"), "{text}");
    let passed = vec![outcome(CheckId::Random, Verdict::Passed)];
    let text = Class::of(&[("cy".into(), report(passed))], &Points::default(), false).text(RUN);
    let row = text.lines().find(|l| l.starts_with("cy")).unwrap();
    assert!(row.ends_with("1/1     -"), "{row}");
    let mut silent = report(vec![outcome(CheckId::Random, Verdict::NotRun("x".into()))]);
    silent.language = String::new();
    let text = Class::of(&[("bob".into(), silent)], &Points::default(), false).text(RUN);
    let row = text.lines().find(|l| l.starts_with("bob")).unwrap();
    let cells: Vec<&str> = row
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(cells[..3], ["bob", "-", "0/1"], "{row}");
}

/// A submission that stopped part way shows the checks it failed, then its error, never cut
/// before its cause (which may come last: a program's last stderr line): the text row points
/// below its table, where the error is whole, every other view has it whole in the row.
#[test]
fn a_rows_error_follows_its_failures_and_is_told_whole() {
    let stale = CheckId::Rule(Rule::WriteStaleRejected);
    let views_of = |failed: bool, started: bool, error: &str| {
        let first = match failed {
            true => Verdict::Failed(a_failure(Rule::WriteStaleRejected)),
            false => Verdict::Passed,
        };
        let mut r = report(vec![
            outcome(stale, first),
            outcome(CheckId::Random, Verdict::NotRun("x".into())),
        ]);
        r.error = Some(error.to_owned());
        if !started {
            r.language = String::new();
        }
        let class = Class::of(&[("ann".into(), r)], &Points::default(), false);
        (class.text(RUN), class.markdown(RUN), class.csv())
    };
    let row = |view: &str| view.lines().find(|l| l.contains("ann")).unwrap().to_owned();
    let long = format!(
        "in the experiments run before the checks, the program exited; its stderr ends: {}\
         NameError: name 'leases' is not defined",
        "x".repeat(80)
    );
    let (text, markdown, csv) = views_of(true, true, &long);
    assert!(
        row(&text).ends_with("write-stale-rejected; then: stopped (below)"),
        "{text}"
    );
    assert!(text.contains(&format!("\nann: {long}\n")), "{text}");
    assert!(
        row(&markdown).contains(&format!("; then: {} |", markdown_cell(&long))),
        "{markdown}"
    );
    assert!(csv.contains(&long), "{csv}");
    // An error that names the submission first is told as it is.
    let (text, _, _) = views_of(
        false,
        false,
        "ann holds no lab starter: expected lock_service.py",
    );
    assert!(
        row(&text).ends_with("1/2     did not start (below)"),
        "{text}"
    );
    assert!(
        text.contains("\nann holds no lab starter: expected lock_service.py\n"),
        "{text}"
    );
}

/// The text and the page name the longest-running submissions under their heading.
#[test]
fn the_slowest_submissions_are_named_under_the_heading() {
    let class = Class::of(&[("ada".into(), report(vec![]))], &Points::default(), false);
    let slowest = [
        ("ada".to_owned(), 4.14),
        ("ben".to_owned(), 2.0),
        ("cy".to_owned(), 0.01),
    ];
    let run = Run {
        slowest: &slowest,
        ..RUN
    };
    let text = class.text(run);
    assert_eq!(
        text.lines().nth(1),
        Some("slowest: ada 4.1 s, ben 2.0 s"),
        "{text}"
    );
    let markdown = class.markdown(run);
    assert!(
        markdown.contains("\n\nslowest: ada 4.1 s, ben 2.0 s\n\n"),
        "{markdown}"
    );
    assert_eq!(class.text(RUN).lines().nth(1), Some(""));
}

/// The check table leads with the rules to re-teach (named rules written code failed, most
/// students first), then the broad checks, then the rules only starters not begun failed; each
/// row with its most common first failing step and how many share it.
#[test]
fn the_rules_to_reteach_lead_the_table_and_the_broad_checks_follow() {
    let fails = |rule: Rule, step: &str| {
        let mut failure = a_failure(rule);
        failure.transcript.push(format!("t=1.0    {step} -> ok"));
        Verdict::Failed(failure)
    };
    let todo = || {
        let mut failure = a_failure(Rule::Holder);
        failure.not_implemented = Some("LockService.holder".into());
        Verdict::Failed(failure)
    };
    let stale = Rule::WriteStaleRejected;
    let per_key = Rule::PerKey;
    let student = |random: bool, stale_too: bool, per_key_too: bool| {
        let verdict = |yes: bool, v: Verdict| if yes { v } else { Verdict::Passed };
        report(vec![
            outcome(
                CheckId::Rule(per_key),
                verdict(per_key_too, fails(per_key, "write(log, \"a\", 1)")),
            ),
            outcome(
                CheckId::Rule(stale),
                verdict(stale_too, fails(stale, "write(file, \"b\", 1)")),
            ),
            outcome(CheckId::Rule(Rule::Holder), todo()),
            outcome(
                CheckId::Random,
                verdict(random, fails(stale, "write(file, \"c\", 2)")),
            ),
        ])
    };
    let graded = vec![
        ("ada".to_owned(), student(true, true, false)),
        ("ben".to_owned(), student(true, false, true)),
        ("cy".to_owned(), student(true, false, true)),
    ];
    let class = Class::of(&graded, &Points::default(), false);
    let ids: Vec<&str> = class.tallies.iter().map(|t| t.check.id()).collect();
    assert_eq!(ids, ["per-key", "write-stale-rejected", "random", "holder"]);
    let text = class.text(RUN);
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Check "))
        .skip(1)
        .take(3)
        .collect();
    assert!(
        rows[0].starts_with("per-key ") && rows[0].ends_with("write(log, \"a\", 1) (2 of 2)"),
        "{text}"
    );
    assert!(
        rows[1].starts_with("write-stale-rejected ") && rows[1].ends_with("(1 of 1)"),
        "{text}"
    );
    assert!(
        rows[2].starts_with("random ")
            && rows[2].ends_with("write-stale-rejected: write(file, \"c\", 2) (3 of 3)"),
        "{text}"
    );
}

/// Groups of the same code are named in the text, the page and the JSON, with what they mean.
#[test]
fn the_same_code_is_listed_in_every_view_that_reads_the_class() {
    let graded: Vec<(String, Report)> = ["ada", "ben", "cy", "dee", "eve"]
        .into_iter()
        .map(|n| {
            (
                n.to_owned(),
                report(vec![outcome(CheckId::Random, Verdict::Passed)]),
            )
        })
        .collect();
    let mut class = Class::of(&graded, &Points::default(), false);
    assert!(!class.text(RUN).contains("same code"));
    class.same_code = vec![
        vec!["ada".into(), "ben".into()],
        vec!["cy".into(), "dee".into(), "eve".into()],
    ];
    let text = class.text(RUN);
    assert!(
        text.contains("\nsame code: ada, ben\nsame code: cy, dee, eve\nSame code: "),
        "{text}"
    );
    let markdown = class.markdown(RUN);
    assert!(
        markdown.contains("## Same code\n\n- same code: ada, ben\n- same code: cy, dee, eve\n"),
        "{markdown}"
    );
    assert_eq!(
        class.json(0.0, 1)["same_code"],
        serde_json::json!([["ada", "ben"], ["cy", "dee", "eve"]])
    );
}
