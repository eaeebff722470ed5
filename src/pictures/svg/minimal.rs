//! The minimal slide, close to Kleppmann's figure: the lesson up to the storage's verdict on the
//! write its question asks about, with only the clients in the story by then (those that held a
//! lock or wrote), so no refused bystander and no redo after the verdict. And the check that a
//! lane left out (`--actors`) hides nothing a verdict drawn depends on.

use super::Actors;
use crate::sim::lesson::{Lesson, RunView};
use crate::sim::time::fmt_seconds;
use crate::sim::{ClientId, EventKind, Ms, Session};
use crate::Outcome;

/// Where the minimal slide ends: the verdict on the first write a question asks about, the
/// latest of `runs` (played to their end). `None` when no run has such a write.
pub fn question_verdict(runs: &[&Session]) -> Option<Ms> {
    runs.iter()
        .filter_map(|run| {
            Lesson::of(run)
                .asked_writes(RunView::of(run))
                .iter()
                .map(|write| write.t)
                .min()
        })
        .max()
}

/// The clients in the story up to `until`: each that was granted or renewed a lock, or wrote,
/// in any of `runs`. The lock service and the storage are always drawn.
pub fn story_actors(runs: &[&Session], until: Ms) -> Actors {
    let mut clients = [false; 3];
    let events = runs
        .iter()
        .flat_map(|run| run.world().events().iter().take_while(|e| e.t <= until));
    for event in events {
        let in_story = matches!(
            event.kind,
            EventKind::Grant { .. }
                | EventKind::Renew { .. }
                | EventKind::Send { .. }
                | EventKind::Write { .. }
        );
        if let (true, Some(client)) = (in_story, event.kind.client()) {
            clients[client.index()] = true;
        }
    }
    (clients, true)
}

/// The minimal slide's axis: from 0 to a whole second at least one past `verdict`, so the
/// verdict's mark has room on its right.
pub fn question_axis(verdict: Ms) -> (Ms, Ms) {
    (0, (verdict / 1000 + 2) * 1000)
}

/// Refuses lanes that leave out a client whose write the storage took (accepted or let
/// corrupt) by `until`: a later verdict compares with its token, so the slide would show a
/// comparison with a write it does not draw.
pub fn check_left_out(runs: &[&Session], (clients, _): Actors, until: Ms) -> Result<(), String> {
    for run in runs {
        for event in run.world().events().iter().take_while(|e| e.t <= until) {
            let (EventKind::Write { client, .. }, Some(verdict)) =
                (&event.kind, event.kind.verdict())
            else {
                continue;
            };
            if !clients[client.index()] && verdict.outcome() != Outcome::Rejected {
                return Err(format!(
                    "--actors leaves out {client}, but the storage took its write at {} s and \
                     later verdicts compare with its token: add {}",
                    fmt_seconds(event.t),
                    client.index() + 1
                ));
            }
        }
    }
    Ok(())
}

/// "Not drawn: client-3 (1 event)": the clients that have events in the window but no lane.
pub(super) fn left_out_note(events: &[crate::sim::Event], (clients, _): Actors) -> Option<String> {
    let left: Vec<String> = ClientId::ALL
        .iter()
        .filter(|c| !clients[c.index()])
        .filter_map(|&c| {
            let n = events.iter().filter(|e| e.kind.client() == Some(c)).count();
            (n > 0).then(|| format!("{c} ({n} event{})", if n == 1 { "" } else { "s" }))
        })
        .collect();
    (!left.is_empty()).then(|| format!("Not drawn: {}", left.join(", ")))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::sim::{Scenario, Setup};

    fn played(name: &str) -> Session {
        let scenario = Arc::new(Scenario::built_in(name).expect("built in"));
        let end = scenario.end;
        Session::played_to(Setup::new(scenario), end)
    }

    #[test]
    fn gc_pause_ends_at_the_stale_writes_verdict_with_the_two_clients_that_held_the_lock() {
        let run = played("gc-pause");
        assert_eq!(question_verdict(&[&run]), Some(16_500));
        assert_eq!(story_actors(&[&run], 16_500), ([true, true, false], true));
        assert_eq!(question_verdict(&[&played("chaos")]), None);
    }

    #[test]
    fn a_lane_left_out_may_hide_a_refused_ask_but_not_a_write_the_storage_took() {
        let run = played("gc-pause");
        assert_eq!(
            check_left_out(&[&run], ([true, true, false], true), 23_000),
            Ok(())
        );
        let err = check_left_out(&[&run], ([true, false, true], true), 23_000).unwrap_err();
        assert!(err.contains("client-2") && err.contains("12.0 s"), "{err}");
    }
}
