//! Scripts of calls, played on the student's code and judged against the seed's decisions. A
//! script's requests depend only on the seed (tokens come from the reference's grants), so all
//! of them are written ahead of the replies; the first reply that differs ends the script there.
//! The named rules, the random sequences, the exhaustive ones and the chaos runs are all
//! scripts, so one judge decides them all.

use super::judge::{judge, Context, Divergence, Kind, Profile, Seen};
use super::program::{Program, ProtocolError};
use super::reference::{Decision, Reference, Seed};
use super::seed::Rule;
use super::wire::{fmt_time, LeaseReply, Reply, Request};

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
    /// The last lines it wrote on stderr (a warning, a student's debugging output).
    fn stderr_tail(&self) -> Vec<String> {
        Vec::new()
    }
    /// Ends the session and returns its last stderr lines, all of them read.
    fn last_words(&mut self) -> Vec<String> {
        self.stderr_tail()
    }
    /// Reads and drops the replies still in flight.
    fn drain(&mut self) -> Result<(), ProtocolError> {
        while self.in_flight() > 0 {
            self.receive()?;
        }
        Ok(())
    }
}

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
    fn stderr_tail(&self) -> Vec<String> {
        Program::stderr_tail(self)
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

/// A lock's grants as the seed made them: (lock, client, token, expires_at), in grant order.
#[derive(Clone, Default)]
struct Grants {
    leases: Vec<(String, String, u64, f64)>,
}

impl Grants {
    /// The client's tokens on the lock, latest first.
    fn of<'a>(&'a self, name: &'a str, client: &'a str) -> impl Iterator<Item = u64> + 'a {
        self.leases
            .iter()
            .rev()
            .filter(move |(n, c, ..)| n == name && c == client)
            .map(|l| l.2)
    }

    fn holder_of(&self, name: &str) -> Option<&str> {
        self.leases
            .iter()
            .rev()
            .find(|l| l.0 == name)
            .map(|l| l.1.as_str())
    }

    fn token(&self, token: TokenOf, name: &str, client: &str, is_write: bool) -> Option<u64> {
        match token {
            TokenOf::Own if is_write => self.leases.iter().rev().find(|l| l.0 == name).map(|l| l.2),
            TokenOf::Own => self.of(name, client).next(),
            TokenOf::OwnEarlier => self.of(name, client).nth(1),
            TokenOf::Holders => {
                let holder = self.holder_of(name)?;
                (holder != client).then(|| self.of(name, holder).next())?
            }
            TokenOf::Latest => self.leases.iter().map(|l| l.2).max(),
            TokenOf::Previous => {
                let mut tokens: Vec<u64> = self.leases.iter().map(|l| l.2).collect();
                tokens.sort_unstable();
                tokens.dedup();
                tokens.iter().rev().nth(1).copied()
            }
            TokenOf::Exactly(t) => Some(t),
        }
    }
}

/// The request a step makes now, or `None` when it makes no sense here (a token never granted,
/// a clock move that would not move forward).
fn resolve(step: &Step, now: f64, grants: &Grants) -> Option<Request> {
    Some(match *step {
        Step::New {
            lease_seconds,
            first_token,
        } => Request::New {
            lease_seconds,
            first_token,
        },
        Step::Advance(by) => Request::Clock {
            now: round_ms(now + by),
        },
        Step::ToExpiry { offset } => {
            let expiry = grants.leases.iter().map(|l| l.3).fold(f64::NAN, f64::max);
            let to = round_ms(expiry + offset);
            if to.is_nan() || to <= now {
                return None;
            }
            Request::Clock { now: to }
        }
        Step::Acquire { name, client } => Request::Acquire {
            name: name.into(),
            client_id: client.into(),
        },
        Step::Renew {
            name,
            client,
            token,
        } => Request::Renew {
            name: name.into(),
            client_id: client.into(),
            token: grants.token(token, name, client, false)?,
        },
        Step::Release {
            name,
            client,
            token,
        } => Request::Release {
            name: name.into(),
            client_id: client.into(),
            token: grants.token(token, name, client, false)?,
        },
        Step::Holder { name } => Request::Holder { name: name.into() },
        Step::Write { key, value, token } => Request::Write {
            key: key.into(),
            value: value.into(),
            token: grants.token(token, key, "", true)?,
        },
        Step::Read { key } => Request::Read { key: key.into() },
        Step::Highest { key } => Request::HighestToken { key: key.into() },
    })
}

