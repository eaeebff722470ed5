use super::*;
use crate::lab::testing::{first_request, recording_first_request, PATIENT, PATIENTLY, SH_HELLO};
use crate::lab::wire::LeaseReply;

/// Runs `script` with `sh -c`: a program that answers as scripted, whatever it is asked.
fn sh(script: &str) -> Command {
    let mut command = Command::new("sh");
    command.arg("-c").arg(script);
    command
}

/// A program that says hello, then answers "done" to every line it reads, as fast as it can.
fn answers_done() -> Command {
    sh(&format!(
        r#"{SH_HELLO}
        i=1; while read l; do echo "{{\"id\":$i,\"done\":true}}"; i=$((i+1)); done"#
    ))
}

fn acquire() -> Request {
    Request::Acquire {
        name: "file".into(),
        client_id: "client-1".into(),
    }
}

#[test]
fn a_program_answers_each_request_in_turn_and_its_calls_are_counted() {
    let script = r#"read l; printf '{"id":0,"hello":"x","language":"sh"}\r\n'
        read l; echo '{"id":1,"done":true}'
        read l; echo '{"id":2,"returned":{"token":3,"expires_at":12.5}}'
        read l; echo '{"id":3,"returned":null}'
        exec sleep 5"#;
    let mut program = Program::start(sh(script), PATIENTLY).unwrap();
    assert_eq!(program.language, "sh");
    assert_eq!(program.calls, 1);
    assert_eq!(program.call(&Request::Clock { now: 1.0 }), Ok(Reply::Done));
    assert_eq!(program.calls, 2);
    assert_eq!(
        program.call(&acquire()),
        Ok(Reply::Lease(Some(LeaseReply::new(3, Some(12.5)))))
    );
    assert_eq!(
        program.call(&Request::Holder {
            name: "file".into()
        }),
        Ok(Reply::Holder(None))
    );
    assert_eq!(program.calls, 4);
    assert_eq!(program.stderr_tail(), Vec::<String>::new());
}

/// Requests are written before their replies are read: a program that reads everything first
/// and only then answers is answered in order.
#[test]
fn requests_are_written_ahead_of_their_replies() {
    // `head -n 501` returns only once all 500 clock requests have arrived after hello.
    let script = r#"read l; echo '{"id":0,"hello":"x","language":"sh"}'
        head -n 500 > /dev/null
        i=1; while [ $i -le 500 ]; do echo "{\"id\":$i,\"done\":true}"; i=$((i+1)); done
        exec sleep 5"#;
    let mut program = Program::start(sh(script), PATIENTLY).unwrap();
    for n in 0..500 {
        program.send(&Request::Clock { now: n as f64 }).unwrap();
    }
    assert_eq!(program.in_flight(), 500);
    for _ in 0..500 {
        assert_eq!(program.receive(), Ok(Reply::Done));
    }
    assert_eq!(program.in_flight(), 0);
    assert_eq!(program.calls, 501);
}

/// Each reply's time runs from when the program could start on its request: five requests
/// written at once, answered 0.2 s apart, all pass a 0.5 s timeout though the last comes 1 s
/// after it was written.
#[test]
fn each_request_has_its_own_time_counted_from_the_reply_before_it() {
    let script = format!(
        r#"{SH_HELLO}
        i=1; while [ $i -le 5 ]; do read l; sleep 0.2; echo "{{\"id\":$i,\"done\":true}}"; i=$((i+1)); done
        read l; sleep 2; echo '{{"id":6,"done":true}}'"#
    );
    let timeouts = Timeouts {
        startup: PATIENT,
        request: Duration::from_millis(500),
    };
    let mut program = Program::start(sh(&script), timeouts).unwrap();
    let started = Instant::now();
    for n in 0..6 {
        program.send(&Request::Clock { now: n as f64 }).unwrap();
    }
    for _ in 0..5 {
        assert_eq!(program.receive(), Ok(Reply::Done));
    }
    assert!(started.elapsed() >= Duration::from_millis(1000));
    assert_eq!(
        program.receive().unwrap_err().sentence,
        "the program did not answer within 0.5 s at request 6 (clock = 5.0); it wrote nothing \
         on stderr"
    );
}

