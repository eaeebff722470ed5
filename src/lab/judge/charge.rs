//! Which rule a disagreement is charged to when more than the call's own rule could explain it:
//! whether a lease is live, where its end came from, why a grant's token differs.

use super::{lock, Context};
use crate::lab::reference::{Decision, GrantFacts, LockState};
use crate::lab::seed::Rule;

/// The call at which a question of liveness came up.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Op {
    Acquire,
    Renew,
    Release,
    Holder,
}

/// The rule behind a disagreement on whether the lock's latest lease is live, most specific
/// first: the clock, an expiry the student reported otherwise, the exact boundary, a release the
/// seed refused, where the lease's end came from, and only then the call's own rule.
pub(super) fn liveness_rule(op: Op, decision: &Decision, cx: &Context) -> Rule {
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
pub(super) fn live_by_renew(latest: &GrantFacts, decision: &Decision) -> bool {
    latest.before_renew.is_some_and(|end| decision.now >= end)
}

/// Whether a lease length that is wrong under the constructor's default is the default's fault.
pub(super) fn defaults_apply(decision: &Decision, cx: &Context) -> bool {
    decision.settings.lease_defaulted && cx.profile.lease_honoured
}

/// The rule that set a lease's end: the renew that extended it, the default lease length, or the
/// length given.
fn lease_end_rule(latest: &GrantFacts, decision: &Decision, cx: &Context) -> Rule {
    let name = &lock(decision).name;
    let reported = cx.seen.expiry.get(name).copied().flatten();
    let own_length = match (latest.renewed_at, reported) {
        (Some(at), Some(e)) => cx.seen.by_own_length(name, at, e),
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
/// The rule behind a grant with another token than the seed's.
pub(super) fn token_rule(decision: &Decision, have: u64, want: u64, cx: &Context) -> Rule {
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
                // No count of 0 divides it: `used` is at least 1.
                .find(|(n, _)| used.is_multiple_of(*n))
        })
        .or_else(|| suspects.iter().find(|(n, _)| *n > 0))
        .map_or(Rule::OneCounter, |(_, rule)| *rule)
}
