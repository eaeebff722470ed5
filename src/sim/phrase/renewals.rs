//! A holder keeps or gives back its lease: renewals and releases, done or refused.

use super::{only_main, Labels, Tone};
use crate::sim::event::{Event, EventKind, Refusal};
use crate::sim::time::fmt_service_seconds;
use crate::sim::vocab::Vocab;
use crate::LeaseError;

pub(super) fn line(event: &Event, vocab: &Vocab) -> String {
    let word = vocab.token;
    match &event.kind {
        EventKind::Renew {
            client,
            token,
            expires_at,
            ..
        } => format!(
            "{client} renews {word} {token}: lease until {} s",
            fmt_service_seconds(*expires_at)
        ),
        EventKind::RenewRefused {
            client,
            token,
            reason,
            ..
        } => format!("{client} cannot renew {word} {token}: {reason}"),
        EventKind::Release {
            client,
            lock,
            token,
        } => format!("{client} releases {} ({word} {token})", vocab.lock(*lock)),
        EventKind::ReleaseRefused {
            client,
            token,
            reason,
            ..
        } => format!("{client} cannot release {word} {token}: {reason}"),
        _ => unreachable!("not a renewal or release"),
    }
}

pub(super) fn caption(event: &Event, vocab: &Vocab) -> (u8, String, Tone) {
    let word = vocab.token;
    match &event.kind {
        EventKind::Renew {
            client,
            token,
            expires_at,
            ..
        } => (
            8,
            format!(
                "{} renews: the same {word} {token}, lease until {} s.",
                client.title(),
                fmt_service_seconds(*expires_at)
            ),
            Tone::Plain,
        ),
        EventKind::RenewRefused {
            client,
            token,
            reason,
            ..
        } => (
            5,
            format!(
                "{} tries to renew {word} {token}: refused, {}. Only now does it learn its lease is gone.",
                client.title(),
                refusal_phrase(reason)
            ),
            Tone::Plain,
        ),
        EventKind::Release {
            client,
            lock: l,
            token,
        } => (
            8,
            format!(
                "{} releases {} ({word} {token}).",
                client.title(),
                vocab.lock(*l)
            ),
            Tone::Plain,
        ),
        EventKind::ReleaseRefused {
            client,
            token,
            reason,
            ..
        } => (
            5,
            format!(
                "{} tries to release with {word} {token}: refused, {}. The late release frees nothing.",
                client.title(),
                refusal_phrase(reason)
            ),
            Tone::Plain,
        ),
        _ => unreachable!("not a renewal or release"),
    }
}

/// A refusal's reason as a short phrase for a caption.
fn refusal_phrase(reason: &Refusal) -> String {
    match reason {
        Refusal::Lease(LeaseError::Expired { expired_at, .. }) => format!(
            "its lease expired at {} s, even though nobody else took the lock",
            fmt_service_seconds(*expired_at)
        ),
        Refusal::Lease(LeaseError::HeldByOther { holder, .. }) => {
            format!("{holder} holds the lock")
        }
        Refusal::Lease(LeaseError::WrongToken { current, .. }) => {
            format!("the live lease has token {current}")
        }
        Refusal::Lease(LeaseError::NotHeld { .. }) => "it holds no lease on the lock".into(),
        Refusal::Lease(LeaseError::ClockNotFinite { .. }) => {
            "the lock service's clock was not readable".into()
        }
        Refusal::Said(message) => format!("the implementation said \"{message}\""),
    }
}

pub(super) fn labels(event: &Event) -> Labels {
    // One phrase a kind, shorter and shorter: the legend says what the shortest stand for.
    match &event.kind {
        EventKind::Renew { token, .. } => only_main(&[
            format!("renew token {token}: ok"),
            format!("renew t{token}: ok"),
            "+".into(),
        ]),
        EventKind::RenewRefused { token, .. } => only_main(&[
            format!("renew token {token}: refused"),
            format!("renew t{token}: refused"),
            "refused".into(),
        ]),
        EventKind::Release { token, .. } => only_main(&[
            format!("release token {token}"),
            format!("release t{token}"),
            "release".into(),
        ]),
        EventKind::ReleaseRefused { token, .. } => only_main(&[
            format!("release token {token}: refused"),
            format!("release t{token}: refused"),
            "refused".into(),
        ]),
        _ => unreachable!("not a renewal or release"),
    }
}
