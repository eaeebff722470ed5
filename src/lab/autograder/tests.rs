use super::*;
use crate::lab::check::CheckId;
use crate::lab::seed::Rule;
use crate::lab::testing::reports::{a_failure, outcome, report, sample};

/// Each test case of the JUnit XML: its name, and what it holds (`failure`, `skipped`,
/// `error`, or nothing for a pass) with that element's `message` and `type`.
fn cases(xml: &str) -> Vec<(String, String, String, String)> {
    let doc = roxmltree::Document::parse(xml).expect("JUnit output is XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|case| {
            let inner = case
                .children()
                .find(|c| c.is_element() && !c.has_tag_name("system-err"));
            let (kind, message, ty) = match inner {
                None => ("passed".into(), String::new(), String::new()),
                Some(e) => (
                    e.tag_name().name().to_owned(),
                    e.attribute("message").unwrap_or_default().to_owned(),
                    e.attribute("type").unwrap_or_default().to_owned(),
                ),
            };
            (
                case.attribute("name").unwrap().to_owned(),
                kind,
                message,
                ty,
            )
        })
        .collect()
}

#[test]
fn junit_has_a_test_case_a_check_with_its_verdict_and_rule() {
    let xml = junit(&sample());
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("tests"), Some("4"));
    // Not judged is not passed, in JUnit as in every score: a failure of its own type.
    assert_eq!(suite.attribute("failures"), Some("3"));
    assert_eq!(suite.attribute("skipped"), Some("0"));
    assert_eq!(suite.attribute("errors"), Some("0"));
    assert_eq!(
        cases(&xml),
        vec![
            (
                "defaults".into(),
                "passed".into(),
                String::new(),
                String::new()
            ),
            (
                "write-stale-rejected".into(),
                "failure".into(),
                "breaks write-stale-rejected: the seed refuses it: token 1 < 2".into(),
                "write-stale-rejected".into(),
            ),
            (
                "rejected-changes-nothing".into(),
                "failure".into(),
                "not judged: step 2, write(file, \"three\", 3), breaks write-stale-rejected first"
                    .into(),
                "not-judged".into(),
            ),
            (
                "chaos".into(),
                "failure".into(),
                "breaks write-stale-rejected: the seed refuses it: token 1 < 2".into(),
                "write-stale-rejected".into(),
            ),
        ]
    );
    // The failure's text is the transcript `check` prints.
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert_eq!(
        failure.text().unwrap(),
        text_of(&sample().outcomes[1]),
        "the failure's body"
    );
}

#[test]
fn a_protocol_error_keeps_the_checks_before_it_and_is_an_error_case() {
    let mut r = report(vec![
        outcome(CheckId::Rule(Rule::Defaults), Verdict::Passed),
        outcome(
            CheckId::Chaos,
            Verdict::NotRun("the program stopped before it".into()),
        ),
    ]);
    r.error = Some("the program exited with status 3 at request 40 (holder(file))".into());
    r.stderr = vec!["Traceback\u{1b}[2J".into(), "SystemExit: 3".into()];
    let xml = junit(&r);
    assert_eq!(
        cases(&xml),
        vec![
            (
                "defaults".into(),
                "passed".into(),
                String::new(),
                String::new()
            ),
            (
                "chaos".into(),
                "failure".into(),
                "not run: the program stopped before it".into(),
                "not-run".into()
            ),
            (
                PROTOCOL_CASE.into(),
                "error".into(),
                "the program exited with status 3 at request 40 (holder(file))".into(),
                "protocol".into()
            ),
        ]
    );
    // The stderr lines come along, escaped.
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let err = doc
        .descendants()
        .find(|n| n.has_tag_name("system-err"))
        .unwrap();
    assert_eq!(err.text(), Some("Traceback\\u{1b}[2J\nSystemExit: 3"));
    // Gradescope says it too, and scores what passed.
    let results = gradescope(&r, &Points::default());
    assert_eq!(results["score"], 1.0);
    let output = results["output"].as_str().unwrap();
    assert!(
        output.contains("The check stopped: the program exited with status 3"),
        "{output}"
    );
}

