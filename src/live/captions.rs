//! The simulated lesson told beside the live one: a beat's scripted caption once its window has
//! closed and etcd played every beat so far as the script did; a beat's question just before
//! the write it asks about, and then what etcd decided. What the lesson would say is decided by
//! [`Lesson`]; this only keeps the run's events and knows when a window closes.

use std::sync::Arc;

use super::said::Said;
use crate::sim::lesson::{awaits_expiry, Untold};
use crate::sim::time::fmt_seconds;
use crate::sim::{Event, EventKind, Lesson, Ms, Scenario, Source, Variant, Vocab};

/// The lesson's sentences for one live run, as its events come.
pub struct Captions {
    lesson: Lesson,
    variant: Variant,
    /// The run's events so far.
    events: Vec<Event>,
    /// How many beats' windows have closed (their captions told or left out).
    closed: usize,
    /// Whether the run has been told that it left the script.
    left_the_script: bool,
}

impl Captions {
    /// The captions of `scenario` played with `seed`, fencing on or off (etcd's check is the
    /// seed's rule).
    pub fn new(scenario: Arc<Scenario>, seed: u64, fencing: bool) -> Captions {
        let vocab = Vocab::plain(&scenario.locks);
        let variant = if fencing {
            Variant::Fenced
        } else {
            Variant::Unfenced
        };
        Captions {
            lesson: Lesson::new(scenario, seed, vocab),
            variant,
            events: Vec::new(),
            closed: 0,
            left_the_script: false,
        }
    }

    /// Passes `said` on to `say`, with the lesson's sentences it brings: the captions of the
    /// beats whose windows it closes, before it; a question before the write it asks about,
    /// and what etcd decided after.
    pub fn relay(&mut self, said: Said, say: &mut dyn FnMut(Said)) {
        match said {
            Said::Event { event, extra, side } => {
                let t = event.t;
                self.close_through(t, true, say);
                let question = match event.kind {
                    EventKind::Write { .. } => {
                        self.lesson
                            .question_played(&self.events, self.variant, &event)
                    }
                    _ => None,
                };
                let answer = question.as_ref().and_then(|q| match q.source {
                    Source::Question { beat } => self.lesson.verdict_of(&event, beat),
                    _ => None,
                });
                self.events.push(event.clone());
                if let Some(caption) = question {
                    say(Said::Caption { t, caption });
                }
                say(Said::Event { event, extra, side });
                if let Some(caption) = answer {
                    say(Said::Caption { t, caption });
                }
                // An expiry a window waited for closes it now.
                self.close_through(t, true, say);
            }
            Said::Tick(now) => {
                self.close_through(now, true, say);
                say(Said::Tick(now));
            }
            other => say(other),
        }
    }

    /// Closes every window still open at the lesson's end `at`, the last beat's too.
    pub fn finish(&mut self, at: Ms, say: &mut dyn FnMut(Said)) {
        self.close_through(at, false, say);
        let beats = self.lesson.scenario().beats.len();
        if self.closed < beats {
            self.tell(self.closed, at, at, say);
            self.closed = beats;
        }
    }

    /// Tells the caption of every beat whose window has closed by `now`: the next beat's
    /// instant has come, and (with `wait`) no lease planned to end in it is still to be seen
    /// ending (etcd ends one up to half a second late).
    fn close_through(&mut self, now: Ms, wait: bool, say: &mut dyn FnMut(Said)) {
        let scenario = Arc::clone(self.lesson.scenario());
        while let Some(next) = scenario.beats.get(self.closed + 1) {
            let upto = next.at - 1;
            if next.at > now || (wait && awaits_expiry(&self.events, upto, now)) {
                break;
            }
            self.tell(self.closed, upto, now, say);
            self.closed += 1;
        }
    }

    /// Tells beat `index`'s caption at `now`, its window known up to `upto`; or, the first time
    /// the run is found off the script, that the captions stop there.
    fn tell(&mut self, index: usize, upto: Ms, now: Ms, say: &mut dyn FnMut(Said)) {
        let at = fmt_seconds(self.lesson.scenario().beats[index].at);
        let note = match self
            .lesson
            .caption_played(&self.events, self.variant, index, upto)
        {
            Ok(caption) => {
                say(Said::Caption { t: now, caption });
                return;
            }
            Err(Untold::PlayedOtherwise) if !self.left_the_script => {
                self.left_the_script = true;
                format!(
                    "etcd did not play the beat at {at} s as the script has it: the lines above \
                     say what it did, and the lesson's captions stop here"
                )
            }
            Err(Untold::Late(by)) => format!(
                "the caption of the beat at {at} s is not told: it names a time, and etcd's \
                 events came up to {} s away from it",
                fmt_seconds(by)
            ),
            Err(_) => return,
        };
        say(Said::Note { t: now, text: note });
    }
}
