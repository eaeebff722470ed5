//! Where a student's reply and the seed's part ways, and the one rule the difference breaks.
//!
//! The seed's decision comes with the facts it rested on ([`Decision`]); the rule charged is the
//! one those facts make decisive, most specific first: a clock that is not the clock, an expiry
//! at exactly its boundary, an expiry the student reported differently, the default settings, a
//! renew, a release the seed refused, and only then the call's own rule. docs/lab-rules.md says
//! the same for students and teachers.

use std::collections::BTreeMap;

use super::reference::{Decision, KeyFacts, LockFacts, Seed};
use super::seed::Rule;
use super::wire::{LeaseReply, Reply, Request};

mod calls;
mod charge;
mod reasons;

use calls::{acquire, holder, observed, release, renew, write};

/// What the experiments before the checks found about the student's program.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile {
    /// Its time does not follow the clock it is given.
    pub clock_ignored: bool,
    /// A lease length given to the constructor is the one its leases last, so a wrong expiry
    /// under the default length is the default's fault.
    pub lease_honoured: bool,
    /// A first token given to the constructor is its first grant's, so a wrong first token
    /// under the default is the default's fault.
    pub first_token_honoured: bool,
    /// The storage refuses a write whose token equals its key's highest even with no other key
    /// written: an equal token refused is the equal token's rule, not per-key.
    pub equal_refused_alone: bool,
    /// An accepted write left its key's highest token other than the write's: a stale write
    /// that gets through does so because nothing was kept to compare it with.
    pub highest_not_kept: bool,
    /// A refused acquire, a granted renew, a granted release moved the counter on: seen between
    /// two grants on locks of their own.
    pub refused_acquire_uses_token: bool,
    pub renew_uses_token: bool,
    pub release_uses_token: bool,
    /// A lease long over was still held: where a lease ends exactly is not what decides, so a
    /// disagreement at its exact end is the lease's own rule, not the boundary's. (The checks
    /// confirm a boundary by playing a step later; a lesson cannot, and reads this instead.)
    pub leases_never_end: bool,
}

impl Rule {
    /// Whether a lease's expiry is what the rule is about: its checks must not read past a
    /// differing expiry, as checks about tokens or storage may.
    pub fn is_about_time(self) -> bool {
        matches!(
            self,
            Rule::Defaults
                | Rule::LeaseLive
                | Rule::ExpiryBoundary
                | Rule::RenewExtendsFromNow
                | Rule::ClockOnly
        )
    }
}

impl Default for Profile {
    fn default() -> Self {
        Profile {
            clock_ignored: false,
            lease_honoured: true,
            first_token_honoured: true,
            equal_refused_alone: false,
            highest_not_kept: false,
            refused_acquire_uses_token: false,
            renew_uses_token: false,
            release_uses_token: false,
            leases_never_end: false,
        }
    }
}

/// What the student's replies said so far in one script: the expiry it reported for each lock's
/// latest lease, and the lease length its grants showed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Seen {
    pub expiry: BTreeMap<String, Option<f64>>,
    /// Expiry minus the grant's time, from the student's latest grant of each lock.
    pub length: BTreeMap<String, f64>,
}

impl Seen {
    /// Notes what a reply to `request`, made at `now`, said.
    pub fn note(&mut self, request: &Request, got: &Reply, now: f64) {
        let Reply::Lease(Some(l)) = got else {
            return;
        };
        match request {
            Request::Acquire { name, .. } => {
                self.expiry.insert(name.clone(), l.expires_at);
                match l.expires_at {
                    Some(e) => self.length.insert(name.clone(), e - now),
                    None => self.length.remove(name),
                };
            }
            Request::Renew { name, .. } => {
                self.expiry.insert(name.clone(), l.expires_at);
            }
            _ => {}
        }
    }

    pub fn clear(&mut self) {
        self.expiry.clear();
        self.length.clear();
    }

