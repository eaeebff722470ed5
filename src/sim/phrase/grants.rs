//! A lease begins and ends: a grant, a refused acquire, an expiry.

use super::{only_main, Around, Away, Labels, Tone};
use crate::sim::event::{Event, EventKind, LockId};
use crate::sim::time::fmt_service_seconds;
use crate::sim::vocab::Vocab;

pub(super) fn line(event: &Event, vocab: &Vocab) -> String {
    let word = vocab.token;
    match &event.kind {
        EventKind::Grant {
            client,
            lock,
            token,
            expires_at,
        } => format!(
            "{client} acquires {}: {word} {token}, lease until {} s",
            vocab.lock(*lock),
            fmt_service_seconds(*expires_at)
        ),
        EventKind::AcquireRefused {
            client,
            lock,
            holder,
        } => match holder {
            Some(holder) if holder == client => format!(
                "{client} asks for {}: refused, its own earlier lease is still live",
                vocab.lock(*lock)
            ),
            Some(holder) => format!(
                "{client} asks for {}: refused, {holder} holds it",
                vocab.lock(*lock)
            ),
            None => format!(
                "{client} asks for {}: refused, and no holder is named",
                vocab.lock(*lock)
            ),
        },
        EventKind::Expire {
            client,
            lock,
            token,
        } => format!(
            "{client}'s lease with {word} {token} runs out; {} is free",
            vocab.lock(*lock)
        ),
        _ => unreachable!("not a grant, refused acquire or expiry"),
    }
}

pub(super) fn caption(event: &Event, vocab: &Vocab, around: Around) -> (u8, String, Tone) {
    let word = vocab.token;
    let lock = |l: LockId| vocab.lock(l).to_owned();
    match &event.kind {
        EventKind::Grant {
            client,
            lock: l,
            token,
            expires_at,
        } => (
            4,
            format!(
                "{} takes {} and gets {word} {token}, lease until {} s.",
                client.title(),
                lock(*l),
                fmt_service_seconds(*expires_at)
            ),
            Tone::Plain,
        ),
        EventKind::AcquireRefused {
            client,
            lock: l,
            holder,
        } => {
            let why = match holder {
                Some(h) if h == client => {
                    "its own earlier lease is still live (the lock service cannot tell it crashed)"
                        .into()
                }
                Some(h) if around.holder == Some(Away::Frozen) => {
                    format!("{h} holds it, even though it is frozen")
                }
                Some(h) if around.holder == Some(Away::Down) => {
                    format!("{h} holds it, even though it is down")
                }
                Some(h) => format!("{h} holds it"),
                None => "no holder was named".into(),
            };
            (
                6,
                format!("{} asks for {}: refused, {why}.", client.title(), lock(*l)),
                Tone::Plain,
            )
        }
        EventKind::Expire {
            client,
            lock: l,
            token,
        } => {
            let note = if around.client == Some(Away::Frozen) {
                format!(" {} is frozen and cannot know.", client.title())
            } else if around.client == Some(Away::Down) {
                format!(" {} is down.", client.title())
            } else {
                String::new()
            };
            (
                3,
                format!(
                    "{}'s lease with {word} {token} runs out: {} is free.{note}",
                    client.title(),
                    lock(*l)
                ),
                Tone::Plain,
            )
        }
        _ => unreachable!("not a grant, refused acquire or expiry"),
    }
}

pub(super) fn labels(event: &Event, vocab: &Vocab) -> Labels {
    match &event.kind {
        // Where the system's word is "grant" itself, "grant 2", not "grant, grant 2".
        EventKind::Grant { lock, token, .. } if vocab.token == "grant" => {
            let mut forms = Vec::new();
            if vocab.locks.len() > 1 {
                forms.push(format!("{}: grant {token}", vocab.lock(*lock)));
            }
            forms.extend([format!("grant {token}"), format!("t{token}")]);
            only_main(&forms)
        }
        EventKind::Grant { lock, token, .. } => {
            let mut forms = Vec::new();
            // With several locks, which one was granted matters.
            if vocab.locks.len() > 1 {
                forms.push(format!("grant {}, token {token}", vocab.lock(*lock)));
            }
            forms.extend([
                format!("grant, token {token}"),
                format!("grant t{token}"),
                format!("t{token}"),
            ]);
            only_main(&forms)
        }
        EventKind::AcquireRefused { .. } => {
            only_main(&["acquire: refused".into(), "refused".into()])
        }
        EventKind::Expire { token, .. } => only_main(&[
            format!("token {token} expires"),
            format!("t{token} expires"),
            "expires".into(),
        ]),
        _ => unreachable!("not a grant, refused acquire or expiry"),
    }
}
