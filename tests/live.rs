//! The lesson on a real etcd (`fencing-lab live`), end to end: the real binary, real client
//! processes, a real etcd started here (a private one per lesson, or a three-node cluster whose
//! leader is killed), and etcdctl to read back what etcd holds. Lessons run side by side on
//! threads, so the suite takes about as long as its longest lesson or two (a lesson's seconds
//! are real seconds).
//!
//! Without `etcd` and `etcdctl` on the PATH these tests say SKIPPED and pass, unless
//! FENCING_LAB_CI is set (as `.ci/run` sets it), where they fail.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "live/etcdctl.rs"]
mod etcdctl_txn;
#[path = "live/failover.rs"]
mod failover;
#[path = "live/screen.rs"]
mod screen;

const BIN: &str = env!("CARGO_BIN_EXE_fencing-lab");

/// Whether etcd and etcdctl are here; in CI their absence fails the test.
fn etcd_here(test: &str) -> bool {
    let found = |name: &str, version: &str| {
        Command::new(name)
            .arg(version)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if found("etcd", "--version") && found("etcdctl", "version") {
        return true;
    }
    let required = std::env::var_os("FENCING_LAB_CI").is_some();
    eprintln!(
        "\n\n!!!!!!!! SKIPPED {test}: the live lesson's tests need `etcd` and `etcdctl` on PATH \
         (apt-get install -y etcd-server etcd-client); .ci/run installs them. !!!!!!!!\n"
    );
    assert!(!required, "FENCING_LAB_CI is set and etcd is missing");
    false
}

/// A lesson running as a child process, its JSON events read as they come.
struct Lesson {
    child: Child,
    events: Receiver<Value>,
    seen: Vec<Value>,
    stderr: std::thread::JoinHandle<String>,
}

impl Lesson {
    fn start(args: &[&str]) -> Lesson {
        let mut child = Command::new(BIN)
            .arg("live")
            .args(args)
            .args(["--format", "json"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, events) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let value: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Lesson {
            child,
            events,
            seen: Vec::new(),
            stderr,
        }
    }

    /// The next event for which `wanted` holds (every event on the way is kept in `seen`).
    fn until(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(40);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left) {
                Ok(event) => {
                    self.seen.push(event.clone());
                    if wanted(&event) {
                        return event;
                    }
                }
                Err(_) => panic!("never saw {what}; saw:\n{}", self.story()),
            }
        }
    }

    /// The next event named `name` (of `client`, if given).
    fn next(&mut self, name: &str, client: Option<&str>) -> Value {
        self.until(&format!("{name} of {client:?}"), |e| {
            e["event"] == name && client.is_none_or(|c| e["client"] == c)
        })
    }

    fn story(&self) -> String {
        self.seen
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Reads to the end; the exit code and stderr.
    fn finish(mut self) -> (Option<i32>, String, Vec<Value>) {
        while let Ok(event) = self.events.recv_timeout(Duration::from_secs(40)) {
            self.seen.push(event);
        }
        let status = self.child.wait().unwrap();
        (status.code(), self.stderr.join().unwrap(), self.seen)
    }
}

/// What of run `run` (its client processes, its etcd, its directory) is still there: `run` is
/// a run's id, or its end (a run's id ends with the lesson's process id).
fn leftovers(run: &str) -> Vec<String> {
    let mut left = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let ours = cmdline.contains(&format!("{run} ")) || cmdline.contains(&format!("{run}/"));
        if ours && cmdline.contains("fencing-lab") {
            left.push(format!(
                "process {}: {cmdline}",
                entry.file_name().to_string_lossy()
            ));
        }
    }
    for entry in std::fs::read_dir(std::env::temp_dir()).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("fencing-lab-live-") && name.ends_with(run) {
            left.push(format!("directory {}", entry.path().display()));
        }
    }
    left
}

/// Waits a moment for processes being reaped, then says what is left of `run`.
fn nothing_left(run: &str) {
    let deadline = Instant::now() + Duration::from_secs(3);
    while !leftovers(run).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        leftovers(run),
        Vec::<String>::new(),
        "run {run} left these behind"
    );
}

