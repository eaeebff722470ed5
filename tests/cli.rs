//! The command line: outputs, the JSON contract, exit codes and one-sentence errors.

use std::io::Write;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn lab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fencing-lab"))
}

fn stdout_of(args: &[&str]) -> String {
    let out = lab().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs, expects exit 2 and exactly one line on stderr; returns that line.
fn usage_error(args: &[&str]) -> String {
    let out = lab().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?} must exit 2");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "{stderr}"
    );
    stderr
}

fn scenario_file(text: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    file.write_all(text.as_bytes()).unwrap();
    file
}

#[test]
fn list_names_every_built_in_scenario_with_its_title() {
    let out = stdout_of(&["list"]);
    for name in fencing_lab::sim::Scenario::built_in_names() {
        assert!(
            out.lines().any(|l| l.starts_with(name)),
            "{name} missing from:\n{out}"
        );
    }
    assert!(out.contains("Day 5, section 7.1"));
}

#[test]
fn run_gc_pause_tells_the_story_with_and_without_fencing() {
    let fenced = stdout_of(&["run", "gc-pause"]);
    assert!(fenced.contains("fencing ON"));
    assert!(fenced.contains("client-1 writes \"client 1's data\" to file with token 1: REJECTED, token 1 < 2, the highest token 'file' has accepted"), "{fenced}");
    assert!(fenced.contains("? Will the storage accept client 1's write with token 1?"));
    assert!(fenced.contains("= REJECTED, token 1 < 2, the highest token 'file' has accepted."));
    assert!(!fenced.contains("CORRUPTED DATA! client-1"));
    // The question comes before the write; its answer after.
    let asked = fenced.find("? Will the storage").unwrap();
    let answered = fenced.find("= REJECTED").unwrap();
    assert!(asked < fenced.find("REJECTED").unwrap() && answered > asked);
    let unfenced = stdout_of(&["run", "gc-pause", "--no-fencing"]);
    assert!(unfenced.contains("fencing OFF"));
    assert!(unfenced
        .contains("CORRUPTED DATA! client-1's stale token 1 overwrote file's data from token 2"));
    assert!(
        unfenced.contains("1 rejected, 1 corruption")
            || unfenced.contains("0 rejected, 1 corruption"),
        "{unfenced}"
    );
    assert!(!unfenced.contains("1 corruptions"));
}