/// Times stay on a millisecond grid, as the reference and every language add them alike.
pub fn round_ms(t: f64) -> f64 {
    (t * 1000.0).round() / 1000.0
}

/// A script planned on the seed a step at a time: the seed's state, the grants its tokens are
/// read from, and the time. Cloned, it tries the next step of many scripts that share a start.
#[derive(Clone)]
pub struct Planner {
    reference: Reference,
    grants: Grants,
    now: f64,
}

impl Planner {
    /// A fresh seed, before the script's `new`.
    pub fn new() -> Planner {
        Planner {
            reference: Reference::default(),
            grants: Grants::default(),
            now: 0.0,
        }
    }

    /// The request `step` makes now, if it makes one (a renew with no grant to name makes none).
    pub fn request(&self, step: &Step) -> Option<Request> {
        resolve(step, self.now, &self.grants)
    }

    /// The seed's decision on `request`, with the facts it rested on.
    pub fn decide(&mut self, request: &Request) -> Decision {
        self.before(request);
        let decision = self.reference.decide(request);
        self.after(request, &decision.seed);
        decision
    }

    /// The seed's answer alone, for telling scripts apart.
    pub fn answer(&mut self, request: &Request) -> Seed {
        self.before(request);
        let seed = self.reference.seed_of(request);
        self.after(request, &seed);
        seed
    }

    fn before(&mut self, request: &Request) {
        match request {
            Request::Clock { now: t } => self.now = *t,
            Request::New { .. } => {
                self.now = 0.0;
                self.grants = Grants::default();
            }
            _ => {}
        }
    }

    fn after(&mut self, request: &Request, seed: &Seed) {
        if let (
            Request::Acquire { name, client_id }
            | Request::Renew {
                name, client_id, ..
            },
            Seed::Granted(l) | Seed::Renewed(l),
        ) = (request, seed)
        {
            self.grants
                .leases
                .retain(|g| !(g.0 == *name && g.2 == l.token));
            self.grants
                .leases
                .push((name.clone(), client_id.clone(), l.token, l.expires_at));
        }
    }
}

impl Default for Planner {
    fn default() -> Self {
        Planner::new()
    }
}

/// The script's requests, each with the seed's decision: its `new`, then each step that makes a
/// request (twice over, with a `new` between, for a repeated script).
pub fn plan(script: &Script) -> Vec<Call> {
    let mut planner = Planner::new();
    let mut calls = Vec::new();
    let passes = if script.repeat { 2 } else { 1 };
    for pass in 0..passes {
        let new = Request::New {
            lease_seconds: script.lease_seconds,
            first_token: script.first_token,
        };
        let first_of_pass = calls.len();
        let steps = script
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| (Some(i), Some(s)));
        for (step, what) in std::iter::once((None, None)).chain(steps) {
            let request = match what {
                None => new.clone(),
                Some(s) => match planner.request(s) {
                    Some(r) => r,
                    None => continue,
                },
            };
            let decision = planner.decide(&request);
            let repeats = (pass == 1).then(|| calls.len() - first_of_pass);
            calls.push(Call {
                step,
                request,
                decision,
                repeats,
            });
        }
    }
    calls
}

