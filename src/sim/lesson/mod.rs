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

use super::event::{Event, Vocab};
use super::scenario::{Scenario, Variant};
use super::session::Session;
use super::time::Ms;
use super::world::Setup;

mod belief;
mod premise;
mod questions;
mod run_view;
mod sentences;

pub use super::phrase::Tone;
pub use belief::{belief_and_truth, belief_lane, BeliefSpan, BeliefTruth, Believes, Held, Truth};
use premise::{latest_instant, signature, tone_of};
pub use run_view::RunView;

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
}
