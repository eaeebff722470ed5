use super::*;
use crate::lab::check::CheckId;
use crate::lab::points::Points;
use crate::lab::seed::Rule;
use crate::lab::testing::reports::{outcome, report, sample};

#[test]
fn the_report_reads_as_a_test_runner_prints_it() {
    assert_eq!(
        text(&sample()),
        "fencing-lab check my-lab (python 3.12)\n\
         ✓ defaults  (3 steps)\n\
         ✗ write-stale-rejected  (3 steps)\n\
         \x20   rule: The storage rejects any write whose token is lower than the highest it has \
         already accepted for the key.\n\
         \x20   t=0.0    new LockService(clock, 10.0, 1) -> ok\n\
         \x20 ✗ t=0.0    write(file, \"a\", 1) -> ok (returned None)\n\
         \x20     but the seed refuses it: token 1 < 2\n\
         \x20     note: write returned None, which counts as accepted\n\
         \x20   replay: fencing-lab check my-lab --only write-stale-rejected\n\
         - rejected-changes-nothing  (3 steps)  not judged: step 2, write(file, \"three\", 3), \
         breaks write-stale-rejected first\n\
         ✗ chaos  (3 steps)  breaks write-stale-rejected\n\
         \x20   rule: The storage rejects any write whose token is lower than the highest it has \
         already accepted for the key.\n\
         \x20   t=0.0    new LockService(clock, 10.0, 1) -> ok\n\
         \x20 ✗ t=0.0    write(file, \"a\", 1) -> ok (returned None)\n\
         \x20     but the seed refuses it: token 1 < 2\n\
         \x20     note: write returned None, which counts as accepted\n\
         \x20     note: seed 3: your storage accepted 12 and rejected 0\n\
         \x20   replay: fencing-lab check --only chaos my-lab\n\
         \x20   watch it: fencing-lab tui chaos --seed 3 --impl my-lab\n\
         1 of 4 checks passed, 2 failed, 1 not judged; 12,345 calls in 0.5 s\n"
    );
}

#[test]
fn the_report_as_json_has_every_verdict_and_what_it_was_charged_to() {
    let v = json(&sample(), &Points::default());
    assert_eq!(
        (
            v["passed"].as_u64(),
            v["failed"].as_u64(),
            v["not_judged"].as_u64(),
            v["total"].as_u64()
        ),
        (Some(1), Some(2), Some(1), Some(4))
    );
    assert_eq!(v["error"], Value::Null);
    let checks = v["checks"].as_array().unwrap();
    assert_eq!(checks[0]["verdict"], "passed");
    assert_eq!(checks[0]["passed"], true);
    assert_eq!(checks[0]["transcript"], Value::Null);
    assert_eq!(checks[1]["verdict"], "failed");
    assert_eq!(checks[1]["charged_to"], "write-stale-rejected");
    assert_eq!(checks[1]["expected"], "the seed refuses it: token 1 < 2");
    assert_eq!(checks[1]["transcript"].as_array().unwrap().len(), 2);
    assert_eq!(checks[2]["verdict"], "not_judged");
    assert_eq!(checks[2]["charged_to"], "write-stale-rejected");
    assert!(checks[2]["because"].as_str().unwrap().starts_with("step 2"));
    assert_eq!(
        checks[3]["watch"],
        "fencing-lab tui chaos --seed 3 --impl my-lab"
    );
    // Scored one point a check by default, or by a points file.
    assert_eq!(
        (v["score"].as_f64(), v["max_score"].as_f64()),
        (Some(1.0), Some(4.0))
    );
    let points = Points::parse("defaults = 3\nchaos = 2", "p.toml").unwrap();
    let v = json(&sample(), &points);
    assert_eq!(
        (v["score"].as_f64(), v["max_score"].as_f64()),
        (Some(3.0), Some(7.0))
    );
    let scored: Vec<(f64, f64)> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["points"].as_f64().unwrap(),
                c["max_points"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(scored, vec![(3.0, 3.0), (0.0, 1.0), (0.0, 1.0), (0.0, 2.0)]);
}

/// A protocol error is said before the counts, and the checks it stopped are counted as not run.
#[test]
fn a_report_that_stopped_says_why_and_counts_what_did_not_run() {
    let mut r = report(vec![
        outcome(CheckId::Rule(Rule::Defaults), Verdict::Passed),
        outcome(
            CheckId::Random,
            Verdict::NotRun("the program stopped answering during it".into()),
        ),
    ]);
    r.error =
        Some("the program exited with status 3 at request 9 (acquire(file, client-1))".into());
    let out = text(&r);
    assert!(
        out.ends_with(
            "- random  not run: the program stopped answering during it\n\
         stopped: the program exited with status 3 at request 9 (acquire(file, client-1))\n\
         1 of 2 checks passed, 1 not run; 12,345 calls in 0.5 s\n"
        ),
        "{out}"
    );
    assert!(!r.all_passed());
    assert_eq!(json(&r, &Points::default())["not_run"], 1);
}

/// Whatever the student's program sends reaches the text report escaped.
#[test]
fn a_programs_text_is_escaped_in_every_line() {
    let mut r = sample();
    r.language = "py\u{1b}]0;PWN\u{7}".into();
    if let Verdict::Failed(f) = &mut r.outcomes[1].verdict {
        f.expected = "x\u{1b}[2J".into();
        f.transcript[1] = "t=0.0    write -> refused (\"\u{1b}[31mred\")".into();
    }
    let out = text(&r);
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    assert!(out.starts_with("fencing-lab check my-lab (py\\u{1b}]0;PWN\\u{7})\n"));
    assert!(out.contains("but x\\u{1b}[2J"));
}
