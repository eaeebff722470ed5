//! From a difference found on a path to its verdict: confirmed a grid step later, shrunk, and
//! charged to its rule or left not judged because another rule broke first.

use super::outcome::{Failure, Verdict};
use super::{Start, UNSTABLE};
use crate::lab::explore::{self, Shrunk};
use crate::lab::judge::Profile;
use crate::lab::rules;
use crate::lab::script::{play, Mismatch, Scope, Script, Subject};
use crate::lab::seed::Rule;
use crate::lab::wire::ProtocolError;
use crate::sim::text::counted;

/// One path of a rule's check: passed, failed on this rule, or not judged because another rule
/// broke first (confirmed on its minimal case).
pub(super) fn path_verdict(
    rule: Rule,
    script: &Script,
    subject: &mut dyn Subject,
    profile: Profile,
    replay: &str,
) -> Result<Verdict, ProtocolError> {
    let scope = Scope::Only(rule);
    let Some(found) = play(script, scope, subject, profile)? else {
        return Ok(Verdict::Passed);
    };
    if let Some(unwritten) = unwritten_elsewhere(rule, &found) {
        return Ok(unwritten);
    }
    let fails = |m: &Mismatch| charged_to(rule, m);
    let (script, found) = confirm(script.clone(), found, subject, profile)?;
    let any = |_: &Mismatch| true;
    let keep: &dyn Fn(&Mismatch) -> bool = if fails(&found) { &fails } else { &any };
    Ok(
        match explore::shrink(script, found, scope, keep, subject, profile)? {
            Shrunk::Minimal(s, m) => {
                let (s, m) = confirm(s, m, subject, profile)?;
                judged(rule, &m, &s, replay)
            }
            Shrunk::Unstable(s, m) if rule == Rule::NewStartsOver => {
                let mut f = failure(&m, &s, replay.to_owned());
                f.note = Some(UNSTABLE.into());
                Verdict::Failed(f)
            }
            Shrunk::Unstable(..) => Verdict::NotJudged {
                rule: Some(unstable_rule(profile)),
                because: UNSTABLE.into(),
            },
            Shrunk::Stopped(s, m) => judged(rule, &m, &s, replay),
        },
    )
}

/// One path of a program that keeps state across `new`, played on a fresh program and judged
/// as first played: unshrunk, since every replay would carry the calls before it. A difference
/// at the expiry boundary is confirmed a grid step later like any other, on a fresh program too.
pub(super) fn fresh_path_verdict(
    rule: Rule,
    script: &Script,
    start: &mut Start<'_>,
    calls: &mut u64,
    profile: Profile,
    replay: &str,
) -> Result<Verdict, ProtocolError> {
    let found = on_fresh(start, calls, |program| {
        play(script, Scope::Only(rule), program, profile)
    })?;
    let Some(found) = found else {
        return Ok(Verdict::Passed);
    };
    let (script, m) = if needs_confirming(&found) {
        on_fresh(start, calls, |program| {
            confirm(script.clone(), found, program, profile)
        })?
    } else {
        (script.clone(), found)
    };
    Ok(judged(rule, &m, &script, replay))
}

/// Whether a difference on `rule`'s path is charged to that rule: it breaks the rule, or it is
/// a method still to write that the rule is about.
fn charged_to(rule: Rule, m: &Mismatch) -> bool {
    m.rule() == rule || unwritten(m).is_some_and(|op| rule.about().contains(&op))
}

/// The `op` of the method still to write that the difference is, if it is one.
pub(super) fn unwritten(m: &Mismatch) -> Option<&'static str> {
    m.divergence.not_implemented.as_ref()?;
    m.transcript.last().map(|p| p.request.op())
}

/// A path that stops at a method still to write which `rule` is not about: not judged on this
/// path, which other paths of the aspect may show without it (`None`: any other difference).
pub(super) fn unwritten_elsewhere(rule: Rule, m: &Mismatch) -> Option<Verdict> {
    unwritten(m)
        .filter(|op| !rule.about().contains(op))
        .map(|_| Verdict::NotJudged {
            rule: None,
            because: needs_unwritten(m),
        })
}

/// "step 5, release(file, client-1, 1): needs LockService.release, not written yet".
pub(super) fn needs_unwritten(m: &Mismatch) -> String {
    let method = m.divergence.not_implemented.as_deref().unwrap_or_default();
    format!(
        "{}: needs {}, not written yet",
        at_step(m),
        crate::lab::wire::one_line(method)
    )
}