/// Plays a repeated script (its steps, `new`, its steps again) and compares the student's second
/// pass with its own first, whatever the seed says and leaving out the expiries a lease reports
/// (a clock read from elsewhere moves those): the first call answered otherwise after `new`,
/// charged to new-starts-over, or `None`. Also every call as played, for the first pass's
/// verdict.
pub fn repeat_differs(
    script: &Script,
    student: &mut dyn Subject,
) -> Result<Repeated, ProtocolError> {
    let calls = plan(script);
    for call in &calls {
        student.send(&call.request)?;
    }
    let mut played: Vec<Played> = Vec::with_capacity(calls.len());
    for call in &calls {
        let got = student.receive()?;
        played.push(Played {
            now: call.decision.now,
            request: call.request.clone(),
            got,
        });
    }
    let without_expiry = |reply: &Reply| match reply {
        Reply::Lease(Some(l)) => Reply::Lease(Some(LeaseReply::new(l.token, None))),
        other => other.clone(),
    };
    for (i, call) in calls.iter().enumerate() {
        let Some(first) = call.repeats else { continue };
        let (before, after) = (&played[first].got, &played[i].got);
        if without_expiry(before) != without_expiry(after) {
            let divergence = Divergence {
                rule: Rule::NewStartsOver,
                expected: format!(
                    "before `new`, the same call answered {}: something from before `new` is \
                     still there",
                    before.describe()
                ),
                hint: None,
                kind: Kind::State,
                not_implemented: None,
            };
            let mismatch = Mismatch {
                transcript: played[..=i].to_vec(),
                divergence,
                steps_played: call.step.map_or(0, |s| s + 1),
            };
            return Ok(Repeated {
                leak: Some(mismatch),
                calls,
                played,
            });
        }
    }
    Ok(Repeated {
        leak: None,
        calls,
        played,
    })
}

/// A repeated script as played: where its second pass answered otherwise, and every call.
pub struct Repeated {
    pub leak: Option<Mismatch>,
    pub calls: Vec<Call>,
    pub played: Vec<Played>,
}

/// Plays `script` on the student's code: `Ok(None)` when every reply is the seed's.
pub fn play(
    script: &Script,
    scope: Scope,
    student: &mut dyn Subject,
    profile: Profile,
) -> Result<Option<Mismatch>, ProtocolError> {
    let calls = plan(script);
    for call in &calls {
        student.send(&call.request)?;
    }
    let found = judge_replies(&calls, scope, student, profile)?;
    student.drain()?;
    // A difference rounding decides is no verdict: the script agreed as far as it could tell.
    Ok(found.filter(|m| m.divergence.kind != Kind::Unclear))
}

/// Reads the replies to `calls` (already sent) and judges them, stopping at the first
/// difference that counts; the replies after it stay in flight.
pub fn judge_replies(
    calls: &[Call],
    scope: Scope,
    student: &mut dyn Subject,
    profile: Profile,
) -> Result<Option<Mismatch>, ProtocolError> {
    let mut seen = Seen::default();
    let mut transcript: Vec<Played> = Vec::with_capacity(calls.len());
    let language = student.language().to_owned();
    for call in calls {
        let got = student.receive()?;
        if matches!(call.request, Request::New { .. }) {
            seen.clear();
        }
        let cx = Context {
            profile,
            seen: &seen,
            language: &language,
        };
        let mut divergence = judge(&call.request, &call.decision, &got, &cx);
        if let (Some(d), Some(first)) = (&mut divergence, call.repeats) {
            // The same call answered otherwise after `new` than before it: something from before
            // `new` is still there. (The same answer twice is judged as any answer is.)
            let first_got = &transcript[first].got;
            if !profile.clock_ignored && d.not_implemented.is_none() && *first_got != got {
                d.rule = Rule::NewStartsOver;
                d.expected = format!(
                    "{}; before `new`, the same call answered {}",
                    d.expected,
                    transcript[first].got.describe()
                );
            }
        }
        seen.note(&call.request, &got, call.decision.now);
        let now = match call.request {
            Request::Clock { now } => now,
            Request::New { .. } => 0.0,
            _ => call.decision.now,
        };
        transcript.push(Played {
            now,
            request: call.request.clone(),
            got,
        });
        let Some(divergence) = divergence else {
            continue;
        };
        if divergence.kind == Kind::Unclear {
            // Float rounding decides here, not a rule: the script is judged up to this call.
            return Ok(Some(Mismatch {
                transcript,
                divergence,
                steps_played: call.step.map_or(0, |s| s + 1),
            }));
        }
        // A check of one rule reads past only what cannot change what it judges: a lease's own
        // value of another rule (its expiry), where the check is not about time. An observer's
        // answer is what a check looks at, and a grant or verdict changes what follows.
        let counts = match scope {
            Scope::All => true,
            Scope::Only(rule) => {
                divergence.kind != Kind::Value
                    || divergence.rule == rule
                    || rule.is_about_time()
                    || divergence.not_implemented.is_some()
            }
        };
        if counts {
            return Ok(Some(Mismatch {
                transcript,
                divergence,
                steps_played: call.step.map_or(0, |s| s + 1),
            }));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests;