    /// Whether `expiry`, for a lease of `lock` renewed at `at`, is `at` plus the length the
    /// student's own grant showed: the renew extended from now, as it should. Callers ask only
    /// about an expiry that differs from the seed's, `at` plus the right length, so the student's
    /// length is the wrong one and the fault is the lease length's, not the renew's.
    fn by_own_length(&self, lock: &str, at: f64, expiry: f64) -> bool {
        self.length
            .get(lock)
            .is_some_and(|length| (at + length - expiry).abs() <= 1e-9)
    }
}

/// Everything a judgement reads besides the call itself.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    pub profile: Profile,
    pub seen: &'a Seen,
    /// The student's language, as its adapter named it: for a hint in its own words.
    pub language: &'a str,
}

/// Whether a difference may leave the student's state unlike the seed's from here on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A grant, a refusal or a verdict differs: later calls cannot be compared.
    State,
    /// Only a value a lease reported of itself differs (its expiry, its client).
    Value,
    /// An observer's answer differs (holder, read, highest_token): what a check looks at.
    Observed,
    /// Whether the lease is live differs only as float rounding decides it: at the instant its
    /// end falls, `now - granted_at < lease_seconds` and `now < expires_at` disagree in the last
    /// bit, and a student may write either. Nothing after it can be compared, and nothing is
    /// charged. (Scripts keep to a 1/8 s grid, where this never happens.)
    Unclear,
}

/// One difference between the student's reply and the seed's.
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence {
    /// The rule it breaks.
    pub rule: Rule,
    /// What the seed gives and why, as a clause after "but": "the seed refuses it: ...".
    pub expected: String,
    /// A note in the student's terms, e.g. why their none counted as success.
    pub hint: Option<String>,
    pub kind: Kind,
    /// The method is still the starter's "not implemented yet".
    pub not_implemented: Option<String>,
}

/// `None` when `got` is what the seed allows, else the difference.
pub fn judge(
    request: &Request,
    decision: &Decision,
    got: &Reply,
    cx: &Context,
) -> Option<Divergence> {
    let mut divergence = judge_call(request, decision, got, cx)?;
    if on_liveness(request, decision, got) && rounding_decides(decision) {
        divergence.kind = Kind::Unclear;
    }
    Some(divergence)
}

/// Whether the student and the seed disagree on whether the lock is held (a grant against a
/// refusal, a holder against none), not on a value.
fn on_liveness(request: &Request, decision: &Decision, got: &Reply) -> bool {
    let refused = |r: &Reply| is_refusal(r) || r.is_unusable();
    match request {
        Request::Acquire { .. } | Request::Renew { .. } | Request::Release { .. } => {
            refused(&decision.reply) != refused(got)
        }
        Request::Holder { .. } => match (&decision.reply, got) {
            (Reply::Holder(want), Reply::Holder(have)) => want.is_some() != have.is_some(),
            _ => false,
        },
        _ => false,
    }
}

/// Whether the lock's latest lease ends, at this instant, only as rounding decides: the two
/// ways of asking whether it is live give different answers.
fn rounding_decides(decision: &Decision) -> bool {
    let Some(g) = decision.lock.as_ref().and_then(|l| l.latest.as_ref()) else {
        return false;
    };
    let now = decision.now;
    let start = g.renewed_at.unwrap_or(g.granted_at);
    (now < g.expires_at) != (now - start < decision.settings.lease_seconds)
}

fn judge_call(
    request: &Request,
    decision: &Decision,
    got: &Reply,
    cx: &Context,
) -> Option<Divergence> {
    if let Reply::NotImplemented(method) = got {
        // Charged to the rule a refusal would break here, or a grant where the seed refuses.
        let rule = judge_reply(request, decision, &Reply::Refused(String::new()), cx)
            .or_else(|| judge_reply(request, decision, &Reply::Strange(String::new()), cx))
            .map_or(Rule::Defaults, |d| d.rule);
        return Some(Divergence {
            rule,
            expected: "the seed's rules need it: write it next".into(),
            hint: None,
            kind: Kind::State,
            not_implemented: Some(method.clone()),
        });
    }
    if let Reply::Stopped(_) = got {
        return Some(stopped(request, decision, cx));
    }
    judge_reply(request, decision, got, cx)
}

