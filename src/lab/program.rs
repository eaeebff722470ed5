//! A student's program, running: requests written ahead of their replies (pipelined), replies
//! read in order, each within its own time. Everything that can go wrong with the program
//! (garbage, the wrong id, silence, an exit, a huge line) becomes a [`ProtocolError`] naming the
//! request, what came back and the end of the program's stderr.

use std::collections::VecDeque;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::wire::{fmt_time, parse_reply, shorten, Reply, Request};
use crate::sim::text::printable;

pub mod children;
pub mod confine;
mod ending;
pub mod groups;
mod pace;
mod pipes;

use ending::{ended_unreaped, signal_name, Ended};
use pace::Pace;
use pipes::{read_stderr, wait, Arrived, Line, Replies, Requests};

/// The longest reply line read; a longer one is a protocol error, not a memory hog.
pub const MAX_LINE: usize = 1024 * 1024;

pub use super::wire::{ProtocolError, Timeouts, DEFAULT_STARTUP, DEFAULT_TIMEOUT};

/// How long a program may take to exit after its last request before it is stopped.
const LAST_WORDS_WAIT: Duration = Duration::from_millis(500);

/// How many of the program's last stderr lines a failure shows.
const STDERR_TAIL: usize = 5;

/// A request written and not yet answered.
struct Pending {
    id: u64,
    request: Request,
    /// When the request was flushed; `None` while it waits in the outbox.
    sent: Option<Instant>,
    /// Where its line ends in the stream of requests, counted in bytes: it has reached the
    /// program's pipe once that many bytes were written.
    end: u64,
}

/// How many bytes of requests wait in the outbox before they go to the program even though
/// nothing waits for a reply yet.
const OUTBOX_BYTES: usize = 64 * 1024;

/// A running program that speaks the protocol.
pub struct Program {
    child: Child,
    /// When the whole check must end, and how long it was given (`--deadline`).
    ends: Option<(Instant, Duration)>,
    /// The program's stdin: request bytes flushed and waiting for room in the pipe.
    stdin: Requests,
    /// Request lines not yet flushed: requests go in batches, one write for many, when a reply
    /// is awaited or the batch is large.
    outbox: Vec<u8>,
    /// How many bytes of requests were sent, the outbox's included.
    queued: u64,
    /// The program's stdout, as lines.
    replies: Replies,
    /// When the next read is: a read that leaves replies due lets more gather first.
    pace: Pace,
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
        // While a class is graded, its other folders are out of the program's reach.
        confine::apply(&mut command);
        let mut child = command
            .spawn()
            .map_err(|e| ProtocolError::new(format!("could not start {shown}: {e}")))?;
        groups::started(child.id());
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let stdin = child.stdin.take().expect("piped stdin");
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let keep = Arc::clone(&tail);
        // Out of threads (a fork bomb's doing, say) is this program's failure, not the checker's.
        let stderr_read = match std::thread::Builder::new()
            .name("stderr".into())
            .spawn(move || read_stderr(stderr, &keep))
        {
            Ok(thread) => thread,
            Err(e) => {
                groups::stopped(child.id());
                let _ = child.kill();
                let _ = child.wait();
                return Err(ProtocolError::new(format!(
                    "could not start a thread to read what {shown} prints on stderr ({e}): \
                     the machine is out of threads or processes, as when a program forks \
                     without end"
                )));
            }
        };
        let pipes = Requests::new(stdin).and_then(|requests| {
            let replies = Replies::new(stdout)?;
            Ok((requests, replies))
        });
        let (requests, replies) = match pipes {
            Ok(pipes) => pipes,
            Err(e) => {
                groups::stopped(child.id());
                let _ = child.kill();
                let _ = child.wait();
                return Err(ProtocolError::new(format!(
                    "could not set up the pipes of {shown}: {e}"
                )));
            }
        };
        let mut program = Program {
            stdin: requests,
            outbox: Vec::new(),
            queued: 0,
            child,
            replies,
            pace: Pace::default(),
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
        let before = self.outbox.len();
        request.write_line(id, &mut self.outbox);
        self.outbox.push(b'\n');
        self.queued += (self.outbox.len() - before) as u64;
        self.pending.push_back(Pending {
            id,
            request: request.clone(),
            sent: None,
            end: self.queued,
        });
        if self.outbox.len() >= OUTBOX_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Hands the outbox to the program's pipe, as much as it takes now and the rest as it makes
    /// room; each request's time starts now at the soonest. Once the program has closed its
    /// stdin the requests go nowhere, and the first one awaited says so.
    pub fn flush(&mut self) -> Result<(), ProtocolError> {
        if self.outbox.is_empty() {
            return Ok(());
        }
        let now = Instant::now();
        for pending in self.pending.iter_mut().rev() {
            if pending.sent.is_some() {
                break;
            }
            pending.sent = Some(now);
        }
        self.stdin.push(&self.outbox);
        self.outbox.clear();
        self.stdin.write_now();
        Ok(())
    }

    /// Waits for the next reply line until `until` at most, writing requests as the pipe makes
    /// room. `due` replies are awaited, this one included.
    fn next_line(&mut self, until: Instant, due: usize) -> Option<Arrived> {
        loop {
            if let Some(line) = self.replies.next() {
                return Some(line);
            }
            self.stdin.write_now();
            let now = Instant::now();
            if now >= until {
                // One last look: a reply may be in the pipe, unread.
                self.replies.read_now(due);
                return self.replies.next();
            }
            match self.pace.gathering(now) {
                Some(gathered) => self.gather(gathered.min(until)),
                None => wait(self.replies.fd(), self.stdin.waiting(), until),
            }
            let came = self.replies.read_now(due);
            self.pace.read(Instant::now(), came, due);
        }
    }

    /// Lets replies gather until `until`, still writing requests as the pipe makes room.
    fn gather(&mut self, until: Instant) {
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            match self.stdin.waiting() {
                Some(stdin) => {
                    wait(None, Some(stdin), until);
                    self.stdin.write_now();
                }
                None => return std::thread::sleep(left),
            }
        }
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
        let Some(front) = self.pending.front() else {
            return Err(ProtocolError::new("no request is waiting for a reply"));
        };
        let (id, request, end) = (front.id, front.request.clone(), front.end);
        if self.ends.is_some_and(|(ends, _)| Instant::now() >= ends) {
            return Err(self.out_of_time(&request, id));
        }
        if !self.stdin.is_open() && self.stdin.written < end {
            // Its line never reached the program, which closed its stdin (or ended).
            return Err(self.exited(&request, id, "stopped reading its requests"));
        }
        let allowed = if id == 0 {
            self.timeouts.startup
        } else {
            self.timeouts.request
        };
        let arrived = loop {
            let deadline = self.deadline(allowed);
            // The whole check's deadline cuts a wait short; the request's own time is unchanged.
            let cut_short = self.check_ends_before(deadline);
            let wait_until = cut_short.unwrap_or(deadline);
            match self.next_line(wait_until, self.pending.len()) {
                // The program took more of its requests meanwhile: its time runs from then.
                None if self.deadline(allowed) > deadline => continue,
                None if cut_short.is_some() => return Err(self.out_of_time(&request, id)),
                got => break got,
            }
        };
        // A reply is in time if it is there at the first look after its deadline: only the pipe
        // seen without it then makes it late (`next_line` returns none), so a reply read late
        // because the checker was busy is never counted late.
        self.pending.pop_front();
        let received = match arrived {
            Some(Arrived {
                read,
                line: Line::Text(text),
            }) => {
                self.last_reply = read;
                text
            }
            None => {
                let what = format!(
                    "did not answer within {} s",
                    fmt_time(allowed.as_secs_f64())
                );
                let mut error = self.stopped(&request, id, what);
                // Silence before any reply at all is also what output never flushed looks like.
                if self.calls == 0 {
                    error.sentence.push_str(
                        " (a program that writes its replies but never flushes standard output \
                         is silent too: flush after each line)",
                    );
                    self.broken = Some(error.clone());
                }
                return Err(error);
            }
            Some(Arrived {
                line: Line::TooLong,
                ..
            }) => {
                let what = format!("replied with a line longer than {} MiB", MAX_LINE >> 20);
                return Err(self.fail(&request, id, what));
            }
            Some(Arrived {
                line: Line::Closed, ..
            }) => return Err(self.exited(&request, id, "closed its output")),
        };
        let reply = parse_reply(&received, id, &request).map_err(|what| {
            let what = format!("replied '{}', which {what}", shorten(&received));
            self.fail(&request, id, what)
        })?;
        self.calls += 1;
        Ok(reply)
    }

