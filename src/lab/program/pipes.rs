//! The program's pipes: request bytes written and reply lines read without blocking, by the
//! checker's own thread (no hand-over between threads for each batch), and stderr kept as its
//! last lines by a thread of its own.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::process::{ChildStdin, ChildStdout};
use std::sync::Mutex;
use std::time::Instant;

use super::{MAX_LINE, STDERR_TAIL};
use crate::sim::text::printable;

/// How much of one stderr line is kept: a program that writes without end never fills memory.
const STDERR_LINE_BYTES: usize = 1200;

/// The program's stderr, kept as its last lines, each cut at [`STDERR_LINE_BYTES`] and the
/// rest of it skipped; a line not ended yet is shown as far as it went. Bytes, not text: a line
/// that is not UTF-8 is shown, not the end of stderr. What the program wrote is shown, never
/// obeyed: escaped where it enters.
pub(super) fn read_stderr(stderr: impl Read, tail: &Mutex<VecDeque<String>>) {
    let mut reader = BufReader::new(stderr);
    let mut line: Vec<u8> = Vec::new();
    // Whether the tail's last entry is `line`, still open.
    let mut open = false;
    loop {
        let (ended, used) = match reader.fill_buf() {
            Ok(buf) if !buf.is_empty() => {
                let newline = buf.iter().position(|&b| b == b'\n');
                let chunk = &buf[..newline.unwrap_or(buf.len())];
                let room = STDERR_LINE_BYTES.saturating_sub(line.len());
                line.extend_from_slice(&chunk[..chunk.len().min(room)]);
                (newline.is_some(), newline.map_or(buf.len(), |i| i + 1))
            }
            _ => break,
        };
        reader.consume(used);
        let text = String::from_utf8_lossy(&line);
        let shown: String = text.trim().chars().take(300).collect();
        let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
        if open {
            tail.pop_back();
        } else if tail.len() == STDERR_TAIL {
            tail.pop_front();
        }
        tail.push_back(printable(&shown).into_owned());
        open = !ended;
        if ended {
            line.clear();
        }
    }
}

pub(super) enum Line {
    Text(String),
    TooLong,
    Closed,
}

/// A reply line as read, and when.
pub(super) struct Arrived {
    pub read: Instant,
    pub line: Line,
}

/// The program's stdin, written without ever blocking: the request bytes handed over and not
/// yet taken by the pipe wait here, so a program busy writing replies never waits on a checker
/// busy writing requests.
pub(super) struct Requests {
    stdin: Option<ChildStdin>,
    bytes: Vec<u8>,
    /// How much of `bytes` the pipe has taken.
    at: usize,
    /// How many bytes the pipe has taken in all.
    pub written: u64,
    /// When the pipe last took bytes: the program was reading its requests then.
    pub taken_at: Option<Instant>,
}

impl Requests {
    pub fn new(stdin: ChildStdin) -> std::io::Result<Requests> {
        non_blocking(stdin.as_raw_fd())?;
        Ok(Requests {
            stdin: Some(stdin),
            bytes: Vec::new(),
            at: 0,
            written: 0,
            taken_at: None,
        })
    }

    pub fn push(&mut self, batch: &[u8]) {
        // A closed stdin takes nothing more: kept, the bytes would only pile up.
        if self.stdin.is_none() {
            return;
        }
        // What the pipe took is dropped before the buffer grows past twice what waits.
        if self.at > self.bytes.len() / 2 {
            self.bytes.drain(..self.at);
            self.at = 0;
        }
        self.bytes.extend_from_slice(batch);
    }

    /// The pipe to wait on for room, while bytes wait for it.
    pub fn waiting(&self) -> Option<RawFd> {
        let stdin = self.stdin.as_ref()?;
        (self.at < self.bytes.len()).then(|| stdin.as_raw_fd())
    }

    /// Writes what the pipe takes now. A program that closed its stdin takes nothing more: what
    /// it does then is seen on its stdout.
    pub fn write_now(&mut self) {
        while let Some(stdin) = self.stdin.as_mut() {
            if self.at == self.bytes.len() {
                return;
            }
            match stdin.write(&self.bytes[self.at..]) {
                Ok(n) => {
                    self.at += n;
                    self.written += n as u64;
                    self.taken_at = Some(Instant::now());
                }
                // Never blocking, it is never interrupted by a signal either.
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(_) => self.close(),
            }
        }
    }

    pub fn is_open(&self) -> bool {
        self.stdin.is_some()
    }

    /// End of input: the program's session is over.
    pub fn close(&mut self) {
        self.stdin = None;
        self.bytes = Vec::new();
        self.at = 0;
    }
}

/// How many reads one look at stdout makes at most (each of up to 64 KiB).
const MOST_READS: usize = 16;

/// The program's stdout, read without blocking, never holding more than [`MAX_LINE`] bytes of
/// one line: its complete lines.
pub(super) struct Replies {
    stdout: ChildStdout,
    /// The line being read, not ended yet.
    partial: Vec<u8>,
    lines: VecDeque<Arrived>,
    /// Where each read lands, kept from read to read.
    chunk: Vec<u8>,
    /// Whether reading is over: the program closed its stdout or wrote a line too long.
    over: bool,
    /// How many reads brought bytes.
    pub reads: u64,
}

