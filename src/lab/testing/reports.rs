//! Reports made by hand, for the tests of what reads them (text, JSON, the autograders'
//! formats, grading a class).

use crate::lab::check::{CheckId, Failure, Outcome, Report, Verdict};
use crate::lab::seed::Rule;

/// A check with `verdict`.
pub fn outcome(check: CheckId, verdict: Verdict) -> Outcome {
    Outcome {
        check,
        words: format!("the rule {}", check.id()),
        scope: "3 steps".into(),
        verdict,
    }
}

/// A failure of `rule` with a two-line transcript.
pub fn a_failure(rule: Rule) -> Box<Failure> {
    Box::new(Failure {
        rule,
        transcript: vec![
            "t=0.0    new LockService(clock, 10.0, 1) -> ok".into(),
            "t=0.0    write(file, \"a\", 1) -> ok (returned None)".into(),
        ],
        expected: "the seed refuses it: token 1 < 2".into(),
        hint: Some("write returned None, which counts as accepted".into()),
        note: None,
        replay: "fencing-lab check my-lab --only write-stale-rejected".into(),
        watch: None,
        chaos_seed: None,
        played: Vec::new(),
        lease_seconds: 10.0,
        first_token: 1,
        not_implemented: None,
        rule_words: rule.words().into(),
    })
}

/// A report of `outcomes` with no error.
pub fn report(outcomes: Vec<Outcome>) -> Report {
    Report {
        target: "my-lab".into(),
        language: "python 3.12".into(),
        outcomes,
        calls: 12345,
        seconds: 0.46,
        error: None,
        stderr: Vec::new(),
        stops: Vec::new(),
    }
}

/// A pass, a failure, a check not judged and a failed chaos check.
pub fn sample() -> Report {
    let stale = Rule::WriteStaleRejected;
    let mut chaos = a_failure(stale);
    chaos.note = Some("seed 3: your storage accepted 12 and rejected 0".into());
    chaos.replay = "fencing-lab check --only chaos my-lab".into();
    chaos.watch = Some("fencing-lab tui chaos --seed 3 --impl my-lab".into());
    report(vec![
        outcome(CheckId::Rule(Rule::Defaults), Verdict::Passed),
        outcome(CheckId::Rule(stale), Verdict::Failed(a_failure(stale))),
        outcome(
            CheckId::Rule(Rule::RejectedChangesNothing),
            Verdict::NotJudged {
                rule: Some(stale),
                because: "step 2, write(file, \"three\", 3), breaks write-stale-rejected first"
                    .into(),
            },
        ),
        outcome(CheckId::Chaos, Verdict::Failed(chaos)),
    ])
}
