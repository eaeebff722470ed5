//! The lesson's reading of a run: which sentence is true at a moment, what a question reveals,
//! and what a client believes beside what the lock service knows.
//!
//! A beat's scripted caption is shown only while its premise holds: the run, around the beat,
//! is the run the caption was written for. That is checked against a *reference run* of the
//! script (no lecturer inputs, the built-in library, the caption's own setting): the events of
//! the beat's window, and every earlier event that touches the clients involved, the storage or
//! the settings, must be the same. Otherwise the caption is generated from what really happened
//! (the events and each beat's fate), so the screen never states an outcome the run did not have.

use std::sync::{Arc, OnceLock};

use super::client::Client;
use super::event::{outcome_word, ClientId, Event, EventKind, LockId, Refusal, Vocab};
use super::history::{Fate, History};
use super::input::{Input, InputKind};
use super::scenario::{Beat, BeatAction, ClientAction, Scenario, Variant};
use super::session::Session;
use super::time::{fmt_seconds, fmt_service_seconds, Ms};
use super::world::{Setup, World};
use crate::{FenceCheck, LeaseError, Outcome};

/// How a caption should look: colour and weight follow what it says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tone {
    Plain,
    Rejected,
    Corrupted,
    Question,
}

/// Where a caption came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// Before the first beat.
    BeforeStart,
    /// A beat's sentence, written for this setting; its premise holds.
    Script { beat: usize, variant: Variant },
    /// Made from the run's events at this instant (the script's sentence would not be true, or
    /// the script is over).
    Generated { at: Ms },
    /// A lesson question, waiting for its answer.
    Question { beat: usize },
    /// A question's answer.
    Reveal { beat: usize },
}

/// The sentence the caption box shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caption {
    pub text: String,
    pub tone: Tone,
    pub source: Source,
}

/// A run as the lesson reads it: what fixed it, its record, and the lecturer's inputs.
#[derive(Clone, Copy)]
pub struct RunView<'a> {
    pub setup: &'a Setup,
    pub history: &'a History,
    pub inputs: &'a [Input],
}

impl<'a> RunView<'a> {
    /// The view of a session.
    pub fn of(session: &'a Session) -> RunView<'a> {
        RunView {
            setup: session.setup(),
            history: session.world().history(),
            inputs: session.inputs(),
        }
    }

    fn events(&self) -> &'a [Event] {
        self.history.events()
    }

    fn scenario(&self) -> &'a Scenario {
        &self.setup.scenario
    }

    /// Fencing and the check in force at `t`, from the start settings and the events up to `t`.
    pub fn variant_at(&self, t: Ms) -> Variant {
        let mut fencing = self.setup.fencing;
        let mut check = self.setup.check;
        for e in self.events().iter().take_while(|e| e.t <= t) {
            match e.kind {
                EventKind::Fencing { on } => fencing = on,
                EventKind::Check { check: c } => check = c,
                _ => {}
            }
        }
        Variant::of(fencing, check)
    }

    /// When `client` was last frozen until, as of `t` (if it was frozen at `t`), and whether the
    /// lecturer injected that pause.
    fn frozen_at(&self, client: ClientId, t: Ms) -> Option<(Ms, bool)> {
        let mut frozen = None;
        for e in self.events().iter().take_while(|e| e.t <= t) {
            match e.kind {
                EventKind::Pause { client: c, until } if c == client => {
                    let injected = self
                        .inputs
                        .iter()
                        .any(|i| i.at == e.t && i.kind == InputKind::Pause { client });
                    frozen = Some((until, injected));
                }
                EventKind::Resume { client: c } | EventKind::Crash { client: c, .. }
                    if c == client =>
                {
                    frozen = None
                }
                _ => {}
            }
        }
        frozen.filter(|(until, _)| *until > t)
    }

    /// When `client` comes back, if it was down at `t`.
    fn down_at(&self, client: ClientId, t: Ms) -> Option<Ms> {
        let mut down = None;
        for e in self.events().iter().take_while(|e| e.t <= t) {
            match e.kind {
                EventKind::Crash {
                    client: c,
                    restart_at,
                } if c == client => down = Some(restart_at),
                EventKind::Restart { client: c } if c == client => down = None,
                _ => {}
            }
        }
        down
    }

    fn injected(&self, t: Ms, kind: InputKind) -> bool {
        self.inputs.iter().any(|i| i.at == t && i.kind == kind)
    }
}

