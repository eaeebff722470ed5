//! An asciicast v2 recording of the UI stepping through the lesson, a pause per step, for the
//! asciinema players slides embed. Each frame is the UI's own drawing of that moment; the last is
//! the screen `fencing-lab frame SCENARIO --at END` prints.

use std::fmt::Write as _;

use serde_json::json;

use super::screen::to_ansi;
use super::steps::{walk, StepKind};
use crate::sim::{Ms, Setup};
use crate::tui::{render_buffer, Theme};

/// How long each kind of step stays on screen, in seconds: long enough to read it aloud.
fn dwell(kind: StepKind) -> f64 {
    match kind {
        StepKind::Beat { .. } => 3.5,
        StepKind::Question { .. } => 6.0,
        StepKind::Reveal { .. } => 5.0,
        StepKind::Moment => 2.0,
        StepKind::End => 4.0,
    }
}

/// The recording of `setup`'s lesson up to `until` on a `width` x `height` terminal.
pub fn cast(setup: &Setup, until: Ms, width: u16, height: u16) -> String {
    let scenario = &setup.scenario;
    let header = json!({
        "version": 2,
        "width": width,
        "height": height,
        "title": format!("fencing-lab: {}: {}", scenario.name, scenario.title),
        "env": {"TERM": "xterm-256color"},
    });
    let mut out = format!("{header}\n");
    let mut clock = 0.0;
    walk(setup, until, Theme::colored(), false, None, |step, app| {
        let frame = to_ansi(&render_buffer(app, width, height));
        let _ = writeln!(out, "{}", json!([round(clock), "o", frame]));
        clock += dwell(step.kind);
    });
    // The last frame stays up for its dwell; the cursor comes back at the very end.
    let _ = writeln!(
        out,
        "{}",
        json!([round(clock), "o", "\u{1b}[0m\u{1b}[?25h"])
    );
    out
}

/// Seconds to the millisecond, so the file reads the same on every machine.
fn round(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}
