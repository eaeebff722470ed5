//! Hostile and unlucky input: a generated corpus of bad scenario and recording files, special
//! files, and failing outputs. Each must end with exit 2 and one clean sentence, quickly, in
//! bounded memory: never a panic, an abort, a hang or an escape sequence on the user's terminal.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_fencing-lab");

/// A run that takes longer than this is a hang (bad input is refused in milliseconds).
const HANG: Duration = Duration::from_secs(5);

/// The data segment limit for each run: an unbounded allocation aborts instead of succeeding.
const MEMORY_KIB: u32 = 100 * 1024;

struct Outcome {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Runs the tool under the memory limit with `stdin` closed, killing it if it hangs.
fn run(args: &[&str]) -> Outcome {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -d {MEMORY_KIB}; exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn fencing-lab");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = Vec::new();
        stdout.read_to_end(&mut s).ok();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = Vec::new();
        stderr.read_to_end(&mut s).ok();
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > HANG {
            child.kill().ok();
            child.wait().ok();
            panic!("fencing-lab {args:?} still running after {HANG:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Outcome {
        status,
        stdout: String::from_utf8_lossy(&out.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err.join().unwrap()).into_owned(),
    }
}

/// Runs each case, collecting every failure so that one run shows them all.
fn all_pass(cases: impl IntoIterator<Item = (String, Box<dyn FnOnce()>)>) {
    let failures: Vec<String> = cases
        .into_iter()
        .filter_map(|(name, case)| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(case))
                .err()
                .map(|e| {
                    let message = e
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    format!("{name}: {message}")
                })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Exit 2, one line on stderr naming the tool, no control character in it.
fn assert_refused(outcome: &Outcome, context: &str) {
    assert_eq!(
        outcome.status.code(),
        Some(2),
        "{context}: expected exit 2, got {:?}; stderr: {:?}",
        outcome.status,
        outcome.stderr
    );
    assert_clean_sentence(&outcome.stderr, context);
}

fn assert_clean_sentence(stderr: &str, context: &str) {
    let line = stderr
        .strip_suffix('\n')
        .unwrap_or_else(|| panic!("{context}: stderr does not end a line: {stderr:?}"));
    assert!(
        !line.is_empty() && !line.contains('\n'),
        "{context}: stderr is not one line: {stderr:?}"
    );
    assert!(
        line.starts_with("fencing-lab: "),
        "{context}: stderr does not name the tool: {line:?}"
    );
    assert!(
        !line.chars().any(char::is_control),
        "{context}: a control character reached the terminal: {line:?}"
    );
}

const BASE_SCENARIO: &str = r#"title = "A hostile test"
lease = 10.0
first_token = 1
lock = "file-lock"
end = 20.0
seed = 1

[[beat]]
at = 0.0
client = 1
do = "acquire"
caption = "Client 1 takes the lock."

[[beat]]
at = 1.0
client = 1
do = "pause"
seconds = 12.0
caption = "Client 1 freezes."

[[beat]]
at = 2.0
client = 2
do = "acquire"
retry = 1.0
caption = "Client 2 asks, and asks again."

[[beat]]
at = 14.0
client = 1
do = "write"
key = "file"
value = "client 1's data"
delay = 0.5
caption = "Client 1 writes."
"#;

const BASE_CHAOS: &str = r#"title = "A hostile chaos test"
lease = 3.0
lock = "lock"

[chaos]
seconds = 20.0
keys = ["file", "log"]
writes = [1, 2]
think = [0.1, 1.0]
retry = [0.2, 0.6]
work = [0.2, 2.0]
stall_chance = 0.25
stall = [0.5, 6.0]
crash = true
down = [1.0, 4.0]
"#;

/// Replaces the first line of `base` that starts with `field =` (after `after`, a marker line
/// that must come earlier) with `field = value`.
fn with_field(base: &str, after: &str, field: &str, value: &str) -> String {
    let start = base.find(after).expect("marker in base");
    let (head, tail) = base.split_at(start);
    let prefix = format!("{field} = ");
    let line_start = tail
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no {field} after {after:?}"));
    let replaced = tail.replacen(line_start, &format!("{field} = {value}"), 1);
    format!("{head}{replaced}")
}

/// Values that no number field accepts.
const BAD_NUMBERS: [&str; 10] = [
    "-1",
    "-0.5",
    "nan",
    "inf",
    "-inf",
    "1e300",
    "\"ten\"",
    "[1]",
    "true",
    "{ a = 1 }",
];

/// Text with escapes that would clear the screen and set the window title.
const HOSTILE_TEXT: [&str; 2] = [r#""\u001b[2J\u001b]0;PWNED\u0007""#, r#""bell\u0007""#];

/// Line breaks and tabs: refused in names, folded into one line in prose.
const BREAKS: [&str; 2] = [r#""two\nlines""#, r#""tab\there""#];

fn write_temp(dir: &Path, name: &str, contents: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

/// Every scenario in the corpus, with a name for the failure message.
fn scenario_corpus() -> Vec<(String, String)> {
    let mut corpus = Vec::new();
    let numeric: [(&str, &str, &str); 15] = [
        (BASE_SCENARIO, "title", "lease"),
        (BASE_SCENARIO, "title", "first_token"),
        (BASE_SCENARIO, "title", "end"),
        (BASE_SCENARIO, "title", "seed"),
        (BASE_SCENARIO, "[[beat]]", "at"),
        (BASE_SCENARIO, "[[beat]]", "client"),
        (BASE_SCENARIO, "do = \"pause\"", "seconds"),
        (BASE_SCENARIO, "do = \"acquire\"\nretry", "retry"),
        (BASE_SCENARIO, "do = \"write\"", "delay"),
        (BASE_CHAOS, "[chaos]", "seconds"),
        (BASE_CHAOS, "[chaos]", "writes"),
        (BASE_CHAOS, "[chaos]", "think"),
        (BASE_CHAOS, "[chaos]", "stall_chance"),
        (BASE_CHAOS, "[chaos]", "stall"),
        (BASE_CHAOS, "[chaos]", "down"),
    ];
    for (base, after, field) in numeric {
        for value in BAD_NUMBERS {
            // `seed` and `first_token` are whole numbers; a negative first token is still refused.
            corpus.push((
                format!("{field} = {value}"),
                with_field(base, after, field, value),
            ));
        }
    }
    // Ranges given backwards or empty, and zero where zero would mean endless work.
    for (field, value) in [
        ("think", "[1.0, 0.1]"),
        ("think", "[]"),
        ("think", "[0.0, 0.0]"),
        ("retry", "[0.0, 0.0]"),
        ("writes", "[2, 1]"),
        ("writes", "[0, 100000]"),
        ("stall_chance", "1.5"),
        ("keys", "[]"),
        ("keys", "[1, 2]"),
    ] {
        corpus.push((
            format!("chaos {field} = {value}"),
            with_field(BASE_CHAOS, "[chaos]", field, value),
        ));
    }
    for (after, field) in [
        ("title", "title"),
        ("title", "lock"),
        ("[[beat]]", "caption"),
        ("[[beat]]", "do"),
        ("do = \"write\"", "key"),
        ("do = \"write\"", "value"),
    ] {
        for value in HOSTILE_TEXT {
            corpus.push((
                format!("{field} = {value}"),
                with_field(BASE_SCENARIO, after, field, value),
            ));
        }
    }
    for (after, field) in [
        ("title", "lock"),
        ("[[beat]]", "do"),
        ("do = \"write\"", "key"),
        ("do = \"write\"", "value"),
    ] {
        for value in BREAKS {
            corpus.push((
                format!("{field} = {value}"),
                with_field(BASE_SCENARIO, after, field, value),
            ));
        }
    }
    // A hostile field name, and a hostile name in an error about something else.
    corpus.push((
        "hostile field name".into(),
        BASE_SCENARIO.replacen("seed = 1", "\"\\u001b]0;PWNED\\u0007\" = 1", 1),
    ));
    corpus.push((
        "hostile locks entry".into(),
        BASE_SCENARIO.replacen("lock = \"file-lock\"", "locks = [\"a\", \"\\u001b[2J\"]", 1),
    ));
    // Sizes just past each limit.
    corpus.push((
        "title of 401 characters".into(),
        with_field(
            BASE_SCENARIO,
            "title",
            "title",
            &format!("\"{}\"", "t".repeat(401)),
        ),
    ));
    corpus.push((
        "key of 61 characters".into(),
        with_field(
            BASE_SCENARIO,
            "do = \"write\"",
            "key",
            &format!("\"{}\"", "k".repeat(61)),
        ),
    ));
    corpus.push((
        "four locks".into(),
        BASE_SCENARIO.replacen(
            "lock = \"file-lock\"",
            "locks = [\"a\", \"b\", \"c\", \"d\"]",
            1,
        ),
    ));
    // Beats that make no sense.
    corpus.push((
        "beats out of order".into(),
        BASE_SCENARIO.replacen("at = 14.0", "at = 0.5", 1),
    ));
    corpus.push((
        "a field the action does not take".into(),
        BASE_SCENARIO.replacen("do = \"acquire\"\n", "do = \"acquire\"\ntoken = 3\n", 1),
    ));
    corpus.push((
        "an unknown action".into(),
        BASE_SCENARIO.replacen("do = \"pause\"", "do = \"explode\"", 1),
    ));
    // The issue's memory bomb: valid on its face, endless in effect.
    corpus.push((
        "the 9-line memory bomb".into(),
        "title = \"bomb\"\nlease = 0.001\n[chaos]\nseconds = 86400\nthink = [0.001, 0.001]\n\
         retry = [0.001, 0.001]\nwork = [0.001, 0.001]\nstall = [0.001, 0.001]\n\
         writes = [100, 100]\n"
            .into(),
    ));
    corpus.push(("not TOML".into(), "title = \n[[[".into()));
    corpus.push(("empty".into(), String::new()));
    corpus
}

#[test]
fn the_corpus_bases_are_valid_scenarios() {
    // Without this, every corpus case could be refused for the same unrelated reason.
    let dir = tempfile::tempdir().unwrap();
    for (name, base) in [("base.toml", BASE_SCENARIO), ("chaos.toml", BASE_CHAOS)] {
        let path = write_temp(dir.path(), name, base.as_bytes());
        let outcome = run(&["run", path.to_str().unwrap()]);
        assert_eq!(outcome.status.code(), Some(0), "{name}: {}", outcome.stderr);
        assert!(!outcome.stdout.is_empty());
    }
}

#[test]
fn line_breaks_in_prose_are_folded_into_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for (after, field) in [("title", "title"), ("[[beat]]", "caption")] {
        let text = with_field(BASE_SCENARIO, after, field, r#""two\nlines\tand a tab""#);
        let path = write_temp(dir.path(), "folded.toml", text.as_bytes());
        let outcome = run(&["run", path.to_str().unwrap()]);
        assert_eq!(
            outcome.status.code(),
            Some(0),
            "{field}: {}",
            outcome.stderr
        );
        assert!(
            outcome.stdout.contains("two lines and a tab"),
            "{field}: not folded:\n{}",
            outcome.stdout
        );
    }
}

#[test]
fn every_hostile_scenario_is_refused_in_one_clean_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = scenario_corpus();
    assert!(corpus.len() > 180, "the corpus shrank to {}", corpus.len());
    let dir_path = dir.path().to_path_buf();
    all_pass(corpus.into_iter().enumerate().map(|(i, (name, text))| {
        let dir = dir_path.clone();
        let case: Box<dyn FnOnce()> = Box::new(move || {
            let path = write_temp(&dir, &format!("case-{i}.toml"), text.as_bytes());
            let outcome = run(&["run", path.to_str().unwrap()]);
            assert_refused(&outcome, "run");
            assert!(
                outcome.stderr.contains(&format!("case-{i}.toml")),
                "the error does not name the file: {}",
                outcome.stderr
            );
            assert!(outcome.stdout.is_empty(), "printed {}", outcome.stdout);
        });
        (name, case)
    }));
}

#[test]
fn the_memory_bomb_is_refused_by_every_command_that_plays() {
    let dir = tempfile::tempdir().unwrap();
    let (_, bomb) = scenario_corpus()
        .into_iter()
        .find(|(name, _)| name.contains("memory bomb"))
        .unwrap();
    let path = write_temp(dir.path(), "bomb.toml", bomb.as_bytes());
    let file = path.to_str().unwrap();
    for args in [
        vec!["run", file],
        vec!["run", file, "--format", "json"],
        vec!["frame", file, "--at", "86400"],
        vec!["tui", file],
    ] {
        let outcome = run(&args);
        assert_refused(&outcome, &format!("{args:?}"));
        assert!(
            outcome.stderr.contains("events"),
            "{args:?}: the error should state the budget: {}",
            outcome.stderr
        );
    }
}

#[test]
fn files_at_and_past_the_size_limit() {
    let dir = tempfile::tempdir().unwrap();
    let limit = 1024 * 1024;
    // A comment pads a valid scenario to exactly the limit: accepted.
    let mut at_limit = BASE_SCENARIO.to_owned();
    at_limit.push('#');
    at_limit.push_str(&"x".repeat(limit - at_limit.len() - 1));
    at_limit.push('\n');
    assert_eq!(at_limit.len(), limit);
    let path = write_temp(dir.path(), "at.toml", at_limit.as_bytes());
    let outcome = run(&["run", path.to_str().unwrap()]);
    assert_eq!(outcome.status.code(), Some(0), "{}", outcome.stderr);
    // One byte more: refused, and the message gives the limit.
    at_limit.insert(at_limit.len() - 1, 'x');
    let path = write_temp(dir.path(), "past.toml", at_limit.as_bytes());
    let outcome = run(&["run", path.to_str().unwrap()]);
    assert_refused(&outcome, "1 MiB + 1");
    assert!(outcome.stderr.contains("1 MiB"), "{}", outcome.stderr);
    // A byte-order mark is not part of the text.
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend_from_slice(BASE_SCENARIO.as_bytes());
    let path = write_temp(dir.path(), "bom.toml", &bom);
    assert_eq!(run(&["run", path.to_str().unwrap()]).status.code(), Some(0));
    // Bytes that are not UTF-8.
    let path = write_temp(
        dir.path(),
        "latin1.toml",
        b"title = \"caf\xe9\"\nlease = 1.0\n",
    );
    assert_refused(&run(&["run", path.to_str().unwrap()]), "not UTF-8");
}

#[test]
fn special_files_are_refused_without_reading_them() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("f.toml");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let zero_link = dir.path().join("zero.toml");
    std::os::unix::fs::symlink("/dev/zero", &zero_link).unwrap();
    let folder = dir.path().join("folder.toml");
    std::fs::create_dir(&folder).unwrap();
    let recording_naming_fifo = write_temp(
        dir.path(),
        "names-fifo.json",
        format!(
            r#"{{"format":1,"scenario":"{}","seed":1,"fencing":true,"check":"per-key","inputs":[]}}"#,
            fifo.display()
        )
        .as_bytes(),
    );
    let specials = [
        fifo.to_str().unwrap(),
        zero_link.to_str().unwrap(),
        folder.to_str().unwrap(),
        "/dev/zero",
        "/dev/urandom",
        "/dev/stdin",
        "/dev/null",
    ];
    for special in specials {
        assert_refused(&run(&["run", special]), &format!("run {special}"));
        assert_refused(
            &run(&["tui", "--replay", special]),
            &format!("tui --replay {special}"),
        );
    }
    let outcome = run(&["tui", "--replay", recording_naming_fifo.to_str().unwrap()]);
    assert_refused(&outcome, "a recording naming a FIFO");
    assert!(!outcome.stderr.contains("needs a terminal"));
}

const BASE_RECORDING: &str = r#"{"format":1,"scenario":"gc-pause","seed":1,"fencing":true,"check":"per-key","inputs":[{"at":2.0,"action":"pause","client":2},{"at":3.0,"action":"fencing","on":false},{"at":4.0,"action":"check","check":"strict"}]}"#;

fn recording_corpus() -> Vec<(String, String)> {
    let replace = |from: &str, to: &str| {
        assert!(BASE_RECORDING.contains(from), "{from}");
        BASE_RECORDING.replacen(from, to, 1)
    };
    let mut corpus = Vec::new();
    for value in ["0", "2", "-1", "1.5", "\"1\"", "null"] {
        corpus.push((
            format!("format {value}"),
            replace("\"format\":1", &format!("\"format\":{value}")),
        ));
    }
    for value in [
        "\"nosuch\"",
        "\"\\u001b[2J\\u001b]0;PWNED\\u0007\"",
        "\"two\\nlines\"",
        "\"\"",
        "1",
    ] {
        corpus.push((format!("scenario {value}"), replace("\"gc-pause\"", value)));
    }
    for value in ["-1", "1.5", "1e300", "\"1\"", "18446744073709551616"] {
        corpus.push((
            format!("seed {value}"),
            replace("\"seed\":1", &format!("\"seed\":{value}")),
        ));
    }
    for value in ["\"yes\"", "1", "null"] {
        corpus.push((
            format!("fencing {value}"),
            replace("\"fencing\":true", &format!("\"fencing\":{value}")),
        ));
    }
    for value in ["\"bogus\"", "\"\\u001b[31m\"", "\"\""] {
        corpus.push((
            format!("check {value}"),
            replace("\"check\":\"per-key\"", &format!("\"check\":{value}")),
        ));
    }
    for value in ["-1", "1e300", "86400.5", "\"2\"", "null"] {
        corpus.push((
            format!("input at {value}"),
            replace("\"at\":2.0", &format!("\"at\":{value}")),
        ));
    }
    for value in ["\"explode\"", "\"\\u0007\"", "3"] {
        corpus.push((
            format!("action {value}"),
            replace("\"action\":\"pause\"", &format!("\"action\":{value}")),
        ));
    }
    for value in ["0", "4", "-1", "256", "\"2\""] {
        corpus.push((
            format!("client {value}"),
            replace("\"client\":2", &format!("\"client\":{value}")),
        ));
    }
    corpus.push((
        "pause without a client".into(),
        replace(",\"client\":2", ""),
    ));
    corpus.push(("fencing without on".into(), replace(",\"on\":false", "")));
    corpus.push((
        "inputs out of order".into(),
        replace("\"at\":4.0", "\"at\":1.0"),
    ));
    corpus.push((
        "an unknown field".into(),
        replace("\"seed\":1", "\"seed\":1,\"\\u001b]0;x\":1"),
    ));
    corpus.push((
        "cut short".into(),
        BASE_RECORDING[..BASE_RECORDING.len() / 2].to_owned(),
    ));
    corpus.push(("not JSON".into(), "format = 1".into()));
    corpus.push(("empty".into(), String::new()));
    corpus.push(("an array".into(), "[]".into()));
    corpus
}

#[test]
fn the_base_recording_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_temp(dir.path(), "base.json", BASE_RECORDING.as_bytes());
    let outcome = run(&["tui", "--replay", path.to_str().unwrap()]);
    // It is read and checked; only then does the UI find no terminal.
    assert_eq!(outcome.status.code(), Some(2));
    assert!(
        outcome.stderr.contains("needs a terminal"),
        "{}",
        outcome.stderr
    );
    // With a byte-order mark too, as for a scenario.
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend_from_slice(BASE_RECORDING.as_bytes());
    let path = write_temp(dir.path(), "bom.json", &bom);
    let outcome = run(&["tui", "--replay", path.to_str().unwrap()]);
    assert!(
        outcome.stderr.contains("needs a terminal"),
        "{}",
        outcome.stderr
    );
}

#[test]
fn every_hostile_recording_is_refused_in_one_clean_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let dir_path = dir.path().to_path_buf();
    all_pass(
        recording_corpus()
            .into_iter()
            .enumerate()
            .map(|(i, (name, text))| {
                let dir = dir_path.clone();
                let case: Box<dyn FnOnce()> = Box::new(move || {
                    let path = write_temp(&dir, &format!("rec-{i}.json"), text.as_bytes());
                    let outcome = run(&["tui", "--replay", path.to_str().unwrap()]);
                    assert!(
                        !outcome.stderr.contains("needs a terminal"),
                        "accepted: {text}"
                    );
                    assert_refused(&outcome, "replay");
                });
                (name, case)
            }),
    );
}

#[test]
fn a_bad_record_path_is_refused_before_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/folder/x.json");
    let folder = dir.path().to_path_buf();
    for path in [
        missing.to_str().unwrap(),
        folder.to_str().unwrap(),
        "/dev/full",
        "/proc/version",
    ] {
        let outcome = run(&["tui", "--record", path]);
        assert_refused(&outcome, &format!("--record {path}"));
        assert!(
            !outcome.stderr.contains("needs a terminal"),
            "--record {path} was accepted"
        );
    }
}

/// Runs `sh -c script` with the tool as `$0` and returns its exit status and stderr.
fn shell(script: &str) -> (Option<i32>, String) {
    let output = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(BIN)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_closed_pipe_ends_quietly_and_a_full_disk_is_one_sentence() {
    for args in [
        "chaos --runs 100000",
        "run chaos --format json",
        "list",
        "frame gc-pause",
        "--help",
    ] {
        // `head` closes the pipe after one line; the tool's own status is kept in a file.
        let dir = tempfile::tempdir().unwrap();
        let status = dir.path().join("status");
        let (_, stderr) = shell(&format!(
            "{{ \"$0\" {args}; echo $? > {}; }} | head -c 1 > /dev/null",
            status.display()
        ));
        let code = std::fs::read_to_string(&status).unwrap();
        assert_eq!(
            code.trim(),
            "0",
            "{args} | head: exit {code}, stderr {stderr:?}"
        );
        assert!(stderr.is_empty(), "{args} | head printed {stderr:?}");

        let (code, stderr) = shell(&format!("\"$0\" {args} > /dev/full"));
        assert_eq!(code, Some(2), "{args} > /dev/full: stderr {stderr:?}");
        assert_clean_sentence(&stderr, &format!("{args} > /dev/full"));
    }
}

#[test]
fn a_full_stderr_is_exit_2_not_a_panic() {
    for args in ["run nosuch", "chaos --runs x", "run /dev/zero", "--bogus"] {
        let (code, _) = shell(&format!("\"$0\" {args} 2> /dev/full"));
        assert_eq!(code, Some(2), "{args} 2> /dev/full");
    }
}

mod fuzz {
    //! The parsers over arbitrary bytes and over valid files with random bytes spliced in: no
    //! panic, and every error is one clean line. (In-process, so thousands of cases run quickly.)
    use super::{BASE_CHAOS, BASE_RECORDING, BASE_SCENARIO};
    use fencing_lab::sim::recording;
    use fencing_lab::sim::Scenario;
    use proptest::prelude::*;

    fn assert_clean(message: &str) {
        assert!(
            !message.chars().any(char::is_control),
            "a control character in {message:?}"
        );
    }

    /// `base` with `insert` spliced in at `at` (a fraction of its length) and `cut` bytes removed.
    fn spliced(base: &str, at: f64, cut: usize, insert: &[u8]) -> String {
        let mut bytes = base.as_bytes().to_vec();
        let at = ((bytes.len() as f64) * at) as usize;
        let end = (at + cut).min(bytes.len());
        bytes.splice(at..end, insert.iter().copied());
        String::from_utf8_lossy(&bytes).into_owned()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn scenario_parser_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let text = String::from_utf8_lossy(&bytes);
            if let Err(e) = Scenario::parse("fuzz", "fuzz.toml", &text) {
                assert_clean(&e.to_string());
            }
        }

        #[test]
        fn scenario_parser_survives_splices(
            chaos in any::<bool>(),
            at in 0.0..1.0f64,
            cut in 0usize..20,
            insert in proptest::collection::vec(any::<u8>(), 0..12),
        ) {
            let base = if chaos { BASE_CHAOS } else { BASE_SCENARIO };
            let text = spliced(base, at, cut, &insert);
            match Scenario::parse("fuzz", "fuzz.toml", &text) {
                Err(e) => assert_clean(&e.to_string()),
                // Whatever parses stays within the work budget the parser promises.
                Ok(scenario) => prop_assert!(scenario.worst_case_events(scenario.end) <= fencing_lab::sim::scenario::MAX_EVENTS),
            }
        }

        #[test]
        fn recording_parser_never_panics(
            at in 0.0..1.0f64,
            cut in 0usize..20,
            insert in proptest::collection::vec(any::<u8>(), 0..12),
            raw in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            for text in [spliced(BASE_RECORDING, at, cut, &insert), String::from_utf8_lossy(&raw).into_owned()] {
                if let Err(e) = recording::from_json(&text, "fuzz.json") {
                    assert_clean(&e);
                    prop_assert!(!e.contains('\n'));
                }
            }
        }
    }
}

#[test]
fn a_failed_save_leaves_the_old_recording_whole() {
    use fencing_lab::sim::recording::SavePath;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.json");
    std::fs::write(&path, BASE_RECORDING).unwrap();
    let save = SavePath::check(&path).unwrap();
    // The disk fills after 4,096 bytes, as on the machine where the issue was seen.
    let error = save
        .save_with(&"x".repeat(100_000), |file, bytes| {
            use std::io::Write;
            file.write_all(&bytes[..4096])?;
            Err(std::io::Error::other("No space left on device"))
        })
        .unwrap_err();
    assert!(error.contains("unchanged"), "{error}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), BASE_RECORDING);
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["old.json"], "{names:?}");
    // A good save replaces it whole.
    save.save_json(BASE_RECORDING.replace("\"seed\":1", "\"seed\":2").as_str())
        .unwrap();
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("\"seed\":2"));
}

