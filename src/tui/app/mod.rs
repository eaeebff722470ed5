//! The model: one `App` whose `update` is the only place state changes. The view draws it.
//!
//! `update` hands each key to its mode; the work is in the files beside this one:
//! `commands` (what each command can do now, as data), `travel` (moving in time, playing, the
//! lesson's question) and `inputs` (what the lecturer changes: clients, fencing, the check, the
//! scenario).

mod commands;
mod inputs;
mod travel;

use std::collections::BTreeSet;

pub use super::action::{Action, Mode};
use super::keys;
use super::theme::Theme;
use crate::sim::lesson::{Caption, Lesson, RunView};
use crate::sim::{ClientId, Ms, Scenario, Session};
use crate::Judge;
pub use commands::CommandInfo;

/// Clock steps the `[` and `]` keys choose from, in ms.
pub const STEPS: [Ms; 5] = [100, 500, 1_000, 2_000, 5_000];
/// Playback speeds the `+` and `-` keys choose from: simulated seconds per real second.
pub const SPEEDS: [f64; 6] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0];
/// Pages of the help overlay: keys, timeline marks, labels and panels, real systems.
pub const HELP_PAGES: usize = 4;

/// What covers the main view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help { page: usize },
    Picker { cursor: usize },
}

/// A lesson question: waiting for a prediction, or revealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prediction {
    /// The beat that asks.
    pub beat: usize,
    /// `None` while waiting; `Some(p)` once revealed, `p` the prediction (`None`: skipped).
    pub revealed: Option<Option<bool>>,
}

/// The UI's state: the session plus how the user is looking at it.
pub struct App {
    session: Session,
    lesson: Lesson,
    pub(crate) theme: Theme,
    selected: ClientId,
    step: usize,
    speed: usize,
    playing: bool,
    /// Simulated ms owed to playback that have not yet made a whole ms.
    play_remainder: f64,
    overlay: Overlay,
    compare: bool,
    prediction: Option<Prediction>,
    /// Beats whose question was asked (answered or skipped) this run, so travel does not re-ask.
    asked: BTreeSet<usize>,
    status: Option<String>,
    quit: bool,
    /// Drawn for paper: no key hints, no play state.
    handout: bool,
}

impl App {
    /// An app showing `session` at its current moment, paused.
    pub fn new(session: Session, theme: Theme) -> App {
        let lesson = Lesson::of(&session);
        App {
            session,
            lesson,
            theme,
            selected: ClientId::ALL[0],
            step: 1,
            speed: 2,
            playing: false,
            play_remainder: 0.0,
            overlay: Overlay::None,
            compare: false,
            prediction: None,
            asked: BTreeSet::new(),
            status: None,
            quit: false,
            handout: false,
        }
    }

    // ------------------------------------------------------------------ reading

    pub fn session(&self) -> &Session {
        &self.session
    }

    pub fn lesson(&self) -> &Lesson {
        &self.lesson
    }

    pub fn theme(&self) -> &Theme {
        &self.theme
    }

    pub fn selected(&self) -> ClientId {
        self.selected
    }

    pub fn step_ms(&self) -> Ms {
        STEPS[self.step]
    }

    pub fn speed(&self) -> f64 {
        SPEEDS[self.speed]
    }

    pub fn is_playing(&self) -> bool {
        self.playing
    }

    pub fn overlay(&self) -> Overlay {
        self.overlay
    }

    pub fn compare(&self) -> bool {
        self.compare
    }

    pub fn prediction(&self) -> Option<Prediction> {
        self.prediction
    }

    /// The key table in force.
    pub fn mode(&self) -> Mode {
        match self.overlay {
            Overlay::Help { .. } => Mode::Help,
            Overlay::Picker { .. } => Mode::Picker,
            Overlay::None if self.waiting_for_answer() => Mode::Question,
            Overlay::None => Mode::Main,
        }
    }

    /// The key table beneath any overlay: what the help describes.
    pub fn mode_beneath(&self) -> Mode {
        if self.waiting_for_answer() {
            Mode::Question
        } else {
            Mode::Main
        }
    }

    fn waiting_for_answer(&self) -> bool {
        self.prediction.is_some_and(|p| p.revealed.is_none())
    }

    /// A one-line note about the last thing the user did.
    pub fn status(&self) -> Option<&str> {
        self.status.as_deref()
    }

    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// Whether the UI must wake up on its own (playing), rather than sleep until a key.
    pub fn wants_ticks(&self) -> bool {
        self.playing
    }

    /// Whether a scripted lesson has played to its end.
    pub fn at_end(&self) -> bool {
        let scenario = self.session.scenario();
        scenario.chaos.is_none() && self.session.now() >= scenario.end
    }

    /// Whether the storage is a student's (`--impl`): its rule is theirs, not a check to switch.
    pub fn on_student_code(&self) -> bool {
        self.session.setup().implemented_by.is_some()
            || self.session.world().judge() == Judge::External
    }

    /// The caption box's sentence now: the question, its reveal, or the lesson's caption.
    pub fn caption(&self) -> Caption {
        let run = RunView::of(&self.session);
        match self.prediction {
            Some(Prediction {
                beat,
                revealed: None,
            }) => self.lesson.question(beat),
            Some(Prediction {
                beat,
                revealed: Some(predicted),
            }) if self.session.now() == self.session.scenario().beats[beat].at => {
                self.lesson.reveal(run, beat, predicted)
            }
            _ => self.lesson.caption(run, self.session.now()),
        }
    }

