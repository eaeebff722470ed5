//! The text parts' data: the caption box, the event log and the footer's hints.

use crate::sim::lesson::{Source, Tone};
use crate::sim::time::fmt_seconds;
use crate::sim::{EventKind, World};
use crate::tui::app::{Action, App, Mode};
use crate::tui::keys::{self, Hint};
use crate::tui::theme::Role;
use crate::Outcome;

/// The caption box.
pub struct CaptionData {
    pub title: &'static str,
    pub text: String,
    pub role: Option<Role>,
    /// A second line: how to answer, for a question.
    pub prompt: Option<String>,
    /// Whether the prompt only repeats what the footer offers, so it may give way to the event
    /// log on a short screen.
    pub prompt_in_footer: bool,
}

/// One event line of the log.
pub struct EventLine {
    /// The time column.
    pub time: String,
    pub text: String,
    pub role: Option<Role>,
    pub fresh: bool,
}

/// The footer: a status note, or the mode's hints.
pub struct FooterData {
    pub status: Option<String>,
    pub lead: Option<&'static str>,
    pub hints: Vec<Hint>,
}

/// The most events a frame describes: the log never has more rows than the tallest screen the
/// view draws (the view asserts it at compile time).
pub const EVENTS_DESCRIBED: usize = 200;

pub(super) fn caption(app: &App) -> CaptionData {
    if let Some(why) = app.session().world().fault() {
        // The world halted where a student's program stopped answering: no caption of the
        // script may read as if the run went on.
        return CaptionData {
            title: " Stopped ",
            text: format!(
                "Your program stopped answering, so the run stops here: {}",
                crate::sim::text::printable(&why)
            ),
            role: Some(Role::Rejected),
            prompt: None,
            prompt_in_footer: false,
        };
    }
    let caption = app.caption();
    let chaos = app.session().scenario().chaos.is_some();
    let key = keys::key_for;
    let (title, prompt) = match caption.source {
        Source::Question { .. } => (
            " Question ",
            Some(format!(
                "Predict, then see: {} = accepted, {} = rejected, {} = skip the question.",
                key(Mode::Question, Action::Answer(true)),
                key(Mode::Question, Action::Answer(false)),
                key(Mode::Question, Action::Skip),
            )),
        ),
        Source::Reveal { .. } => (" Answer ", None),
        _ if chaos => (" Chaos ", None),
        Source::BeforeStart => (
            " Lesson ",
            Some(format!(
                "Press {} to begin.",
                key(Mode::Main, Action::NextMoment)
            )),
        ),
        _ => (" Lesson ", None),
    };
    CaptionData {
        title,
        role: match caption.tone {
            Tone::Plain => None,
            Tone::Rejected => Some(Role::Rejected),
            Tone::Corrupted => Some(Role::Corrupted),
            Tone::Question => Some(Role::Question),
        },
        text: caption.text,
        prompt_in_footer: matches!(caption.source, Source::Question { .. }) && !app.handout(),
        prompt,
    }
}

/// The latest events that could fit, oldest first, and how many earlier ones are left out: the
/// log shows at most one event a row, so a frame costs the same after ten minutes as after ten
/// seconds.
pub(super) fn events(app: &App, world: &World) -> (Vec<EventLine>, usize) {
    let all = world.events();
    let before = all.len().saturating_sub(EVENTS_DESCRIBED);
    let lines = all[before..]
        .iter()
        .map(|e| EventLine {
            time: fmt_seconds(e.t),
            text: e.describe(app.lesson().vocab()),
            role: event_role(&e.kind),
            fresh: e.t == world.now(),
        })
        .collect();
    (lines, before)
}

/// The mode's hints the app offers now: a command that cannot act, or does not exist in this
/// run, is left out; at a lesson's end what to do next comes first.
pub(super) fn footer(app: &App) -> FooterData {
    if app.handout() {
        return FooterData {
            status: None,
            lead: None,
            hints: Vec::new(),
        };
    }
    let mode = app.mode();
    let mut hints = keys::hints(mode);
    hints.retain_mut(|hint| {
        let info = app.command(hint.action);
        if info.urgent {
            hint.order = 0;
        }
        info.offered()
    });
    FooterData {
        status: app.status().map(str::to_owned),
        lead: (mode == Mode::Main && app.at_end()).then_some("lesson over:"),
        hints,
    }
}

pub(in crate::tui) fn event_role(kind: &EventKind) -> Option<Role> {
    Some(match kind {
        EventKind::Write { verdict, .. } => match verdict.outcome() {
            Outcome::Rejected => Role::Rejected,
            Outcome::Corrupted => Role::Corrupted,
            Outcome::Accepted => Role::Holding,
        },
        EventKind::Corruption { .. } => Role::Corrupted,
        EventKind::Grant { .. } => Role::Holding,
        EventKind::Pause { .. } | EventKind::Resume { .. } => Role::Paused,
        EventKind::Expire { .. }
        | EventKind::RenewRefused { .. }
        | EventKind::ReleaseRefused { .. }
        | EventKind::ClockJump { .. } => Role::Stale,
        EventKind::Crash { .. } | EventKind::Restart { .. } => Role::Crashed,
        EventKind::Differs { .. } => Role::Corrupted,
        EventKind::Fencing { .. } | EventKind::Check { .. } => Role::Title,
        EventKind::Send { .. } => Role::Waiting,
        _ => return None,
    })
}

/// A duration in a narrow column: one decimal, never more time left than there is ("<0.1 s"
/// for a sliver).
pub fn duration(ms: i64) -> String {
    if ms > 0 && ms < 100 {
        return "<0.1 s".into();
    }
    let tenths = ms.max(0) / 100;
    format!("{}.{} s", tenths / 10, tenths % 10)
}