#[test]
fn export_writes_only_a_regular_file_or_a_new_path_never_through_a_link_or_into_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let page = write_temp(dir.path(), "old.html", b"a good page");
    let link = dir.path().join("link.html");
    std::os::unix::fs::symlink(&page, &link).unwrap();
    let fifo = dir.path().join("fifo.html");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for (target, says) in [(&fifo, "it is not a regular file"), (&link, "it is a link")] {
        // `run` kills and fails a command that hangs, as opening a FIFO for writing would.
        let outcome = run(&["export", "gc-pause", "-o", target.to_str().unwrap()]);
        assert_refused(&outcome, &format!("export -o {}", target.display()));
        assert!(outcome.stderr.contains(says), "{}", outcome.stderr);
    }
    assert_eq!(std::fs::read(&page).unwrap(), b"a good page");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let new = dir.path().join("new.html");
    let outcome = run(&["export", "gc-pause", "-o", new.to_str().unwrap()]);
    assert!(outcome.status.success(), "{}", outcome.stderr);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(names.is_empty(), "no temporary left: {names:?}");
}

#[test]
fn a_closed_stdout_is_one_sentence_and_exit_2_for_every_command() {
    for args in [
        "list",
        "systems",
        "run gc-pause",
        "run gc-pause --format json",
        "chaos --runs 3",
        "frame gc-pause",
        "export gc-pause -o -",
        "--help",
        "grade /nonexistent-class",
    ] {
        let (code, stderr) = shell(&format!("exec \"$0\" {args} >&-"));
        assert_eq!(code, Some(2), "{args} >&-: {stderr}");
        assert!(
            stderr.starts_with("fencing-lab: standard output is closed"),
            "{args}: {stderr}"
        );
        assert_clean_sentence(&stderr, args);
    }
}