/// The verdict on `rule`'s path of a difference as it will be shown (`script` its case): the
/// rule's failure where it is charged to it, else not judged, another rule broken first.
fn judged(rule: Rule, m: &Mismatch, script: &Script, replay: &str) -> Verdict {
    if charged_to(rule, m) {
        let mut f = failure(m, script, replay.to_owned());
        f.rule = rule;
        Verdict::Failed(f)
    } else if let Some(unwritten) = unwritten_elsewhere(rule, m) {
        unwritten
    } else {
        Verdict::NotJudged {
            rule: Some(m.rule()),
            because: breaks_first(m),
        }
    }
}

/// `then` on a program started for it, whose calls are counted in `calls`.
fn on_fresh<T>(
    start: &mut Start<'_>,
    calls: &mut u64,
    then: impl FnOnce(&mut dyn Subject) -> Result<T, ProtocolError>,
) -> Result<T, ProtocolError> {
    let mut program = start()?;
    let result = then(program.as_mut());
    *calls += program.answered();
    result
}

/// Whether a difference is one `confirm` plays again a grid step later: one charged to the
/// expiry boundary, after a step of the script.
fn needs_confirming(found: &Mismatch) -> bool {
    found.rule() == Rule::ExpiryBoundary && found.steps_played > 0
}

/// A difference charged to the expiry boundary is played again one grid step (1/8 s) later:
/// if the call still differs there, the boundary was not the cause, and the later case (with its
/// own rule) is the one to show, its times still on the grid.
pub(super) fn confirm(
    script: Script,
    found: Mismatch,
    subject: &mut dyn Subject,
    profile: Profile,
) -> Result<(Script, Mismatch), ProtocolError> {
    if !needs_confirming(&found) {
        return Ok((script, found));
    }
    let mut later = script.clone();
    later.steps.insert(
        found.steps_played - 1,
        crate::lab::script::Step::Advance(rules::GRID),
    );
    // Every rule counts here: a step later the call may differ on another rule's account.
    match play(&later, Scope::All, subject, profile)? {
        Some(m) if m.steps_played == found.steps_played + 1 => Ok((later, m)),
        _ => Ok((script, found)),
    }
}

/// What a rule's check plays.
pub(super) fn scope_of(rule: Rule) -> String {
    let aspects = rules::aspects_of(rule);
    let paths: usize = aspects.iter().map(Vec::len).sum();
    let steps = counted(rules::steps_of(rule) as u64, "step", "steps");
    if paths == 1 {
        steps
    } else {
        format!("{steps} on {paths} paths")
    }
}

/// The rule a program whose answers change between plays is charged to.
pub(super) fn unstable_rule(profile: Profile) -> Rule {
    if profile.clock_ignored {
        Rule::ClockOnly
    } else {
        Rule::NewStartsOver
    }
}

/// "step 3, acquire(file, client-2), breaks lease-live first".
pub(super) fn breaks_first(m: &Mismatch) -> String {
    format!("{}, breaks {} first", at_step(m), m.rule())
}

/// "step 3, acquire(file, client-2)": the step a difference is at, and its call.
fn at_step(m: &Mismatch) -> String {
    let call = m
        .transcript
        .last()
        .map(|p| crate::lab::wire::one_line(&p.request.call()))
        .unwrap_or_default();
    format!("step {}, {call}", m.steps_played.max(1))
}

pub(super) fn failure(m: &Mismatch, script: &Script, replay: String) -> Box<Failure> {
    Box::new(Failure {
        rule: m.rule(),
        transcript: m.lines(),
        expected: m.divergence.expected.clone(),
        hint: m.divergence.hint.clone(),
        note: None,
        replay,
        watch: None,
        chaos_seed: None,
        played: m.transcript.clone(),
        lease_seconds: script.lease_seconds.unwrap_or(crate::DEFAULT_LEASE_SECONDS),
        first_token: script.first_token.unwrap_or(crate::DEFAULT_FIRST_TOKEN),
        not_implemented: m.divergence.not_implemented.clone(),
        rule_words: m.rule().words().into(),
    })
}

/// The note on a case that ends where the program stopped answering, which was not shrunk.
pub(super) const NOT_SHRUNK: &str = "not shrunk: your program stopped answering at the last \
                                     call, and was started again; every smaller case tried \
                                     could wait for it as long again";

pub(super) fn shrunk_note(script: &Script) -> String {
    format!(
        "shrunk: no call can go, and simpler names, clients, tokens, lease and clock moves were \
         tried; lease {}, first token {}",
        script
            .lease_seconds
            .map_or("10.0 s (the default)".into(), |l| format!(
                "{} s",
                crate::lab::wire::fmt_time(l)
            )),
        script
            .first_token
            .map_or("1 (the default)".into(), |t| t.to_string())
    )
}
