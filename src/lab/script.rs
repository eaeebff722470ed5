//! Scripts of calls, played on the student's code and on this project's library side by side,
//! compared reply by reply with only what the seed decides. The named rules, the random
//! sequences and the exhaustive ones are all scripts, so one comparison judges them all.

use super::protocol::{fmt_time, LeaseReply, ProtocolError, Reply, Request};
use crate::{FencedStorage, LockService, ManualClock};

/// Something that answers requests: the student's program or the reference.
pub trait Subject {
    fn call(&mut self, request: &Request) -> Result<Reply, ProtocolError>;
}

impl Subject for super::protocol::Program {
    fn call(&mut self, request: &Request) -> Result<Reply, ProtocolError> {
        super::protocol::Program::call(self, request)
    }
}

/// This project's library, answering as a correct student's adapter would.
pub struct Reference {
    clock: ManualClock,
    service: LockService<ManualClock>,
    storage: FencedStorage,
}

impl Default for Reference {
    fn default() -> Self {
        let clock = ManualClock::new(0.0);
        Reference {
            service: LockService::with_defaults(clock.clone()),
            clock,
            storage: FencedStorage::new(),
        }
    }
}

impl Reference {
    /// The reference's reply; it never fails.
    pub fn answer(&mut self, request: &Request) -> Reply {
        let lease = |l: crate::Lease| {
            Reply::Lease(Some(LeaseReply {
                token: l.token,
                expires_at: Some(l.expires_at),
            }))
        };
        match request {
            Request::Hello => Reply::Hello {
                language: "fencing-lab's library".into(),
            },
            Request::New {
                lease_seconds,
                first_token,
            } => {
                self.clock = ManualClock::new(0.0);
                self.storage = FencedStorage::new();
                match LockService::new(
                    self.clock.clone(),
                    lease_seconds.unwrap_or(crate::DEFAULT_LEASE_SECONDS),
                    first_token.unwrap_or(crate::DEFAULT_FIRST_TOKEN),
                ) {
                    Ok(service) => {
                        self.service = service;
                        Reply::Done
                    }
                    Err(e) => Reply::Refused(e.to_string()),
                }
            }
            Request::Clock { now } => {
                self.clock.set(*now);
                Reply::Done
            }
            Request::Acquire { name, client_id } => match self.service.acquire(name, client_id) {
                Some(l) => lease(l),
                None => Reply::Lease(None),
            },
            Request::Renew {
                name,
                client_id,
                token,
            } => match self.service.renew(name, client_id, *token) {
                Ok(l) => lease(l),
                Err(e) => Reply::Refused(e.to_string()),
            },
            Request::Release {
                name,
                client_id,
                token,
            } => match self.service.release(name, client_id, *token) {
                Ok(()) => Reply::Done,
                Err(e) => Reply::Refused(e.to_string()),
            },
            Request::Holder { name } => Reply::Holder(self.service.holder(name).map(str::to_owned)),
            Request::Write { key, value, token } => {
                match self.storage.write(key, value.as_str(), *token) {
                    Ok(()) => Reply::Done,
                    Err(e) => Reply::Refused(e.to_string()),
                }
            }
            Request::Read { key } => Reply::Value(self.storage.read(key).map(str::to_owned)),
            Request::HighestToken { key } => Reply::Token(self.storage.highest_token(key)),
        }
    }
}

impl Subject for Reference {
    fn call(&mut self, request: &Request) -> Result<Reply, ProtocolError> {
        Ok(self.answer(request))
    }
}

/// Which token a renew, release or write uses, resolved when the script runs, so that a shrunk
/// script (with some grants removed) still makes sense.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TokenOf {
    /// The latest token the client was granted on the lock (the step is skipped if none).
    Own,
    /// The current holder's token, sent by another client: someone else's lock.
    Holders,
    /// The latest token granted by the service.
    Latest,
    /// The token granted before the latest.
    Previous,
    /// This number.
    Exactly(u64),
}

