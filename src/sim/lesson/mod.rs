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

use super::event::Event;
use super::scenario::{Scenario, Variant};
use super::session::Session;
use super::time::Ms;
use super::vocab::Vocab;
use super::world::Setup;

mod alike;
mod belief;
mod numbers;
mod played;
mod premise;
mod questions;
mod run_view;
mod sentences;

pub use super::phrase::Tone;
pub use alike::{awaits_expiry, LATE_EXPIRY};
pub use belief::{
    belief_and_truth, belief_lane, BeliefSpan, BeliefTruth, Believes, Held, LeaseBook, Truth,
};
use numbers::Renumbering;
pub use played::{Untold, ON_TIME};
use premise::{latest_instant, signature, tone_of, window_end};
pub use run_view::RunView;

/// Whether a caption speaks of a storage setting other than `now`: "fencing on" while fencing is
/// off, "no check" while it is on, the seed's rule under another check, one global highest or the
/// strict check under any other. Such a sentence is true only where it was written.
pub fn names_another_setting(text: &str, now: Variant) -> bool {
    let text = text.to_ascii_lowercase();
    let says = |words: &[&str]| words.iter().any(|w| text.contains(w));
    (says(&["fencing on", "fencing is on"]) && !now.fencing())
        || (says(&["fencing off", "fencing is off", "no check"]) && now.fencing())
        || (says(&["the seed's rule"]) && now != Variant::Fenced)
        || (says(&["per key", "per-key"]) && now == Variant::Global)
        || (says(&["strict"]) && now != Variant::Strict)
        || (says(&["global"]) && now != Variant::Global)
}

/// Whether a caption speaks of any storage setting at all: none is true of a student's
/// storage, whose rule is the one its code has, whatever the setting says.
pub fn names_a_setting(text: &str) -> bool {
    Variant::ALL
        .into_iter()
        .any(|v| names_another_setting(text, v))
}