/// The null device is not a closed stdout, however it was opened: a shell's `>/dev/null` opens
/// it write-only, Python's and Node's DEVNULL read-write (`1<>/dev/null`), as Rust's runtime
/// does for a closed one. A script that throws output away gets its work done.
#[test]
fn the_null_device_is_an_open_stdout_however_it_was_opened() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("lesson.html");
    for redirect in [">/dev/null", "1<>/dev/null"] {
        for args in ["list", "run gc-pause --format json", "chaos --runs 3"] {
            let (code, stderr) = shell(&format!("exec \"$0\" {args} {redirect}"));
            assert_eq!(code, Some(0), "{args} {redirect}: {stderr}");
            assert_eq!(stderr, "", "{args} {redirect}");
        }
        let export = format!(
            "exec \"$0\" export gc-pause -o {} {redirect}",
            page.display()
        );
        let (code, stderr) = shell(&export);
        assert_eq!(code, Some(0), "{export}: {stderr}");
        assert!(page.exists(), "{export} wrote its page");
        std::fs::remove_file(&page).unwrap();
    }
}

/// `check --tui` without a terminal says so before it checks anything, not after a minute of
/// checks.
#[test]
fn check_tui_without_a_terminal_is_refused_before_the_check() {
    let started = std::time::Instant::now();
    let (code, stderr) = shell("exec \"$0\" check --tui tests/lab/faulty/slow.py </dev/null");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("check --tui"), "{stderr}");
    assert!(stderr.contains("needs a terminal"), "{stderr}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_clean_sentence(&stderr, "check --tui");
}

