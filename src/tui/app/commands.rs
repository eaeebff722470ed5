//! What each command can do now, as data (gitui's `CommandInfo`): the footer offers only the
//! commands that are available and enabled, and a key that cannot act says why. Nothing here
//! matches a hint's words: the facts come from the session (a student's storage, a system with
//! no token, the lesson's end).

use super::{Action, App, Mode};
use crate::sim::time::fmt_seconds;
use crate::tui::keys;

/// Whether a command can act, and how much the footer should want to show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandInfo {
    /// It can act now: `n` and `→` cannot once a scripted lesson has ended.
    pub enabled: bool,
    /// It exists in this run at all: `f` and `v` do not on a student's storage (their rule is
    /// theirs) nor under a system with no token (there is nothing to check).
    pub available: bool,
    /// It is what to do next (at a lesson's end: fencing, restart, another lesson), so the
    /// footer keeps it before every other hint.
    pub urgent: bool,
}

impl CommandInfo {
    const READY: CommandInfo = CommandInfo {
        enabled: true,
        available: true,
        urgent: false,
    };

    /// Whether the footer offers it.
    pub fn offered(&self) -> bool {
        self.enabled && self.available
    }
}

impl App {
    /// What `action` can do now.
    pub fn command(&self, action: Action) -> CommandInfo {
        let over = self.at_end();
        match action {
            Action::ToggleFencing | Action::CycleCheck => CommandInfo {
                available: self.switches_fencing(),
                urgent: over && action == Action::ToggleFencing,
                ..CommandInfo::READY
            },
            Action::NextMoment | Action::StepForward => CommandInfo {
                enabled: !over,
                ..CommandInfo::READY
            },
            // Playing can always be paused; a lesson that has ended cannot play on.
            Action::TogglePlay => CommandInfo {
                enabled: self.is_playing() || !over,
                ..CommandInfo::READY
            },
            // Fenced beside unfenced means nothing where no token reaches the storage.
            Action::ToggleCompare => CommandInfo {
                available: self.session.setup().has_token(),
                ..CommandInfo::READY
            },
            Action::Restart | Action::OpenPicker => CommandInfo {
                urgent: over,
                ..CommandInfo::READY
            },
            _ => CommandInfo::READY,
        }
    }

    /// Whether fencing and the storage's check are the lecturer's to switch: not on a student's
    /// storage, nor under a system whose lock hands out no token.
    pub fn switches_fencing(&self) -> bool {
        !self.on_student_code() && self.session.setup().has_token()
    }

    /// The switches this run does not have (its footer leaves them out), and one sentence why,
    /// for the help: a lecturer reading the keys should not be offered a key that only refuses.
    pub fn missing_commands(&self) -> Option<(Vec<Action>, String)> {
        // Which commands a run lacks is `command`'s to say; the table gives their order.
        let missing: Vec<Action> = keys::keymap(Mode::Main)
            .iter()
            .map(|binding| binding.action)
            .filter(|&action| !self.command(action).available)
            .collect();
        let why = match self.session.setup().system.filter(|s| !s.has_token) {
            Some(system) => format!(
                "not in this run: {} hands out no fencing token, so there is no check to switch and no fenced storage to compare.",
                system.name
            ),
            None => "not in this run: your FencedStorage applies the rule you wrote.".to_owned(),
        };
        (!missing.is_empty()).then_some((missing, why))
    }

    /// Why `action` cannot act now, for the status line.
    pub(super) fn refusal(&self, action: Action) -> String {
        match action {
            Action::ToggleFencing | Action::CycleCheck | Action::ToggleCompare => {
                self.fixed_fencing_note(action)
            }
            _ => self.end_note(),
        }
    }

    /// Why `f` or `v` changes nothing in this run.
    fn fixed_fencing_note(&self, action: Action) -> String {
        match self.session.setup().system.filter(|s| !s.has_token) {
            Some(system) => {
                let why = match action {
                    Action::ToggleFencing => "nothing to check, so fencing stays off",
                    Action::CycleCheck => "there is no check to switch",
                    _ => "no fenced storage to compare",
                };
                format!("{} has no fencing token: {why}.", system.name)
            }
            None if action == Action::ToggleFencing => {
                "Fencing stays as your code does it: your FencedStorage has its own rule.".into()
            }
            None => "No check to switch: your FencedStorage applies the rule you wrote.".into(),
        }
    }

    /// What to do once a scripted lesson has ended, from the keys that still act.
    pub(super) fn end_note(&self) -> String {
        let end = fmt_seconds(self.session.scenario().end);
        let key = |action| keys::key_for(Mode::Main, action);
        let (restart, pick) = (key(Action::Restart), key(Action::OpenPicker));
        if !self.switches_fencing() {
            // f does nothing here: it is not offered.
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
}
