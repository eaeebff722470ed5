//! What the lecturer changes: which client the keys act on, a pause, a crash or a delay for
//! it, fencing and the storage's check, the compare view, a restart and another scenario. Each
//! change to the world is a session input, so it is recorded and replays exactly.

use std::sync::Arc;

use super::{Action, App, Mode};
use crate::sim::lesson::Lesson;
use crate::sim::time::fmt_seconds;
use crate::sim::{ClientId, InputKind, Scenario, Session};
use crate::tui::keys;
use crate::FenceCheck;

fn key(action: Action) -> String {
    keys::key_for(Mode::Main, action)
}

impl App {
    pub(super) fn select(&mut self, client: ClientId) {
        self.selected = client;
        self.status = Some(format!(
            "{client} selected: {} pauses it, {} crashes it, {} delays its next write.",
            key(Action::InjectPause),
            key(Action::Crash),
            key(Action::DelayWrite)
        ));
    }

    pub(super) fn inject_pause(&mut self) {
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
        if let Some(frozen_until) = c.frozen_until().filter(|&u| u >= until) {
            // Pausing again would change nothing: say so rather than log the same pause twice.
            self.status = Some(format!(
                "{client} is already frozen until {} s.",
                fmt_seconds(frozen_until)
            ));
            return;
        }
        let until = c.frozen_until().map_or(until, |u| u.max(until));
        self.status = Some(format!(
            "{client} freezes in a GC pause until {} s.",
            fmt_seconds(until)
        ));
        self.session.inject(InputKind::Pause { client });
    }

    pub(super) fn inject_crash(&mut self) {
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

    pub(super) fn inject_delay(&mut self) {
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

    /// `f`, where fencing is the lecturer's to switch (the command says where it is not).
    pub(super) fn toggle_fencing(&mut self) {
        let on = !self.session.world().fencing();
        self.session.inject(InputKind::Fencing { on });
        let note = if on {
            "Fencing is ON from now on: the storage checks tokens again.".to_owned()
        } else {
            format!(
                "Fencing is OFF from now on: {} replays the lesson without it.",
                key(Action::Restart)
            )
        };
        self.status = Some(self.lesson.vocab().say_owned(note));
    }

    /// `v`: the next of the checks a lesson shows.
    pub(super) fn cycle_check(&mut self) {
        let next = match self.session.world().fenced_check() {
            FenceCheck::PerKey => FenceCheck::Strict,
            FenceCheck::Strict => FenceCheck::Global,
            FenceCheck::Global | FenceCheck::Unchecked => FenceCheck::PerKey,
        };
        self.session.inject(InputKind::Check(next));
        let when = if self.session.world().fencing() {
            "from now on".to_owned()
        } else {
            format!("once fencing is on ({})", key(Action::ToggleFencing))
        };
        self.status = Some(format!(
            "Storage check {when}: {} ({}).",
            next.name(),
            self.lesson.vocab().say(next.rule())
        ));
    }

    pub(super) fn toggle_compare(&mut self) {
        self.compare = !self.compare;
        self.status = Some(if self.compare {
            "Compare view: the same writes sent to a fenced and an unfenced storage.".into()
        } else {
            "Compare view off: the lock and the clients' storage.".into()
        });
    }

    /// `r`: from t = 0 with the same seed, fencing and check; the note names both.
    pub(super) fn restart(&mut self) {
        self.session.restart();
        self.start_over();
        self.status = Some(format!("Restarted at t = 0.0 s: {}.", self.settings_note()));
    }

    /// "fencing on, check strict (token > highest(key))": the settings the run starts with.
    fn settings_note(&self) -> String {
        let world = self.session.world();
        if self.on_student_code() {
            return "your code judges the writes".into();
        }
        if let Some(system) = self.session.setup().system.filter(|s| !s.has_token) {
            return format!("unfenced, {} has no fencing token", system.name);
        }
        let check = world.fenced_check();
        let note = if world.fencing() {
            format!("fencing on, check {} ({})", check.name(), check.rule())
        } else {
            format!("fencing off (check {} once it is on)", check.name())
        };
        self.lesson.vocab().say_owned(note)
    }

    /// Loads scenario `name` with every setting of this run kept: fencing, the check, the seed,
    /// the implementation and the system.
    pub(super) fn load(&mut self, name: &str) {
        let Some(scenario) = Scenario::built_in(name) else {
            return;
        };
        let world = self.session.world();
        let setup = self
            .session
            .setup()
            .with_scenario(Arc::new(scenario))
            .fencing(world.fencing())
            .check(world.fenced_check());
        self.session = Session::new(setup);
        self.lesson = Lesson::of(&self.session);
        self.start_over();
        self.status = Some(format!(
            "Loaded {name}: {} steps through it.",
            key(Action::NextMoment)
        ));
    }
}
