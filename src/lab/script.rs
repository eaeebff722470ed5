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

/// A student's implementation in-process, correct unless told to make one of the mistakes
/// students make, so that the checker's own tests run in microseconds instead of driving
/// programs. Each mistake is named after what it gets wrong; `breaks` gives the rule that must
/// catch it.
#[cfg(test)]
pub(crate) mod double {
    use std::collections::BTreeMap;

    use super::Subject;
    use crate::lab::protocol::{LeaseReply, ProtocolError, Reply, Request};

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Mistake {
        /// None: the seed's rules exactly.
        Correct,
        /// A lease of 30 s when `new` names none.
        DefaultLease30,
        /// Live while now <= expiry.
        ExpiryInclusive,
        /// One token counter per lock name.
        CounterPerLock,
        /// A refused acquire still takes a token.
        RefusedAcquireBumps,
        /// The holder's acquire grants again, with a new token.
        ReacquireOwn,
        /// Renew hands out a new token.
        RenewNewToken,
        /// Renew extends from the old expiry, not from now.
        RenewFromOldExpiry,
        /// An expired lease can still be renewed.
        RenewExpired,
        /// An expired lease can still be released.
        ReleaseExpired,
        /// Release frees the lock whoever asks, with whatever token.
        ReleaseByName,
        /// A write needs token > highest.
        WriteStrict,
        /// Every write is accepted.
        WriteUnchecked,
        /// A rejected write still stores its value.
        RejectedWriteKeepsValue,
        /// A write is compared with the highest token of any key.
        GlobalHighest,
        /// holder() names the last grantee even after expiry.
        HolderIgnoresExpiry,
        /// Time read from somewhere else than the clock (it never moves).
        OwnClock,
        /// The starter's `write` not written yet.
        WriteNotImplemented,
    }

    impl Mistake {
        pub const ALL_WRONG: [Mistake; 17] = [
            Mistake::DefaultLease30,
            Mistake::ExpiryInclusive,
            Mistake::CounterPerLock,
            Mistake::RefusedAcquireBumps,
            Mistake::ReacquireOwn,
            Mistake::RenewNewToken,
            Mistake::RenewFromOldExpiry,
            Mistake::RenewExpired,
            Mistake::ReleaseExpired,
            Mistake::ReleaseByName,
            Mistake::WriteStrict,
            Mistake::WriteUnchecked,
            Mistake::RejectedWriteKeepsValue,
            Mistake::GlobalHighest,
            Mistake::HolderIgnoresExpiry,
            Mistake::OwnClock,
            Mistake::WriteNotImplemented,
        ];

