//! Moving in time: stepping, the next moment, travelling back, playing, and the lesson's
//! question, which stops the way forward until the class has predicted.

use super::{Action, App, Mode, Prediction, SPEEDS, STEPS};
use crate::sim::time::fmt_seconds;
use crate::sim::Ms;
use crate::tui::keys;

impl App {
    /// `n`: the next moment something is due; a scripted lesson stops at its end, even with
    /// events due later.
    pub(super) fn next_moment(&mut self) {
        let scenario = self.session.scenario();
        let end = scenario.chaos.is_none().then_some(scenario.end);
        match (self.session.next_moment(), end) {
            (Some(t), Some(end)) => self.go_forward(t.min(end)),
            (Some(t), None) => self.go_forward(t),
            (None, Some(end)) => self.go_forward(end),
            (None, None) => {
                self.status = Some(format!(
                    "Nothing more is scheduled: {} moves the clock on.",
                    keys::key_for(Mode::Main, Action::StepForward)
                ))
            }
        }
    }

    /// `←`: one step back, by replaying from t = 0. A question whose write is ahead again is
    /// asked again when the lesson comes back to it.
    pub(super) fn step_back(&mut self) {
        let now = self.session.now();
        if now == 0 {
            self.status = Some("Already at t = 0.0 s: there is nothing earlier.".into());
            return;
        }
        let back = now.saturating_sub(self.step_ms());
        self.prediction = None;
        self.session.seek(back);
        self.forget_questions_after(back);
    }

    /// Questions of beats after `t` count as not asked: the class has not seen their write.
    pub(super) fn forget_questions_after(&mut self, t: Ms) {
        let beats = &self.session.scenario().beats;
        self.asked.retain(|&beat| beats[beat].at <= t);
    }

    /// `[` and `]`: the clock step, within `STEPS`.
    pub(super) fn change_step(&mut self, action: Action) {
        let larger = action == Action::LargerStep;
        let (limit, word) = if larger {
            (STEPS.len() - 1, "largest")
        } else {
            (0, "smallest")
        };
        if self.step == limit {
            self.status = Some(format!(
                "The clock step is already the {word}, {} s.",
                fmt_seconds(STEPS[limit])
            ));
        } else if larger {
            self.step += 1;
        } else {
            self.step -= 1;
        }
    }

    /// `+` and `-`: the playback speed, within `SPEEDS`, said when it changes (narrow headers do
    /// not show it).
    pub(super) fn change_speed(&mut self, action: Action) {
        let faster = action == Action::Faster;
        let (limit, word) = if faster {
            (SPEEDS.len() - 1, "fastest")
        } else {
            (0, "slowest")
        };
        if self.speed == limit {
            self.status = Some(format!(
                "Playback is already the {word}, {}x.",
                SPEEDS[limit]
            ));
            return;
        }
        if faster {
            self.speed += 1;
        } else {
            self.speed -= 1;
        }
        self.status = Some(format!(
            "Playback speed {}x: {} plays and pauses.",
            SPEEDS[self.speed],
            keys::key_for(Mode::Main, Action::TogglePlay)
        ));
    }

    /// Keys while a question waits. `None`: the main table handles it.
    pub(super) fn update_question(&mut self, action: Action) -> Option<()> {
        let prediction = self.prediction?;
        match action {
            Action::Answer(predicted) => self.reveal(prediction.beat, Some(predicted)),
            Action::Skip | Action::NextMoment | Action::StepForward | Action::TogglePlay => {
                self.reveal(prediction.beat, None)
            }
            Action::Tick(_) => {}
            Action::StepBack
            | Action::Quit
            | Action::ToggleHelp
            | Action::Restart
            | Action::OpenPicker
            | Action::Select(_) => return None,
            _ => {
                self.status = Some(format!(
                    "The question waits: {} accepted, {} rejected, or {} to skip it.",
                    keys::key_for(Mode::Question, Action::Answer(true)),
                    keys::key_for(Mode::Question, Action::Answer(false)),
                    keys::key_for(Mode::Question, Action::Skip),
                ))
            }
        }
        Some(())
    }

    /// Moves forward to `t`, but stops before a beat that asks a question not yet asked: at the
    /// last moment something happens before it, so the class has seen everything leading up.
    pub(super) fn go_forward(&mut self, t: Ms) {
        let now = self.session.now();
        let scenario = self.session.scenario().clone();
        let asking =
            scenario.beats.iter().enumerate().find(|(i, b)| {
                b.ask.is_some() && b.at > now && b.at <= t && !self.asked.contains(i)
            });
        let Some((beat, asked)) = asking else {
            self.prediction = None;
            self.session.seek(t);
            return;
        };
        // The question is asked at the moment it is about, before that moment plays.
        self.session.approach(asked.at);
        self.asked.insert(beat);
        if self.lesson.question_applies(self.session.world(), beat) {
            self.prediction = Some(Prediction {
                beat,
                revealed: None,
            });
            self.playing = false;
        } else {
            // What the question asks about will not happen as written: no question, and the
            // caption says what happens instead.
            self.prediction = None;
            self.session.seek(t);
        }
    }

    fn reveal(&mut self, beat: usize, predicted: Option<bool>) {
        self.prediction = Some(Prediction {
            beat,
            revealed: Some(predicted),
        });
        let at = self.session.scenario().beats[beat].at;
        self.session.seek(at);
    }

    /// Real time passed while playing: the clock moves on at the chosen speed and stops at a
    /// scripted lesson's end.
    pub(super) fn play(&mut self, real_ms: Ms) {
        if !self.playing {
            return;
        }
        self.play_remainder += real_ms as f64 * self.speed();
        let whole = self.play_remainder.floor();
        self.play_remainder -= whole;
        let scenario_end = self.session.scenario().end;
        let mut target = self.session.now() + whole as Ms;
        if self.session.scenario().chaos.is_none() && target >= scenario_end {
            target = scenario_end.max(self.session.now());
            self.playing = false;
        }
        self.go_forward(target);
    }
}