fn etcdctl(endpoints: &str, args: &[&str]) -> String {
    let out = Command::new("etcdctl")
        .arg(format!("--endpoints={endpoints}"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "etcdctl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The process's state letter in /proc/PID/stat (`T`: stopped).
fn state(pid: u64) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(") ")?.1.chars().next()
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

fn int(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// gc-pause on the lesson's own etcd: the tokens are etcd's revisions and rise, client 1's
/// process is stopped (state T) through its pause, and its late write with its first token is
/// refused by etcd's transaction (fenced) or lands (unfenced), as etcd shows afterwards.
fn gc_pause(fenced: bool) {
    let mut lesson = Lesson::start(if fenced {
        &["gc-pause"]
    } else {
        &["gc-pause", "--no-fencing"]
    });
    let live = lesson.next("live", None);
    let run = text(&live["run"]).to_owned();
    let endpoint = text(&live["etcd"][0]).to_owned();
    let prefix = text(&live["prefix"]).to_owned();
    assert_eq!(
        live["private"]["dir"],
        Value::from(
            std::env::temp_dir()
                .join(format!("fencing-lab-live-{run}"))
                .display()
                .to_string()
        )
    );
    assert_eq!(
        (live["ttl_asked"].clone(), live["ttl_granted"].clone()),
        (Value::from(10), Value::from(10))
    );
    let c1 = int(&live["clients"]["client-1"]);
    let first = lesson.next("grant", Some("client-1"));
    let t1 = int(&first["token"]);
    let pause = lesson.next("pause", Some("client-1"));
    assert_eq!(
        (int(&pause["pid"]), text(&pause["signal"])),
        (c1, "SIGSTOP")
    );
    // Stopped through its pause: at its start and while client 3 is refused, at 4 s.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        state(c1),
        Some('T'),
        "client 1's process is stopped during its pause"
    );
    let refused = lesson.next("acquire_refused", Some("client-3"));
    assert_eq!(
        (text(&refused["holder"]), int(&refused["holder_token"])),
        ("client-1", t1)
    );
    assert_eq!(state(c1), Some('T'), "still stopped at {}", refused["t"]);
    let expire = lesson.next("expire", Some("client-1"));
    assert!(
        expire["t"].as_f64().unwrap() >= 10.0,
        "etcd ended the lease after its TTL: {expire}"
    );
    let second = lesson.next("grant", Some("client-2"));
    let t2 = int(&second["token"]);
    assert!(t2 > t1, "tokens rise: {t1} then {t2}");
    lesson.next("write", Some("client-2"));
    // The token is the lock key's revision, as etcd itself says.
    let lock = etcdctl(
        &endpoint,
        &["get", &format!("{prefix}lock/file-lock"), "-w", "json"],
    );
    let lock: Value = serde_json::from_str(&lock).unwrap();
    assert_eq!(
        int(&lock["kvs"][0]["create_revision"]),
        t2,
        "token 2 is the lock key's create_revision"
    );
    let resume = lesson.next("resume", Some("client-1"));
    assert_eq!(text(&resume["signal"]), "SIGCONT");
    assert_ne!(state(c1), Some('T'), "client 1 runs again");
    let late = lesson.next("write", Some("client-1"));
    assert_eq!(
        int(&late["token"]),
        t1,
        "the late write carries client 1's first token"
    );
    assert_eq!(late["highest"], Value::from(t2));
    assert_eq!(late["accepted"], Value::from(!fenced));
    let (outcome, data, check) = if fenced {
        ("rejected", "client 2's data", "per-key")
    } else {
        ("corrupted", "client 1's data", "none")
    };
    assert_eq!(
        (text(&late["outcome"]), text(&late["check"])),
        (outcome, check)
    );
    assert_eq!(text(&late["read_back"]), data);
    // At 17 s, etcd itself holds this.
    let stored = etcdctl(
        &endpoint,
        &["get", &format!("{prefix}data/file"), "--print-value-only"],
    );
    assert_eq!(
        stored.trim_end(),
        data,
        "etcd holds it at about {} s",
        late["t"]
    );
    let third = lesson.next("grant", Some("client-1"));
    assert!(int(&third["token"]) > t2, "tokens rise again");
    let (code, stderr, events) = lesson.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let summary = events.last().unwrap();
    assert_eq!(summary["event"], "summary");
    assert_eq!(summary["corruptions"], Value::from(u64::from(!fenced)));
    assert_eq!(summary["writes_rejected"], Value::from(u64::from(fenced)));
    assert!((summary["t"].as_f64().unwrap() - 23.0).abs() < 1e-9);
    if !fenced {
        assert!(events.iter().any(|e| e["event"] == "corruption"));
    }
    lesson_said(&events, fenced, [t1, t2, int(&third["token"])]);
    nothing_left(&run);
}

/// What the simulated lesson says of a gc-pause that etcd played as scripted: every beat's
/// caption in order, each after its beat's events, in etcd's tokens; the question just before
/// client 1's late write, and etcd's verdict just after.
fn lesson_said(events: &[Value], fenced: bool, [t1, t2, t3]: [u64; 3]) {
    let story = events
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    let captions: Vec<(u64, &str)> = events
        .iter()
        .filter(|e| e["event"] == "caption")
        .map(|e| (int(&e["beat"]), text(&e["says"])))
        .collect();
    let beats: Vec<u64> = captions.iter().map(|(b, _)| *b).collect();
    assert_eq!(beats, (1..=13).collect::<Vec<_>>(), "{story}");
    let said = |beat: u64| captions[beat as usize - 1].1;
    assert_eq!(
        said(5),
        format!(
            "Client 2 takes the lock and gets token {t2}: every grant gets a higher token than \
             any before."
        )
    );
    let (late_caption, question, answer) = if fenced {
        (
            format!(
                "Client 1 writes with token {t1}. Storage has accepted token {t2} for this key: \
                 {t1} < {t2}, REJECTED."
            ),
            format!("Will the storage accept client 1's write with token {t1}?"),
            format!("REJECTED, token {t1} < {t2}, the highest token 'file' has accepted."),
        )
    } else {
        (
            format!(
                "Client 1 writes with token {t1}. With no check it lands on client 2's data: \
                 CORRUPTED DATA!"
            ),
            format!("Will the storage accept client 1's write with token {t1}?"),
            format!(
                "ACCEPTED, no check, although token {t1} < {t2}, the highest token 'file' had \
                 accepted. CORRUPTED DATA!"
            ),
        )
    };
    assert_eq!(said(8), late_caption);
    assert!(said(11).contains(&format!("token {t3}")), "{}", said(11));
    let at = |name: &str| events.iter().position(|e| e["event"] == name).unwrap();
    let late = events
        .iter()
        .position(|e| e["event"] == "write" && e["client"] == "client-1")
        .unwrap();
    assert_eq!(
        (at("question"), at("answer")),
        (late - 1, late + 1),
        "{story}"
    );
    assert_eq!(text(&events[late - 1]["says"]), question);
    assert_eq!(text(&events[late + 1]["says"]), answer);
    // A beat's caption comes after its events and before the next beat's: the late write's
    // caption (beat 8, at 16.5 s) after that write, before client 1's renewal at 17.5 s.
    let caption_8 = events
        .iter()
        .position(|e| e["event"] == "caption" && e["beat"] == 8)
        .unwrap();
    let renewal = at("renew_refused");
    assert!(late < caption_8 && caption_8 < renewal, "{story}");
}

/// network-delay: no pause; client 1's write, held 12 s by the client before it is sent,
/// arrives after client 2's and is refused by etcd's transaction.
fn network_delay() {
    let mut lesson = Lesson::start(&["network-delay"]);
    let run = text(&lesson.next("live", None)["run"]).to_owned();
    let t1 = int(&lesson.next("grant", Some("client-1"))["token"]);
    let sent = lesson.next("send", Some("client-1"));
    assert_eq!(int(&sent["token"]), t1);
    let t2 = int(&lesson.next("grant", Some("client-2"))["token"]);
    lesson.next("write", Some("client-2"));
    let late = lesson.next("write", Some("client-1"));
    assert_eq!(
        (late["sent_at"].clone(), text(&late["outcome"])),
        (sent["t"].clone(), "rejected")
    );
    assert_eq!(late["highest"], Value::from(t2));
    assert!(
        late["t"].as_f64().unwrap() >= 13.9,
        "held about 12 s: {late}"
    );
    let (code, stderr, _) = lesson.finish();
    assert_eq!(code, Some(0), "{stderr}");
    nothing_left(&run);
}

/// chaos with a seed: the clients decide from their seeded generators; grants' tokens only
/// rise; with fencing no stale write lands.
fn chaos() {
    let mut lesson = Lesson::start(&["chaos", "--seed", "7", "--until", "9"]);
    let live = lesson.next("live", None);
    assert_eq!(live["seed"], Value::from(7));
    let run = text(&live["run"]).to_owned();
    let (code, stderr, events) = lesson.finish();
    // --until keeps the lesson's etcd's directory: this test removes it, before anything can
    // fail.
    let dir = std::env::temp_dir().join(format!("fencing-lab-live-{run}"));
    let kept = dir.join("data").is_dir();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(kept, "--until keeps etcd's data in {}", dir.display());
    assert_eq!(code, Some(0), "{stderr}");
    let tokens: Vec<u64> = events
        .iter()
        .filter(|e| e["event"] == "grant")
        .map(|e| int(&e["token"]))
        .collect();
    assert!(tokens.len() >= 2, "{tokens:?}");
    assert!(
        tokens.windows(2).all(|w| w[0] < w[1]),
        "tokens rise: {tokens:?}"
    );
    assert!(
        events.iter().any(|e| e["event"] == "write"),
        "the clients wrote"
    );
    let summary = events.last().unwrap();
    assert_eq!(
        (summary["corruptions"].clone(), summary["kept"].clone()),
        (Value::from(0), Value::from(true))
    );
    assert!(
        stderr.contains("etcd's data is kept in"),
        "--until says where the data is: {stderr}"
    );
    assert!(
        stderr.contains("lock/ goes when its lease's TTL runs out once etcd runs again"),
        "--until says the lock key goes: {stderr}"
    );
    nothing_left(&run);
}

fn in_parallel(lessons: Vec<(&'static str, fn())>) {
    let handles: Vec<_> = lessons
        .into_iter()
        .map(|(name, lesson)| (name, std::thread::spawn(lesson)))
        .collect();
    let failed: Vec<&str> = handles
        .into_iter()
        .filter_map(|(name, handle)| handle.join().is_err().then_some(name))
        .collect();
    assert!(
        failed.is_empty(),
        "these lessons failed (their panics are above): {failed:?}"
    );
}

#[test]
fn lessons_on_the_lesson_s_own_etcd() {
    if !etcd_here("lessons_on_the_lesson_s_own_etcd") {
        return;
    }
    in_parallel(vec![
        ("gc-pause fenced", || gc_pause(true)),
        ("gc-pause unfenced", || gc_pause(false)),
        ("network-delay", network_delay),
        ("chaos", chaos),
    ]);
}

/// Stops a lesson in the middle, while client 1's process is stopped, in one of three ways;
/// the one sentence it says (exit 2), and nothing of it left.
fn stopped_midway(how: &'static str) {
    let mut lesson = Lesson::start(&["gc-pause"]);
    let live = lesson.next("live", None);
    let run = text(&live["run"]).to_owned();
    lesson.next("pause", Some("client-1"));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(state(int(&live["clients"]["client-1"])), Some('T'));
    let pid = match how {
        "client dies" => int(&live["clients"]["client-2"]),
        _ => u64::from(lesson.child.id()),
    };
    let signal = match how {
        "SIGINT" => "INT",
        "SIGTERM" => "TERM",
        _ => "KILL",
    };
    let sent = Command::new("kill")
        .args(["-s", signal, &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let (code, stderr, _) = lesson.finish();
    assert_eq!(code, Some(2), "{how}: {stderr}");
    let line = stderr.trim_end();
    assert_eq!(line.lines().count(), 1, "{how}: one sentence: {stderr}");
    let said = match how {
        "client dies" => "client-2's process",
        _ => "interrupted at",
    };
    assert!(
        line.starts_with("fencing-lab: ") && line.contains(said),
        "{how}: {line}"
    );
    assert!(
        line.contains("are stopped, and") && line.contains("is removed"),
        "{how}: {line}"
    );
    nothing_left(&run);
}

#[test]
fn a_lesson_stopped_midway_leaves_nothing_behind() {
    if !etcd_here("a_lesson_stopped_midway_leaves_nothing_behind") {
        return;
    }
    in_parallel(vec![
        ("SIGINT", || stopped_midway("SIGINT")),
        ("SIGTERM", || stopped_midway("SIGTERM")),
        ("client dies", || stopped_midway("client dies")),
    ]);
}

fn run_live(args: &[&str], path: Option<&Path>) -> (Option<i32>, String, String) {
    let mut command = Command::new(BIN);
    command.arg("live").args(args);
    if let Some(path) = path {
        command.env("PATH", path);
    }
    let out = command.output().unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn what_cannot_be_told_is_one_sentence_and_exit_2() {
    let empty = tempfile::tempdir().unwrap();
    let (code, out, err) = run_live(&["gc-pause"], Some(empty.path()));
    assert_eq!((code, out.as_str()), (Some(2), ""));
    assert_eq!(
        err,
        "fencing-lab: the live lesson needs etcd, and there is no `etcd` on the PATH: install \
         etcd (e.g. `apt-get install etcd-server etcd-client`), or give --etcd URL of a running one\n"
    );
    let port = failover::free_port();
    let started = Instant::now();
    let (code, _, err) = run_live(&["--etcd", &format!("http://127.0.0.1:{port}")], None);
    assert_eq!(code, Some(2));
    assert!(
        err.starts_with(&format!(
            "fencing-lab: cannot use etcd at http://127.0.0.1:{port}: no etcd endpoint answered"
        )),
        "{err}"
    );
    assert!(
        err.trim_end().ends_with("nothing was written to etcd"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    for (args, said) in [
        (
            &["clock-jump"][..],
            "which fencing-lab cannot do to a real etcd",
        ),
        (&["--etcd", "https://etcd:2379"][..], "uses TLS"),
        (&["--etcd", "http://etcd/v3"][..], "is not an etcd address"),
        (&["--tui"][..], "the terminal UI needs a terminal"),
    ] {
        let (code, _, err) = run_live(args, None);
        assert_eq!(code, Some(2), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(said), "{args:?}: {err}");
    }
}

/// An `--etcd` that answers a byte every 2 s, each within a read's timeout, is refused within
/// the lesson's own patience (a request's 2 s, a first call's 3 s), in one sentence.
#[test]
fn an_etcd_that_trickles_is_refused_within_its_timeout() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for socket in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut socket = socket;
                let mut request = [0; 4096];
                let _ = socket.read(&mut request);
                for byte in b"HTTP/1.1 200 OK\r\n".iter().cycle() {
                    if socket.write_all(&[*byte]).is_err() {
                        return;
                    }
                    std::thread::sleep(Duration::from_secs(2));
                }
            });
        }
    });
    let started = Instant::now();
    let (code, out, err) = run_live(&["--etcd", &format!("http://127.0.0.1:{port}")], None);
    let took = started.elapsed();
    assert_eq!((code, out.as_str()), (Some(2), ""), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("took longer than 2.0 s"), "{err}");
    assert!(took < Duration::from_secs(10), "refused after {took:?}");
}

/// `live --tui` in a pseudo-terminal: the lesson's screen as it happens, `q` stops it before
/// its end (exit 2, one sentence), the terminal is given back, and nothing is left.
#[test]
fn the_live_ui_runs_in_a_terminal_and_q_stops_it() {
    if !etcd_here("the_live_ui_runs_in_a_terminal_and_q_stops_it") {
        return;
    }
    use portable_pty::{native_pty_system, CommandBuilder, PtySize};
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 24,
            cols: 80,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(BIN);
    cmd.args(["live", "gc-pause", "--tui"]);
    cmd.env("TERM", "xterm-256color");
    cmd.env("NO_COLOR", "1");
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let mut writer = pair.master.take_writer().unwrap();
    let (tx, output) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut screen = vt100::Parser::new(24, 80, 0);
    let wait_for = |wanted: &str, screen: &mut vt100::Parser| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !screen.screen().contents().contains(wanted) {
            assert!(
                Instant::now() < deadline,
                "never saw {wanted:?}:\n{}",
                screen.screen().contents()
            );
            if let Ok(bytes) = output.recv_timeout(Duration::from_millis(100)) {
                screen.process(&bytes);
            }
        }
    };
    wait_for("client-1 freezes in a GC pause", &mut screen);
    let contents = screen.screen().contents();
    assert!(contents.contains("LIVE · FENCING ON"), "{contents}");
    // A run's id ends with the lesson's process id.
    let pid = child.process_id().unwrap();
    std::io::Write::write_all(&mut writer, b"q").unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.exit_code(), 2, "q before the end stops the lesson");
    let mut rest = Vec::new();
    while let Ok(bytes) = output.recv_timeout(Duration::from_millis(500)) {
        rest.extend(bytes);
    }
    let rest = String::from_utf8_lossy(&rest);
    assert!(
        rest.contains("\x1b[?1049l"),
        "the terminal's main screen is back"
    );
    assert!(rest.contains("interrupted at"), "{rest}");
    nothing_left(&format!("-{pid}"));
}