        /// The first rule, in the seed's order, that must catch this mistake.
        pub fn breaks(self) -> &'static str {
            match self {
                Mistake::Correct => "",
                Mistake::DefaultLease30 => "defaults",
                Mistake::ExpiryInclusive => "expiry-boundary",
                Mistake::CounterPerLock => "one-counter",
                Mistake::RefusedAcquireBumps => "refused-acquire-no-token",
                Mistake::ReacquireOwn => "holder-acquire-none",
                Mistake::RenewNewToken => "renew-keeps-token",
                Mistake::RenewFromOldExpiry => "renew-extends-from-now",
                Mistake::RenewExpired => "expired-no-renew",
                Mistake::ReleaseExpired => "expired-no-release",
                Mistake::ReleaseByName => "late-release",
                Mistake::WriteStrict => "write-equal-token",
                Mistake::WriteUnchecked => "write-stale-rejected",
                Mistake::RejectedWriteKeepsValue => "rejected-changes-nothing",
                Mistake::GlobalHighest => "per-key",
                Mistake::HolderIgnoresExpiry => "expiry-boundary",
                Mistake::OwnClock => "clock-only",
                Mistake::WriteNotImplemented => "write-equal-token",
            }
        }
    }

    struct Grant {
        client: String,
        token: u64,
        expires: f64,
    }

    pub struct Student {
        mistake: Mistake,
        now: f64,
        lease: f64,
        first: u64,
        next: u64,
        next_by_lock: BTreeMap<String, u64>,
        grants: BTreeMap<String, Grant>,
        entries: BTreeMap<String, (String, u64)>,
        /// Requests answered.
        pub calls: u64,
    }

    impl Student {
        pub fn new(mistake: Mistake) -> Student {
            Student {
                mistake,
                now: 0.0,
                lease: 10.0,
                first: 1,
                next: 1,
                next_by_lock: BTreeMap::new(),
                grants: BTreeMap::new(),
                entries: BTreeMap::new(),
                calls: 0,
            }
        }

        fn live(&self, grant: &Grant) -> bool {
            if self.mistake == Mistake::ExpiryInclusive {
                self.now <= grant.expires
            } else {
                self.now < grant.expires
            }
        }

        fn take_token(&mut self, name: &str) -> u64 {
            if self.mistake == Mistake::CounterPerLock {
                let next = self
                    .next_by_lock
                    .entry(name.to_owned())
                    .or_insert(self.first);
                *next += 1;
                *next - 1
            } else {
                self.next += 1;
                self.next - 1
            }
        }

        fn lease(&self, token: u64, expires: f64) -> Reply {
            Reply::Lease(Some(LeaseReply {
                token,
                expires_at: Some(expires),
            }))
        }

        /// The held grant for a renew or release, if the seed (or the mistake) allows it.
        fn held(&self, name: &str, client: &str, token: u64, expired_ok: bool) -> bool {
            self.grants.get(name).is_some_and(|g| {
                g.client == client && g.token == token && (expired_ok || self.live(g))
            })
        }

        fn answer(&mut self, request: &Request) -> Reply {
            let m = self.mistake;
            match request {
                Request::Hello => Reply::Hello {
                    language: "a test double".into(),
                },
                Request::New {
                    lease_seconds,
                    first_token,
                } => {
                    let default = if m == Mistake::DefaultLease30 {
                        30.0
                    } else {
                        10.0
                    };
                    *self = Student {
                        calls: self.calls,
                        ..Student::new(m)
                    };
                    self.lease = lease_seconds.unwrap_or(default);
                    self.first = first_token.unwrap_or(1);
                    self.next = self.first;
                    Reply::Done
                }
                Request::Clock { now } => {
                    if m != Mistake::OwnClock {
                        self.now = *now;
                    }
                    Reply::Done
                }
                Request::Acquire { name, client_id } => {
                    if m == Mistake::RefusedAcquireBumps {
                        self.take_token(name);
                    }
                    if let Some(g) = self.grants.get(name).filter(|g| self.live(g)) {
                        if !(m == Mistake::ReacquireOwn && g.client == *client_id) {
                            return Reply::Lease(None);
                        }
                    }
                    let token = if m == Mistake::RefusedAcquireBumps {
                        self.next - 1
                    } else {
                        self.take_token(name)
                    };
                    let expires = self.now + self.lease;
                    self.grants.insert(
                        name.clone(),
                        Grant {
                            client: client_id.clone(),
                            token,
                            expires,
                        },
                    );
                    self.lease(token, expires)
                }
                Request::Renew {
                    name,
                    client_id,
                    token,
                } => {
                    if !self.held(name, client_id, *token, m == Mistake::RenewExpired) {
                        return Reply::Refused(format!("{client_id} does not hold {name}"));
                    }
                    let new_token = if m == Mistake::RenewNewToken {
                        self.take_token(name)
                    } else {
                        *token
                    };
                    let (now, lease) = (self.now, self.lease);
                    let grant = self.grants.get_mut(name).expect("held");
                    let from = if m == Mistake::RenewFromOldExpiry {
                        grant.expires
                    } else {
                        now
                    };
                    grant.expires = from + lease;
                    grant.token = new_token;
                    let expires = grant.expires;
                    self.lease(new_token, expires)
                }
                Request::Release {
                    name,
                    client_id,
                    token,
                } => {
                    let allowed = m == Mistake::ReleaseByName
                        || self.held(name, client_id, *token, m == Mistake::ReleaseExpired);
                    if allowed && self.grants.remove(name).is_some() {
                        Reply::Done
                    } else {
                        Reply::Refused(format!("{client_id} does not hold {name}"))
                    }
                }
                Request::Holder { name } => Reply::Holder(
                    self.grants
                        .get(name)
                        .filter(|g| m == Mistake::HolderIgnoresExpiry || self.live(g))
                        .map(|g| g.client.clone()),
                ),
                Request::Write { key, value, token } => {
                    if m == Mistake::WriteNotImplemented {
                        return Reply::NotImplemented("write".into());
                    }
                    let highest = if m == Mistake::GlobalHighest {
                        self.entries.values().map(|e| e.1).max()
                    } else {
                        self.entries.get(key).map(|e| e.1)
                    };
                    let accepted = match highest {
                        None => true,
                        Some(_) if m == Mistake::WriteUnchecked => true,
                        Some(h) if m == Mistake::WriteStrict => *token > h,
                        Some(h) => *token >= h,
                    };
                    if accepted {
                        self.entries.insert(key.clone(), (value.clone(), *token));
                        Reply::Done
                    } else {
                        if m == Mistake::RejectedWriteKeepsValue {
                            if let Some(entry) = self.entries.get_mut(key) {
                                entry.0 = value.clone();
                            }
                        }
                        Reply::Refused(format!("token {token} is stale"))
                    }
                }
                Request::Read { key } => Reply::Value(self.entries.get(key).map(|e| e.0.clone())),
                Request::HighestToken { key } => Reply::Token(self.entries.get(key).map(|e| e.1)),
            }
        }
    }

    /// How long a test waits for a program's answer: long enough for any answer on a busy
    /// machine; only a broken test waits for it.
    pub const PATIENT: std::time::Duration = std::time::Duration::from_secs(30);

    /// A shell line that reads the `hello` request and answers it, as a program in `sh`.
    pub const SH_HELLO: &str =
        r#"read l; echo '{"id":0,"hello":"fencing-lab-adapter","language":"sh"}'"#;

    /// A file or folder under `tests/lab`: the lab's solutions and broken programs.
    pub fn lab_path(path: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/lab")
            .join(path)
    }

    /// Whether `python3` runs here, for the tests that drive the lab's Python solution: a
    /// loud skip when it does not, and an error in CI, where `.ci/run` checks for it.
    pub fn python3() -> bool {
        let present = std::process::Command::new("python3")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !present {
            assert!(
                std::env::var_os("FENCING_LAB_CI").is_none(),
                "python3 is missing, and .ci/run should have found it"
            );
            eprintln!("SKIPPED: python3 is not installed; run .ci/run, which checks for it");
        }
        present
    }

    impl Subject for Student {
        fn call(&mut self, request: &Request) -> Result<Reply, ProtocolError> {
            self.calls += 1;
            Ok(self.answer(request))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::double::{Mistake, Student};
    use super::*;

    fn acquire(name: &'static str, client: &'static str) -> Step {
        Step::Acquire { name, client }
    }

    fn script(steps: Vec<Step>) -> Script {
        Script {
            lease_seconds: Some(10.0),
            first_token: Some(1),
            steps,
            judge_expiry: true,
        }
    }

    fn mismatch_of(script: &Script, mistake: Mistake) -> Option<Mismatch> {
        let mut calls = 0;
        play(script, &mut Student::new(mistake), &mut calls).unwrap()
    }

    fn lease(token: u64, expires_at: f64) -> Reply {
        Reply::Lease(Some(LeaseReply {
            token,
            expires_at: Some(expires_at),
        }))
    }

    #[test]
    fn a_mismatch_reads_as_a_transcript_ending_in_what_the_seed_expected() {
        let script = script(vec![
            Step::Advance(2.0),
            acquire("file", "client-1"),
            Step::Advance(10.5),
            Step::Holder { name: "file" },
            acquire("file", "client-2"),
        ]);
        let m = mismatch_of(&script, Mistake::HolderIgnoresExpiry).expect("a mismatch");
        // The clock steps are in the time column, not lines of their own.
        assert_eq!(
            m.lines(),
            [
                "t=0.0    new LockService(clock, 10.0, 1) -> ok",
                "t=2.0    acquire(file, client-1) -> lease token 1 (expires 12.0)",
                "t=12.5   holder(file) -> \"client-1\", but the seed gives null",
            ]
        );
        assert!(mismatch_of(&script, Mistake::Correct).is_none());
        // The failing call is the last line, with the seed's answer; steps after it are not played.
        let script = script_with_expiry_mistake();
        let m = mismatch_of(&script, Mistake::ExpiryInclusive).expect("a mismatch");
        assert_eq!(
            m.lines(),
            [
                "t=0.0    new LockService(clock, 10.0, 1) -> ok",
                "t=0.0    acquire(file, client-1) -> lease token 1 (expires 10.0)",
                "t=10.0   holder(file) -> \"client-1\", but the seed gives null",
            ]
        );
        assert_eq!(m.steps_played, 3);
        assert_eq!(m.transcript.len(), 4, "the clock call is in the transcript");
    }

    fn script_with_expiry_mistake() -> Script {
        script(vec![
            acquire("file", "client-1"),
            Step::ToExpiry { offset: 0.0 },
            Step::Holder { name: "file" },
            acquire("file", "client-2"),
        ])
    }

    #[test]
    fn a_failing_clock_call_is_shown_though_clock_lines_are_not() {
        struct RefusesTheClock(Student);
        impl Subject for RefusesTheClock {
            fn call(&mut self, request: &Request) -> Result<Reply, ProtocolError> {
                match request {
                    Request::Clock { .. } => Ok(Reply::Refused("no".into())),
                    _ => self.0.call(request),
                }
            }
        }
        let script = script(vec![acquire("file", "client-1"), Step::Advance(1.5)]);
        let mut calls = 0;
        let m = play(
            &script,
            &mut RefusesTheClock(Student::new(Mistake::Correct)),
            &mut calls,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            m.lines().last().unwrap(),
            "t=1.5    clock = 1.5 -> refused (\"no\"), but it should simply be done"
        );
        assert_eq!(calls, 3);
    }

    #[test]
    fn play_counts_every_call_and_passes_a_correct_student() {
        let script = script(vec![
            acquire("file", "client-1"),
            Step::Write {
                key: "file",
                value: "a",
                token: TokenOf::Own,
            },
            Step::Read { key: "file" },
        ]);
        let mut calls = 5;
        let mut student = Student::new(Mistake::Correct);
        assert_eq!(play(&script, &mut student, &mut calls).unwrap(), None);
        // new, acquire, read: a write with the token of client "" resolves to nothing.
        assert_eq!(calls, 5 + 3);
        assert_eq!(student.calls, 3);
    }

    /// What each token choice resolves to, after client-1 got 1 (expired), client-2 got 2
    /// and client-1 got 3 on another lock.
    #[test]
    fn tokens_resolve_against_what_the_reference_granted() {
        let grants = Grants {
            leases: vec![
                ("file", "client-1", 1, 10.0),
                ("file", "client-2", 2, 21.0),
                ("log", "client-1", 3, 22.0),
            ],
        };
        let holders: std::collections::BTreeMap<&str, &str> =
            [("file", "client-2"), ("log", "client-1")].into();
        let renew = |client, token| {
            resolve(
                &Step::Renew {
                    name: "file",
                    client,
                    token,
                },
                11.0,
                &grants,
                &holders,
            )
        };
        let token_of = |r: Option<Request>| match r {
            Some(Request::Renew { token, .. }) => Some(token),
            _ => None,
        };
        assert_eq!(token_of(renew("client-1", TokenOf::Own)), Some(1));
        assert_eq!(token_of(renew("client-2", TokenOf::Own)), Some(2));
        assert_eq!(token_of(renew("client-3", TokenOf::Own)), None);
        assert_eq!(token_of(renew("client-1", TokenOf::Holders)), Some(2));
        // The holder sending the holder's token is not someone else's lock: skipped.
        assert_eq!(token_of(renew("client-2", TokenOf::Holders)), None);
        assert_eq!(token_of(renew("client-1", TokenOf::Latest)), Some(3));
        assert_eq!(token_of(renew("client-1", TokenOf::Previous)), Some(2));
        assert_eq!(token_of(renew("client-1", TokenOf::Exactly(9))), Some(9));
        assert_eq!(grants.own("log", "client-1"), Some(3));
        assert_eq!(grants.own("log", "client-2"), None);
        assert_eq!(grants.own("other", "client-1"), None);
        // The clock: forward by a step, or to the latest expiry plus an offset, never back.
        let clock = |step: Step, now: f64| match resolve(&step, now, &grants, &holders) {
            Some(Request::Clock { now }) => Some(now),
            _ => None,
        };
        assert_eq!(clock(Step::Advance(0.25), 11.0), Some(11.25));
        assert_eq!(clock(Step::ToExpiry { offset: -0.001 }, 11.0), Some(21.999));
        assert_eq!(clock(Step::ToExpiry { offset: 0.5 }, 11.0), Some(22.5));
        assert_eq!(clock(Step::ToExpiry { offset: 0.0 }, 22.0), None);
        assert_eq!(clock(Step::ToExpiry { offset: 0.0 }, 21.0), Some(22.0));
        let none = Grants::default();
        assert_eq!(
            resolve(&Step::ToExpiry { offset: 0.0 }, 0.0, &none, &holders),
            None
        );
        // Every other step is its request.
        assert_eq!(
            resolve(
                &Step::Release {
                    name: "file",
                    client: "client-1",
                    token: TokenOf::Exactly(4),
                },
                0.0,
                &none,
                &holders
            ),
            Some(Request::Release {
                name: "file".into(),
                client_id: "client-1".into(),
                token: 4
            })
        );
        assert_eq!(
            resolve(&Step::Highest { key: "log" }, 0.0, &none, &holders),
            Some(Request::HighestToken { key: "log".into() })
        );
    }

    /// A renew updates its lease in place: the token before the latest is still the previous
    /// grant's, not the renewed lease's own again.
    #[test]
    fn a_renewed_lease_is_one_grant_not_two() {
        struct Recorder(Student, Vec<Request>);
        impl Subject for Recorder {
            fn call(&mut self, request: &Request) -> Result<Reply, ProtocolError> {
                self.1.push(request.clone());
                self.0.call(request)
            }
        }
        let script = script(vec![
            acquire("file", "client-1"),
            Step::Advance(10.0),
            acquire("file", "client-2"),
            Step::Renew {
                name: "file",
                client: "client-2",
                token: TokenOf::Own,
            },
            Step::Write {
                key: "file",
                value: "a",
                token: TokenOf::Previous,
            },
            Step::ToExpiry { offset: 0.0 },
        ]);
        let mut recorder = Recorder(Student::new(Mistake::Correct), Vec::new());
        assert_eq!(play(&script, &mut recorder, &mut 0).unwrap(), None);
        let sent: Vec<String> = recorder.1.iter().map(Request::call).collect();
        assert_eq!(
            sent,
            [
                "new LockService(clock, 10.0, 1)",
                "acquire(file, client-1)",
                "clock = 10.0",
                "acquire(file, client-2)",
                "renew(file, client-2, 2)",
                "write(file, \"a\", 1)",
                "clock = 20.0",
            ]
        );
    }

    #[test]
    fn times_stay_on_the_millisecond_grid() {
        assert_eq!(round_ms(0.1 + 0.2), 0.3);
        assert_eq!(round_ms(12.0004), 12.0);
        assert_eq!(round_ms(12.0006), 12.001);
        assert_eq!(round_ms(-0.0015), -0.002);
        assert_eq!(round_ms(2.5), 2.5);
    }

    #[test]
    fn names_map_to_their_static_selves() {
        for name in ["file", "log", "other", "client-1", "client-2", "client-3"] {
            assert_eq!(leak(name), name);
        }
        assert_eq!(leak("unknown"), "file");
    }

    #[test]
    fn the_judge_says_what_the_seed_expected() {
        let acquire = Request::Acquire {
            name: "file".into(),
            client_id: "client-1".into(),
        };
        let renew = Request::Renew {
            name: "file".into(),
            client_id: "client-1".into(),
            token: 1,
        };
        let write = Request::Write {
            key: "file".into(),
            value: "a".into(),
            token: 1,
        };
        let refused = Reply::Refused("token 1 is older than token 2".into());
        let j = |request: &Request, expected: &Reply, got: &Reply| {
            judge(None, request, expected, got, true)
        };
        assert_eq!(j(&acquire, &lease(1, 10.0), &lease(1, 10.0)), None);
        assert_eq!(
            j(&acquire, &lease(2, 10.0), &lease(3, 10.0)).as_deref(),
            Some(
                "the seed gives token 2: one counter for the whole service, the next integer \
                 after the last grant"
            )
        );
        assert_eq!(
            j(&renew, &lease(2, 10.0), &lease(3, 10.0)).as_deref(),
            Some("the seed gives token 2: renew keeps the lease's token")
        );
        assert_eq!(
            j(&acquire, &lease(1, 10.0), &lease(1, 30.0)).as_deref(),
            Some("the lease should expire at 10.0 (now + lease_seconds)")
        );
        // Expiry is judged only when the script asks, and to within a nanosecond.
        assert_eq!(
            judge(None, &acquire, &lease(1, 10.0), &lease(1, 30.0), false),
            None
        );
        assert_eq!(j(&acquire, &lease(1, 0.0), &lease(1, 1e-9)), None);
        assert!(j(&acquire, &lease(1, 0.0), &lease(1, 2e-9)).is_some());
        assert!(j(&acquire, &lease(1, 10.0), &lease(1, 9.999_999)).is_some());
        let no_expiry = Reply::Lease(Some(LeaseReply {
            token: 1,
            expires_at: None,
        }));
        assert_eq!(j(&acquire, &lease(1, 10.0), &no_expiry), None);
        assert_eq!(
            j(&acquire, &lease(1, 10.0), &Reply::Lease(None)).as_deref(),
            Some("the seed grants lease token 1 (expires 10.0)")
        );
        assert_eq!(
            j(&acquire, &lease(1, 10.0), &Reply::Refused("busy".into())).as_deref(),
            Some("the seed grants lease token 1 (expires 10.0)")
        );
        assert_eq!(j(&acquire, &Reply::Lease(None), &Reply::Lease(None)), None);
        assert_eq!(j(&renew, &refused, &Reply::Refused("x".into())), None);
        assert_eq!(j(&renew, &refused, &Reply::Lease(None)), None);
        assert_eq!(
            j(&acquire, &Reply::Lease(None), &lease(1, 10.0)).as_deref(),
            Some("the seed refuses it")
        );
        assert_eq!(
            j(&renew, &refused, &lease(1, 10.0)).as_deref(),
            Some("the seed refuses it (token 1 is older than token 2)")
        );
        // Writes and releases: accepted or refused, whatever the message.
        assert_eq!(j(&write, &Reply::Done, &Reply::Done), None);
        assert_eq!(j(&write, &refused, &Reply::Refused("stale".into())), None);
        assert_eq!(
            j(&write, &Reply::Done, &Reply::Refused("stale".into())).as_deref(),
            Some("the seed accepts it")
        );
        assert_eq!(
            j(&write, &refused, &Reply::Done).as_deref(),
            Some("the seed refuses it (token 1 is older than token 2)")
        );
        // Releasing someone else's lock: any reply, the next holder() judges it.
        let someone_elses = Step::Release {
            name: "file",
            client: "client-3",
            token: TokenOf::Holders,
        };
        let release = Request::Release {
            name: "file".into(),
            client_id: "client-3".into(),
            token: 2,
        };
        assert_eq!(
            judge(Some(&someone_elses), &release, &refused, &Reply::Done, true),
            None
        );
        let own = Step::Release {
            name: "file",
            client: "client-3",
            token: TokenOf::Own,
        };
        assert_eq!(
            judge(Some(&own), &release, &refused, &Reply::Done, true).as_deref(),
            Some("the seed refuses it (token 1 is older than token 2)")
        );
        // Observers must say exactly what the seed says.
        let read = Request::Read { key: "file".into() };
        let value = Reply::Value(Some("a".into()));
        assert_eq!(j(&read, &value, &value), None);
        assert_eq!(
            j(&read, &value, &Reply::Value(None)).as_deref(),
            Some("the seed gives \"a\"")
        );
        // `new` and the clock are simply done; a method not written yet is the next to write.
        let clock = Request::Clock { now: 1.0 };
        assert_eq!(j(&clock, &Reply::Done, &Reply::Done), None);
        assert_eq!(
            j(&clock, &Reply::Done, &Reply::Refused("no".into())).as_deref(),
            Some("it should simply be done")
        );
        assert_eq!(
            j(&write, &Reply::Done, &Reply::NotImplemented("write".into())).as_deref(),
            Some("the seed's rules need it: write it next")
        );
        assert_eq!(
            j(
                &acquire,
                &Reply::Lease(None),
                &Reply::NotImplemented("acquire".into())
            )
            .as_deref(),
            Some("the seed's rules need it: write it next")
        );
        assert_eq!(j(&Request::Hello, &Reply::Done, &Reply::Done), None);
    }

    #[test]
    fn the_reference_answers_as_the_library_decides() {
        let mut reference = Reference::default();
        let new = |lease_seconds, first_token| Request::New {
            lease_seconds,
            first_token,
        };
        assert_eq!(reference.answer(&new(Some(2.5), Some(7))), Reply::Done);
        let acquire = Request::Acquire {
            name: "file".into(),
            client_id: "client-1".into(),
        };
        assert_eq!(reference.answer(&acquire), lease(7, 2.5));
        assert_eq!(reference.answer(&acquire), Reply::Lease(None));
        assert_eq!(reference.answer(&Request::Clock { now: 1.0 }), Reply::Done);
        assert_eq!(
            reference.call(&Request::Renew {
                name: "file".into(),
                client_id: "client-1".into(),
                token: 7
            }),
            Ok(lease(7, 3.5))
        );
        assert_eq!(
            reference.answer(&Request::Holder {
                name: "file".into()
            }),
            Reply::Holder(Some("client-1".into()))
        );
        assert!(matches!(
            reference.answer(&Request::Release {
                name: "file".into(),
                client_id: "client-2".into(),
                token: 7
            }),
            Reply::Refused(_)
        ));
        assert_eq!(
            reference.answer(&Request::Release {
                name: "file".into(),
                client_id: "client-1".into(),
                token: 7
            }),
            Reply::Done
        );
        let write = |value: &str, token| Request::Write {
            key: "k".into(),
            value: value.into(),
            token,
        };
        assert_eq!(reference.answer(&write("a", 5)), Reply::Done);
        assert_eq!(
            reference.answer(&write("b", 4)),
            Reply::Refused(
                "token 4 is older than token 5, the highest key 'k' has accepted".into()
            )
        );
        assert_eq!(
            reference.answer(&Request::Read { key: "k".into() }),
            Reply::Value(Some("a".into()))
        );
        assert_eq!(
            reference.answer(&Request::HighestToken { key: "k".into() }),
            Reply::Token(Some(5))
        );
        // `new` starts over: defaults, a fresh clock and an empty storage.
        assert_eq!(reference.answer(&new(None, None)), Reply::Done);
        assert_eq!(reference.answer(&acquire), lease(1, 10.0));
        assert_eq!(
            reference.answer(&Request::Read { key: "k".into() }),
            Reply::Value(None)
        );
        assert!(matches!(
            reference.answer(&new(Some(0.0), None)),
            Reply::Refused(m) if m.contains("lease")
        ));
        assert!(matches!(
            reference.answer(&Request::Hello),
            Reply::Hello { language } if language == "fencing-lab's library"
        ));
    }
}