/// A valid scenario of a day's lease and a client asking again every 0.35 s (about 250,000
/// events, under the scenario limit) runs under the memory limit in every output, or is refused
/// up front with its estimate in one sentence: the JSON stream has room for all of it, the
/// outputs that hold a whole run say how many events they hold.
#[test]
fn a_heavy_valid_scenario_runs_in_bounded_memory_or_is_refused_with_its_estimate() {
    let dir = tempfile::tempdir().unwrap();
    let heavy = dir.path().join("heavy.toml");
    std::fs::write(
        &heavy,
        "title = \"a day-long lease and a client that keeps asking\"\nlease = 86400.0\n\
         end = 86400.0\n\n[[beat]]\nat = 0.0\nclient = 1\ndo = \"acquire\"\ncaption = \"one\"\n\n\
         [[beat]]\nat = 0.0\nclient = 2\ndo = \"acquire\"\nretry = 0.3456\ncaption = \"two\"\n",
    )
    .unwrap();
    let heavy = heavy.to_str().unwrap();
    let page = dir.path().join("page.html");
    let page = page.to_str().unwrap();
    let json = run(&["run", heavy, "--format", "json"]);
    assert!(json.status.success(), "{}", json.stderr);
    assert!(
        json.stdout.lines().count() > 200_000,
        "every event, streamed"
    );
    for args in [
        &["run", heavy][..],
        &["run", heavy, "--format", "markdown"],
        &["run", heavy, "--format", "svg", "--from", "0"],
        &["run", heavy, "--format", "svg"],
        &["run", heavy, "--format", "cast"],
        &["export", heavy, "-o", page],
        &["frame", heavy],
        &["export", "chaos", "--until", "86400", "-o", page],
    ] {
        let outcome = run(args);
        assert_eq!(
            outcome.status.code(),
            Some(2),
            "{args:?}: {}",
            outcome.stderr
        );
        // The worst case, or for chaos the events counted as they stream by.
        assert!(
            outcome.stderr.contains("more than the 50,000")
                || outcome
                    .stderr
                    .contains("make more events by 86400.0 s than the 50,000"),
            "{args:?}: {}",
            outcome.stderr
        );
        assert_clean_sentence(&outcome.stderr, &format!("{args:?}"));
    }
    // With an earlier end, they all run.
    for args in [
        &["run", heavy, "--until", "600"][..],
        &["run", heavy, "--format", "svg", "--until", "600"],
        &["frame", heavy, "--at", "60"],
    ] {
        let outcome = run(args);
        assert!(outcome.status.success(), "{args:?}: {}", outcome.stderr);
    }
}

