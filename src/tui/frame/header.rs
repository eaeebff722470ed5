//! The header's data: fencing, the storage's rule and the time, always; then the fields that give
//! way on a narrow screen; the scenario and where the lesson is.

use crate::sim::text::counted;
use crate::sim::time::{fmt_seconds, fmt_signed};
use crate::sim::World;
use crate::tui::app::App;
use crate::tui::theme::Role;
use crate::Judge;

/// One field of the header's first line; fields are dropped from the end when narrow.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub text: String,
    pub role: Option<Role>,
}

/// The header.
#[derive(Clone, Debug, PartialEq)]
pub struct HeaderData {
    /// Most important first: the first [`HEADER_KEPT`] never give way, the rest give way from
    /// the end (service clock, play state, step, speed).
    pub fields: Vec<Field>,
    pub name: String,
    pub title: String,
    pub short_title: String,
    pub progress: String,
    /// What takes `progress`'s place when the short title would not fit beside it.
    pub short_progress: String,
}

/// How many header fields never give way: fencing, the storage's rule and the time.
pub const HEADER_KEPT: usize = 3;

pub(super) fn header(app: &App) -> HeaderData {
    let world = app.session().world();
    let scenario = world.scenario();
    let vocab = app.lesson().vocab();
    let mut fields = vec![
        fencing_field(world),
        Field {
            text: rule(app, world),
            role: None,
        },
        Field {
            text: format!("t = {} s", fmt_seconds(world.now())),
            role: None,
        },
    ];
    if world.service_offset() != 0 {
        fields.push(Field {
            text: format!("service clock {} s", fmt_signed(world.service_now())),
            role: Some(Role::Stale),
        });
    }
    if !app.handout() {
        fields.extend(playback_fields(app));
    }
    HeaderData {
        fields,
        name: scenario.name.clone(),
        title: vocab.say_script(&scenario.title),
        short_title: vocab.say_script(&scenario.short_title),
        progress: progress(app, world),
        short_progress: progress(app, world),
    }
}

/// " FENCING ON ", " FENCING OFF ", or, on a student's storage, " YOUR CODE ": whether the
/// tokens fence anything is what their code decides, so the header does not claim it.
fn fencing_field(world: &World) -> Field {
    let (text, role) = match (world.judge(), world.fencing()) {
        (Judge::External, _) => (" YOUR CODE ", Role::Title),
        (_, true) => (" FENCING ON ", Role::FencingOn),
        (_, false) => (" FENCING OFF ", Role::FencingOff),
    };
    Field {
        text: text.into(),
        role: Some(role),
    }
}

/// The storage's rule in the lesson's words; with `--as`, the system's name first, and for a
/// system with no token, that it has nothing to check.
fn rule(app: &App, world: &World) -> String {
    let vocab = app.lesson().vocab();
    let rule = match world.judge() {
        Judge::External => "your FencedStorage judges the tokens".to_owned(),
        Judge::Check(check) => vocab.say(check.rule()),
    };
    match vocab.system {
        Some(system) if !system.has_token => format!("{}: no token to check", system.name),
        Some(system) => format!("{}: {rule}", system.name),
        None => rule,
    }
}

/// Play state, clock step and speed: for the screen, not for paper.
fn playback_fields(app: &App) -> [Field; 3] {
    let plain = |text: String| Field { text, role: None };
    [
        plain(if app.is_playing() {
            "▶ playing".into()
        } else {
            "❚❚ paused".into()
        }),
        plain(format!("step {} s", fmt_seconds(app.step_ms()))),
        plain(format!("speed {}x", app.speed())),
    ]
}

/// "beat 8 of 13", "13 beats" before the first, "chaos, seed 1"; "COMPARE · " in front in the
/// compare view.
fn progress(app: &App, world: &World) -> String {
    let scenario = world.scenario();
    let progress = match (scenario.chaos.is_some(), scenario.beat_at(world.now())) {
        (true, _) => format!("chaos, seed {}", app.session().seed()),
        (false, Some(i)) => format!("beat {} of {}", i + 1, scenario.beats.len()),
        (false, None) => counted(scenario.beats.len() as u64, "beat", "beats"),
    };
    if app.compare() {
        format!("COMPARE · {progress}")
    } else {
        progress
    }
}