/// One step of a script.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
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
    /// Whether a lease's expiry is judged. Off for a rule about tokens only, so that a wrong
    /// expiry is reported under the rule about expiry, not under this one.
    pub judge_expiry: bool,
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
    /// Every call up to and including the one that went wrong.
    pub transcript: Vec<Played>,
    /// What the seed's rules give, and why.
    pub expected: String,
    /// How many of the script's steps were played: the failing one is the last of them
    /// (0 when `new` itself failed). Steps after it cannot matter.
    pub steps_played: usize,
}

impl Mismatch {
    /// The transcript as lines: `t=10.0  acquire(file, client-2) -> null`, the last one with
    /// `, but ...`.
    pub fn lines(&self) -> Vec<String> {
        let last = self.transcript.len().saturating_sub(1);
        // The time column shows each clock step, so a clock line is shown only if it failed.
        self.transcript
            .iter()
            .enumerate()
            .filter(|(i, p)| *i == last || !matches!(p.request, Request::Clock { .. }))
            .map(|(i, p)| {
                let mut line = format!(
                    "t={:<6} {} -> {}",
                    fmt_time(p.now),
                    p.request.call(),
                    p.got.describe()
                );
                if i == last {
                    line.push_str(&format!(", but {}", self.expected));
                }
                line
            })
            .collect()
    }
}

#[derive(Default)]
struct Grants {
    /// (lock, client, token, expires_at) in grant order, as the reference granted them.
    leases: Vec<(&'static str, &'static str, u64, f64)>,
}

impl Grants {
    fn own(&self, name: &str, client: &str) -> Option<u64> {
        self.leases
            .iter()
            .rev()
            .find(|(n, c, ..)| *n == name && *c == client)
            .map(|l| l.2)
    }
}

/// Plays `script` on the student's code and the reference; `Ok(None)` when every reply agrees.
/// `calls` counts the student's requests.
pub fn play(
    script: &Script,
    student: &mut dyn Subject,
    calls: &mut u64,
) -> Result<Option<Mismatch>, ProtocolError> {
    let mut reference = Reference::default();
    let mut transcript = Vec::new();
    let mut now = 0.0_f64;
    let mut grants = Grants::default();
    let mut holders: std::collections::BTreeMap<&str, &str> = Default::default();
    let new = Request::New {
        lease_seconds: script.lease_seconds,
        first_token: script.first_token,
    };
    let resolved = script.steps.iter().map(Some);
    for (steps_played, step) in std::iter::once(None).chain(resolved).enumerate() {
        // A step is resolved against what the reference has granted so far.
        let request = match step {
            None => new.clone(),
            Some(step) => match resolve(step, now, &grants, &holders) {
                Some(r) => r,
                None => continue,
            },
        };
        if let Request::Clock { now: t } = request {
            now = t;
        }
        let expected = reference.answer(&request);
        let got = student.call(&request)?;
        *calls += 1;
        match (&request, &expected) {
            (Request::Acquire { name, client_id }, Reply::Lease(Some(l)))
            | (
                Request::Renew {
                    name, client_id, ..
                },
                Reply::Lease(Some(l)),
            ) => {
                let name: &'static str = leak(name);
                let client: &'static str = leak(client_id);
                let expires = l.expires_at.unwrap_or(now);
                grants.leases.retain(|g| !(g.0 == name && g.2 == l.token));
                grants.leases.push((name, client, l.token, expires));
                holders.insert(name, client);
            }
            _ => {}
        }
        let verdict = judge(step, &request, &expected, &got, script.judge_expiry);
        transcript.push(Played { now, request, got });
        if let Some(expected) = verdict {
            return Ok(Some(Mismatch {
                transcript,
                expected,
                steps_played,
            }));
        }
    }
    Ok(None)
}

/// The names a script uses are a small fixed set; this finds the static one.
fn leak(name: &str) -> &'static str {
    const NAMES: [&str; 6] = ["file", "log", "other", "client-1", "client-2", "client-3"];
    NAMES.into_iter().find(|n| *n == name).unwrap_or("file")
}