fn json_lines(args: &[&str]) -> Vec<Value> {
    stdout_of(args)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

#[test]
fn json_stream_follows_the_spec() {
    let fields: &[(&str, &[&str])] = &[
        ("grant", &["client", "lock", "token", "expires_at"]),
        ("acquire_refused", &["client", "lock", "holder"]),
        ("renew", &["client", "lock", "token", "expires_at"]),
        ("renew_refused", &["client", "lock", "token", "reason"]),
        ("release", &["client", "lock", "token"]),
        ("release_refused", &["client", "lock", "token", "reason"]),
        ("expire", &["client", "lock", "token"]),
        ("pause", &["client", "until"]),
        ("resume", &["client"]),
        ("crash", &["client", "restart_at"]),
        ("restart", &["client"]),
        (
            "write",
            &[
                "client",
                "key",
                "value",
                "token",
                "accepted",
                "highest",
                "check",
                "compared",
                "outcome",
                "lease_live",
            ],
        ),
        (
            "corruption",
            &["client", "key", "token", "highest", "overwrote_token"],
        ),
        ("send", &["client", "key", "token", "deliver_at"]),
        ("fencing", &["on"]),
        ("check", &["check", "rule"]),
        ("clock_jump", &["by", "service_now"]),
        (
            "summary",
            &[
                "scenario",
                "seed",
                "fencing",
                "grants",
                "writes_accepted",
                "writes_rejected",
                "stale_writes_accepted",
                "corruptions",
            ],
        ),
    ];
    let mut seen = std::collections::BTreeSet::new();
    let runs: &[&[&str]] = &[
        &["run", "gc-pause", "--format", "json"],
        &["run", "gc-pause", "--no-fencing", "--format", "json"],
        &["run", "late-release", "--format", "json"],
        &["run", "renew", "--format", "json"],
        &["run", "crash-restart", "--format", "json"],
        &["chaos", "--seed", "3", "--format", "json"],
    ];
    for args in runs {
        let lines = json_lines(args);
        let mut last_t = 0.0;
        for (i, line) in lines.iter().enumerate() {
            let t = line["t"].as_f64().expect("every line has t");
            assert!(t >= last_t, "{args:?}: time order broken at line {i}");
            last_t = t;
            let event = line["event"].as_str().expect("every line has event");
            let (_, wanted) = fields
                .iter()
                .find(|(name, _)| *name == event)
                .unwrap_or_else(|| panic!("unknown event {event}"));
            for field in *wanted {
                assert!(line.get(*field).is_some(), "{event} lacks {field}: {line}");
            }
            seen.insert(event.to_owned());
            assert_eq!(
                event == "summary",
                i == lines.len() - 1,
                "summary is the last line only"
            );
        }
    }
    for (name, _) in fields {
        if !["fencing", "check", "send", "clock_jump"].contains(name) {
            assert!(seen.contains(*name), "no run produced a {name} event");
        }
    }
    let summary = json_lines(&["run", "gc-pause", "--no-fencing", "--format", "json"])
        .pop()
        .unwrap();
    assert_eq!(summary["scenario"], "gc-pause");
    assert_eq!(summary["seed"], Value::Null);
    assert_eq!(summary["fencing"], false);
    assert_eq!(summary["grants"], 3);
    assert_eq!(summary["corruptions"], 1);
    let write = json_lines(&["run", "gc-pause", "--format", "json"])
        .into_iter()
        .find(|l| l["event"] == "write" && l["token"] == 1)
        .unwrap();
    assert_eq!(write["accepted"], false);
    assert_eq!(write["highest"], 2);
}

#[test]
fn a_scripted_fencing_toggle_is_an_event() {
    let file = scenario_file(
        "title = \"toggle\"\nlease = 5.0\n\n[[beat]]\nat = 1.0\ndo = \"fencing\"\non = false\ncaption = \"off\"\n",
    );
    let lines = json_lines(&["run", file.path().to_str().unwrap(), "--format", "json"]);
    assert_eq!(lines[0]["event"], "fencing");
    assert_eq!(lines[0]["on"], false);
    assert_eq!(lines[0]["t"], 1.0);
}

#[test]
fn a_wrong_check_is_explained_in_the_transcript() {
    let out = stdout_of(&["run", "two-locks", "--check", "global"]);
    assert!(out.contains("fencing ON (token >= highest(any key))"));
    assert!(out.contains("REJECTED, token 1 < 2, the highest token of any key; 'orders' itself has seen only token 1, so a per-key check would accept it"), "{out}");
    let out = stdout_of(&["run", "renew", "--check", "strict"]);
    assert!(
        out.contains("REJECTED, the strict check wants a token above 1"),
        "{out}"
    );
    assert!(!out.contains("accepted, since the rule is >="), "{out}");
    assert!(
        !stdout_of(&["run", "two-locks"]).contains("REJECTED"),
        "the seed's rule refuses nothing honest"
    );
}

#[test]
fn until_stops_early() {
    let lines = json_lines(&["run", "gc-pause", "--until", "11", "--format", "json"]);
    let summary = lines.last().unwrap();
    assert_eq!(summary["t"], 11.0);
    assert_eq!(summary["grants"], 2);
}

#[test]
fn json_is_identical_on_every_run() {
    let a = stdout_of(&["chaos", "--seed", "9", "--format", "json"]);
    let b = stdout_of(&["chaos", "--seed", "9", "--format", "json"]);
    assert_eq!(a, b);
}

#[test]
fn chaos_summaries_and_exit_codes() {
    let out = stdout_of(&["chaos", "--runs", "300"]);
    assert_eq!(out.lines().filter(|l| l.starts_with("seed ")).count(), 300);
    assert!(out.contains("300 runs (seeds 1..300)"));
    assert!(out.contains(" 0 corruptions"));
    // Fencing off may corrupt; the exit code only fails a fenced run.
    lab()
        .args(["chaos", "--runs", "300", "--no-fencing"])
        .assert()
        .success()
        .stdout(predicate::str::contains("corruptions"));
    // `--check none` is fencing off: the same runs, the same exit code. Only the seed's rule can
    // make chaos fail.
    let none = lab()
        .args(["chaos", "--runs", "50", "--check", "none"])
        .output()
        .unwrap();
    let off = lab()
        .args(["chaos", "--runs", "50", "--no-fencing"])
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(0));
    assert_eq!(off.status.code(), Some(0));
    assert_eq!(none.stdout, off.stdout);
    let json = json_lines(&["chaos", "--runs", "5", "--format", "json"]);
    assert_eq!(json.len(), 5);
    assert!(json.iter().all(|l| l["event"] == "summary"));
    assert_eq!(json[4]["seed"], 5);
}