/// The lesson of one scenario and seed: its reference runs, computed once.
pub struct Lesson {
    scenario: Arc<Scenario>,
    seed: u64,
    vocab: Vocab,
    references: [OnceLock<Vec<Event>>; 4],
}

impl Lesson {
    /// The lesson of `scenario` with `seed`, naming things with `vocab`.
    pub fn new(scenario: Arc<Scenario>, seed: u64, vocab: Vocab) -> Lesson {
        Lesson {
            scenario,
            seed,
            vocab,
            references: Default::default(),
        }
    }

    /// The lesson of a session's scenario and seed, with plain names.
    pub fn of(session: &Session) -> Lesson {
        let scenario = session.scenario().clone();
        let vocab = Vocab::of(&scenario.locks, session.setup().system);
        Lesson::new(scenario, session.seed(), vocab)
    }

    /// The names it uses.
    pub fn vocab(&self) -> &Vocab {
        &self.vocab
    }

    /// The scenario.
    pub fn scenario(&self) -> &Arc<Scenario> {
        &self.scenario
    }

    /// The run `variant`'s captions are written for: the script alone, on the built-in library.
    pub fn reference(&self, variant: Variant) -> &[Event] {
        let slot = &self.references[Variant::ALL
            .iter()
            .position(|&v| v == variant)
            .unwrap_or_default()];
        slot.get_or_init(|| {
            let setup = Setup::new(self.scenario.clone())
                .seed(self.seed)
                .fencing(variant.fencing())
                .check(variant.check());
            let last_beat = self.scenario.beats.last().map_or(0, |b| b.at);
            let session = Session::played_to(setup, last_beat.max(self.scenario.end));
            session.world().events().to_vec()
        })
    }

    /// The caption at time `t` of a run.
    pub fn caption(&self, run: RunView<'_>, t: Ms) -> Caption {
        let mut caption = self.spoken(self.caption_of(run, t));
        // With `--as`, the lesson's first caption says where that system's token comes from.
        if let (Some(system), Some(0)) = (self.vocab.system, run.scenario().beat_at(t)) {
            let note = if system.has_token {
                format!(
                    "{}: the {} is {}, from {}",
                    system.name, system.word, system.token, system.api
                )
            } else {
                format!(
                    "{} hands out no token: the grant numbers are the lesson's own, and no \
                     storage sees them",
                    system.name
                )
            };
            caption.text = format!("{} ({note}.)", caption.text);
        }
        caption
    }

    /// A caption in the lesson's vocabulary (a real system's word for the token, with `--as`).
    fn spoken(&self, mut caption: Caption) -> Caption {
        caption.text = self.vocab.say_owned(caption.text);
        caption
    }

    fn caption_of(&self, run: RunView<'_>, t: Ms) -> Caption {
        let scenario = run.scenario();
        let beats = &scenario.beats;
        let Some(index) = scenario.beat_at(t) else {
            return Caption {
                text: "The lesson has not begun: nothing has happened yet.".into(),
                tone: Tone::Plain,
                source: Source::BeforeStart,
            };
        };
        let beat = &beats[index];
        let events = run.events();
        let last = index + 1 == beats.len();
        if last {
            // After the script's last instant, captions follow the events.
            if let Some(at) = latest_instant(events, beat.at + 1, t) {
                return self.generated(run, None, at, t);
            }
        }
        let window_end = if last {
            beat.at
        } else {
            beats[index + 1].at - 1
        }
        .min(t);
        let now = run.variant_at(t);
        let mut tried = vec![now];
        if now != Variant::Fenced {
            tried.push(Variant::Fenced);
        }
        for variant in tried {
            let Some(text) = beat.captions.written_for(variant) else {
                continue;
            };
            let reference = self.reference(variant);
            if signature(events, beat, window_end) == signature(reference, beat, window_end) {
                return Caption {
                    text: text.to_owned(),
                    tone: tone_of(text),
                    source: Source::Script {
                        beat: index,
                        variant,
                    },
                };
            }
        }
        let at = latest_instant(events, beat.at, window_end).unwrap_or(beat.at);
        let fate_beat = (at == beat.at).then_some(index);
        self.generated(run, fate_beat, at, t)
    }

