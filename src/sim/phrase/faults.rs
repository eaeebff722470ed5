//! What befalls a client: a GC pause and its wake-up, a crash and its restart, and a write the
//! network holds.

use super::{only_main, Around, Labels, Tone};
use crate::sim::event::{Event, EventKind};
use crate::sim::time::fmt_seconds;
use crate::sim::vocab::Vocab;

pub(super) fn line(event: &Event, vocab: &Vocab) -> String {
    let word = vocab.token;
    match &event.kind {
        EventKind::Pause { client, until } => format!(
            "{client} freezes in a GC pause until {} s",
            fmt_seconds(*until)
        ),
        EventKind::Resume { client } => {
            format!("{client} wakes from its GC pause, unaware that time passed")
        }
        EventKind::Crash { client, restart_at } => format!(
            "{client} crashes and forgets its lease; it restarts at {} s",
            fmt_seconds(*restart_at)
        ),
        EventKind::Restart { client } => {
            format!("{client} restarts; it holds nothing and must acquire again")
        }
        EventKind::Send {
            client,
            key,
            token,
            deliver_at,
            ..
        } => format!(
            "{client} sends a write to {key} with {word} {token}; the network holds it until {} s",
            fmt_seconds(*deliver_at)
        ),
        _ => unreachable!("not a pause, crash or held write"),
    }
}

pub(super) fn caption(event: &Event, vocab: &Vocab, around: Around) -> (u8, String, Tone) {
    let word = vocab.token;
    match &event.kind {
        EventKind::Send {
            client,
            key,
            token,
            deliver_at,
            ..
        } => (
            5,
            format!(
                "{} sends a write to {key} with {word} {token}; the network holds it until {} s{}.",
                client.title(),
                fmt_seconds(*deliver_at),
                if around.injected {
                    " (you delayed it)"
                } else {
                    ""
                }
            ),
            Tone::Plain,
        ),
        EventKind::Pause { client, until } => (
            7,
            format!(
                "{} freezes in a GC pause{} until {} s.",
                client.title(),
                if around.injected { " you injected" } else { "" },
                fmt_seconds(*until)
            ),
            Tone::Plain,
        ),
        EventKind::Resume { client } => (
            7,
            format!(
                "{} wakes from its GC pause; to it, no time has passed.",
                client.title()
            ),
            Tone::Plain,
        ),
        EventKind::Crash { client, restart_at } => (
            6,
            format!(
                "{} crashes{}: it forgets its lease and restarts at {} s.",
                client.title(),
                if around.injected {
                    " (you crashed it)"
                } else {
                    ""
                },
                fmt_seconds(*restart_at)
            ),
            Tone::Plain,
        ),
        EventKind::Restart { client } => (
            8,
            format!(
                "{} restarts holding nothing: it must acquire again.",
                client.title()
            ),
            Tone::Plain,
        ),
        _ => unreachable!("not a pause, crash or held write"),
    }
}

pub(super) fn labels(event: &Event, vocab: &Vocab) -> Labels {
    match &event.kind {
        EventKind::Pause { .. } | EventKind::Crash { .. } => Labels::default(),
        EventKind::Resume { .. } => only_main(&["wakes".into()]),
        EventKind::Restart { .. } => only_main(&["restarts".into()]),
        EventKind::Send { key, token, .. } => only_main(&[
            format!("write {key}, token {token}, held by the network"),
            format!("write {key}, t{token}, delayed"),
            if vocab.keyed {
                format!("{key}, t{token}, delayed")
            } else {
                format!("write t{token}, delayed")
            },
        ]),
        _ => unreachable!("not a pause, crash or held write"),
    }
}