/// The summary line is the seeds' lines added up, count by count (fenced, some writes are
/// rejected; unfenced, some corrupt: between them every count is exercised).
#[test]
fn the_chaos_summary_adds_up_every_seeds_counts() {
    let numbers = |line: &str| -> Vec<u64> {
        let counts = line.rsplit_once(": ").map_or(line, |(_, counts)| counts);
        counts
            .split(", ")
            .map(|part| part.split(' ').next().unwrap().parse().unwrap())
            .collect()
    };
    let mut exercised = vec![false; 4];
    for fencing in [&[][..], &["--no-fencing"][..]] {
        let out = stdout_of(&[&["chaos", "--runs", "4"][..], fencing].concat());
        let mut sum = vec![0; 4];
        for line in out.lines().filter(|l| l.starts_with("seed ")) {
            for (total, n) in sum.iter_mut().zip(numbers(line)) {
                *total += n;
            }
        }
        let total = out.lines().last().unwrap();
        assert!(total.starts_with("4 runs (seeds 1..4)"), "{out}");
        assert_eq!(numbers(total), sum, "{out}");
        for (seen, n) in exercised.iter_mut().zip(&sum) {
            *seen |= *n > 0;
        }
    }
    assert_eq!(
        exercised, [true; 4],
        "grants, accepted, rejected, corruptions"
    );
}

#[test]
fn chaos_check_all_prints_a_table_per_variant() {
    let out = stdout_of(&["chaos", "--runs", "200", "--check", "all"]);
    for check in ["per-key", "none", "strict", "global"] {
        assert!(
            out.lines().any(|l| l.starts_with(check)),
            "{check} row missing:\n{out}"
        );
    }
    let row = |name: &str| -> Vec<u64> {
        out.lines()
            .find(|l| l.starts_with(name))
            .unwrap()
            .split_whitespace()
            .rev()
            .take(2)
            .map(|n| n.parse().unwrap())
            .collect()
    };
    // Columns reversed: honest refused, corruptions.
    let row = |name: &str| -> Vec<u64> { row(name).into_iter().take(2).collect() };
    assert_eq!(row("per-key"), [0, 0]);
    assert!(row("none")[1] > 0, "no check corrupts");
    assert_eq!(row("none")[0], 0);
    assert!(row("strict")[0] > 0, "strict refuses honest second writes");
    assert_eq!(row("strict")[1], 0);
    assert_eq!(row("global")[1], 0);
}