/// A call that got no answer (the program stopped at it): never the seed's answer, charged to
/// the rule the opposite of the seed's would break, as the seed says why. A grant the seed
/// makes is broken as a refusal would break it; a refusal it makes, as a call that went through.
fn stopped(request: &Request, decision: &Decision, cx: &Context) -> Divergence {
    let through = match request {
        Request::Acquire { .. } | Request::Renew { .. } => {
            let token = match &decision.reply {
                Reply::Lease(Some(l)) => l.token,
                _ => decision.tokens.next.unwrap_or(crate::DEFAULT_FIRST_TOKEN),
            };
            Reply::Lease(Some(LeaseReply::new(token, None)))
        }
        Request::Release { .. } | Request::Write { .. } => Reply::Succeeded { none: None },
        _ => Reply::Strange(String::new()),
    };
    let mut divergence = judge_reply(request, decision, &Reply::Refused(String::new()), cx)
        .or_else(|| judge_reply(request, decision, &through, cx))
        .unwrap_or_else(|| {
            differs(
                Rule::Defaults,
                Kind::State,
                format!("the seed gives {}", decision.reply.describe()),
            )
        });
    divergence.kind = Kind::State;
    divergence.hint = None;
    divergence
}

fn judge_reply(
    request: &Request,
    decision: &Decision,
    got: &Reply,
    cx: &Context,
) -> Option<Divergence> {
    match (request, &decision.seed) {
        (Request::Hello, _) => None,
        (Request::New { .. }, Seed::BadSettings(_)) => None,
        (Request::New { .. } | Request::Clock { .. }, _) => (got != &Reply::Done).then(|| {
            let rule = if matches!(request, Request::Clock { .. }) {
                Rule::ClockOnly
            } else {
                Rule::Defaults
            };
            differs(rule, Kind::State, "it should simply be done".into())
        }),
        (Request::Acquire { client_id, .. }, seed) => acquire(seed, client_id, decision, got, cx),
        (Request::Renew { .. }, seed) => renew(seed, decision, got, cx),
        (Request::Release { .. }, seed) => release(seed, decision, got, cx),
        (Request::Holder { .. }, Seed::Holder(want)) => holder(want, decision, got, cx),
        (Request::Write { .. }, Seed::Wrote { verdict, .. }) => {
            write(verdict.accepted, verdict.token, decision, got, cx)
        }
        (Request::Read { .. }, Seed::Value(want)) => {
            let have = match got {
                Reply::Value(v) => Some(v.clone()),
                _ => None,
            };
            observed(want.clone(), have, decision, "", |k| k.1.clone())
        }
        (Request::HighestToken { .. }, Seed::Token(want)) => {
            let have = match got {
                Reply::Token(t) => Some(t.map(|t| t.to_string())),
                _ => None,
            };
            let want = want.map(|t| t.to_string());
            observed(want, have, decision, "0", |k| k.2.to_string())
        }
        _ => Some(differs(
            Rule::Defaults,
            Kind::State,
            format!("the seed gives {}", decision.reply.describe()),
        )),
    }
}

fn differs(rule: Rule, kind: Kind, expected: String) -> Divergence {
    Divergence {
        rule,
        expected,
        hint: None,
        kind,
        not_implemented: None,
    }
}

fn lock(decision: &Decision) -> &LockFacts {
    decision
        .lock
        .as_ref()
        .expect("a lock call has its lock's facts")
}

fn key(decision: &Decision) -> &KeyFacts {
    decision
        .key
        .as_ref()
        .expect("a storage call has its key's facts")
}

fn is_refusal(reply: &Reply) -> bool {
    matches!(reply, Reply::Refused(_) | Reply::Lease(None))
}

/// The lease a student's acquire or renew returned, if it returned one.
fn lease_of(reply: &Reply) -> Option<&LeaseReply> {
    match reply {
        Reply::Lease(Some(l)) => Some(l),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
