//! The model: one `App` whose `update` is the only place state changes. The view draws it.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::theme::Theme;
use crate::sim::{ClientId, InputKind, Ms, Scenario, Session};
use crate::FenceCheck;

/// Clock steps the `[` and `]` keys choose from, in ms.
pub const STEPS: [Ms; 5] = [100, 500, 1_000, 2_000, 5_000];
/// Playback speeds the `+` and `-` keys choose from: simulated seconds per real second.
pub const SPEEDS: [f64; 6] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0];

/// Everything the user can ask for; keys map to these first, so tests drive the app directly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Action {
    StepForward,
    NextMoment,
    StepBack,
    TogglePlay,
    SmallerStep,
    LargerStep,
    Faster,
    Slower,
    Select(ClientId),
    InjectPause,
    Crash,
    ToggleFencing,
    CycleCheck,
    ToggleCompare,
    Restart,
    OpenPicker,
    ToggleHelp,
    Answer(bool),
    Quit,
    /// Real time passed while playing, in ms.
    Tick(Ms),
    PickerUp,
    PickerDown,
    PickerChoose,
    CloseOverlay,
}

/// What covers the main view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    Picker { cursor: usize },
}

/// A lesson question waiting for, or showing, its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prediction {
    /// The beat that asks.
    pub beat: usize,
    /// The user's answer, once given: then the outcome is revealed.
    pub answer: Option<bool>,
}

/// The UI's state: the session plus how the user is looking at it.
pub struct App {
    session: Session,
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
    /// Beats whose question has been answered this run, so travelling back does not re-ask.
    answered: BTreeSet<usize>,
    status: Option<String>,
    quit: bool,
}

impl App {
    /// An app showing `session` at its current moment, paused.
    pub fn new(session: Session, theme: Theme) -> App {
        App {
            session,
            theme,
            selected: ClientId::ALL[0],
            step: 1,
            speed: 2,
            playing: false,
            play_remainder: 0.0,
            overlay: Overlay::None,
            compare: false,
            prediction: None,
            answered: BTreeSet::new(),
            status: None,
            quit: false,
        }
    }

    // ------------------------------------------------------------------ reading