#[test]
fn lease_and_seconds_change_the_chaos_run() {
    let long = json_lines(&[
        "chaos",
        "--lease",
        "30",
        "--seconds",
        "10",
        "--format",
        "json",
    ]);
    let grant = long.iter().find(|l| l["event"] == "grant").unwrap();
    assert_eq!(
        grant["expires_at"].as_f64().unwrap() - grant["t"].as_f64().unwrap(),
        30.0
    );
    assert_eq!(long.last().unwrap()["t"], 10.0);
}

#[test]
fn frame_prints_the_screen_as_text() {
    let out = stdout_of(&["frame", "gc-pause", "--at", "16.5"]);
    assert_eq!(out.lines().count(), 24);
    assert!(out.lines().all(|l| l.chars().count() <= 80));
    assert!(out.contains("FENCING ON"));
    assert!(out.contains("✗ REJECTED t1 < t2"));
    let off = stdout_of(&[
        "frame",
        "gc-pause",
        "--at",
        "16.5",
        "--no-fencing",
        "--size",
        "120x40",
    ]);
    assert_eq!(off.lines().count(), 40);
    assert!(off.contains("FENCING OFF"));
    assert!(off.contains("CORRUPTED DATA!"));
    let tiny = stdout_of(&["frame", "gc-pause", "--at", "1", "--size", "40x10"]);
    assert!(tiny.contains("Terminal too small"));
}

#[test]
fn markdown_handout_asks_without_giving_the_answer_away() {
    let out = stdout_of(&["run", "gc-pause", "--format", "markdown"]);
    assert!(out.starts_with("# gc-pause: Day 5, section 7.1"));
    assert!(out.contains("| t (s) | lesson | what happens |"));
    let question = out
        .find("## Question for the class")
        .expect("a question section");
    let key = out.find("## Teacher's key").expect("a teacher's key");
    assert!(question < key);
    let before_key = &out[..key];
    assert!(before_key.contains("Will the storage accept client 1's write with token 1?"));
    for spoiler in ["REJECTED", "CORRUPTED", "16.5 | Client 1 writes"] {
        assert!(
            !before_key.contains(spoiler),
            "{spoiler} before the teacher's key:\n{before_key}"
        );
    }
    let answers = &out[key..];
    assert!(answers.contains("**Answer:** REJECTED, token 1 < 2"));
    assert!(answers.contains("### The screen at 16.5 s, fencing on"));
    assert!(answers.contains("### The screen at 16.5 s, fencing off"));
    assert!(answers.contains("CORRUPTED DATA!"));
    // Paper has no keys to press: no UI chrome.
    for chrome in ["n next", "? help", "Press ", "❚❚", "q quit"] {
        assert!(!out.contains(chrome), "{chrome} in the handout");
    }
    insta::assert_snapshot!("handout_gc_pause", out);
}

#[test]
fn frame_compare_has_sensible_defaults_and_a_verdict_in_each_pane() {
    let out = stdout_of(&["frame", "--compare"]);
    assert!(
        out.contains("t = 16.5 s"),
        "the key moment by default:\n{out}"
    );
    assert!(out.contains("✗ REJECTED t1 < t2"), "{out}");
    // Half a screen wide, the verdict keeps its client, key and tokens whole.
    assert!(
        out.contains("! CORRUPTED DATA! t1 < t2 · c1 → file"),
        "{out}"
    );
    insta::assert_snapshot!("frame_compare_gc_pause", out);
}