    /// When the reply to the oldest request in flight is due. The program could start on it
    /// once it was flushed and the reply before it was out; a program still taking in requests
    /// (a pipe full of them) is given its time from the last moment it took some.
    fn deadline(&self, allowed: Duration) -> Instant {
        let front = self.pending.front().expect("a request is in flight");
        let sent = front.sent.expect("flushed before a reply is awaited");
        let taken = self.stdin.taken_at.unwrap_or(sent);
        sent.max(self.last_reply).max(taken) + allowed
    }

    /// When the whole check ends, if that comes before `deadline`, the reply's own.
    fn check_ends_before(&self, deadline: Instant) -> Option<Instant> {
        self.ends
            .map(|(ends, _)| ends)
            .filter(|ends| *ends < deadline)
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
        self.stdin.close();
        let waited = Instant::now();
        while waited.elapsed() < LAST_WORDS_WAIT {
            if self.exit_status().is_some() {
                break;
            }
            // Read on, so that a program writing at its end never waits on a full pipe.
            self.replies.read_now(usize::MAX);
            self.replies.forget();
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
        let error = ProtocolError {
            stderr: self.stderr_tail(),
            ..ProtocolError::new(format!(
                "the program {what} at request {id} ({}){}",
                printable(&request.call()),
                self.stderr_clause()
            ))
        };
        self.stop();
        self.broken = Some(error.clone());
        error
    }

    /// The program stopped answering: how it ended, if it did within a second, else `alive`.
    fn exited(&mut self, request: &Request, id: u64, alive: &str) -> ProtocolError {
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
            None => alive.to_owned(),
        };
        self.stopped(request, id, format!("{how} before answering"))
    }

    /// [`Program::fail`] for a program that stopped answering: `what` kept apart as well.
    fn stopped(&mut self, request: &Request, id: u64, what: String) -> ProtocolError {
        let mut error = self.fail(request, id, what.clone());
        error.stopped = Some(what);
        self.broken = Some(error.clone());
        error
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
        self.stdin.close();
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
