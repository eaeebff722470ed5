//! Captions made from what happened: an event as a sentence in context, why a beat's action did
//! not happen as written, and the state of things when nothing did.

use super::run_view::RunView;
use super::{Lesson, Tone};
use crate::sim::event::{outcome_word, ClientId, Event, EventKind, LockId, Refusal};
use crate::sim::history::Fate;
use crate::sim::input::InputKind;
use crate::sim::scenario::{BeatAction, ClientAction};
use crate::sim::text::printable;
use crate::sim::time::{fmt_seconds, fmt_service_seconds, Ms};
use crate::{LeaseError, Outcome};

impl Lesson {
    /// Why a beat's action did not happen as written, if it did not.
    pub(super) fn fate_note(&self, run: RunView<'_>, index: usize, t: Ms) -> Option<String> {
        let beat = &run.scenario().beats[index];
        let BeatAction::Client { client, action } = beat.action.as_ref()? else {
            return None;
        };
        let what = self.action_words(action);
        let who = client.title();
        match run.history.fate_at(index, beat.at, t) {
            Fate::Deferred => Some(match run.frozen_at(*client, t) {
                Some((until, injected)) => format!(
                    "{who} is frozen in a GC pause{}: its {what} waits until it wakes at {} s.",
                    if injected { " you injected" } else { "" },
                    fmt_seconds(until)
                ),
                None => format!("{who} is frozen: its {what} waits until it wakes."),
            }),
            Fate::Dropped { .. } => Some(format!(
                "{who} is down after a crash: its {what} never happens."
            )),
            Fate::NoLease { .. } => Some(format!(
                "{who} believes it holds no lease on {}, so there is no {what}.",
                self.vocab.lock(action_lock(action))
            )),
            _ => None,
        }
    }

    pub(super) fn action_words(&self, action: &ClientAction) -> String {
        match action {
            ClientAction::Acquire { lock, .. } => format!("acquire of {}", self.vocab.lock(*lock)),
            ClientAction::Renew { .. } => "renew".into(),
            ClientAction::Release { .. } => "release".into(),
            ClientAction::Write { key, .. } => format!("write to {key}"),
            ClientAction::Pause { .. } => "pause".into(),
            ClientAction::Crash { .. } => "crash".into(),
        }
    }

