//! Where a student's reply and the seed's part ways, and the one rule the difference breaks.
//!
//! The seed's decision comes with the facts it rested on ([`Decision`]); the rule charged is the
//! one those facts make decisive, most specific first: a clock that is not the clock, an expiry
//! at exactly its boundary, an expiry the student reported differently, the default settings, a
//! renew, a release the seed refused, and only then the call's own rule. docs/lab-rules.md says
//! the same for students and teachers.

use std::collections::BTreeMap;

use super::reference::{Decision, GrantFacts, KeyFacts, LockFacts, LockState, Seed};
use super::seed::Rule;
use super::wire::{fmt_time, LeaseReply, Reply, Request};
use crate::LeaseError;

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
    /// student's own grant showed, and that length is not `lease_seconds`: the renew is right,
    /// the lease length is not.
    fn by_own_wrong_length(&self, lock: &str, at: f64, expiry: f64, lease_seconds: f64) -> bool {
        self.length.get(lock).is_some_and(|length| {
            (at + length - expiry).abs() <= 1e-9 && (length - lease_seconds).abs() > 1e-9
        })
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
    let refused = |r: &Reply| is_refusal(r) || matches!(r, Reply::Strange(_));
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
    judge_reply(request, decision, got, cx)
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

fn acquire(
    seed: &Seed,
    caller: &str,
    decision: &Decision,
    got: &Reply,
    cx: &Context,
) -> Option<Divergence> {
    let facts = lock(decision);
    match seed {
        Seed::Granted(want) => match lease_of(got) {
            Some(have) if have.token != want.token => Some(differs(
                token_rule(decision, have.token, want.token, cx),
                Kind::State,
                format!(
                    "the seed gives token {}: {}",
                    want.token,
                    token_reason(decision)
                ),
            )),
            Some(have) => expiry_differs(have, want.expires_at, false, decision, cx)
                .or_else(|| identity_differs(have, want, true, Rule::LeaseLive)),
            None => Some(differs(
                liveness_rule(Op::Acquire, decision, cx),
                Kind::State,
                format!(
                    "the seed grants lease token {} (expires {}): {}",
                    want.token,
                    fmt_time(want.expires_at),
                    free_because(facts)
                ),
            )),
        },
        _ if is_refusal(got) => None,
        _ => {
            let latest = facts.latest.as_ref();
            // The holder's own acquire, of a lease that is live without a renew's help: a grant
            // to its holder (a lease live only by a renew is the renew's to keep).
            let own = facts.state == LockState::Live
                && latest.is_some_and(|g| g.client == caller && !live_by_renew(g, decision));
            // A release the seed refused, of this live lease, is the likelier cause of a lock the
            // student finds free than a grant to its own holder.
            let rule = if own && !facts.refused_release {
                Rule::HolderAcquireNone
            } else {
                liveness_rule(Op::Acquire, decision, cx)
            };
            let why = match latest {
                Some(g) if own && !facts.refused_release => format!(
                    "{} itself holds the live lease token {} until {}: to keep it, renew",
                    g.client,
                    g.token,
                    fmt_time(g.expires_at)
                ),
                _ => held_because(facts),
            };
            Some(differs(
                rule,
                Kind::State,
                format!("the seed returns none: {why}"),
            ))
        }
    }
}

fn renew(seed: &Seed, decision: &Decision, got: &Reply, cx: &Context) -> Option<Divergence> {
    let facts = lock(decision);
    match seed {
        Seed::Renewed(want) => match lease_of(got) {
            Some(have) if have.token != want.token => Some(differs(
                Rule::RenewKeepsToken,
                Kind::State,
                format!(
                    "the seed gives token {}: renew keeps the lease's token",
                    want.token
                ),
            )),
            Some(have) => expiry_differs(have, want.expires_at, true, decision, cx)
                .or_else(|| identity_differs(have, want, false, Rule::RenewKeepsToken)),
            None => Some(differs(
                liveness_rule(Op::Renew, decision, cx),
                Kind::State,
                format!(
                    "the seed renews it to {}: {}",
                    fmt_time(want.expires_at),
                    held_because(facts)
                ),
            )),
        },
        Seed::Refused(error) if !is_refusal(got) => {
            let rule = match error {
                LeaseError::Expired { .. } => liveness_rule(Op::Renew, decision, cx),
                _ if facts.state == LockState::Released => Rule::ReleaseFrees,
                _ => Rule::LateRenew,
            };
            Some(differs(
                rule,
                Kind::State,
                format!("the seed refuses it: {error}"),
            ))
        }
        _ => None,
    }
}

fn release(seed: &Seed, decision: &Decision, got: &Reply, cx: &Context) -> Option<Divergence> {
    let facts = lock(decision);
    match seed {
        Seed::Released if is_refusal(got) => Some(differs(
            liveness_rule(Op::Release, decision, cx),
            Kind::State,
            format!("the seed releases it: {}", held_because(facts)),
        )),
        // The seed says an expired lease can't be released. Of any other refused release it says
        // only that it must not free the lock, which the next holder() or acquire shows.
        Seed::Refused(error @ LeaseError::Expired { .. }) if !is_refusal(got) => {
            let mut divergence = differs(
                liveness_rule(Op::Release, decision, cx),
                Kind::State,
                format!("the seed refuses it: {error}"),
            );
            divergence.hint = none_hint(got, "release", cx);
            Some(divergence)
        }
        _ => None,
    }
}

fn holder(
    want: &Option<String>,
    decision: &Decision,
    got: &Reply,
    cx: &Context,
) -> Option<Divergence> {
    let facts = lock(decision);
    let have = match got {
        Reply::Holder(h) => Some(h),
        _ => None,
    };
    if have == Some(want) {
        return None;
    }
    // The seed and the student disagree on whether the lock is held: a question of liveness.
    let on_liveness = have.is_some_and(|h| h.is_some() != want.is_some());
    let rule = if on_liveness {
        liveness_rule(Op::Holder, decision, cx)
    } else {
        Rule::Holder
    };
    let why = if want.is_some() {
        held_because(facts)
    } else {
        free_because(facts)
    };
    Some(differs(
        rule,
        Kind::Observed,
        format!("the seed gives {}: {why}", decision.reply.describe()),
    ))
}

fn write(
    accepted: bool,
    token: u64,
    decision: &Decision,
    got: &Reply,
    cx: &Context,
) -> Option<Divergence> {
    let facts = key(decision);
    let refused = is_refusal(got) || matches!(got, Reply::Strange(_));
    if accepted != refused {
        return None;
    }
    let k = &facts.key;
    let (rule, expected) = if accepted {
        let below_another = facts.others_highest().is_some_and(|m| token < m);
        let rule = match facts.highest {
            // Refused an equal token while another key holds a higher one: the experiment tells
            // whether this storage refuses equal tokens on their own.
            Some(h) if h == token && below_another && !cx.profile.equal_refused_alone => {
                Rule::PerKey
            }
            Some(h) if h == token => Rule::WriteEqualToken,
            _ if below_another => Rule::PerKey,
            _ => Rule::WriteAccepts,
        };
        let because = match facts.highest {
            None => format!("'{k}' was never written"),
            Some(h) => format!("token {token} >= {h}, the highest '{k}' has accepted"),
        };
        (rule, format!("the seed accepts it: {because}"))
    } else {
        let rule = if facts.rejected_since_accept {
            Rule::RejectedChangesNothing
        } else if cx.profile.highest_not_kept {
            // The experiment saw an accepted write leave the key's highest token unset: the
            // stale write gets through because nothing was kept to compare it with.
            Rule::WriteAccepts
        } else {
            Rule::WriteStaleRejected
        };
        let highest = facts.highest.unwrap_or_default();
        let because = format!("token {token} < {highest}, the highest '{k}' has accepted");
        (rule, format!("the seed refuses it: {because}"))
    };
    let mut divergence = differs(rule, Kind::State, expected);
    divergence.hint = none_hint(got, "write", cx);
    Some(divergence)
}

/// `read` and `highest_token`: the answer for a key, compared as text. `zero` is what a
/// student's default gives for a key never written (`""`, `0`); `other` is another key's answer.
fn observed(
    want: Option<String>,
    have: Option<Option<String>>,
    decision: &Decision,
    zero: &str,
    other: impl Fn(&(String, String, u64)) -> String,
) -> Option<Divergence> {
    if have.as_ref() == Some(&want) {
        return None;
    }
    let facts = key(decision);
    let have = have.flatten();
    let another_keys = have
        .as_deref()
        .is_some_and(|h| facts.others.iter().any(|o| other(o) == h));
    let rule = match &want {
        None if have.as_deref() == Some(zero) => Rule::NeverWritten,
        None if another_keys => Rule::PerKey,
        None => Rule::NeverWritten,
        Some(_) if facts.rejected_since_accept => Rule::RejectedChangesNothing,
        Some(_) if another_keys => Rule::PerKey,
        Some(_) => Rule::WriteAccepts,
    };
    let because = if want.is_none() {
        format!(": '{}' was never written", facts.key)
    } else if facts.rejected_since_accept {
        ": a rejected write changes nothing".to_owned()
    } else {
        String::new()
    };
    Some(differs(
        rule,
        Kind::Observed,
        format!("the seed gives {}{because}", decision.reply.describe()),
    ))
}

/// The call at which a question of liveness came up.
#[derive(Clone, Copy, PartialEq)]
enum Op {
    Acquire,
    Renew,
    Release,
    Holder,
}

/// The rule behind a disagreement on whether the lock's latest lease is live, most specific
/// first: the clock, an expiry the student reported otherwise, the exact boundary, a release the
/// seed refused, where the lease's end came from, and only then the call's own rule.
fn liveness_rule(op: Op, decision: &Decision, cx: &Context) -> Rule {
    let facts = lock(decision);
    if cx.profile.clock_ignored {
        return Rule::ClockOnly;
    }
    let own_rule = match (op, facts.state) {
        (Op::Acquire, _) => Rule::LeaseLive,
        (Op::Holder, _) => Rule::Holder,
        (Op::Renew, LockState::Live) => Rule::RenewExtendsFromNow,
        (Op::Renew, _) => Rule::ExpiredNoRenew,
        (Op::Release, LockState::Live) => Rule::ReleaseFrees,
        (Op::Release, _) => Rule::ExpiredNoRelease,
    };
    let Some(latest) = &facts.latest else {
        return own_rule;
    };
    let reported = cx.seen.expiry.get(&facts.name).copied().flatten();
    match facts.state {
        LockState::Never => own_rule,
        LockState::Released => Rule::ReleaseFrees,
        // The student said when this lease ends, and said otherwise than the seed.
        _ if reported.is_some_and(|e| (e - latest.expires_at).abs() > 1e-9) => {
            lease_end_rule(latest, decision, cx)
        }
        LockState::Expired { at_boundary: true } if !cx.profile.leases_never_end => {
            Rule::ExpiryBoundary
        }
        LockState::Live if facts.refused_release => Rule::LateRelease,
        // Live only because the latest renew extended it: a program that finds it free did not
        // keep that renew, whatever the renew answered.
        LockState::Live if live_by_renew(latest, decision) => Rule::RenewExtendsFromNow,
        // The student never said when it ends: where its end came from.
        _ if reported.is_none() && (latest.renewed || defaults_apply(decision, cx)) => {
            lease_end_rule(latest, decision, cx)
        }
        LockState::Live | LockState::Expired { .. } => own_rule,
    }
}

/// Whether the lease is live now only because its latest renew extended it.
fn live_by_renew(latest: &GrantFacts, decision: &Decision) -> bool {
    latest.before_renew.is_some_and(|end| decision.now >= end)
}

/// Whether a lease length that is wrong under the constructor's default is the default's fault.
fn defaults_apply(decision: &Decision, cx: &Context) -> bool {
    decision.settings.lease_defaulted && cx.profile.lease_honoured
}

/// The rule that set a lease's end: the renew that extended it, the default lease length, or the
/// length given.
fn lease_end_rule(latest: &GrantFacts, decision: &Decision, cx: &Context) -> Rule {
    let name = &lock(decision).name;
    let reported = cx.seen.expiry.get(name).copied().flatten();
    let own_length = match (latest.renewed_at, reported) {
        (Some(at), Some(e)) => {
            cx.seen
                .by_own_wrong_length(name, at, e, decision.settings.lease_seconds)
        }
        _ => false,
    };
    if latest.renewed && !own_length {
        Rule::RenewExtendsFromNow
    } else if defaults_apply(decision, cx) {
        Rule::Defaults
    } else {
        Rule::LeaseLive
    }
}

fn expiry_differs(
    have: &LeaseReply,
    want: f64,
    renewing: bool,
    decision: &Decision,
    cx: &Context,
) -> Option<Divergence> {
    let have = have.expires_at?;
    if (have - want).abs() <= 1e-9 {
        return None;
    }
    let settings = decision.settings;
    let name = decision
        .lock
        .as_ref()
        .map(|l| l.name.as_str())
        .unwrap_or_default();
    let own_length = renewing
        && cx
            .seen
            .by_own_wrong_length(name, decision.now, have, settings.lease_seconds);
    let rule = if cx.profile.clock_ignored {
        Rule::ClockOnly
    } else if renewing && !own_length {
        Rule::RenewExtendsFromNow
    } else if defaults_apply(decision, cx) {
        Rule::Defaults
    } else {
        Rule::LeaseLive
    };
    let length = if settings.lease_defaulted {
        format!("the default {} s", fmt_time(settings.lease_seconds))
    } else {
        format!("{} s", fmt_time(settings.lease_seconds))
    };
    Some(differs(
        rule,
        Kind::Value,
        format!(
            "the lease should expire at {} (now {} + {length})",
            fmt_time(want),
            fmt_time(decision.now)
        ),
    ))
}

/// A lease that says it is another lock's or another client's, or (a grant) granted at another
/// time, where its object says so at all. A renew's grant time is not judged: the seed does not
/// say whether a renew keeps it.
fn identity_differs(
    have: &LeaseReply,
    want: &crate::Lease,
    grant: bool,
    rule: Rule,
) -> Option<Divergence> {
    let says = &have.says;
    let text = |v: &serde_json::Value| v.as_str().map_or(v.to_string(), |s| format!("'{s}'"));
    let wrong = if says
        .name
        .as_ref()
        .is_some_and(|n| n.as_str() != Some(&want.name))
    {
        Some(format!("names its lock {}", text(says.name.as_ref()?)))
    } else if says
        .client_id
        .as_ref()
        .is_some_and(|c| c.as_str() != Some(&want.client_id))
    {
        Some(format!(
            "names its client {}",
            text(says.client_id.as_ref()?)
        ))
    } else if grant
        && says.granted_at.as_ref().is_some_and(|g| {
            g.as_f64()
                .is_none_or(|g| (g - want.granted_at).abs() > 1e-9)
        })
    {
        Some(format!(
            "says it was granted at {}",
            text(says.granted_at.as_ref()?)
        ))
    } else {
        None
    };
    wrong.map(|wrong| {
        differs(
            rule,
            Kind::Value,
            format!(
                "the lease {wrong}; the seed's is the lease of '{}' granted to {} at {}",
                want.name,
                want.client_id,
                fmt_time(want.granted_at)
            ),
        )
    })
}

/// The rule behind a grant with another token than the seed's.
fn token_rule(decision: &Decision, have: u64, want: u64, cx: &Context) -> Rule {
    let tokens = decision.tokens;
    if tokens.grants == 0 {
        return if decision.settings.first_defaulted && cx.profile.first_token_honoured {
            Rule::Defaults
        } else {
            Rule::OneCounter
        };
    }
    if have <= want {
        return Rule::OneCounter;
    }
    // Tokens used up since the last grant: charged to a kind of call the experiment saw use
    // one, else to the kind whose count they match (a release that uses one is the counter's
    // fault: only a grant may), the likeliest first where counts agree.
    let used = have - want;
    let count = |n: u32| u64::from(n);
    let profile = cx.profile;
    let suspects = [
        (
            count(tokens.refused_acquires),
            profile.refused_acquire_uses_token,
            Rule::RefusedAcquireNoToken,
        ),
        (
            count(tokens.renews),
            profile.renew_uses_token,
            Rule::RenewKeepsToken,
        ),
        (
            count(tokens.releases),
            profile.release_uses_token,
            Rule::OneCounter,
        ),
    ];
    let seen: Vec<(u64, Rule)> = suspects
        .iter()
        .filter(|(n, seen, _)| *n > 0 && *seen)
        .map(|&(n, _, rule)| (n, rule))
        .collect();
    let suspects: Vec<(u64, Rule)> = if seen.is_empty() {
        suspects.iter().map(|&(n, _, rule)| (n, rule)).collect()
    } else {
        seen
    };
    suspects
        .iter()
        .find(|(n, _)| *n == used)
        .or_else(|| {
            suspects
                .iter()
                .find(|(n, _)| *n > 0 && used.is_multiple_of(*n))
        })
        .or_else(|| suspects.iter().find(|(n, _)| *n > 0))
        .map_or(Rule::OneCounter, |(_, rule)| *rule)
}

fn token_reason(decision: &Decision) -> String {
    let tokens = decision.tokens;
    let settings = decision.settings;
    if tokens.grants == 0 {
        let given = if settings.first_defaulted {
            "the default first_token"
        } else {
            "first_token"
        };
        return format!("the first grant gets {given}, {}", settings.first_token);
    }
    let mut why =
        "one counter for the whole service: the next integer after the last grant".to_owned();
    if tokens.refused_acquires > 0 {
        why.push_str(" (a refused acquire uses no token)");
    } else if tokens.renews > 0 {
        why.push_str(" (a renew keeps its token and uses none)");
    }
    why
}

/// Why the seed finds the lock free.
fn free_because(facts: &LockFacts) -> String {
    match (&facts.latest, facts.state) {
        (Some(g), LockState::Expired { at_boundary }) => format!(
            "{}'s lease token {} ran out at {}{}",
            g.client,
            g.token,
            if at_boundary { "exactly " } else { "" },
            fmt_time(g.expires_at)
        ),
        (Some(g), LockState::Released) => format!("{} released token {}", g.client, g.token),
        _ => format!("'{}' was never granted", facts.name),
    }
}

/// Why the seed finds the lock held.
fn held_because(facts: &LockFacts) -> String {
    match &facts.latest {
        Some(g) if facts.state == LockState::Live => {
            let mut why = format!(
                "{} holds the live lease token {} until {}",
                g.client,
                g.token,
                fmt_time(g.expires_at)
            );
            if facts.refused_release {
                why.push_str(
                    ", and a release with a token the releasing client did not hold then must \
                     not have freed it",
                );
            }
            why
        }
        _ => free_because(facts),
    }
}

/// Where the seed refused and the student's method returned none, which counts as success.
fn none_hint(got: &Reply, method: &str, cx: &Context) -> Option<String> {
    let Reply::Succeeded { none: Some(word) } = got else {
        return None;
    };
    Some(format!(
        "{method} returned {}, which counts as accepted; to refuse, {}",
        super::wire::one_line(word),
        refuse_in(cx.language)
    ))
}

/// How to refuse in the student's language.
pub fn refuse_in(language: &str) -> &'static str {
    let language = language.to_ascii_lowercase();
    if language.starts_with("python") {
        "raise an exception or return False"
    } else if language.starts_with("java ") || language == "java" {
        "throw an exception"
    } else if language.starts_with("rust") {
        "return Err(..)"
    } else if language.starts_with("go") {
        "return an error"
    } else {
        "throw an error or return false"
    }
}

#[cfg(test)]
mod tests;
