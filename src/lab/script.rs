//! Scripts of calls, played on the student's code and judged against the seed's decisions. A
//! script's requests depend only on the seed (tokens come from the reference's grants), so all
//! of them are written ahead of the replies; the first reply that differs ends the script there.
//! The named rules, the random sequences, the exhaustive ones and the chaos runs are all
//! scripts, so one judge decides them all.

use super::judge::Divergence;
#[cfg(not(target_family = "wasm"))]
use super::program::Program;
use super::reference::Decision;
use super::seed::Rule;
use super::wire::ProtocolError;
use super::wire::{fmt_time, Reply, Request};

mod planning;
mod playing;

pub use planning::{plan, Planner};
pub use playing::{judge_replies, play, repeat_differs, Repeated};

/// Something that answers requests: the student's program, or a test's double of it.
pub trait Subject {
    /// Writes a request without waiting for its reply (it may wait in a batch until
    /// [`Subject::flush`] or the next [`Subject::receive`]).
    fn send(&mut self, request: &Request) -> Result<(), ProtocolError>;
    /// Lets the program start on every request sent, before any reply is awaited.
    fn flush(&mut self) -> Result<(), ProtocolError> {
        Ok(())
    }
    /// The reply to the oldest request in flight.
    fn receive(&mut self) -> Result<Reply, ProtocolError>;
    /// How many requests are in flight.
    fn in_flight(&self) -> usize;
    /// The language the program says it is written in.
    fn language(&self) -> &str;
    /// How many requests it has answered, its greeting aside.
    fn answered(&self) -> u64;
    /// Ends the session and returns its last stderr lines (a warning, a student's debugging
    /// output), all of them read. A test's double writes none.
    fn last_words(&mut self) -> Vec<String> {
        Vec::new()
    }
    /// Reads and drops the replies still in flight.
    fn drain(&mut self) -> Result<(), ProtocolError> {
        while self.in_flight() > 0 {
            self.receive()?;
        }
        Ok(())
    }
}

#[cfg(not(target_family = "wasm"))]
impl Subject for Program {
    fn send(&mut self, request: &Request) -> Result<(), ProtocolError> {
        Program::send(self, request)
    }
    fn flush(&mut self) -> Result<(), ProtocolError> {
        Program::flush(self)
    }
    fn receive(&mut self) -> Result<Reply, ProtocolError> {
        Program::receive(self)
    }
    fn in_flight(&self) -> usize {
        Program::in_flight(self)
    }
    fn language(&self) -> &str {
        &self.language
    }
    fn answered(&self) -> u64 {
        self.calls.saturating_sub(1)
    }
    fn last_words(&mut self) -> Vec<String> {
        Program::last_words(self)
    }
}

/// Which token a renew, release or write uses, resolved against what the seed granted when the
/// script runs, so that a shrunk script (with some grants removed) still makes sense.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TokenOf {
    /// The client's latest token on the lock (the step is skipped if it has none). For a write,
    /// the latest token granted on the lock named like the key.
    Own,
    /// The client's token before its latest on the lock: from a lease that has ended.
    OwnEarlier,
    /// The current holder's token, sent by another client: someone else's lock.
    Holders,
    /// The latest token granted by the service.
    Latest,
    /// The token granted before the latest.
    Previous,
    /// This number.
    Exactly(u64),
}

/// One step of a script. Names are few and fixed (`file`, `log`, `other`; `client-1` to
/// `client-3`), so steps are small and shrink well.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// A fresh service and storage in the middle of the script.
    New {
        lease_seconds: Option<f64>,
        first_token: Option<u64>,
    },
    /// Moves the clock forward by this many seconds.
    Advance(f64),
    /// Moves the clock to the latest grant's expiry plus `offset` (skipped if that is not later).
    ToExpiry {
        offset: f64,
    },
    Acquire {
        name: &'static str,
        client: &'static str,
    },
    Renew {
        name: &'static str,
        client: &'static str,
        token: TokenOf,
    },
    Release {
        name: &'static str,
        client: &'static str,
        token: TokenOf,
    },
    Holder {
        name: &'static str,
    },
    Write {
        key: &'static str,
        value: &'static str,
        token: TokenOf,
    },
    Read {
        key: &'static str,
    },
    Highest {
        key: &'static str,
    },
}

impl Step {
    /// The token the step sends, if it sends one (a renew, a release or a write).
    pub fn token_mut(&mut self) -> Option<&mut TokenOf> {
        match self {
            Step::Renew { token, .. } | Step::Release { token, .. } | Step::Write { token, .. } => {
                Some(token)
            }
            _ => None,
        }
    }
}

/// A script: the service's settings, then its steps.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    pub lease_seconds: Option<f64>,
    pub first_token: Option<u64>,
    pub steps: Vec<Step>,
    /// Played twice, with a `new` between: the second time must answer as the first did, and a
    /// difference there is charged to new-starts-over.
    pub repeat: bool,
}

impl Script {
    pub fn new(lease_seconds: Option<f64>, first_token: Option<u64>, steps: Vec<Step>) -> Script {
        Script {
            lease_seconds,
            first_token,
            steps,
            repeat: false,
        }
    }
}

/// Which differences a play stops at: every one, or only those of one rule (a named check
/// reads past a differing value of another rule, which cannot change what it judges).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scope {
    All,
    Only(Rule),
}

/// One call of a played script, as the transcript shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Played {
    pub now: f64,
    pub request: Request,
    pub got: Reply,
}

/// Where the student's code and the seed part ways.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// Every call up to and including the one that differs.
    pub transcript: Vec<Played>,
    pub divergence: Divergence,
    /// How many of the script's steps were played: the differing one is the last of them (0 when
    /// `new` itself differed). Steps after it cannot matter.
    pub steps_played: usize,
}

impl Mismatch {
    /// Whether the program's constructor failed where the calls began: nothing after it could
    /// run on the program's own objects.
    pub fn constructor_failed(&self) -> bool {
        self.transcript
            .iter()
            .find(|p| matches!(p.request, Request::New { .. }))
            .is_some_and(|p| p.got != Reply::Done)
    }

    /// The transcript as lines, `t=10.0   acquire(file, client-2) -> null`, the differing one
    /// last. The time column shows each clock step, so a clock line is shown only if it differed.
    pub fn lines(&self) -> Vec<String> {
        Mismatch::lines_of(&self.transcript)
    }

    /// Played calls as transcript lines, the last one always shown.
    pub fn lines_of(transcript: &[Played]) -> Vec<String> {
        let last = transcript.len().saturating_sub(1);
        transcript
            .iter()
            .enumerate()
            .filter(|(i, p)| *i == last || !matches!(p.request, Request::Clock { .. }))
            .map(|(_, p)| {
                format!(
                    "t={:<6} {} -> {}",
                    fmt_time(p.now),
                    super::wire::one_line(&p.request.call()),
                    p.got.describe()
                )
            })
            .collect()
    }

    /// The rule the difference breaks.
    pub fn rule(&self) -> Rule {
        self.divergence.rule
    }
}

/// One request of a planned script with the seed's decision on it.
#[derive(Clone, Debug)]
pub struct Call {
    /// The script step it comes from (`None`: the opening `new`).
    pub step: Option<usize>,
    pub request: Request,
    pub decision: Decision,
    /// In a repeated script, the call of the first pass this one repeats.
    pub repeats: Option<usize>,
}

#[cfg(test)]
mod tests;
