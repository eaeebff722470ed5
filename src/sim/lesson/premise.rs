//! Whether a scripted caption's premise holds: the run around its beat compared with the
//! reference run it was written for, and the write a question asks about.

use super::Tone;
use crate::sim::event::{ClientId, Event, EventKind};
use crate::sim::scenario::Beat;
use crate::sim::time::Ms;
use crate::FenceCheck;

/// The latest instant from `from` to `to` (both included) at which something happened.
pub(super) fn latest_instant(events: &[Event], from: Ms, to: Ms) -> Option<Ms> {
    events
        .iter()
        .rev()
        .map(|e| e.t)
        .find(|&t| t >= from && t <= to)
}

/// The write a beat's question is about: the beat client's write at the beat's instant (a write
/// beat), or the first write reaching the storage then (a narration beat).
pub(super) fn first_write_at<'a>(events: &'a [Event], beat: &Beat) -> Option<&'a Event> {
    events
        .iter()
        .find(|e| e.t == beat.at && is_asked_kind(e, beat))
}

/// Whether `event` is of the kind a beat's question asks about: a write reaching the storage
/// (for a write beat, the beat client's own, sent then).
pub(super) fn is_asked_kind(event: &Event, beat: &Beat) -> bool {
    let client = beat.client();
    matches!(&event.kind, EventKind::Write { client: c, sent_at, .. }
        if client.is_none_or(|b| b == *c) && (client.is_none() || sent_at.is_none()))
}

/// The last instant of beat `index`'s window as a caption is judged: the next beat's instant
/// less 1 ms, or, for the last beat, its own instant.
pub(super) fn window_end(beats: &[Beat], index: usize) -> Ms {
    beats
        .get(index + 1)
        .map_or(beats[index].at, |next| next.at - 1)
}

/// What a beat's caption depends on, up to `upto`: the events of its window, and the earlier
/// events that touch the clients involved or the storage. Writes count by what the storage
/// decided (in the window, also whether fencing was on), not by which check decided it: a
/// caption written for the seed's rule holds under any check that decided the same way. Earlier
/// switches of fencing or the check count only through the verdicts they changed.
pub(super) fn signature<'a>(
    events: &'a [Event],
    beat: &Beat,
    upto: Ms,
) -> (Vec<Sig<'a>>, Vec<Sig<'a>>) {
    let window: Vec<&Event> = events
        .iter()
        .filter(|e| e.t >= beat.at && e.t <= upto)
        .collect();
    let mut involved: Vec<ClientId> = beat.client().into_iter().collect();
    for e in &window {
        for c in e.kind.clients() {
            if !involved.contains(&c) {
                involved.push(c);
            }
        }
    }
    let before = events
        .iter()
        .take_while(|e| e.t < beat.at)
        .filter(|e| match e.kind {
            EventKind::Fencing { .. } | EventKind::Check { .. } => false,
            EventKind::Write { .. } | EventKind::Send { .. } | EventKind::Corruption { .. } => true,
            _ => e.kind.client().is_none() || e.kind.clients().any(|c| involved.contains(&c)),
        })
        .map(|e| Sig::of(e, false))
        .collect();
    let window = window.into_iter().map(|e| Sig::of(e, true)).collect();
    (window, before)
}

/// An event as a caption's premise sees it.
#[derive(Debug, PartialEq)]
pub(super) enum Sig<'a> {
    Event(&'a Event),
    Write {
        t: Ms,
        client: ClientId,
        key: &'a str,
        value: &'a str,
        token: u64,
        accepted: bool,
        key_highest: Option<u64>,
        sent_at: Option<Ms>,
        lease_live: bool,
        /// Whether no check judged it (in the window only).
        unchecked: Option<bool>,
    },
}

impl<'a> Sig<'a> {
    fn of(event: &'a Event, in_window: bool) -> Sig<'a> {
        match &event.kind {
            EventKind::Write {
                client,
                key,
                value,
                verdict,
                sent_at,
                lease_live,
            } => Sig::Write {
                t: event.t,
                client: *client,
                key,
                value,
                token: verdict.token,
                accepted: verdict.accepted,
                key_highest: verdict.key_highest,
                sent_at: *sent_at,
                lease_live: *lease_live,
                unchecked: in_window
                    .then_some(verdict.judge == crate::Judge::Check(FenceCheck::Unchecked)),
            },
            _ => Sig::Event(event),
        }
    }
}

/// A scripted caption's tone, from what it says.
pub(super) fn tone_of(text: &str) -> Tone {
    if text.contains("CORRUPTED") {
        Tone::Corrupted
    } else if text.contains("REJECTED") {
        Tone::Rejected
    } else {
        Tone::Plain
    }
}
