//! The lesson walked the way a class sees it in the UI: the app is driven with its own actions
//! (`n` from moment to moment, an answer or a skip at the question), and each step is the app as
//! it stands then. The cast records these steps and the page shows them.

use crate::sim::{Ms, Session, Setup};
use crate::tui::{Action, App, Mode, Theme};
use crate::Outcome;

/// What a step shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// Beat `beat`'s moment, after it happened.
    Beat { beat: usize },
    /// The last moment before beat `beat`, whose question waits for a prediction.
    Question { beat: usize },
    /// Beat `beat`'s write judged after its question: what the reader said (`None`: skipped).
    Reveal { beat: usize, said: Option<bool> },
    /// After the script: a moment the storage rejected a write or let one corrupt.
    Moment,
    /// The end of the run, exactly as `fencing-lab frame --at END` draws it.
    End,
}

/// One step of the walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub t: Ms,
    pub kind: StepKind,
}

/// The app of `setup` travelled to `at`, as `fencing-lab frame` shows it.
pub fn app_at(setup: Setup, at: Ms, theme: Theme, compare: bool) -> App {
    let mut app = App::new(Session::new(setup), theme);
    app.seek(at);
    app.set_compare(compare);
    app
}

/// The moments a walk stops at, up to `until`: every beat's, then every instant after the last
/// beat at which the storage rejected a write or let one corrupt (a chaos run's story: the
/// moments fencing acts, or should have).
fn targets(setup: &Setup, until: Ms) -> Vec<Ms> {
    let scenario = &setup.scenario;
    let mut targets: Vec<Ms> = scenario
        .beats
        .iter()
        .map(|b| b.at)
        .filter(|&at| at <= until)
        .collect();
    targets.dedup();
    let last_beat = targets.last().copied();
    let played = Session::played_to(setup.clone(), until);
    for event in played.world().events() {
        let notable = event
            .kind
            .verdict()
            .is_some_and(|v| v.outcome() != Outcome::Accepted);
        if notable && last_beat.is_none_or(|b| event.t > b) && targets.last() != Some(&event.t) {
            targets.push(event.t);
        }
    }
    targets
}

/// Walks `setup`'s lesson to `until` in an app drawn with `theme` (for paper with `handout`),
/// calling `visit` at each step. A waiting question gets `answer` (`None`: skipped, as `n` does
/// in the UI). The last step is the end, from a fresh app travelled there.
pub fn walk(
    setup: &Setup,
    until: Ms,
    theme: Theme,
    handout: bool,
    answer: Option<bool>,
    mut visit: impl FnMut(Step, &App),
) {
    // The moments first: finding them plays the run whole, which on a student's program is best
    // done before the walk's own run begins (runs alive at once make the program replay).
    let targets = targets(setup, until);
    let mut app = App::new(Session::new(setup.clone()), theme);
    app.set_handout(handout);
    'walk: for target in targets {
        let mut revealed_at = None;
        loop {
            if app.mode() == Mode::Question {
                let Some(prediction) = app.prediction() else {
                    break;
                };
                let beat = prediction.beat;
                visit(
                    Step {
                        t: app.session().now(),
                        kind: StepKind::Question { beat },
                    },
                    &app,
                );
                app.update(answer.map_or(Action::Skip, Action::Answer));
                let t = app.session().now();
                visit(
                    Step {
                        t,
                        kind: StepKind::Reveal { beat, said: answer },
                    },
                    &app,
                );
                revealed_at = Some(t);
                continue;
            }
            let now = app.session().now();
            if now >= target {
                break;
            }
            match app.session().next_moment() {
                Some(moment) if moment <= target => app.update(Action::NextMoment),
                // Nothing is due before the target: the clock moves on to it.
                _ => app.seek(target),
            }
            if app.session().now() == now && app.mode() != Mode::Question {
                // The run stopped where a student's program stopped answering: nothing after
                // it is told.
                break 'walk;
            }
        }
        if revealed_at == Some(target) || target >= until {
            continue;
        }
        let kind = match app.session().scenario().beat_at(target) {
            Some(beat) if app.session().scenario().beats[beat].at == target => {
                StepKind::Beat { beat }
            }
            _ => StepKind::Moment,
        };
        visit(Step { t: target, kind }, &app);
    }
    let mut end = app_at(setup.clone(), until, theme, false);
    end.set_handout(handout);
    visit(
        Step {
            t: until,
            kind: StepKind::End,
        },
        &end,
    );
}