/// The start-up allowance covers the program's own start: a slow start is not a slow request.
#[test]
fn hello_gets_the_start_up_allowance_and_later_requests_the_timeout() {
    let slow_start = format!("sleep 0.6; {SH_HELLO}; read l; sleep 5");
    let generous = Timeouts {
        startup: PATIENT,
        request: Duration::from_millis(300),
    };
    let mut program = Program::start(sh(&slow_start), generous).unwrap();
    assert_eq!(program.language, "sh");
    assert!(program
        .call(&acquire())
        .unwrap_err()
        .sentence
        .starts_with("the program did not answer within 0.3 s at request 1"));
    let strict = Timeouts {
        startup: Duration::from_millis(200),
        request: PATIENT,
    };
    assert_eq!(
        Program::start(sh(&slow_start), strict)
            .err()
            .unwrap()
            .sentence,
        "the program did not answer within 0.2 s at request 0 (hello); it wrote nothing on stderr \
         (a program that writes its replies but never flushes standard output is silent too: \
         flush after each line)"
    );
}

#[test]
fn a_program_that_cannot_start_is_named_with_its_arguments() {
    let mut command = Command::new("/nonexistent/fencing-lab-student");
    command.args(["--serve", "a\u{7}b"]);
    let error = Program::start(command, PATIENTLY).err().unwrap();
    let sentence = "could not start /nonexistent/fencing-lab-student --serve a\\u{7}b: \
                    No such file or directory (os error 2)";
    assert_eq!(error.sentence, sentence);
    assert_eq!(error.to_string(), sentence);
}

#[test]
fn a_reply_with_the_wrong_id_stops_the_program_and_fails_every_later_call() {
    let script = format!(r#"{SH_HELLO}; read l; echo '{{"id":0,"done":true}}'; exec sleep 5"#);
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    let error = program.call(&Request::Clock { now: 1.0 }).unwrap_err();
    let sentence = r#"the program replied '{"id":0,"done":true}', which carries id 0 instead of 1 at request 1 (clock = 1.0); it wrote nothing on stderr"#;
    assert_eq!(error.to_string(), sentence);
    // Stopped: no stdin, killed and reaped.
    assert!(!program.stdin.is_open());
    assert!(program.child.try_wait().unwrap().is_some());
    // Latched: later calls fail the same way without a request.
    assert_eq!(program.call(&Request::Hello), Err(error.clone()));
    assert_eq!(program.send(&Request::Hello), Err(error));
    assert_eq!(program.next_id, 2);
    assert_eq!(program.calls, 1);
}

#[test]
fn a_reply_that_is_not_json_is_quoted() {
    let script = format!("{SH_HELLO}; read l; echo 'acquiring the lock'; exec sleep 5");
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    assert_eq!(
        program.call(&acquire()).unwrap_err().sentence,
        "the program replied 'acquiring the lock', which is not JSON (print debugging output \
         on stderr, never on stdout) at request 1 (acquire(file, client-1)); it wrote nothing \
         on stderr"
    );
}

#[test]
fn a_program_that_exits_shows_its_status_and_its_last_five_stderr_lines() {
    let script = format!(
        r#"for i in 1 2 3 4 5 6 7; do echo "  line $i  " >&2; done; {SH_HELLO}; read l; exit 3"#
    );
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    // However busy the machine, the stderr reader has caught up before the program fails.
    let started = Instant::now();
    while program.stderr_tail().last().map(String::as_str) != Some("line 7")
        && started.elapsed() < PATIENT
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        program.call(&acquire()).unwrap_err().sentence,
        "the program exited with status 3 before answering at request 1 \
         (acquire(file, client-1)); its stderr ends: line 3 | line 4 | line 5 | line 6 | line 7"
    );
    assert_eq!(
        program.stderr_tail(),
        ["line 3", "line 4", "line 5", "line 6", "line 7"]
    );
}

