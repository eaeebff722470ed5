//! Why the seed answers as it does, in words: the token it grants, why a lock is free or held,
//! and how to refuse in the student's language.

use super::Context;
use crate::lab::reference::{Decision, LockFacts, LockState};
use crate::lab::wire::{fmt_time, Reply};

pub(super) fn token_reason(decision: &Decision) -> String {
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
pub(super) fn free_because(facts: &LockFacts) -> String {
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

/// Why the seed finds the lock held (asked only where it does: its latest lease is live).
pub(super) fn held_because(facts: &LockFacts) -> String {
    match &facts.latest {
        Some(g) => {
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
pub(super) fn none_hint(got: &Reply, method: &str, cx: &Context) -> Option<String> {
    let Reply::Succeeded { none: Some(word) } = got else {
        return None;
    };
    Some(format!(
        "{method} returned {}, which counts as accepted; to refuse, {}",
        crate::lab::wire::one_line(word),
        refuse_in(cx.language)
    ))
}

/// How to refuse in the student's language.
pub(super) fn refuse_in(language: &str) -> &'static str {
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
