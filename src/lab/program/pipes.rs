//! The threads that move the program's bytes: request lines written a batch at a time, replies
//! read a line at a time within the line limit, and stderr kept as its last lines.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Mutex;
use std::time::{Duration, Instant};

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

/// How long the reader waits, after a read, while replies are still due: they gather in the
/// pipe meanwhile and one read takes many. A program answers each request with its own write,
/// and waking for each would cost the checker more than the program spends answering.
const GATHER: Duration = Duration::from_micros(150);

/// Writes each batch of request lines as it comes: one write for many requests.
pub(super) fn write_lines(mut stdin: impl Write, batches: Receiver<Vec<u8>>) {
    while let Ok(batch) = batches.recv() {
        if stdin
            .write_all(&batch)
            .and_then(|()| stdin.flush())
            .is_err()
        {
            return;
        }
    }
}

/// Reads stdout, never holding more than [`MAX_LINE`] bytes of one line, and passes on the
/// complete lines of each read together, stamped with when they arrived.
pub(super) fn read_lines(stdout: impl Read, send: Sender<(Instant, Vec<Line>)>, due: &AtomicUsize) {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut line = Vec::new();
    loop {
        let chunk = match reader.fill_buf() {
            Ok([]) | Err(_) => {
                let _ = send.send((Instant::now(), vec![Line::Closed]));
                return;
            }
            Ok(chunk) => chunk,
        };
        let at = Instant::now();
        let mut batch = Vec::new();
        let mut rest = chunk;
        while let Some(end) = rest.iter().position(|&b| b == b'\n') {
            line.extend_from_slice(&rest[..end]);
            rest = &rest[end + 1..];
            if line.len() > MAX_LINE {
                break;
            }
            let text = String::from_utf8_lossy(&line)
                .trim_end_matches('\r')
                .to_owned();
            line.clear();
            batch.push(Line::Text(text));
        }
        if line.len() <= MAX_LINE {
            line.extend_from_slice(rest);
        }
        let consumed = chunk.len();
        reader.consume(consumed);
        let too_long = line.len() > MAX_LINE;
        if too_long {
            batch.push(Line::TooLong);
        }
        let lines = batch.len();
        // Counted as in before they are handed on, so whoever has read them sees them counted.
        // Saturating: a program may print a line no request asked for.
        let before = due
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |d| {
                Some(d.saturating_sub(lines))
            })
            .unwrap_or(0);
        if !batch.is_empty() && send.send((at, batch)).is_err() || too_long {
            return;
        }
        if before > lines {
            std::thread::sleep(GATHER);
        }
    }
}