/// A program that floods stderr without a line break is read with its memory bounded: the
/// line it is still writing is shown as far as it is kept, and the reader keeps up to the end.
#[test]
fn an_endless_stderr_line_is_cut_and_shown_unfinished() {
    let script = format!(
        r#"{SH_HELLO}; echo first >&2; head -c 20000000 /dev/zero | tr '\0' x >&2; read l; exit 4"#
    );
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    let started = Instant::now();
    while program.stderr_tail().len() < 2 && started.elapsed() < PATIENT {
        std::thread::sleep(Duration::from_millis(5));
    }
    let sentence = program.call(&acquire()).unwrap_err().sentence;
    let tail = program.stderr_tail();
    assert_eq!(tail[0], "first");
    assert_eq!(tail[1], "x".repeat(300), "the unfinished line, cut");
    assert!(
        sentence.contains("its stderr ends: first | xxx"),
        "{sentence}"
    );
}

/// What the program wrote on stderr reaches an error escaped: it cannot retitle the terminal.
#[test]
fn a_programs_stderr_is_escaped_in_an_error() {
    let script = format!(r#"printf 'boom\033]0;PWN\007\n' >&2; {SH_HELLO}; read l; exit 1"#);
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    let started = Instant::now();
    while program.stderr_tail().is_empty() && started.elapsed() < PATIENT {
        std::thread::sleep(Duration::from_millis(5));
    }
    let sentence = program.call(&acquire()).unwrap_err().sentence;
    assert!(
        sentence.ends_with("its stderr ends: boom\\u{1b}]0;PWN\\u{7}"),
        "{sentence}"
    );
}

#[test]
fn a_program_killed_by_a_signal_says_so() {
    let script = format!("{SH_HELLO}; read l; kill -9 $$");
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    assert_eq!(
        program
            .call(&Request::Clock { now: 2.0 })
            .unwrap_err()
            .sentence,
        "the program was killed by signal 9, SIGKILL before answering at request 1 \
         (clock = 2.0); it wrote nothing on stderr"
    );
    let script = format!("{SH_HELLO}; read l; kill -ABRT $$");
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    let sentence = program.call(&acquire()).unwrap_err().sentence;
    assert!(
        sentence.starts_with("the program was killed by signal 6, SIGABRT (an abort) before"),
        "{sentence}"
    );
}

/// What a program starts ends with it: a child that ignores SIGTERM, in the program's own
/// process group, is gone once the program is stopped.
#[test]
fn a_programs_own_children_end_with_it() {
    let scratch = tempfile::tempdir().unwrap();
    let pidfile = scratch.path().join("pid");
    let script = format!(
        "(trap '' TERM; echo $(sh -c 'echo $PPID') > {}; exec sleep 300) & {SH_HELLO}; read l",
        pidfile.display()
    );
    let program = Program::start(sh(&script), PATIENTLY).unwrap();
    let started = Instant::now();
    let pid = loop {
        if let Some(pid) = std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|t| t.trim().parse::<i32>().ok())
        {
            break pid;
        }
        assert!(started.elapsed() < PATIENT, "the grandchild never started");
        std::thread::sleep(Duration::from_millis(5));
    };
    let alive = |pid: i32| std::path::Path::new(&format!("/proc/{pid}")).exists();
    assert!(alive(pid), "the grandchild runs");
    drop(program);
    let stopped = Instant::now();
    // A killed process lingers as a zombie until init reaps it: gone, or a zombie.
    let gone = || {
        !alive(pid)
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|s| s.split(") ").nth(1).is_some_and(|r| r.starts_with('Z')))
    };
    while !gone() && stopped.elapsed() < PATIENT {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(gone(), "the grandchild {pid} outlived its program");
}

