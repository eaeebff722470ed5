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
            EventKind::Pause { client, .. } => run.injected(event.t, InputKind::Pause { client }),
            EventKind::Crash { client, .. } => run.injected(event.t, InputKind::Crash { client }),
            // The lecturer's delay holds the client's next write, whenever it comes.
            EventKind::Send { injected, .. } => injected,
            _ => false,
        };
        let holder = match event.kind {
            EventKind::AcquireRefused { holder, .. } => holder,
            _ => None,
        };
        let around = Around {
            injected,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::lesson::tests::played;
    use crate::sim::Input;

    /// crash-restart's script crashes client 2 at 2 s. Crashed by the lecturer at 1.5 s, it is
    /// down already then: the note says that crash changes nothing, not that it never happens.
    #[test]
    fn a_scripted_crash_of_a_client_already_down_is_said_to_change_nothing() {
        let crash = Input {
            at: 1_500,
            kind: InputKind::Crash {
                client: ClientId::ALL[1],
            },
        };
        let session = played("crash-restart", &[crash]);
        let crash = (session.scenario().beats.iter())
            .position(|b| b.at == 2_000)
            .expect("the scripted crash");
        let note = Lesson::of(&session).beat_note(RunView::of(&session), crash, 2_000);
        assert_eq!(
            note.as_deref(),
            Some("Client 2 is already down after a crash, so this crash changes nothing.")
        );
    }

    /// What the caption says of `client`'s first delayed write, played with the lecturer's
    /// delay of that client at `delay_at`.
    fn send_caption(name: &str, client: ClientId, delay_at: Ms) -> String {
        let delay = Input {
            at: delay_at,
            kind: InputKind::Delay { client },
        };
        let session = played(name, &[delay]);
        let run = RunView::of(&session);
        let send = (run.events().iter())
            .find(|e| matches!(e.kind, EventKind::Send { client: c, .. } if c == client))
            .expect("a delayed write");
        let (_, text, _) = (Lesson::of(&session).sentence(run, send, send.t)).expect("a sentence");
        text
    }

    /// The lecturer's delay holds the client's next write, whenever it comes: that write is
    /// said to be the lecturer's doing, and a write the script delays is not, even while the
    /// lecturer's delay waits for that client's next write (it then waits for the one after).
    #[test]
    fn a_write_is_said_to_be_delayed_by_the_lecturer_exactly_when_it_was() {
        // gc-pause: client 2 writes at 12 s; delayed by the lecturer at 11.5 s.
        let said = send_caption("gc-pause", ClientId::ALL[1], 11_500);
        assert!(said.ends_with("(you delayed it)."), "{said}");
        // network-delay: the script delays client 1's write at 2 s, with the lecturer's delay
        // pressed before it or at that instant.
        for delay_at in [1_500, 2_000] {
            let said = send_caption("network-delay", ClientId::ALL[0], delay_at);
            assert!(!said.contains("you delayed"), "{delay_at}: {said}");
        }
    }
}