fn resolve(
    step: &Step,
    now: f64,
    grants: &Grants,
    holders: &std::collections::BTreeMap<&str, &str>,
) -> Option<Request> {
    let token = |token: TokenOf, name: &str, client: &str| -> Option<u64> {
        match token {
            TokenOf::Own => grants.own(name, client),
            TokenOf::Holders => {
                let holder = holders.get(name)?;
                (*holder != client).then(|| grants.own(name, holder))?
            }
            TokenOf::Latest => grants.leases.iter().map(|l| l.2).max(),
            TokenOf::Previous => {
                let mut tokens: Vec<u64> = grants.leases.iter().map(|l| l.2).collect();
                tokens.sort_unstable();
                tokens.iter().rev().nth(1).copied()
            }
            TokenOf::Exactly(t) => Some(t),
        }
    };
    Some(match *step {
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
            token: t,
        } => Request::Renew {
            name: name.into(),
            client_id: client.into(),
            token: token(t, name, client)?,
        },
        Step::Release {
            name,
            client,
            token: t,
        } => Request::Release {
            name: name.into(),
            client_id: client.into(),
            token: token(t, name, client)?,
        },
        Step::Holder { name } => Request::Holder { name: name.into() },
        Step::Write {
            key,
            value,
            token: t,
        } => Request::Write {
            key: key.into(),
            value: value.into(),
            token: token(t, key, "")?,
        },
        Step::Read { key } => Request::Read { key: key.into() },
        Step::Highest { key } => Request::HighestToken { key: key.into() },
    })
}

/// Times stay on a millisecond grid, as the reference and every language add them alike.
fn round_ms(t: f64) -> f64 {
    (t * 1000.0).round() / 1000.0
}

/// `None` when `got` is what the seed allows, else what it expected (a clause after "but").
fn judge(
    step: Option<&Step>,
    request: &Request,
    expected: &Reply,
    got: &Reply,
    judge_expiry: bool,
) -> Option<String> {
    if matches!(got, Reply::NotImplemented(_)) {
        return Some("the seed's rules need it: write it next".to_owned());
    }
    let because = |e: &Reply| match e {
        Reply::Refused(why) => format!(" ({why})"),
        _ => String::new(),
    };
    let refused = |r: &Reply| r.is_refusal() || matches!(r, Reply::Lease(None));
    match request {
        Request::New { .. } | Request::Clock { .. } => {
            (!matches!(got, Reply::Done)).then(|| "it should simply be done".to_owned())
        }
        Request::Acquire { .. } | Request::Renew { .. } => match expected {
            Reply::Lease(Some(want)) => match got {
                Reply::Lease(Some(have)) if have.token != want.token => Some(format!(
                    "the seed gives token {}{}",
                    want.token,
                    token_reason(request)
                )),
                Reply::Lease(Some(have)) => match (have.expires_at, want.expires_at) {
                    (Some(h), Some(w)) if judge_expiry && (h - w).abs() > 1e-9 => Some(format!(
                        "the lease should expire at {} (now + lease_seconds)",
                        fmt_time(w)
                    )),
                    _ => None,
                },
                _ => Some(format!(
                    "the seed grants {}",
                    Reply::Lease(Some(want.clone())).describe()
                )),
            },
            _ if refused(got) => None,
            _ => Some(format!("the seed refuses it{}", because(expected))),
        },
        Request::Release { .. } | Request::Write { .. } => {
            // Releasing someone else's lock: the seed says only that it must not free it, which
            // the next holder() shows; the reply itself is the student's choice.
            if matches!(
                step,
                Some(Step::Release {
                    token: TokenOf::Holders,
                    ..
                })
            ) {
                return None;
            }
            match (expected, refused(got)) {
                (Reply::Done, false) | (Reply::Refused(_), true) => None,
                (Reply::Done, true) => Some("the seed accepts it".to_owned()),
                (e, _) => Some(format!("the seed refuses it{}", because(e))),
            }
        }
        Request::Holder { .. } | Request::Read { .. } | Request::HighestToken { .. } => {
            (got != expected).then(|| format!("the seed gives {}", expected.describe()))
        }
        Request::Hello => None,
    }
}

fn token_reason(request: &Request) -> &'static str {
    match request {
        Request::Renew { .. } => ": renew keeps the lease's token",
        _ => ": one counter for the whole service, the next integer after the last grant",
    }
}