/// `lab init` whose words cannot be written (a full stdout) keeps no half-told starter: it is
/// one sentence, exit 2, and the folder is as it was (a folder it made is gone, one that held a
/// file still holds it alone). A closed pipe keeps the starter, as every command takes `| head`.
#[test]
fn lab_init_into_a_full_stdout_leaves_no_starter_behind() {
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("fresh");
    let (code, stderr) = shell(&format!(
        "\"$0\" lab init js {} > /dev/full",
        fresh.display()
    ));
    assert_eq!(code, Some(2), "{stderr}");
    assert_clean_sentence(&stderr, "lab init > /dev/full");
    assert!(stderr.contains("the starter is not kept"), "{stderr}");
    assert!(!fresh.exists(), "the folder it made is gone");
    let held = dir.path().join("held");
    std::fs::create_dir(&held).unwrap();
    std::fs::write(held.join("notes.txt"), "mine").unwrap();
    let (code, _) = shell(&format!(
        "\"$0\" lab init python {} > /dev/full",
        held.display()
    ));
    assert_eq!(code, Some(2));
    let left: Vec<_> = std::fs::read_dir(&held)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left, ["notes.txt"], "only what was there before");
    let piped = dir.path().join("piped");
    let (code, _) = shell(&format!(
        "\"$0\" lab init js {} | head -c 1 > /dev/null",
        piped.display()
    ));
    assert_eq!(code, Some(0));
    assert!(
        piped.join("lock_service.mjs").is_file(),
        "a closed pipe keeps the starter"
    );
}

