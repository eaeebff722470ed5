//! How a program fails the protocol, and how long it may take to answer: plain data, read by
//! the judge everywhere (in a browser too), filled in by whatever runs the program.

use std::time::Duration;

/// How long a program may take to answer one request, unless `--timeout` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a program may take to start and answer `hello`, unless `--startup-timeout` says
/// otherwise: a JVM or a `node` loading modules takes a second on a busy machine.
pub const DEFAULT_STARTUP: Duration = Duration::from_secs(10);

/// The program broke the protocol; the whole check stops (exit 2), unless it only stopped
/// answering, when a check starts it again and goes on.
#[derive(Clone, Debug, PartialEq)]
pub struct ProtocolError {
    pub sentence: String,
    /// The program's last stderr lines when it broke the protocol (the sentence quotes them):
    /// kept for a report whose program is already gone, such as one that never started.
    pub stderr: Vec<String>,
    /// How it stopped answering a request, where that is what happened ("did not answer within
    /// 2.0 s", "exited with status 3 before answering"): not a garbled reply, nor the check's
    /// own deadline.
    pub stopped: Option<String>,
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
            stderr: Vec::new(),
            stopped: None,
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