/// A variant's place in the lesson's per-variant slots.
fn slot_of(variant: Variant) -> usize {
    Variant::ALL
        .iter()
        .position(|&v| v == variant)
        .unwrap_or_default()
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

/// The lesson of one scenario and seed: its reference runs, computed once.
pub struct Lesson {
    scenario: Arc<Scenario>,
    seed: u64,
    vocab: Vocab,
    references: [OnceLock<Vec<Event>>; 4],
    /// Under a system that numbers every change, each variant's plain numbers in its.
    renumberings: [OnceLock<Renumbering>; 4],
}

impl Lesson {
    /// The lesson of `scenario` with `seed`, naming things with `vocab`.
    pub fn new(scenario: Arc<Scenario>, seed: u64, vocab: Vocab) -> Lesson {
        Lesson {
            scenario,
            seed,
            vocab,
            references: Default::default(),
            renumberings: Default::default(),
        }
    }

    /// The lesson of a session's scenario and seed, with plain names.
    pub fn of(session: &Session) -> Lesson {
        let scenario = session.scenario().clone();
        let vocab = Vocab::of(&scenario.locks, session.setup().system).writing(&scenario.keys());
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
        self.references[slot_of(variant)]
            .get_or_init(|| self.script_run(variant, self.numbers_every_change()))
    }

    /// Whether the system in force numbers every change (etcd, ZooKeeper), so the script's
    /// token numbers are said in its numbers.
    fn numbers_every_change(&self) -> bool {
        self.vocab.system.is_some_and(|s| s.numbering.is_some())
    }

    /// The script alone under `variant`, on the library numbering grants or every change.
    fn script_run(&self, variant: Variant, every_change: bool) -> Vec<Event> {
        let mut setup = Setup::new(self.scenario.clone())
            .seed(self.seed)
            .fencing(variant.fencing())
            .check(variant.check());
        setup.backend = crate::sim::backend::built_in_numbered(every_change);
        let last_beat = self.scenario.beats.last().map_or(0, |b| b.at);
        let session = Session::played_to(setup, last_beat.max(self.scenario.end));
        session.world().events().to_vec()
    }

    /// A sentence written for `variant` with its token numbers as the system in force says them.
    fn renumbered(&self, text: &str, variant: Variant) -> String {
        if !self.numbers_every_change() {
            return text.to_owned();
        }
        self.renumberings[slot_of(variant)]
            .get_or_init(|| {
                Renumbering::between(&self.script_run(variant, false), self.reference(variant))
            })
            .apply(text)
    }

    /// The caption at time `t` of a run.
    pub fn caption(&self, run: RunView<'_>, t: Ms) -> Caption {
        let mut caption = self.spoken(self.caption_of(run, t));
        // With `--as`, the lesson's first caption says where that system's token comes from.
        if let (Some(system), Some(0)) = (self.vocab.system, run.scenario().beat_at(t)) {
            let note = if system.has_token {
                let numbering = system
                    .numbering
                    .map_or_else(String::new, |how| format!("; {how}"));
                format!(
                    "{}: the {} is {}, from {}{numbering}",
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
        let written_for = match caption.source {
            Source::Script { variant, .. } => Some(variant),
            Source::Question { .. } => Some(Variant::Fenced),
            _ => None,
        };
        caption.text = match written_for {
            Some(variant) => self
                .vocab
                .say_script(&self.renumbered(&caption.text, variant)),
            None => self.vocab.say_owned(caption.text),
        };
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
        let window_end = window_end(beats, index).min(t);
        let now = run.variant_at(t);
        let mut tried = vec![now];
        if now != Variant::Fenced {
            tried.push(Variant::Fenced);
        }
        for variant in tried {
            let Some(text) = beat.captions.written_for(variant) else {
                continue;
            };
            // A sentence written for the seed's rule may stand under another setting only where
            // it names none other than that one: "with fencing on" is not said while it is off.
            if variant != now && names_another_setting(text, now) {
                continue;
            }
            // On a student's code the storage's rule is the student's: "with fencing on" or
            // "the seed's rule" would be told of a rule it may not have.
            if run.setup.implemented_by.is_some() && names_a_setting(text) {
                continue;
            }
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Input;

    /// Built-in lesson `name` played to its end, with each of the lecturer's `inputs` pressed at
    /// its moment as the UI does: the run played up to it, then the input.
    pub(super) fn played(name: &str, inputs: &[Input]) -> Session {
        let scenario = Arc::new(Scenario::built_in(name).expect("built in"));
        let end = scenario.end;
        let mut session = Session::new(Setup::new(scenario));
        for input in inputs {
            session.seek(input.at);
            session.inject(input.kind);
        }
        session.seek(end);
        session
    }

    /// Each family of words a caption may use, the settings it belongs to, written out by hand.
    /// A sentence naming a setting is foreign everywhere else; one naming none is foreign nowhere.
    #[test]
    fn a_caption_names_another_setting_exactly_where_its_words_are_not_true() {
        use Variant::{Fenced, Global, Strict, Unfenced};
        let cases: [(&str, &[Variant]); 11] = [
            ("With fencing on, the write is refused.", &[Unfenced]),
            ("Fencing is on here.", &[Unfenced]),
            ("FENCING OFF: nothing stops it.", &[Fenced, Strict, Global]),
            ("Fencing is off, so it lands.", &[Fenced, Strict, Global]),
            ("The storage has no check.", &[Fenced, Strict, Global]),
            (
                "The seed's rule lets an equal token through.",
                &[Unfenced, Strict, Global],
            ),
            ("The highest token is kept per key.", &[Global]),
            ("A per-key highest.", &[Global]),
            (
                "The strict check refuses an equal token.",
                &[Fenced, Unfenced, Global],
            ),
            (
                "One global highest for every key.",
                &[Fenced, Unfenced, Strict],
            ),
            ("Client 2 writes with token 2.", &[]),
        ];
        for (text, foreign) in cases {
            for now in Variant::ALL {
                assert_eq!(
                    names_another_setting(text, now),
                    foreign.contains(&now),
                    "{text:?} under {now:?}"
                );
            }
        }
    }
}