#[test]
fn a_program_that_does_not_answer_in_time_is_stopped() {
    let script = format!("{SH_HELLO}; read l; exec sleep 5");
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    program.timeouts.request = Duration::from_millis(300);
    assert_eq!(
        program.call(&acquire()).unwrap_err().sentence,
        "the program did not answer within 0.3 s at request 1 (acquire(file, client-1)); \
         it wrote nothing on stderr"
    );
    assert!(program.child.try_wait().unwrap().is_some());
}

/// The whole check's deadline cuts short the wait for a reply that would still be in its own
/// time: the check ends when its deadline passes, not when the reply comes.
#[test]
fn the_checks_deadline_cuts_short_the_wait_for_a_reply() {
    let script = format!("{SH_HELLO}; read l; sleep 2; echo '{{\"id\":1,\"done\":true}}'");
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    let started = Instant::now();
    program.set_deadline(started, Some(Duration::from_millis(300)));
    assert_eq!(
        program.call(&acquire()).unwrap_err().sentence,
        "the program was still being checked when the check's deadline of 0.3 s passed \
         (--deadline) at request 1 (acquire(file, client-1)); it wrote nothing on stderr"
    );
    assert!(started.elapsed() < Duration::from_millis(1500));
}

/// Replies still in flight when a script stops are read and dropped, each still judged as a
/// protocol line.
#[test]
fn replies_left_in_flight_are_drained() {
    let script = format!(
        r#"{SH_HELLO}; read l; echo '{{"id":1,"done":true}}'; read l; echo '{{"id":2,"done":true}}'
        read l; echo 'garbage'; exec sleep 5"#
    );
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    for n in 0..2 {
        program.send(&Request::Clock { now: n as f64 }).unwrap();
    }
    program.drain().unwrap();
    assert_eq!(program.in_flight(), 0);
    program.send(&Request::Clock { now: 9.0 }).unwrap();
    assert!(program
        .drain()
        .unwrap_err()
        .sentence
        .starts_with("the program replied 'garbage', which is not JSON"));
}

/// A program whose hello reply is one line of `length` bytes, newline aside, the newline
/// written a moment after the rest.
fn hello_of_length(length: usize) -> Command {
    let start = r#"{"id":0,"hello":"x","language":"sh","padding":""#;
    let padding = length - start.len() - 2;
    sh(&format!(
        r#"read l; printf '%s' '{start}'; head -c {padding} /dev/zero | tr '\0' x; printf '"}}'; sleep 0.1; printf '\n'; exec sleep 5"#
    ))
}

#[test]
fn a_reply_line_of_one_mib_is_read_and_a_longer_one_is_refused() {
    let program = Program::start(hello_of_length(MAX_LINE), PATIENTLY).unwrap();
    assert_eq!(program.language, "sh");
    assert_eq!(
        Program::start(hello_of_length(MAX_LINE + 1), PATIENTLY)
            .err()
            .unwrap()
            .sentence,
        "the program replied with a line longer than 1 MiB at request 0 (hello); \
         it wrote nothing on stderr"
    );
}