#[test]
fn as_etcd_relabels_the_token_on_screen_and_in_the_transcript() {
    let frame = stdout_of(&["frame", "gc-pause", "--at", "16.5", "--as", "etcd"]);
    assert!(frame.contains("etcd: revision >= highest(key)"), "{frame}");
    assert!(frame.contains("client-2  revision 4"), "{frame}");
    insta::assert_snapshot!("frame_gc_pause_as_etcd", frame);
    let run = stdout_of(&["run", "gc-pause", "--as", "etcd"]);
    assert!(run.contains("REJECTED, revision 2 < 4, the highest revision 'file' has accepted"));
    assert!(run.contains("as etcd"), "{run}");
    let redlock = stdout_of(&["run", "gc-pause", "--as", "redlock"]);
    assert!(
        redlock.contains("as Redlock: it has no token, so the storage has nothing to check"),
        "{redlock}"
    );
    assert!(redlock.contains("CORRUPTED DATA!"), "{redlock}");
    // JSON keeps its field names whatever the words.
    let json = stdout_of(&["run", "gc-pause", "--as", "etcd", "--format", "json"]);
    assert!(json.contains("\"token\":2"), "{json}");
    let err = usage_error(&["run", "gc-pause", "--as", "mongo"]);
    assert!(err.contains("use one of etcd, zookeeper"), "{err}");
}

#[test]
fn help_and_version_work_everywhere() {
    for args in [
        &["--help"][..],
        &["--version"],
        &["run", "--help"],
        &["chaos", "--help"],
        &["tui", "--help"],
        &["frame", "--help"],
        &["list", "--help"],
    ] {
        lab().args(args).assert().success();
    }
    lab()
        .arg("--version")
        .assert()
        .stdout(predicate::str::starts_with("fencing-lab "));
}

#[test]
fn unknown_scenario_is_one_sentence_and_exit_2() {
    let err = usage_error(&["run", "gc-paws"]);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("fencing-lab: gc-paws: no built-in scenario has this name"));
    assert!(err.contains("gc-pause"));
}

#[test]
fn the_ui_without_a_terminal_points_to_run() {
    for args in [&[][..], &["tui", "chaos"]] {
        let err = usage_error(args);
        assert_eq!(err.lines().count(), 1);
        assert!(
            err.contains("needs a terminal") && err.contains("fencing-lab run gc-pause"),
            "{err}"
        );
    }
}

#[test]
fn bad_numbers_are_refused_with_exit_2() {
    for args in [
        &["chaos", "--lease", "0"][..],
        &["chaos", "--lease", "-3"],
        &["chaos", "--lease", "NaN"],
        &["chaos", "--seconds", "inf"],
        &["chaos", "--runs", "0"],
        &["run", "gc-pause", "--until", "soon"],
        &["frame", "gc-pause", "--at", "1", "--size", "0x0"],
        &["frame", "gc-pause", "--at", "1", "--size", "501x24"],
        &["frame", "gc-pause", "--at", "1", "--size", "80x201"],
        &["run", "gc-pause", "--check", "lenient"],
    ] {
        let err = usage_error(args);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("fencing-lab: invalid value"),
            "{args:?}: {err}"
        );
    }
    assert!(usage_error(&["chaos", "--lease", "0"])
        .contains("'--lease <S>': must be at least 0.001 seconds"));
    // The documented minimum is enforced, not rounded up to; numbers and sizes are written
    // plainly, without a sign or a space around.
    for (args, says) in [
        (
            &["chaos", "--lease", "0.0009"][..],
            "must be at least 0.001 seconds",
        ),
        (
            &["chaos", "--seconds", "0.0005"][..],
            "must be at least 0.001 seconds",
        ),
        (&["chaos", "--runs", "+5"][..], "the number of runs"),
        (&["chaos", "--runs", " 5"][..], "the number of runs"),
        (
            &["check", "x", "--seeds", "0"][..],
            "the number of chaos seeds",
        ),
        (
            &["frame", "gc-pause", "--size", "80X24"][..],
            "is not a size",
        ),
        (
            &["frame", "gc-pause", "--size", " 80x24"][..],
            "is not a size",
        ),
        (
            &["frame", "gc-pause", "--size", "+80x24"][..],
            "is not a size",
        ),
        (
            &["frame", "gc-pause", "--at", " 5"][..],
            "is not a number of seconds",
        ),
        (
            &["frame", "gc-pause", "--at", "+5"][..],
            "is not a number of seconds",
        ),
        (
            &["check", "x", "--timeout", "-1"][..],
            "-1 is negative: a time in seconds is 0 or more",
        ),
        (
            &["check", "x", "--timeout", "-0.5e1"][..],
            "-0.5e1 is negative",
        ),
        (
            &["check", "x", "--timeout", "--1"][..],
            "'--1' is not a number of seconds",
        ),
    ] {
        let err = usage_error(args);
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
    let missing = usage_error(&["run"]);
    assert!(
        missing.contains("<SCENARIO>") && missing.lines().count() == 1,
        "{missing}"
    );
    let unknown = usage_error(&["chaos", "--sedd", "3"]);
    assert!(unknown.contains("--sedd"), "{unknown}");
}