/// Numbers past what the tool can honour are refused in one sentence: a scenario's first token
/// above 2^53 - 1 (the protocol's limit), and a run of seeds that would wrap past the last.
#[test]
fn a_token_past_the_protocol_and_seeds_past_the_last_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/scenarios/gc-pause.toml"
    ))
    .unwrap();
    for (first, refused) in [
        ("9007199254740991", false),
        ("9007199254740992", true),
        ("18446744073709551615", true),
    ] {
        let path = write_temp(
            dir.path(),
            "big.toml",
            base.replace("first_token = 1", &format!("first_token = {first}"))
                .as_bytes(),
        );
        let outcome = run(&["run", path.to_str().unwrap()]);
        if refused {
            assert_refused(&outcome, first);
            assert!(outcome.stderr.contains("2^53 - 1"), "{}", outcome.stderr);
        } else {
            assert_eq!(outcome.status.code(), Some(0), "{}", outcome.stderr);
        }
    }
    let last = u64::MAX.to_string();
    let wraps = run(&["chaos", "--seed", &last, "--runs", "2"]);
    assert_refused(&wraps, "seeds that wrap");
    assert!(
        wraps
            .stderr
            .contains("start at 18446744073709551614 at most"),
        "{}",
        wraps.stderr
    );
    let fits = run(&["chaos", "--seed", "18446744073709551614", "--runs", "2"]);
    assert_eq!(fits.status.code(), Some(0), "{}", fits.stderr);
    assert!(
        fits.stdout
            .contains("seeds 18446744073709551614..18446744073709551615"),
        "{}",
        fits.stdout
    );
}