#[test]
fn hello_answered_with_anything_else_fails_at_request_0() {
    let script = r#"read l; echo '{"id":0,"threw":"not today"}'; exec sleep 5"#;
    assert_eq!(
        Program::start(sh(script), PATIENTLY)
            .err()
            .unwrap()
            .sentence,
        "the program answered hello with refused (\"not today\") at request 0 (hello); \
         it wrote nothing on stderr"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn dropping_a_program_kills_it() {
    let program = Program::start(sh(&format!("{SH_HELLO}; exec sleep 5")), PATIENTLY).unwrap();
    let pid = program.child.id();
    let proc = std::path::PathBuf::from(format!("/proc/{pid}"));
    assert!(proc.exists());
    drop(program);
    assert!(!proc.exists(), "{pid} still runs");
}

/// Replies read together are passed on together, and a line too long among them ends the
/// program only where it comes: the good replies before it are still answers.
#[test]
fn replies_read_together_keep_their_order_up_to_a_line_too_long() {
    let script = format!(
        r#"{SH_HELLO}
        read a; read b; read c; read d
        {{ printf '{{"id":1,"done":true}}\n{{"id":2,"done":true}}\n{{"id":3,"done":true}}\n'; head -c {} /dev/zero | tr '\0' x; printf '\n'; }}
        exec sleep 5"#,
        MAX_LINE + 1
    );
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    for n in 0..4 {
        program.send(&Request::Clock { now: n as f64 }).unwrap();
    }
    for _ in 0..3 {
        assert_eq!(program.receive(), Ok(Reply::Done));
    }
    assert_eq!(
        program.receive().unwrap_err().sentence,
        "the program replied with a line longer than 1 MiB at request 4 (clock = 3.0); \
         it wrote nothing on stderr"
    );
}

/// A request sent waits in a batch only until the program is let start on it: `flush` hands
/// it over without waiting for its reply, and its time runs from then.
#[test]
fn a_flushed_request_reaches_the_program_before_any_reply_is_awaited() {
    let (folder, command) = recording_first_request("exec sleep 5");
    let mut program = Program::start(command, PATIENTLY).unwrap();
    program.send(&Request::Clock { now: 1.0 }).unwrap();
    program.flush().unwrap();
    assert_eq!(
        first_request(&folder),
        "{\"op\":\"clock\",\"now\":1.0,\"id\":1}\n"
    );
    assert_eq!(program.receive(), Ok(Reply::Done));
}

/// Replies in flight are left to gather and read many at a time: waking for each would cost
/// the checker more than the program spends answering.
#[test]
fn many_replies_in_flight_are_read_many_at_a_time() {
    let mut program = Program::start(answers_done(), PATIENTLY).unwrap();
    let before = program.replies.reads;
    for n in 0..2_000 {
        program.send(&Request::Clock { now: n as f64 }).unwrap();
    }
    program.drain().unwrap();
    let reads = program.replies.reads - before;
    assert!((1..200).contains(&reads), "{reads} reads for 2,000 replies");
}

/// Replies are gathered only while more are due than a read brought: once every reply is in,
/// a lone request later is read the moment it is answered.
#[test]
fn no_read_waits_to_gather_once_every_reply_is_in() {
    let mut program = Program::start(answers_done(), PATIENTLY).unwrap();
    for n in 0..50 {
        program.send(&Request::Clock { now: n as f64 }).unwrap();
        assert_eq!(program.receive(), Ok(Reply::Done));
        assert!(!program.pace.waits(), "after call {n}");
    }
    for n in 0..50 {
        program.send(&Request::Clock { now: n as f64 }).unwrap();
    }
    program.drain().unwrap();
    assert_eq!(program.in_flight(), 0);
}

/// A reply is late only if the pipe was seen without it after its time: one that came in time
/// and was read late, the checker being busy elsewhere, is in time.
#[test]
fn a_reply_that_came_in_time_is_in_time_however_late_it_is_read() {
    let script = format!(
        r#"{SH_HELLO}
        read l; echo '{{"id":1,"done":true}}'; exec sleep 5"#
    );
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    program.timeouts.request = Duration::from_millis(200);
    program.send(&Request::Clock { now: 1.0 }).unwrap();
    program.flush().unwrap();
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(program.receive(), Ok(Reply::Done));
}

/// A write of a `value_bytes` long value, and its line as request 1 (the newline aside).
fn long_write(value_bytes: usize) -> (Request, Vec<u8>) {
    let request = Request::Write {
        key: "file".into(),
        value: "x".repeat(value_bytes),
        token: 1,
    };
    let mut line = Vec::new();
    request.write_line(1, &mut line);
    (request, line)
}

/// A request whose line is longer than the pipe holds goes in as the program reads it: its time
/// runs from the last moment the program took some of it, not from its flush.
#[test]
fn a_request_still_going_into_the_pipe_has_its_time_from_the_last_bytes_taken() {
    let (request, line) = long_write(300_000);
    // Read 20,000 bytes every 0.1 s, five times, then the rest of the line at once.
    let script = format!(
        r#"{SH_HELLO}
        for i in 1 2 3 4 5; do head -c 20000 > /dev/null; sleep 0.1; done
        head -c {} > /dev/null; read rest; echo '{{"id":1,"returned":null}}'; exec sleep 5"#,
        line.len() - 100_000
    );
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    program.timeouts.request = Duration::from_millis(300);
    let started = Instant::now();
    program.send(&request).unwrap();
    assert!(program.receive().is_ok());
    assert!(started.elapsed() >= Duration::from_millis(500));
}

/// The CPU time this thread has used.
#[cfg(target_os = "linux")]
fn thread_cpu() -> Duration {
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_THREAD, &mut usage);
        usage
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// Waiting for a slow reply, with requests in flight, sleeps: the checker spends no CPU on it.
#[cfg(target_os = "linux")]
#[test]
fn waiting_for_a_slow_reply_costs_the_checker_no_cpu() {
    let script = format!(
        r#"{SH_HELLO}
        read l; read l; sleep 0.5; echo '{{"id":1,"done":true}}'; echo '{{"id":2,"done":true}}'
        exec sleep 5"#
    );
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    let (cpu, started) = (thread_cpu(), Instant::now());
    for n in 0..2 {
        program.send(&Request::Clock { now: n as f64 }).unwrap();
    }
    program.drain().unwrap();
    assert!(started.elapsed() >= Duration::from_millis(500));
    let used = thread_cpu() - cpu;
    assert!(used < Duration::from_millis(100), "{used:?} of CPU");
}

/// A request longer than the pipe holds goes in as fast as the program reads it: the checker
/// waits for room as well as for replies.
#[test]
fn a_request_longer_than_the_pipe_goes_in_as_fast_as_it_is_read() {
    let (request, line) = long_write(1_000_000);
    let script = format!(
        r#"{SH_HELLO}
        head -c {} > /dev/null; read rest; echo '{{"id":1,"returned":null}}'; exec sleep 5"#,
        line.len() - 10
    );
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    let started = Instant::now();
    program.send(&request).unwrap();
    assert!(program.receive().is_ok());
    assert!(started.elapsed() < PATIENT / 10, "{:?}", started.elapsed());
}

/// A program that ends mid-stream is charged with the request it ended on, not with one sent
/// after it had gone.
#[test]
fn a_program_that_exits_is_charged_with_the_request_it_did_not_answer() {
    let script = format!(
        r#"{SH_HELLO}
        read l; echo '{{"id":1,"done":true}}'; read l; exit 3"#
    );
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    program.send(&Request::Clock { now: 1.0 }).unwrap();
    assert_eq!(program.receive(), Ok(Reply::Done));
    program.send(&Request::Clock { now: 2.0 }).unwrap();
    program.flush().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    for n in 3..6 {
        program.send(&Request::Clock { now: n as f64 }).unwrap();
        program.flush().unwrap();
    }
    assert_eq!(
        program.receive().unwrap_err().sentence,
        "the program exited with status 3 before answering at request 2 (clock = 2.0); it \
         wrote nothing on stderr"
    );
}

/// A program that closes its stdin still answers what it read; a request that never reached it
/// says so at once, not after a timeout.
#[test]
fn a_program_that_closes_its_stdin_answers_what_it_read_and_no_more() {
    let script = format!(
        r#"{SH_HELLO}
        read l; read l; exec 0<&-; sleep 0.3
        echo '{{"id":1,"done":true}}'; echo '{{"id":2,"done":true}}'; exec sleep 5"#
    );
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    // Two requests in one batch, then one after the program has closed its stdin.
    program.send(&Request::Clock { now: 1.0 }).unwrap();
    program.send(&Request::Clock { now: 2.0 }).unwrap();
    program.flush().unwrap();
    std::thread::sleep(Duration::from_millis(150));
    program.send(&Request::Clock { now: 3.0 }).unwrap();
    program.flush().unwrap();
    assert_eq!(program.receive(), Ok(Reply::Done));
    assert_eq!(program.receive(), Ok(Reply::Done));
    let waited = Instant::now();
    assert_eq!(
        program.receive().unwrap_err().sentence,
        "the program stopped reading its requests before answering at request 3 (clock = 3.0); \
         it wrote nothing on stderr"
    );
    assert!(waited.elapsed() < PATIENT / 2);
}

/// A program that writes without end (`yes`) is read a little at a time: its first line is
/// judged, and it is stopped.
#[test]
fn a_program_that_floods_its_output_is_judged_on_its_first_line() {
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(Program::start(sh("exec yes"), PATIENTLY).err());
    });
    let error = result
        .recv_timeout(PATIENT)
        .expect("start ends within its time")
        .expect("`yes` is no protocol");
    assert!(
        error
            .sentence
            .starts_with("the program replied 'y', which is not JSON"),
        "{}",
        error.sentence
    );
}

