//! A student's program, running: requests written ahead of their replies (pipelined), replies
//! read in order, each within its own time. Everything that can go wrong with the program
//! (garbage, the wrong id, silence, an exit, a huge line) becomes a [`ProtocolError`] naming the
//! request, what came back and the end of the program's stderr.

use std::collections::VecDeque;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::wire::{fmt_time, parse_reply, shorten, Reply, Request};
use crate::sim::text::printable;

mod ending;
pub mod groups;
mod pipes;

use ending::{ended_unreaped, signal_name, Ended};
use pipes::{read_lines, read_stderr, write_lines, Line};

/// The longest reply line read; a longer one is a protocol error, not a memory hog.
pub const MAX_LINE: usize = 1024 * 1024;

/// How long a program may take to answer one request, unless `--timeout` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a program may take to start and answer `hello`, unless `--startup-timeout` says
/// otherwise: a JVM or a `node` loading modules takes a second on a busy machine.
pub const DEFAULT_STARTUP: Duration = Duration::from_secs(10);

/// How long a reply that came in time may wait for the reader thread to pass it on.
const READER_GRACE: Duration = Duration::from_millis(100);

/// How long a program may take to exit after its last request before it is stopped.
const LAST_WORDS_WAIT: Duration = Duration::from_millis(500);

/// How many of the program's last stderr lines a failure shows.
const STDERR_TAIL: usize = 5;

/// The program broke the protocol; the whole check stops (exit 2).
#[derive(Clone, Debug, PartialEq)]
pub struct ProtocolError {
    pub sentence: String,
}

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.sentence)
    }
}

impl ProtocolError {
    pub fn new(sentence: impl Into<String>) -> ProtocolError {
        ProtocolError {
            sentence: sentence.into(),
        }
    }
}

/// How long the program may take: to start, and for each later request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timeouts {
    pub startup: Duration,
    pub request: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            startup: DEFAULT_STARTUP,
            request: DEFAULT_TIMEOUT,
        }
    }
}

/// A request written and not yet answered.
struct Pending {
    id: u64,
    request: Request,
    /// When the request reached the writer thread; `None` while it waits in the outbox.
    sent: Option<Instant>,
}

/// How many bytes of requests wait in the outbox before they go to the program even though
/// nothing waits for a reply yet.
const OUTBOX_BYTES: usize = 64 * 1024;

/// A running program that speaks the protocol.
pub struct Program {
    child: Child,
    /// When the whole check must end, and how long it was given (`--deadline`).
    ends: Option<(Instant, Duration)>,
    /// Batches of request lines for the writer thread; `None` once the program is stopped.
    stdin: Option<Sender<Vec<u8>>>,
    /// Request lines not yet handed to the writer: requests go in batches, one hand-over (and
    /// one write) for many, when a reply is awaited or the batch is large.
    outbox: Vec<u8>,
    /// Batches of reply lines, each stamped with when it arrived.
    lines: Receiver<(Instant, Vec<Line>)>,
    /// Lines of the last batch not yet read.
    arrived: VecDeque<(Instant, Line)>,
    /// Replies handed over and not yet read by the reader thread.
    due: Arc<AtomicUsize>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// The thread reading stderr: done once the program has closed it.
    stderr_read: Option<std::thread::JoinHandle<()>>,
    next_id: u64,
    timeouts: Timeouts,
    pending: VecDeque<Pending>,
    /// When the last reply arrived: the program could not start on the next request before.
    last_reply: Instant,
    /// Requests answered, for the report.
    pub calls: u64,
    /// What the program said it is in its `hello` reply.
    pub language: String,
    broken: Option<ProtocolError>,
}