fn file_error(text: &str) -> String {
    let file = scenario_file(text);
    let path = file.path().to_str().unwrap().to_owned();
    let err = usage_error(&["run", &path]);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with(&format!("fencing-lab: {path}")), "{err}");
    err
}

const HEAD: &str = "title = \"t\"\nlease = 5.0\n";

#[test]
fn malformed_scenario_files_name_file_line_and_field() {
    let err = file_error("title = \"t\"\nlease = \n");
    assert!(err.contains("line 2"), "{err}");
    let err = file_error(&format!(
        "{HEAD}\n[[beat]]\nat = 1.0\nclient = 1\ndo = \"jump\"\ncaption = \"x\"\n"
    ));
    assert!(
        err.contains("line 7") && err.contains("`do = \"jump\"`, which is not an action"),
        "{err}"
    );
    let err = file_error(&format!(
        "{HEAD}\n[[beat]]\nat = 1.0\nclient = 4\ndo = \"acquire\"\ncaption = \"x\"\n"
    ));
    assert!(err.contains("line 6") && err.contains("client 4"), "{err}");
    let err = file_error(&format!(
        "{HEAD}\n[[beat]]\nat = 2.0\ncaption = \"a\"\n\n[[beat]]\nat = 1.0\ncaption = \"b\"\n"
    ));
    assert!(
        err.contains("line 9") && err.contains("time order"),
        "{err}"
    );
    let err = file_error(&format!(
        "{HEAD}\n[[beat]]\nat = 1.0\nclient = 1\ndo = \"write\"\nkey = \"k\"\ncaption = \"x\"\n"
    ));
    assert!(err.contains("needs the field `value`"), "{err}");
    let err = file_error(&format!("{HEAD}\n[[beat]]\nat = 1.0\n"));
    assert!(err.contains("missing field `caption`"), "{err}");
    let err = file_error(&format!(
        "{HEAD}\n[[beat]]\nat = \"soon\"\ncaption = \"x\"\n"
    ));
    assert!(
        err.contains("line 5: field `at`: invalid type: string \"soon\", expected a number"),
        "{err}"
    );
    let err = file_error("title = \"t\"\nlease = 0.0\n\n[[beat]]\nat = 1.0\ncaption = \"x\"\n");
    assert!(err.contains("line 2") && err.contains("`lease`"), "{err}");
    let err = file_error(&format!("{HEAD}colour = \"red\"\n"));
    assert!(
        err.contains("line 3") && err.contains("unknown field `colour`"),
        "{err}"
    );
    let err = file_error(HEAD);
    assert!(err.contains("nothing would happen"), "{err}");
}

#[test]
fn oversized_and_missing_files_are_refused() {
    let big = scenario_file(&format!("{HEAD}# {}\n", "x".repeat(1024 * 1024)));
    let err = usage_error(&["run", big.path().to_str().unwrap()]);
    assert!(err.contains("more than the 1 MiB"), "{err}");
    let err = usage_error(&["run", "no/such/file.toml"]);
    assert!(err.contains("no/such/file.toml: cannot read it"), "{err}");
}