/// The checker writes while the program's replies fill their pipe and reads while its requests
/// fill theirs: neither side waits on the other, whatever was sent ahead.
#[test]
fn requests_and_replies_far_beyond_what_the_pipes_hold_pass_each_other() {
    let mut program = Program::start(answers_done(), PATIENTLY).unwrap();
    // 200 KB of requests and 150 KB of replies, where each pipe holds 64 KB.
    let requests = 6_000;
    for n in 0..requests {
        program.send(&Request::Clock { now: n as f64 }).unwrap();
    }
    for _ in 0..requests {
        assert_eq!(program.receive(), Ok(Reply::Done));
    }
    assert_eq!(program.calls, requests + 1);
}

/// Requests wait in the outbox, their time not yet running, until 64 KiB of them are there or
/// a reply is awaited: a window of requests reaches the program in one write, not one a call.
#[test]
fn requests_wait_in_the_outbox_until_it_holds_64_kib() {
    let mut program = Program::start(answers_done(), PATIENTLY).unwrap();
    let before = program.queued;
    let mut sends = 0;
    loop {
        program.send(&Request::Clock { now: 1.0 }).unwrap();
        sends += 1;
        let started = program.pending.iter().filter(|p| p.sent.is_some()).count();
        let queued = program.queued - before;
        if queued < OUTBOX_BYTES as u64 {
            assert_eq!(started, 0, "after {sends} requests, {queued} bytes");
            assert_eq!(program.outbox.len() as u64, queued);
        } else {
            assert_eq!(started, sends, "all go at once");
            assert!(program.outbox.is_empty());
            break;
        }
    }
    assert!(sends > 1000, "{sends} requests of some 40 bytes each");
    for _ in 0..sends {
        assert_eq!(program.receive(), Ok(Reply::Done));
    }
}

