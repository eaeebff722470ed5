//! Captions made from what happened: an event as a sentence in context, why a beat's action did
//! not happen as written, and the state of things when nothing did.

use super::run_view::RunView;
use super::{Lesson, Tone};
use crate::sim::event::{ClientId, Event, EventKind, LockId};
use crate::sim::history::Fate;
use crate::sim::input::InputKind;
use crate::sim::phrase::{caption, Around, Away};
use crate::sim::scenario::{BeatAction, ClientAction};
use crate::sim::time::{fmt_seconds, Ms};

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
            // A scripted crash of a client already down is no second crash: it is down already.
            Fate::Dropped { .. } if matches!(action, ClientAction::Crash { .. }) => Some(format!(
                "{who} is already down after a crash, so this crash changes nothing."
            )),
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

    /// One event as a sentence of the caption, with its priority (lower: more important): the
    /// words are the phrase table's, told what the run knows around the event at `t`.
    pub(super) fn sentence(
        &self,
        run: RunView<'_>,
        event: &Event,
        t: Ms,
    ) -> Option<(u8, String, Tone)> {
        let away = |client: ClientId| {
            if run.frozen_at(client, t).is_some() {
                Some(Away::Frozen)
            } else if run.down_at(client, t).is_some() {
                Some(Away::Down)
            } else {
                None
            }
        };
        let injected = match event.kind {
            EventKind::Pause { client, .. } => Some(InputKind::Pause { client }),
            EventKind::Crash { client, .. } => Some(InputKind::Crash { client }),
            EventKind::Send { client, .. } => Some(InputKind::Delay { client }),
            _ => None,
        };
        let holder = match event.kind {
            EventKind::AcquireRefused { holder, .. } => holder,
            _ => None,
        };
        let around = Around {
            injected: injected.is_some_and(|kind| run.injected(event.t, kind)),
            client: event.kind.client().and_then(away),
            holder: holder.and_then(away),
        };
        caption(event, &self.vocab, around)
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