#[test]
fn gradescope_scores_each_check_by_its_points() {
    let points = Points::parse("defaults = 2\nchaos = 5\n", "points.toml").unwrap();
    let results = gradescope(&sample(), &points);
    assert_eq!(results["score"], 2.0);
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 4);
    let fields: Vec<(&str, f64, f64, &str)> = tests
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap(),
                t["score"].as_f64().unwrap(),
                t["max_score"].as_f64().unwrap(),
                t["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        fields,
        vec![
            ("defaults", 2.0, 2.0, "passed"),
            ("write-stale-rejected", 0.0, 1.0, "failed"),
            ("rejected-changes-nothing", 0.0, 1.0, "failed"),
            ("chaos", 0.0, 5.0, "failed"),
        ]
    );
    for test in tests {
        assert_eq!(test["visibility"], "visible");
        let object = test.as_object().unwrap();
        for key in object.keys() {
            assert!(
                [
                    "name",
                    "score",
                    "max_score",
                    "status",
                    "output",
                    "visibility"
                ]
                .contains(&key.as_str()),
                "{key} is not a field of Gradescope's tests"
            );
        }
    }
    // A check's output is its rule, then what `check` prints for it.
    assert_eq!(
        tests[1]["output"].as_str().unwrap(),
        format!(
            "the rule write-stale-rejected\n\n{}",
            text_of(&sample().outcomes[1])
        )
    );
    // Nothing passed scores 0, not -0.
    let none = report(vec![outcome(CheckId::Chaos, Verdict::NotRun("x".into()))]);
    assert_eq!(gradescope(&none, &points)["score"].to_string(), "0.0");
    for key in results.as_object().unwrap().keys() {
        assert!(
            [
                "score",
                "execution_time",
                "output",
                "stdout_visibility",
                "tests"
            ]
            .contains(&key.as_str()),
            "{key} is not a field of Gradescope's results"
        );
    }
}

#[test]
fn a_method_still_to_write_says_so_in_one_line() {
    let mut f = a_failure(Rule::Defaults);
    f.not_implemented = Some("LockService.acquire".into());
    let o = outcome(CheckId::Rule(Rule::Defaults), Verdict::Failed(f));
    assert_eq!(
        summary_of(&o).unwrap(),
        "LockService.acquire is not implemented yet: write it next"
    );
}

/// A CI page groups the cases by class: the seed's rules, the broad checks, the protocol.
#[test]
fn junit_groups_rules_apart_from_the_broad_checks() {
    let mut r = sample();
    r.error = Some("the program exited".into());
    let xml = junit(&r);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let classes: Vec<(&str, &str)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|c| {
            (
                c.attribute("name").unwrap(),
                c.attribute("classname").unwrap(),
            )
        })
        .collect();
    assert_eq!(
        classes,
        vec![
            ("defaults", "fencing-lab.rules"),
            ("write-stale-rejected", "fencing-lab.rules"),
            ("rejected-changes-nothing", "fencing-lab.rules"),
            ("chaos", "fencing-lab.broad"),
            (PROTOCOL_CASE, "fencing-lab.protocol"),
        ]
    );
}

/// Gradescope's summary line names the language the program said hello in; a program that
/// never said hello did not start, and one that stopped part-way is said to have stopped.
#[test]
fn gradescopes_summary_names_the_language_or_says_the_program_did_not_start() {
    let points = Points::default();
    let output = |r: &Report| {
        gradescope(r, &points)["output"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let r = sample();
    assert_eq!(output(&r), "1 of 4 checks passed (python 3.12)");
    let mut stopped = sample();
    stopped.error = Some("it hung".into());
    assert_eq!(
        output(&stopped),
        "1 of 4 checks passed (python 3.12)\nThe check stopped: it hung\nThe checks after it did not run."
    );
    let mut silent = report(Vec::new());
    silent.language = String::new();
    silent.error = Some("no hello".into());
    assert_eq!(
        output(&silent),
        "0 of 0 checks passed\nThe program did not start: no hello"
    );
}
