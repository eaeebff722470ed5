//! Each call's reply against the seed's: an acquire, renew or release, a holder, a write, a
//! read or highest token, and a lease's own values (its expiry, whose it says it is).

use super::charge::{defaults_apply, live_by_renew, liveness_rule, token_rule, Op};
use super::reasons::{free_because, held_because, none_hint, token_reason};
use super::{differs, is_refusal, key, lease_of, lock, Context, Divergence, Kind};
use crate::lab::reference::{Decision, LockState, Seed};
use crate::lab::seed::Rule;
use crate::lab::wire::{fmt_time, LeaseReply, Reply};
use crate::LeaseError;

pub(super) fn acquire(
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
            // student finds free than a grant to its own holder, and so is a clock not the
            // clock, by which no lease is where the seed has it.
            let own = own && !facts.refused_release && !cx.profile.clock_ignored;
            let rule = if own {
                Rule::HolderAcquireNone
            } else {
                liveness_rule(Op::Acquire, decision, cx)
            };
            let why = match latest {
                Some(g) if own => format!(
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

pub(super) fn renew(
    seed: &Seed,
    decision: &Decision,
    got: &Reply,
    cx: &Context,
) -> Option<Divergence> {
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

pub(super) fn release(
    seed: &Seed,
    decision: &Decision,
    got: &Reply,
    cx: &Context,
) -> Option<Divergence> {
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

pub(super) fn holder(
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

pub(super) fn write(
    accepted: bool,
    token: u64,
    decision: &Decision,
    got: &Reply,
    cx: &Context,
) -> Option<Divergence> {
    let facts = key(decision);
    let refused = is_refusal(got) || got.is_unusable();
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
pub(super) fn observed(
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
    let own_length = renewing && cx.seen.by_own_length(name, decision.now, have);
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