impl Program {
    /// Starts `command` and greets it. Fails if it cannot start or does not say hello.
    pub fn start(mut command: Command, timeouts: Timeouts) -> Result<Program, ProtocolError> {
        let shown = describe_command(&command);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // A group of its own, so what the program starts ends with it (see `stop`).
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| ProtocolError::new(format!("could not start {shown}: {e}")))?;
        groups::started(child.id());
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let stdin = child.stdin.take().expect("piped stdin");
        let (send, lines) = mpsc::channel();
        let due = Arc::new(AtomicUsize::new(0));
        let reader_due = Arc::clone(&due);
        std::thread::spawn(move || read_lines(stdout, send, &reader_due));
        let (to_stdin, requests) = mpsc::channel();
        std::thread::spawn(move || write_lines(stdin, requests));
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let keep = Arc::clone(&tail);
        let stderr_read = std::thread::spawn(move || read_stderr(stderr, &keep));
        let mut program = Program {
            stdin: Some(to_stdin),
            outbox: Vec::new(),
            child,
            lines,
            arrived: VecDeque::new(),
            due,
            stderr: tail,
            stderr_read: Some(stderr_read),
            next_id: 0,
            timeouts,
            pending: VecDeque::new(),
            last_reply: Instant::now(),
            ends: None,
            calls: 0,
            language: String::new(),
            broken: None,
        };
        match program.call(&Request::Hello)? {
            Reply::Hello { language } => program.language = printable(&language).into_owned(),
            other => {
                return Err(program.fail(
                    &Request::Hello,
                    0,
                    format!("answered hello with {}", other.describe()),
                ))
            }
        }
        Ok(program)
    }

    /// Writes one request without waiting for its reply.
    pub fn send(&mut self, request: &Request) -> Result<(), ProtocolError> {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        let id = self.next_id;
        self.next_id += 1;
        request.write_line(id, &mut self.outbox);
        self.outbox.push(b'\n');
        self.pending.push_back(Pending {
            id,
            request: request.clone(),
            sent: None,
        });
        if self.outbox.len() >= OUTBOX_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Hands the outbox to the writer thread; each request's time starts now.
    pub fn flush(&mut self) -> Result<(), ProtocolError> {
        if self.outbox.is_empty() {
            return Ok(());
        }
        let batch = std::mem::take(&mut self.outbox);
        let handing_over = self
            .pending
            .iter()
            .rev()
            .take_while(|p| p.sent.is_none())
            .count();
        // Counted before the program can answer, so the reader never sees a reply not yet due.
        self.due.fetch_add(handing_over, Ordering::SeqCst);
        let handed = self
            .stdin
            .as_ref()
            .is_some_and(|stdin| stdin.send(batch).is_ok());
        let now = Instant::now();
        for pending in self.pending.iter_mut().rev().take(handing_over) {
            pending.sent = Some(now);
        }
        if !handed {
            let (request, id) = self
                .pending
                .back()
                .map(|p| (p.request.clone(), p.id))
                .expect("a flushed request is pending");
            return Err(self.exited(&request, id));
        }
        Ok(())
    }

    /// The next reply line, waiting at most `wait` for it.
    fn next_line(&mut self, wait: Duration) -> Result<(Instant, Line), RecvTimeoutError> {
        if let Some(line) = self.arrived.pop_front() {
            return Ok(line);
        }
        let (at, batch) = self.lines.recv_timeout(wait)?;
        self.arrived
            .extend(batch.into_iter().map(|line| (at, line)));
        self.arrived.pop_front().ok_or(RecvTimeoutError::Timeout)
    }

    /// How many requests are written and not yet answered.
    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }

    /// Ends the whole check `given` after `from`: a reply still awaited then is an error, so
    /// a program that answers just inside each request's time cannot keep a check for hours.
    pub fn set_deadline(&mut self, from: Instant, given: Option<Duration>) {
        self.ends = given.map(|given| (from + given, given));
    }

    /// The reply to the oldest request in flight.
    pub fn receive(&mut self) -> Result<Reply, ProtocolError> {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        self.flush()?;
        let Some(Pending { id, request, sent }) = self.pending.pop_front() else {
            return Err(ProtocolError::new("no request is waiting for a reply"));
        };
        let sent = sent.expect("flushed before a reply is awaited");
        if self.ends.is_some_and(|(ends, _)| Instant::now() >= ends) {
            return Err(self.out_of_time(&request, id));
        }
        // The program could start on this request once it was written and the previous one
        // was answered; its time runs from then.
        let allowed = if id == 0 {
            self.timeouts.startup
        } else {
            self.timeouts.request
        };
        let deadline = sent.max(self.last_reply) + allowed;
        // The whole check's deadline cuts a wait short; the request's own time is unchanged.
        let cut_short = self.ends.filter(|(ends, _)| *ends < deadline);
        let wait_until = cut_short.map_or(deadline, |(ends, _)| ends);
        // The reader thread stamps each line as it arrives, and the stamp decides whether it
        // came in time; the grace only lets a busy reader thread catch up.
        let wait = wait_until.saturating_duration_since(Instant::now()) + READER_GRACE;
        let received = match self.next_line(wait) {
            Ok((at, Line::Text(text))) if at <= deadline => {
                self.last_reply = at;
                text
            }
            Err(RecvTimeoutError::Timeout) if cut_short.is_some() => {
                return Err(self.out_of_time(&request, id));
            }
            Ok((_, Line::Text(_))) | Err(RecvTimeoutError::Timeout) => {
                let what = format!(
                    "did not answer within {} s",
                    fmt_time(allowed.as_secs_f64())
                );
                return Err(self.fail(&request, id, what));
            }
            Ok((_, Line::TooLong)) => {
                let what = format!("replied with a line longer than {} MiB", MAX_LINE >> 20);
                return Err(self.fail(&request, id, what));
            }
            Ok((_, Line::Closed)) | Err(RecvTimeoutError::Disconnected) => {
                return Err(self.exited(&request, id))
            }
        };
        let reply = parse_reply(&received, id, &request).map_err(|what| {
            let what = format!("replied '{}', which {what}", shorten(&received));
            self.fail(&request, id, what)
        })?;
        self.calls += 1;
        Ok(reply)
    }

    /// Sends one request and waits for its reply (with nothing else in flight).
    pub fn call(&mut self, request: &Request) -> Result<Reply, ProtocolError> {
        debug_assert!(self.pending.is_empty(), "call with requests in flight");
        self.send(request)?;
        self.receive()
    }

    /// Reads and drops the replies still in flight (a script stopped at its first difference),
    /// each still within its time and well formed.
    pub fn drain(&mut self) -> Result<(), ProtocolError> {
        while !self.pending.is_empty() {
            self.receive()?;
        }
        Ok(())
    }

    /// Ends the session (end of input, as the protocol says) and returns the program's last
    /// stderr lines once it has exited and they have all been read, so a line written just
    /// before the end is never lost to a busy machine. A program that does not exit within
    /// [`LAST_WORDS_WAIT`] is stopped, and the lines read by then are its last.
    pub fn last_words(&mut self) -> Vec<String> {
        self.stdin = None;
        let waited = Instant::now();
        while waited.elapsed() < LAST_WORDS_WAIT {
            if self.exit_status().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        self.stop();
        if let Some(reader) = self.stderr_read.take() {
            // The program is gone, so its stderr is closed unless a child of its own holds it.
            while !reader.is_finished() && waited.elapsed() < LAST_WORDS_WAIT * 2 {
                std::thread::sleep(Duration::from_millis(2));
            }
            if reader.is_finished() {
                let _ = reader.join();
            }
        }
        self.stderr_tail()
    }

    /// The last lines the program wrote to stderr.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr
            .lock()
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default()
    }

    fn out_of_time(&mut self, request: &Request, id: u64) -> ProtocolError {
        let given = self.ends.map_or(0.0, |(_, given)| given.as_secs_f64());
        let what = format!(
            "was still being checked when the check's deadline of {} s passed (--deadline)",
            fmt_time(given)
        );
        self.fail(request, id, what)
    }

    fn fail(&mut self, request: &Request, id: u64, what: String) -> ProtocolError {
        // The stderr reader may still be catching up with the program's last words.
        std::thread::sleep(Duration::from_millis(50));
        let error = ProtocolError::new(format!(
            "the program {what} at request {id} ({}){}",
            printable(&request.call()),
            self.stderr_clause()
        ));
        self.stop();
        self.broken = Some(error.clone());
        error
    }

    fn exited(&mut self, request: &Request, id: u64) -> ProtocolError {
        let status = (0..40).find_map(|_| {
            let status = self.exit_status();
            if status.is_none() {
                std::thread::sleep(Duration::from_millis(25));
            }
            status
        });
        let how = match status {
            Some(Ended::Exited(code)) => format!("exited with status {code}"),
            Some(Ended::Killed(signal)) => format!("was killed by {}", signal_name(signal)),
            None => "closed its output".to_owned(),
        };
        self.fail(request, id, format!("{how} before answering"))
    }

    /// How the program ended, if it has, seen without reaping it: its process id then still
    /// names it alone, so its group can be ended safely (see `stop`).
    fn exit_status(&self) -> Option<Ended> {
        ended_unreaped(self.child.id())
    }

    fn stderr_clause(&self) -> String {
        let tail: Vec<String> = self
            .stderr_tail()
            .iter()
            .map(|l| printable(l).into_owned())
            .collect();
        if tail.is_empty() {
            "; it wrote nothing on stderr".into()
        } else {
            format!("; its stderr ends: {}", tail.join(" | "))
        }
    }

    fn stop(&mut self) {
        self.stdin = None;
        // Whatever it started (a server, a `sleep` that ignores SIGTERM) goes with it. The
        // group is ended before the program is reaped, while its id cannot name another.
        groups::stopped(self.child.id());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        self.stop();
    }
}

fn describe_command(command: &Command) -> String {
    let mut words = vec![command.get_program().to_string_lossy().into_owned()];
    words.extend(command.get_args().map(|a| a.to_string_lossy().into_owned()));
    printable(&words.join(" ")).into_owned()
}

#[cfg(test)]
mod tests;