impl Replies {
    pub fn new(stdout: ChildStdout) -> std::io::Result<Replies> {
        non_blocking(stdout.as_raw_fd())?;
        Ok(Replies {
            stdout,
            partial: Vec::new(),
            lines: VecDeque::new(),
            chunk: vec![0; 64 * 1024],
            over: false,
            reads: 0,
        })
    }

    pub fn next(&mut self) -> Option<Arrived> {
        self.lines.pop_front()
    }

    /// The pipe to wait on, while there is more to read.
    pub fn fd(&self) -> Option<RawFd> {
        (!self.over).then(|| self.stdout.as_raw_fd())
    }

    /// Reads what the pipe holds now, without waiting, until `want` lines have come or the pipe
    /// is empty; returns how many came. A program that writes without end is read a little at a
    /// time, never all of it at once.
    pub fn read_now(&mut self, want: usize) -> usize {
        let mut chunk = std::mem::take(&mut self.chunk);
        let mut came = 0;
        let mut reads = 0;
        while !self.over && came < want.max(1) && reads < MOST_READS {
            match self.stdout.read(&mut chunk) {
                Ok(n) if n > 0 => {
                    reads += 1;
                    self.reads += 1;
                    came += self.split(&chunk[..n], Instant::now());
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                // The end of its output, or a pipe that cannot be read: nothing more will come.
                _ => {
                    self.push(Instant::now(), Line::Closed);
                    came += 1;
                }
            }
        }
        self.chunk = chunk;
        came
    }

    /// Drops the lines read and not taken.
    pub fn forget(&mut self) {
        self.lines.clear();
    }

    /// Takes the complete lines of one read, made at `read`; returns how many.
    fn split(&mut self, mut rest: &[u8], read: Instant) -> usize {
        let mut came = 0;
        while let Some(end) = rest.iter().position(|&b| b == b'\n') {
            self.partial.extend_from_slice(&rest[..end]);
            rest = &rest[end + 1..];
            if self.partial.len() > MAX_LINE {
                break;
            }
            let text = String::from_utf8_lossy(&self.partial)
                .trim_end_matches('\r')
                .to_owned();
            self.partial.clear();
            self.push(read, Line::Text(text));
            came += 1;
        }
        if self.partial.len() <= MAX_LINE {
            self.partial.extend_from_slice(rest);
        }
        if self.partial.len() > MAX_LINE {
            self.push(read, Line::TooLong);
            came += 1;
        }
        came
    }

    fn push(&mut self, read: Instant, line: Line) {
        self.over |= !matches!(line, Line::Text(_));
        self.lines.push_back(Arrived { read, line });
    }
}

/// Makes a pipe's reads and writes return at once when they cannot go on: a pipe left blocking
/// would hang the checker, so failing to is an error.
fn non_blocking(fd: RawFd) -> std::io::Result<()> {
    // SAFETY: fcntl on a pipe this process owns, reading and setting its status flags only.
    let set = unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) == 0
    };
    if set {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Waits until stdout has something to read or stdin has room for `requests`' bytes, at most
/// until `until`.
pub(super) fn wait(replies: Option<RawFd>, requests: Option<RawFd>, until: Instant) {
    let mut fds: Vec<libc::pollfd> = [(replies, libc::POLLIN), (requests, libc::POLLOUT)]
        .into_iter()
        .filter_map(|(fd, events)| {
            fd.map(|fd| libc::pollfd {
                fd,
                events,
                revents: 0,
            })
        })
        .collect();
    // Rounded up: poll counts whole milliseconds, and waking early only means a second look.
    let left = until.saturating_duration_since(Instant::now());
    let millis = left.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int;
    if fds.is_empty() {
        std::thread::sleep(left);
        return;
    }
    // SAFETY: `fds` is a live array of `fds.len()` pollfd structs.
    unsafe {
        libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Child, Command, Stdio};

    fn requests_to(script: &str) -> (Child, Requests) {
        let mut child = Command::new("sh")
            .args(["-c", script])
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let requests = Requests::new(child.stdin.take().unwrap()).unwrap();
        (child, requests)
    }

    /// Once the pipe has taken more than half of what waited, that part is dropped.
    #[test]
    fn what_the_pipe_took_is_dropped_once_it_is_most_of_the_buffer() {
        let (mut child, mut requests) = requests_to("cat > /dev/null");
        requests.push(&[b'a'; 1000]);
        requests.write_now();
        assert_eq!(requests.written, 1000);
        requests.push(b"bc");
        assert_eq!((requests.bytes.as_slice(), requests.at), (&b"bc"[..], 0));
        let _ = child.kill();
        let _ = child.wait();
    }

    /// A pipe that took half or less keeps the buffer as it is: the program is behind.
    #[test]
    fn a_buffer_mostly_waiting_is_kept_as_it_is() {
        let (mut child, mut requests) = requests_to("exec sleep 5");
        requests.push(&[b'a'; 400_000]);
        requests.write_now();
        assert!(requests.written > 0 && requests.written < 200_000);
        assert_eq!(
            requests.waiting(),
            Some(requests.stdin.as_ref().unwrap().as_raw_fd())
        );
        requests.push(b"b");
        assert_eq!(requests.bytes.len(), 400_001);
        assert_eq!(requests.at as u64, requests.written);
        let _ = child.kill();
        let _ = child.wait();
    }

    fn replies_of(script: &str) -> Replies {
        let mut child = Command::new("sh")
            .args(["-c", script])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let replies = Replies::new(child.stdout.take().unwrap()).unwrap();
        child.wait().unwrap();
        replies
    }

    /// A read stops once the lines wanted have come, leaving the rest in the pipe: lines read
    /// early would be stamped as read before the checker wanted them.
    #[test]
    fn reading_stops_once_the_lines_wanted_have_come() {
        let mut replies = replies_of("printf 'ab\\ncd\\n'");
        // Four bytes a read: the first brings "ab" whole and the start of "cd".
        replies.chunk = vec![0; 4];
        assert_eq!((replies.read_now(1), replies.reads), (1, 1));
        assert!(matches!(replies.next(), Some(Arrived { line: Line::Text(t), .. }) if t == "ab"));
        assert!(replies.next().is_none());
        assert_eq!((replies.read_now(1), replies.reads), (1, 2));
        assert!(matches!(replies.next(), Some(Arrived { line: Line::Text(t), .. }) if t == "cd"));
    }

    /// One call reads at most `MOST_READS` times, line or no line: a program writing without
    /// end cannot keep the checker reading.
    #[test]
    fn one_call_reads_at_most_so_many_times() {
        let mut replies = replies_of("printf '%040d\\n' 0");
        replies.chunk = vec![0; 1];
        assert_eq!((replies.read_now(1), replies.reads), (0, MOST_READS as u64));
        assert_eq!(replies.partial.len(), MOST_READS);
    }

    /// The end of the output comes as one `Closed`, counted, and reading is over.
    #[test]
    fn the_end_of_the_output_is_one_closed_line() {
        let mut replies = replies_of("exit 0");
        assert_eq!(replies.read_now(1), 1);
        assert!(matches!(
            replies.next(),
            Some(Arrived {
                line: Line::Closed,
                ..
            })
        ));
        assert!(replies.fd().is_none() && replies.next().is_none());
    }

    /// Lines read and forgotten are gone: a program writing on at its end is read without
    /// its lines piling up.
    #[test]
    fn forgotten_lines_are_gone() {
        let mut replies = replies_of("printf 'a\\nb\\n'");
        assert_eq!(replies.read_now(usize::MAX), 3);
        replies.forget();
        assert!(replies.next().is_none());
    }

    /// A line past `MAX_LINE` comes as one `TooLong`, counted, and reading is over.
    #[test]
    fn a_line_too_long_is_one_line_that_ends_the_reading() {
        let mut replies = replies_of("exit 0");
        assert_eq!(replies.split(&vec![b'a'; MAX_LINE + 1], Instant::now()), 1);
        assert!(matches!(
            replies.next(),
            Some(Arrived {
                line: Line::TooLong,
                ..
            })
        ));
        assert!(replies.fd().is_none());
    }

    /// Made non-blocking twice, a pipe stays non-blocking: the flag is set, never toggled.
    #[test]
    fn a_pipe_made_non_blocking_twice_stays_so() {
        let (mut child, requests) = requests_to("exec sleep 5");
        let fd = requests.stdin.as_ref().unwrap().as_raw_fd();
        non_blocking(fd).unwrap();
        // SAFETY: reading the status flags of a pipe this test owns.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        assert!(flags & libc::O_NONBLOCK != 0);
        let _ = child.kill();
        let _ = child.wait();
    }

    /// A stdout that cannot be read (here a directory put in the pipe's place) ends the reading
    /// as its end would: waiting on it would wake at once, for ever.
    #[test]
    fn a_stdout_that_cannot_be_read_ends_the_reading() {
        let mut replies = replies_of("exit 0");
        let dir = std::fs::File::open("/").unwrap();
        // SAFETY: dup2 onto a descriptor this test owns; no memory is touched.
        assert!(unsafe { libc::dup2(dir.as_raw_fd(), replies.stdout.as_raw_fd()) } >= 0);
        assert_eq!(replies.read_now(1), 1);
        assert!(matches!(
            replies.next(),
            Some(Arrived {
                line: Line::Closed,
                ..
            })
        ));
        assert!(replies.fd().is_none());
    }

    /// Once the program has closed its stdin, what is sent goes nowhere and is not kept.
    #[test]
    fn a_closed_stdin_keeps_nothing_sent_after() {
        let (mut child, mut requests) = requests_to("exec sleep 5");
        requests.close();
        requests.push(b"lost");
        assert!(requests.bytes.is_empty() && requests.waiting().is_none());
        let _ = child.kill();
        let _ = child.wait();
    }
}