/// At the end of input a program may still write its last words: it is given half a second to
/// exit, and what it wrote on its way out is read whole; once it has exited and its stderr is
/// read, nothing more is waited for.
#[test]
fn last_words_written_on_the_way_out_are_read_and_no_more_is_waited_for() {
    let script = format!(
        r#"{SH_HELLO}
        while read l; do :; done; sleep 0.1; echo "bye" >&2"#
    );
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    let asked = Instant::now();
    assert_eq!(program.last_words(), ["bye"]);
    let took = asked.elapsed();
    assert!(took < LAST_WORDS_WAIT * 2, "{took:?}: it had exited");
}

/// A process the program left behind outside its group still holds its stderr: what it writes
/// there within the wait (a second from the end of input) is read as the program's last words,
/// not lost to a reader not done.
#[test]
fn last_words_wait_for_stderr_held_by_a_process_left_behind() {
    let script = format!(
        r#"{SH_HELLO}
        while read l; do :; done
        setsid sh -c 'sleep 0.35; echo "left behind" >&2' &
        sleep 0.1"#
    );
    // (The program waits a moment on its way out, so that the process has left its group
    // before the group is stopped.)
    let mut program = Program::start(sh(&script), PATIENTLY).unwrap();
    assert_eq!(program.last_words(), ["left behind"]);
}