    /// One event as a sentence of the caption, with its priority (lower: more important).
    pub(super) fn sentence(
        &self,
        run: RunView<'_>,
        event: &Event,
        t: Ms,
    ) -> Option<(u8, String, Tone)> {
        let word = self.vocab.token;
        let lock = |l: LockId| self.vocab.lock(l).to_owned();
        Some(match &event.kind {
            EventKind::Write {
                client,
                key,
                verdict,
                sent_at,
                lease_live,
                ..
            } => {
                let outcome = verdict.outcome();
                let who = match sent_at {
                    Some(sent) => format!(
                        "{}'s write to {key}, sent at {} s with {word} {}, arrives",
                        client.title(),
                        fmt_seconds(*sent),
                        verdict.token
                    ),
                    None => format!("{} writes {key} with {word} {}", client.title(), verdict.token),
                };
                let lapsed = if verdict.accepted && !verdict.is_stale() && !lease_live {
                    " Its lease had run out, but no newer token had written."
                } else {
                    ""
                };
                let (priority, tone) = match outcome {
                    Outcome::Corrupted => (0, Tone::Corrupted),
                    Outcome::Rejected => (1, Tone::Rejected),
                    Outcome::Accepted => (2, Tone::Plain),
                };
                let tail = if outcome == Outcome::Corrupted {
                    " CORRUPTED DATA!"
                } else {
                    ""
                };
                let word = match outcome {
                    Outcome::Corrupted => "accepted",
                    other => outcome_word(other),
                };
                (
                    priority,
                    format!("{who}: {word}, {}.{tail}{lapsed}", verdict.reason(key)),
                    tone,
                )
            }
            EventKind::Corruption { .. } => return None,
            EventKind::Send {
                client,
                key,
                token,
                deliver_at,
            } => (
                5,
                format!(
                    "{} sends a write to {key} with {word} {token}; the network holds it until {} s{}.",
                    client.title(),
                    fmt_seconds(*deliver_at),
                    if run.injected(event.t, InputKind::Delay { client: *client }) {
                        " (you delayed it)"
                    } else {
                        ""
                    }
                ),
                Tone::Plain,
            ),
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
                        "its own earlier lease is still live (the lock service cannot tell it crashed)".into()
                    }
                    Some(h) if run.frozen_at(*h, t).is_some() => {
                        format!("{h} holds it, even though it is frozen")
                    }
                    Some(h) if run.down_at(*h, t).is_some() => {
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
                let note = if run.frozen_at(*client, t).is_some() {
                    format!(" {} is frozen and cannot know.", client.title())
                } else if run.down_at(*client, t).is_some() {
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
                format!("{} releases {} ({word} {token}).", client.title(), lock(*l)),
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
            EventKind::Pause { client, until } => (
                7,
                format!(
                    "{} freezes in a GC pause{} until {} s.",
                    client.title(),
                    if run.injected(event.t, InputKind::Pause { client: *client }) {
                        " you injected"
                    } else {
                        ""
                    },
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
                    if run.injected(event.t, InputKind::Crash { client: *client }) {
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
            EventKind::Fencing { on: true } => (
                3,
                "Fencing is ON from here: the storage checks tokens again.".into(),
                Tone::Plain,
            ),
            EventKind::Fencing { on: false } => (
                3,
                "Fencing is OFF from here: the storage accepts every write, last writer wins."
                    .into(),
                Tone::Plain,
            ),
            EventKind::Check { check } => (
                3,
                format!(
                    "The storage's check is now {}: {}.",
                    check.name(),
                    check.rule()
                ),
                Tone::Plain,
            ),
            EventKind::Differs {
                call,
                got,
                seed,
                rule,
                ..
            } => (
                0,
                format!(
                    "Your code differs from the seed here: {} -> {}, but {} ({rule}).",
                    printable(call),
                    printable(got),
                    printable(seed)
                ),
                Tone::Rejected,
            ),
            EventKind::ClockJump { by, service_now } => (
                4,
                format!(
                    "The lock service's clock {} {} s (an NTP correction): it now reads {} s.",
                    if *by > 0 { "jumps ahead" } else { "steps back" },
                    fmt_seconds(by.unsigned_abs()),
                    fmt_service_seconds(*service_now)
                ),
                Tone::Plain,
            ),
        })
    }

    /// Who holds each lock and who is frozen or down, as of `t`: for a moment where the
    /// script's sentence does not hold and nothing happened.
    pub(super) fn state_summary(&self, run: RunView<'_>, t: Ms) -> String {
        let mut holders = vec![None; run.scenario().locks.len()];
        for e in run.events().iter().take_while(|e| e.t <= t) {
            match e.kind {
                EventKind::Grant {
                    client,
                    lock,
                    token,
                    ..
                } => holders[lock.index()] = Some((client, token)),
                EventKind::Expire { lock, .. } | EventKind::Release { lock, .. } => {
                    holders[lock.index()] = None
                }
                _ => {}
            }
        }
        let mut parts: Vec<String> = holders
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let lock = self.vocab.lock(LockId(i as u8));
                match h {
                    Some((client, token)) => {
                        format!("{lock} is held by {client} ({} {token})", self.vocab.token)
                    }
                    None => format!("{lock} is free"),
                }
            })
            .collect();
        for client in ClientId::ALL {
            if let Some((until, _)) = run.frozen_at(client, t) {
                parts.push(format!("{client} is frozen until {} s", fmt_seconds(until)));
            } else if let Some(back) = run.down_at(client, t) {
                parts.push(format!("{client} is down until {} s", fmt_seconds(back)));
            }
        }
        // Two sentences: the state is what holds now, not a reason the script did not run.
        format!(
            "In this run nothing happens here as the script had it. Now {}.",
            parts.join(", ")
        )
    }
}

/// The lock a client action is about.
fn action_lock(action: &ClientAction) -> LockId {
    match action {
        ClientAction::Acquire { lock, .. }
        | ClientAction::Renew { lock, .. }
        | ClientAction::Release { lock, .. }
        | ClientAction::Write { lock, .. } => *lock,
        ClientAction::Pause { .. } | ClientAction::Crash { .. } => LockId::FIRST,
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