    // ------------------------------------------------------------------ changing

    /// Travels to `t` (used by `frame` and tests as well as the keys); questions on the way are
    /// treated as asked, since nobody is there to answer them, and those after `t` are asked
    /// when the lesson gets there.
    pub fn seek(&mut self, t: Ms) {
        self.session.seek(t);
        self.forget_questions_after(t);
        let passed = self
            .session
            .scenario()
            .beats
            .iter()
            .enumerate()
            .filter(|(_, b)| b.ask.is_some() && b.at <= t)
            .map(|(i, _)| i);
        self.asked.extend(passed);
        self.prediction = None;
    }

    /// Draws for paper (handouts, pages): no key hints, no play state.
    pub fn set_handout(&mut self, on: bool) {
        self.handout = on;
    }

    /// Whether it draws for paper.
    pub fn handout(&self) -> bool {
        self.handout
    }

    /// Shows or hides the compare view (never where there is nothing to compare: with no token).
    pub fn set_compare(&mut self, on: bool) {
        self.compare = on && self.command(Action::ToggleCompare).available;
    }

    /// The only place state changes: each mode's keys go to their own handler.
    pub fn update(&mut self, action: Action) {
        if !matches!(action, Action::Tick(_)) {
            self.status = None;
        }
        match self.mode() {
            Mode::Help => self.update_help(action),
            Mode::Picker => self.update_picker(action),
            Mode::Question => {
                if self.update_question(action).is_none() {
                    self.update_main(action);
                }
            }
            Mode::Main => self.update_main(action),
        }
    }

    /// The main view's keys. A command that cannot act now (or in this run) says why instead.
    fn update_main(&mut self, action: Action) {
        let info = self.command(action);
        if !info.available || !info.enabled {
            self.status = Some(self.refusal(action));
            return;
        }
        match action {
            Action::StepForward => self.go_forward(self.session.now() + self.step_ms()),
            Action::NextMoment => self.next_moment(),
            Action::StepBack => self.step_back(),
            Action::TogglePlay => {
                self.playing = !self.playing;
                self.play_remainder = 0.0;
            }
            Action::SmallerStep | Action::LargerStep => self.change_step(action),
            Action::Faster | Action::Slower => self.change_speed(action),
            Action::Tick(real_ms) => self.play(real_ms),
            Action::Select(client) => self.select(client),
            Action::InjectPause => self.inject_pause(),
            Action::Crash => self.inject_crash(),
            Action::DelayWrite => self.inject_delay(),
            Action::ToggleFencing => self.toggle_fencing(),
            Action::CycleCheck => self.cycle_check(),
            Action::ToggleCompare => self.toggle_compare(),
            Action::Restart => self.restart(),
            Action::OpenPicker => {
                let current = &self.session.scenario().name;
                let cursor = Scenario::built_in_names()
                    .position(|n| n == current)
                    .unwrap_or(0);
                self.overlay = Overlay::Picker { cursor };
                self.playing = false;
            }
            Action::ToggleHelp => {
                self.overlay = Overlay::Help { page: 0 };
                self.playing = false;
            }
            Action::Answer(_) => {
                self.status =
                    Some("No question is waiting: the lesson asks one before its key write.".into())
            }
            Action::Quit => self.quit = true,
            Action::Unbound(key) => {
                self.status = Some(format!(
                    "The key {} does nothing here; press {} for every key.",
                    key_name(key),
                    keys::key_for(Mode::Main, Action::ToggleHelp)
                ))
            }
            Action::Skip
            | Action::PickerUp
            | Action::PickerDown
            | Action::PickerChoose
            | Action::HelpNext
            | Action::HelpBack
            | Action::CloseOverlay => {}
        }
    }

    fn update_help(&mut self, action: Action) {
        let Overlay::Help { page } = self.overlay else {
            return;
        };
        self.overlay = match action {
            Action::HelpNext => Overlay::Help {
                page: (page + 1) % HELP_PAGES,
            },
            Action::HelpBack => Overlay::Help {
                page: (page + HELP_PAGES - 1) % HELP_PAGES,
            },
            Action::Tick(_) => self.overlay,
            Action::Quit => {
                self.quit = true;
                Overlay::None
            }
            _ => Overlay::None,
        };
    }

    fn update_picker(&mut self, action: Action) {
        let Overlay::Picker { cursor } = self.overlay else {
            return;
        };
        let count = Scenario::built_in_names().count();
        self.overlay = match action {
            Action::PickerUp => Overlay::Picker {
                cursor: (cursor + count - 1) % count,
            },
            Action::PickerDown => Overlay::Picker {
                cursor: (cursor + 1) % count,
            },
            Action::PickerChoose => {
                if let Some(name) = Scenario::built_in_names().nth(cursor) {
                    self.load(name);
                }
                Overlay::None
            }
            Action::Quit => {
                self.quit = true;
                Overlay::None
            }
            Action::Tick(_) => Overlay::Picker { cursor },
            _ => Overlay::None,
        };
    }

    /// The lesson begins again: no question pending or asked, not playing.
    fn start_over(&mut self) {
        self.prediction = None;
        self.asked.clear();
        self.playing = false;
    }
}

/// A key as the status line names it.
fn key_name(key: char) -> String {
    match key {
        ' ' => "space".into(),
        c if c.is_control() => format!("U+{:04X}", c as u32),
        c => format!("'{c}'"),
    }
}