    /// The caption made from what happened at instant `at` (and, for `beat`, what became of its
    /// action), as of `t`.
    fn generated(&self, run: RunView<'_>, beat: Option<usize>, at: Ms, t: Ms) -> Caption {
        // (priority, text, tone), in the order things happened: the beat's fate first.
        let mut sentences: Vec<(u8, String, Tone)> = Vec::new();
        if let Some(index) = beat {
            if let Some(note) = self.fate_note(run, index, t) {
                sentences.push((0, note, Tone::Plain));
            }
        }
        let at_instant = run.events().iter().filter(|e| e.t == at);
        sentences.extend(at_instant.filter_map(|event| self.sentence(run, event, t)));
        if sentences.is_empty() {
            return Caption {
                text: self.state_summary(run, t),
                tone: Tone::Plain,
                source: Source::Generated { at },
            };
        }
        let total = sentences.len();
        // The two most important, told in the order they happened.
        let mut told: Vec<usize> = (0..total).collect();
        told.sort_by_key(|&i| sentences[i].0);
        told.truncate(2);
        told.sort_unstable();
        let tone = told
            .iter()
            .map(|&i| sentences[i].2)
            .max_by_key(|tone| match tone {
                Tone::Corrupted => 3,
                Tone::Rejected => 2,
                Tone::Question => 1,
                Tone::Plain => 0,
            })
            .unwrap_or(Tone::Plain);
        let mut text = told
            .iter()
            .map(|&i| sentences[i].1.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        if total > 2 {
            let more = total - 2;
            text.push_str(&format!(
                " ({more} more {} in the event log.)",
                if more == 1 { "event" } else { "events" }
            ));
        }
        Caption {
            text,
            tone,
            source: Source::Generated { at },
        }
    }

    /// Why a beat's action did not happen as written, if it did not.
    fn fate_note(&self, run: RunView<'_>, index: usize, t: Ms) -> Option<String> {
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

    fn action_words(&self, action: &ClientAction) -> String {
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
    fn sentence(&self, run: RunView<'_>, event: &Event, t: Ms) -> Option<(u8, String, Tone)> {
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
                    super::text::printable(call),
                    super::text::printable(got),
                    super::text::printable(seed)
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
    fn state_summary(&self, run: RunView<'_>, t: Ms) -> String {
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

    /// Whether beat `index`'s question still makes sense in this world (at the moment before the
    /// beat): the write it asks about will be sent, by the client, with the token and to the key
    /// the question was written for.
    pub fn question_applies(&self, world: &World, index: usize) -> bool {
        let Some(beat) = self.scenario.beats.get(index) else {
            return false;
        };
        if beat.ask.is_none() {
            return false;
        }
        let variant = Variant::of(world.fencing(), world.fenced_check());
        let Some(expected) = first_write_at(self.reference(variant), beat) else {
            return false;
        };
        let EventKind::Write {
            client,
            key,
            verdict,
            ..
        } = &expected.kind
        else {
            return false;
        };
        match &beat.action {
            Some(BeatAction::Client {
                client: c,
                action:
                    ClientAction::Write {
                        lock,
                        key: k,
                        token,
                        delay: None,
                        ..
                    },
            }) => {
                let actor: &Client = world.client(*c);
                let token = token.or_else(|| actor.belief(*lock).map(|b| b.token));
                !actor.is_down()
                    && !actor.is_paused()
                    && actor.delay_next.is_none()
                    && c == client
                    && k == key
                    && token == Some(verdict.token)
            }
            Some(_) => false,
            None => world.in_flight().any(|(at, c, k, token)| {
                at == beat.at && c == *client && k == key && token == verdict.token
            }),
        }
    }

    /// The verdict on the write beat `index`'s question asks about, as the answer states it:
    /// "REJECTED, token 1 < 2, the highest token 'file' has accepted."
    pub fn answer(&self, run: RunView<'_>, index: usize) -> Caption {
        self.spoken(self.answer_of(run, index))
    }

    fn answer_of(&self, run: RunView<'_>, index: usize) -> Caption {
        let beat = &run.scenario().beats[index];
        let source = Source::Reveal { beat: index };
        let Some(write) = first_write_at(run.events(), beat) else {
            return Caption {
                text: "no write reached the storage at this moment in this run, so there is nothing to judge."
                    .into(),
                tone: Tone::Plain,
                source,
            };
        };
        let EventKind::Write { key, verdict, .. } = &write.kind else {
            unreachable!("first_write_at finds writes")
        };
        let (word, tail, tone) = match verdict.outcome() {
            Outcome::Corrupted => ("ACCEPTED", " CORRUPTED DATA!", Tone::Corrupted),
            Outcome::Accepted => ("ACCEPTED", "", Tone::Plain),
            Outcome::Rejected => ("REJECTED", "", Tone::Rejected),
        };
        Caption {
            text: format!("{word}, {}.{tail}", verdict.reason(key)),
            tone,
            source,
        }
    }

    /// What beat `index`'s question reveals: the answer, and whether the prediction
    /// (`Some(true)`: accepted) was right; `None` when the question was skipped.
    pub fn reveal(&self, run: RunView<'_>, index: usize, predicted: Option<bool>) -> Caption {
        let mut answer = self.answer(run, index);
        let accepted = first_write_at(run.events(), &run.scenario().beats[index])
            .and_then(|e| e.kind.verdict())
            .map(|v| v.accepted);
        let said = match (predicted, accepted) {
            (Some(p), Some(accepted)) => format!(
                "You said {}. {}: ",
                if p { "accepted" } else { "rejected" },
                if p == accepted { "Right" } else { "Not quite" }
            ),
            (Some(p), None) => {
                format!("You said {}, but ", if p { "accepted" } else { "rejected" })
            }
            (None, _) => "Skipped. The answer: ".into(),
        };
        answer.text = said + &answer.text;
        answer
    }

    /// Whether beat `index`'s question has a write to judge in this run.
    pub fn has_answer(&self, run: RunView<'_>, index: usize) -> bool {
        first_write_at(run.events(), &run.scenario().beats[index]).is_some()
    }

    /// Why beat `index`'s action did not happen as written by `t`, if it did not.
    pub fn beat_note(&self, run: RunView<'_>, index: usize, t: Ms) -> Option<String> {
        self.fate_note(run, index, t)
            .map(|note| self.vocab.say(&note))
    }

    /// The question of beat `index`, as the caption box asks it.
    pub fn question(&self, index: usize) -> Caption {
        let text = self.scenario.beats[index]
            .ask
            .as_ref()
            .map_or(String::new(), |q| q.text.clone());
        self.spoken(Caption {
            text,
            tone: Tone::Question,
            source: Source::Question { beat: index },
        })
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

/// The latest instant from `from` to `to` (both included) at which something happened.
fn latest_instant(events: &[Event], from: Ms, to: Ms) -> Option<Ms> {
    events
        .iter()
        .rev()
        .map(|e| e.t)
        .find(|&t| t >= from && t <= to)
}

/// The write a beat's question is about: the beat client's write at the beat's instant (a write
/// beat), or the first write reaching the storage then (a narration beat).
fn first_write_at<'a>(events: &'a [Event], beat: &Beat) -> Option<&'a Event> {
    let client = beat.client();
    events.iter().find(|e| {
        e.t == beat.at
            && matches!(&e.kind, EventKind::Write { client: c, sent_at, .. }
                if client.is_none_or(|b| b == *c) && (client.is_none() || sent_at.is_none()))
    })
}

/// What a beat's caption depends on, up to `upto`: the events of its window, and the earlier
/// events that touch the clients involved or the storage. Writes count by what the storage
/// decided (in the window, also whether fencing was on), not by which check decided it: a
/// caption written for the seed's rule holds under any check that decided the same way. Earlier
/// switches of fencing or the check count only through the verdicts they changed.
fn signature<'a>(events: &'a [Event], beat: &Beat, upto: Ms) -> (Vec<Sig<'a>>, Vec<Sig<'a>>) {
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
enum Sig<'a> {
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
fn tone_of(text: &str) -> Tone {
    if text.contains("CORRUPTED") {
        Tone::Corrupted
    } else if text.contains("REJECTED") {
        Tone::Rejected
    } else {
        Tone::Plain
    }
}

/// What a client believes of its lease, on its own clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Believes {
    /// Down after a crash: it believes nothing.
    Down,
    /// Frozen, holding nothing.
    Frozen,
    /// Refused, and asking again.
    Wants,
    /// Holds nothing.
    Nothing,
    /// Believes it holds `token` for `left` more ms (zero or less: it knows it ran out).
    Holds { token: u64, left: i64 },
}

/// What the lock service knows of that lease.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truth {
    /// Nothing to compare.
    Nothing,
    /// It is the live lease, with `left` ms to go.
    Live { left: i64 },
    /// It stopped being live `ago` ms ago.
    Ended { ago: Ms },
    /// The service never granted it that token on that lock (a token named by hand).
    NotItsLease,
}

/// A client's belief beside the lock service's truth; `stale` when they disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeliefTruth {
    pub believes: Believes,
    pub truth: Truth,
    pub stale: bool,
}

/// What `client` believes of its (first) lease and what the lock service knows of it, now.
pub fn belief_and_truth(world: &World, client: &Client) -> BeliefTruth {
    let now = world.now();
    if client.is_down() {
        // A crashed process believes nothing, but the lock service may still hold its lease.
        let live = (0..world.scenario().locks.len())
            .filter_map(|i| world.lease(LockId(i as u8)))
            .find(|l| l.client == client.id);
        return BeliefTruth {
            believes: Believes::Down,
            truth: live.map_or(Truth::Nothing, |lease| Truth::Live {
                left: world.lease_left(&lease),
            }),
            stale: false,
        };
    }
    let Some((lock, belief)) = client.first_belief() else {
        let believes = if client.is_paused() {
            Believes::Frozen
        } else if client.activity == super::client::Activity::Waiting {
            Believes::Wants
        } else {
            Believes::Nothing
        };
        return BeliefTruth {
            believes,
            truth: Truth::Nothing,
            stale: false,
        };
    };
    let left = client.believed_left(lock, now).unwrap_or(0);
    let believes = Believes::Holds {
        token: belief.token,
        left,
    };
    if let Some(lease) = world
        .lease(lock)
        .filter(|l| l.client == client.id && l.token == belief.token)
    {
        let left = world.lease_left(&lease);
        return BeliefTruth {
            believes,
            truth: Truth::Live { left },
            stale: false,
        };
    }
    let truth = match lease_end(world, lock, client.id, belief.token) {
        Some(t) => Truth::Ended { ago: now - t },
        None => Truth::NotItsLease,
    };
    // They disagree only while the client still counts time left on a lease that has ended.
    BeliefTruth {
        believes,
        truth,
        stale: left > 0,
    }
}

/// When `client`'s lease with `token` on `lock` stopped being live, from the lock's lane.
fn lease_end(world: &World, lock: LockId, client: ClientId, token: u64) -> Option<Ms> {
    let spans = world.history().lock_lane(lock.index());
    let i = spans
        .iter()
        .rposition(|s| s.holder == Some((client, token)))?;
    spans.get(i + 1).map(|s| s.start)
}
