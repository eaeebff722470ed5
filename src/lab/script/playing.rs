//! Scripts played on the program, all requests ahead of their replies, and each reply judged
//! against the seed's decision; a repeated script's second pass against its own first.

use super::planning::plan;
use super::{Call, Mismatch, Played, Scope, Script, Subject};
use crate::lab::judge::{judge, Context, Divergence, Kind, Profile, Seen};
use crate::lab::seed::Rule;
use crate::lab::wire::ProtocolError;
use crate::lab::wire::{LeaseReply, Reply, Request};

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
            now: shown_at(call),
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

/// The time a played call is shown at: a clock move at the time it sets, a `new` at 0 (its
/// clock starts there), any other call at the seed's time for it. Both passes of a repeated
/// script and a judged script read it, so their transcripts agree.
fn shown_at(call: &Call) -> f64 {
    match call.request {
        Request::Clock { now } => now,
        Request::New { .. } => 0.0,
        _ => call.decision.now,
    }
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
        transcript.push(Played {
            now: shown_at(call),
            request: call.request.clone(),
            got,
        });
        let Some(divergence) = divergence else {
            continue;
        };
        // A check of one rule reads past only what cannot change what it judges: a lease's own
        // value of another rule (its expiry), where the check is not about time. An observer's
        // answer is what a check looks at, and a grant or verdict changes what follows. A
        // difference float rounding decides (`Unclear`, never a `Value`) ends the script in
        // every scope: it is judged up to this call, and the caller gives it no verdict.
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
