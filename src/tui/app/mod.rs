//! The model: one `App` whose `update` is the only place state changes. The view draws it.

use std::collections::BTreeSet;
use std::sync::Arc;

pub use super::action::{Action, Mode};
use super::keys;
use super::theme::Theme;
use crate::sim::lesson::{Caption, Lesson, RunView};
use crate::sim::time::fmt_seconds;
use crate::sim::{ClientId, InputKind, Ms, Scenario, Session, Setup};
use crate::{FenceCheck, Judge};

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
    /// treated as asked, since nobody is there to answer them.
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

    /// Shows or hides the compare view.
    pub fn set_compare(&mut self, on: bool) {
        self.compare = on;
    }

    /// The only place state changes.
    pub fn update(&mut self, action: Action) {
        if !matches!(action, Action::Tick(_)) {
            self.status = None;
        }
        match self.mode() {
            Mode::Help => return self.update_help(action),
            Mode::Picker => return self.update_picker(action),
            Mode::Question => {
                if let Some(done) = self.update_question(action) {
                    return done;
                }
            }
            Mode::Main => {}
        }
        match action {
            Action::StepForward => {
                if self.refuse_past_end() {
                    return;
                }
                self.go_forward(self.session.now() + self.step_ms());
            }
            Action::NextMoment => {
                if self.refuse_past_end() {
                    return;
                }
                let scenario = self.session.scenario();
                // A scripted lesson stops at its end, even with events due later.
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
            Action::StepBack => {
                let now = self.session.now();
                if now == 0 {
                    self.status = Some("Already at t = 0.0 s: there is nothing earlier.".into());
                    return;
                }
                self.prediction = None;
                self.session.seek(now.saturating_sub(self.step_ms()));
            }
            Action::TogglePlay => {
                if !self.playing && self.at_end() {
                    self.status = Some(self.end_note());
                    return;
                }
                self.playing = !self.playing;
                self.play_remainder = 0.0;
            }
            Action::SmallerStep => {
                if self.step == 0 {
                    self.status = Some(format!(
                        "The clock step is already the smallest, {} s.",
                        fmt_seconds(STEPS[0])
                    ));
                }
                self.step = self.step.saturating_sub(1);
            }
            Action::LargerStep => {
                if self.step + 1 == STEPS.len() {
                    self.status = Some(format!(
                        "The clock step is already the largest, {} s.",
                        fmt_seconds(STEPS[STEPS.len() - 1])
                    ));
                }
                self.step = (self.step + 1).min(STEPS.len() - 1);
            }
            Action::Faster => {
                if self.speed + 1 == SPEEDS.len() {
                    self.status = Some("Playback is already the fastest, 8x.".into());
                } else {
                    self.speed += 1;
                    self.status = Some(self.speed_note());
                }
            }
            Action::Slower => {
                if self.speed == 0 {
                    self.status = Some("Playback is already the slowest, 0.25x.".into());
                } else {
                    self.speed -= 1;
                    self.status = Some(self.speed_note());
                }
            }
            Action::Select(client) => {
                self.selected = client;
                let key = |action| keys::key_for(Mode::Main, action);
                self.status = Some(format!(
                    "{client} selected: {} pauses it, {} crashes it, {} delays its next write.",
                    key(Action::InjectPause),
                    key(Action::Crash),
                    key(Action::DelayWrite)
                ));
            }
            Action::InjectPause => self.inject_pause(),
            Action::Crash => self.inject_crash(),
            Action::DelayWrite => self.inject_delay(),
            Action::ToggleFencing => self.toggle_fencing(),
            Action::CycleCheck => self.cycle_check(),
            Action::ToggleCompare => {
                self.compare = !self.compare;
                self.status = Some(if self.compare {
                    "Compare view: the same writes sent to a fenced and an unfenced storage.".into()
                } else {
                    "Compare view off: the lock and the clients' storage.".into()
                });
            }
            Action::Restart => {
                self.session.restart();
                self.start_over();
                let fencing = if self.session.world().fencing() {
                    "on"
                } else {
                    "off"
                };
                self.status = Some(format!("Restarted from t = 0.0 s with fencing {fencing}."));
            }
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
            Action::Skip => {}
            Action::Quit => self.quit = true,
            Action::Tick(real_ms) => self.play(real_ms),
            Action::Unbound(key) => {
                self.status = Some(format!(
                    "The key {} does nothing here; press {} for every key.",
                    key_name(key),
                    keys::key_for(Mode::Main, Action::ToggleHelp)
                ))
            }
            Action::PickerUp
            | Action::PickerDown
            | Action::PickerChoose
            | Action::HelpNext
            | Action::HelpBack
            | Action::CloseOverlay => {}
        }
    }

    /// Keys while a question waits. `None`: the main table handles it.
    fn update_question(&mut self, action: Action) -> Option<()> {
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

    fn refuse_past_end(&mut self) -> bool {
        if self.at_end() {
            self.status = Some(self.end_note());
            return true;
        }
        false
    }

    /// The playback speed now, said when it changes (narrow headers do not show it).
    fn speed_note(&self) -> String {
        format!(
            "Playback speed {}x: {} plays and pauses.",
            SPEEDS[self.speed],
            keys::key_for(Mode::Main, Action::TogglePlay)
        )
    }

    fn end_note(&self) -> String {
        let end = fmt_seconds(self.session.scenario().end);
        let key = |action| keys::key_for(Mode::Main, action);
        let (restart, pick) = (key(Action::Restart), key(Action::OpenPicker));
        if self.on_student_code() {
            // f does nothing on a student's storage: it is not offered.
            return format!(
                "The lesson ended at {end} s: {restart} replays it, {pick} picks another."
            );
        }
        let other = if self.session.world().fencing() {
            "off"
        } else {
            "on"
        };
        format!(
            "The lesson ended at {end} s: {} turns fencing {other}, {restart} replays it, {pick} picks another.",
            key(Action::ToggleFencing)
        )
    }

    fn inject_pause(&mut self) {
        let client = self.selected;
        let world = self.session.world();
        let c = world.client(client);
        if c.is_down() {
            self.status = Some(format!(
                "{client} is down after a crash: a crashed process cannot pause."
            ));
            return;
        }
        let until = self.session.now() + self.session.scenario().injected_pause_ms();
        if let Some((_, frozen_until)) = c.pause.filter(|&(_, u)| u >= until) {
            // Pausing again would change nothing: say so rather than log the same pause twice.
            self.status = Some(format!(
                "{client} is already frozen until {} s.",
                fmt_seconds(frozen_until)
            ));
            return;
        }
        let until = c.pause.map_or(until, |(_, u)| u.max(until));
        self.status = Some(format!(
            "{client} freezes in a GC pause until {} s.",
            fmt_seconds(until)
        ));
        self.session.inject(InputKind::Pause { client });
    }

    fn inject_crash(&mut self) {
        let client = self.selected;
        let c = self.session.world().client(client);
        if let Some(back) = c.restart_at.filter(|_| c.is_down()) {
            self.status = Some(format!(
                "{client} is already down; it restarts at {} s.",
                fmt_seconds(back)
            ));
            return;
        }
        let back = self.session.now() + self.session.scenario().injected_down_ms();
        self.status = Some(format!(
            "{client} crashes; it restarts at {} s and must acquire again.",
            fmt_seconds(back)
        ));
        self.session.inject(InputKind::Crash { client });
    }

    fn inject_delay(&mut self) {
        let client = self.selected;
        let c = self.session.world().client(client);
        if c.is_down() {
            self.status = Some(format!("{client} is down after a crash: it sends nothing."));
            return;
        }
        let delay = fmt_seconds(self.session.scenario().injected_delay_ms());
        self.status = Some(format!(
            "The network will hold {client}'s next write for {delay} s."
        ));
        self.session.inject(InputKind::Delay { client });
    }

    fn toggle_fencing(&mut self) {
        if self.on_student_code() {
            self.status = Some(
                "Fencing stays as your code does it: your FencedStorage has its own rule.".into(),
            );
            return;
        }
        let on = !self.session.world().fencing();
        self.session.inject(crate::sim::InputKind::Fencing { on });
        self.status = Some(if on {
            "Fencing is ON from now on: the storage checks tokens again.".into()
        } else {
            "Fencing is OFF from now on: r replays the lesson without it.".into()
        });
    }

    fn cycle_check(&mut self) {
        if self.on_student_code() {
            self.status =
                Some("No check to switch: your FencedStorage applies the rule you wrote.".into());
            return;
        }
        let current = self.session.world().fenced_check();
        let next = match current {
            FenceCheck::PerKey => FenceCheck::Strict,
            FenceCheck::Strict => FenceCheck::Global,
            FenceCheck::Global | FenceCheck::Unchecked => FenceCheck::PerKey,
        };
        self.session.inject(InputKind::Check(next));
        let when = if self.session.world().fencing() {
            "from now on"
        } else {
            "once fencing is on (f)"
        };
        self.status = Some(format!(
            "Storage check {when}: {} ({}).",
            next.name(),
            next.rule()
        ));
    }

    fn load(&mut self, name: &str) {
        let Some(scenario) = Scenario::built_in(name) else {
            return;
        };
        let world = self.session.world();
        let setup = Setup::new(Arc::new(scenario))
            .fencing(world.fencing())
            .check(world.fenced_check())
            .backend(self.session.setup().backend.clone());
        self.session = Session::new(setup);
        self.lesson = Lesson::of(&self.session);
        self.start_over();
        self.status = Some(format!("Loaded {name}: n steps through it."));
    }

    /// The lesson begins again: no question pending or asked, not playing.
    fn start_over(&mut self) {
        self.prediction = None;
        self.asked.clear();
        self.playing = false;
    }

    /// Moves forward to `t`, but stops before a beat that asks a question not yet asked: at the
    /// last moment something happens before it, so the class has seen everything leading up.
    fn go_forward(&mut self, t: Ms) {
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
        while let Some(moment) = self.session.next_moment().filter(|&m| m < asked.at) {
            self.session.seek(moment);
        }
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

/// A key as the status line names it.
fn key_name(key: char) -> String {
    match key {
        ' ' => "space".into(),
        c if c.is_control() => format!("U+{:04X}", c as u32),
        c => format!("'{c}'"),
    }
}