    pub fn session(&self) -> &Session {
        &self.session
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

    pub fn prediction(&self) -> Option<&Prediction> {
        self.prediction.as_ref()
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

    // ------------------------------------------------------------------ changing

    /// Travels to `t` (used by `frame` and tests as well as the keys); questions on the way are
    /// treated as answered, since nobody is there to answer them.
    pub fn seek(&mut self, t: Ms) {
        self.session.seek(t);
        let passed = self
            .session
            .scenario()
            .beats
            .iter()
            .enumerate()
            .filter(|(_, b)| b.ask.is_some() && b.at <= t)
            .map(|(i, _)| i);
        self.answered.extend(passed);
        self.prediction = None;
    }

    /// Shows or hides the compare view.
    pub fn set_compare(&mut self, on: bool) {
        self.compare = on;
    }

    /// The only place state changes.
    pub fn update(&mut self, action: Action) {
        match self.overlay {
            Overlay::Help => {
                if action == Action::Quit {
                    self.quit = true;
                }
                if !matches!(action, Action::Tick(_)) {
                    self.overlay = Overlay::None;
                    return;
                }
            }
            Overlay::Picker { cursor } => {
                self.update_picker(action, cursor);
                return;
            }
            Overlay::None => {}
        }
        if !matches!(action, Action::Tick(_)) {
            self.status = None;
        }
        // While a question waits, `n` means "no" and forward moves wait for an answer.
        if self.prediction.as_ref().is_some_and(|p| p.answer.is_none()) {
            match action {
                Action::Answer(_)
                | Action::StepBack
                | Action::Quit
                | Action::ToggleHelp
                | Action::Restart
                | Action::OpenPicker
                | Action::Select(_) => {}
                Action::NextMoment => return self.answer(false),
                Action::Tick(_) => return,
                Action::StepForward | Action::TogglePlay => {
                    self.status = Some("Answer the question first: y for yes, n for no.".into());
                    return;
                }
                _ => {}
            }
        }
        match action {
            Action::StepForward => self.go_forward(self.session.now() + self.step_ms()),
            Action::NextMoment => {
                if let Some(t) = self.session.next_moment() {
                    self.go_forward(t);
                } else {
                    self.status = Some("Nothing more is scheduled.".into());
                }
            }
            Action::StepBack => {
                let t = self.session.now().saturating_sub(self.step_ms());
                self.prediction = None;
                self.session.seek(t);
            }
            Action::TogglePlay => {
                self.playing = !self.playing;
                self.play_remainder = 0.0;
                if self.playing && self.at_end() {
                    self.status =
                        Some("The lesson is over: r replays it, n keeps stepping.".into());
                    self.playing = false;
                }
            }
            Action::SmallerStep => self.step = self.step.saturating_sub(1),
            Action::LargerStep => self.step = (self.step + 1).min(STEPS.len() - 1),
            Action::Faster => self.speed = (self.speed + 1).min(SPEEDS.len() - 1),
            Action::Slower => self.speed = self.speed.saturating_sub(1),
            Action::Select(client) => self.selected = client,
            Action::InjectPause => {
                let client = self.selected;
                let c = &self.session.world().clients()[client.index()];
                self.status = Some(if c.activity == crate::sim::Activity::Crashed {
                    format!("{client} is down after a crash; a crashed process cannot pause.")
                } else {
                    let until = self.session.now() + self.session.scenario().injected_pause_ms();
                    format!(
                        "{client} freezes in a GC pause until {} s.",
                        crate::sim::fmt_seconds(until)
                    )
                });
                self.session.inject(InputKind::Pause { client });
            }
            Action::Crash => {
                let client = self.selected;
                let down = crate::sim::fmt_seconds(self.session.scenario().injected_down_ms());
                self.status = Some(format!(
                    "{client} crashes; it restarts in {down} s and must acquire again."
                ));
                self.session.inject(InputKind::Crash { client });
            }
            Action::ToggleFencing => {
                let on = !self.session.world().fencing();
                self.session.inject(InputKind::Fencing { on });
                self.status = Some(if on {
                    "Fencing is ON from now on: storage rejects older tokens.".into()
                } else {
                    "Fencing is OFF from now on: r replays the lesson without it.".into()
                });
            }
            Action::CycleCheck => {
                let current = self.session.world().fenced_check();
                let i = FenceCheck::ALL
                    .iter()
                    .position(|&c| c == current)
                    .unwrap_or(0);
                let mut next = FenceCheck::ALL[(i + 1) % FenceCheck::ALL.len()];
                if next == FenceCheck::Unchecked {
                    // "No check" is what fencing off means; the cycle is over the real checks.
                    next = FenceCheck::ALL[(i + 2) % FenceCheck::ALL.len()];
                }
                self.session.inject(InputKind::Check(next));
                self.status = Some(format!(
                    "Storage check from now on: {} ({}).",
                    next.name(),
                    next.rule()
                ));
            }
            Action::ToggleCompare => self.compare = !self.compare,
            Action::Restart => {
                self.session.restart();
                self.start_over();
                let fencing = if self.session.world().fencing() {
                    "on"
                } else {
                    "off"
                };
                self.status = Some(format!("Restarted from t = 0 with fencing {fencing}."));
            }
            Action::OpenPicker => {
                let current = &self.session.scenario().name;
                let cursor = Scenario::built_in_names()
                    .position(|n| n == current)
                    .unwrap_or(0);
                self.overlay = Overlay::Picker { cursor };
                self.playing = false;
            }
            Action::ToggleHelp => self.overlay = Overlay::Help,
            Action::Answer(answer) => self.answer(answer),
            Action::Quit => self.quit = true,
            Action::Tick(real_ms) => self.play(real_ms),
            Action::PickerUp | Action::PickerDown | Action::PickerChoose | Action::CloseOverlay => {
            }
        }
    }

    fn update_picker(&mut self, action: Action, cursor: usize) {
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

    fn load(&mut self, name: &str) {
        let Some(scenario) = Scenario::built_in(name) else {
            return;
        };
        let fencing = self.session.world().fencing();
        let check = self.session.world().fenced_check();
        let seed = scenario.seed;
        self.session = Session::new(Arc::new(scenario), seed, fencing, check);
        self.start_over();
        self.status = Some(format!("Loaded {name}. n steps through it."));
    }

    /// The lesson begins again: no question pending or answered, not playing.
    fn start_over(&mut self) {
        self.prediction = None;
        self.answered.clear();
        self.playing = false;
    }

    fn at_end(&self) -> bool {
        let scenario = self.session.scenario();
        scenario.chaos.is_none() && self.session.now() >= scenario.end
    }

    /// Moves forward to `t`, but stops before a beat that asks a question not yet answered: at
    /// the last moment something happens before it, so the class has seen everything leading up.
    fn go_forward(&mut self, t: Ms) {
        let now = self.session.now();
        let scenario = self.session.scenario().clone();
        let asking = scenario.beats.iter().enumerate().find(|(i, b)| {
            b.ask.is_some() && b.at > now && b.at <= t && !self.answered.contains(i)
        });
        let Some((beat, asked)) = asking else {
            self.prediction = None;
            self.session.seek(t);
            return;
        };
        while let Some(moment) = self.session.next_moment().filter(|&m| m < asked.at) {
            self.session.seek(moment);
        }
        self.prediction = Some(Prediction { beat, answer: None });
        self.playing = false;
    }

    fn answer(&mut self, answer: bool) {
        let Some(prediction) = self.prediction.as_mut() else {
            return;
        };
        if prediction.answer.is_some() {
            return;
        }
        prediction.answer = Some(answer);
        let beat = prediction.beat;
        self.answered.insert(beat);
        let at = self.session.scenario().beats[beat].at;
        self.session.seek(at);
    }

    fn play(&mut self, real_ms: Ms) {
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
