//! The picture's size and the stretch of time it shows.

use crate::sim::time::fmt_seconds;
use crate::sim::{Ms, Session};
use crate::Outcome;

/// A picture's size in pixels (the SVG's view box).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

impl Size {
    /// A 16:9 slide.
    pub const DEFAULT: Size = Size {
        width: 1280,
        height: 720,
    };
    /// The smallest picture whose lanes and labels still fit.
    pub const MIN: Size = Size {
        width: 640,
        height: 360,
    };
    /// The longest side allowed.
    pub const MAX_SIDE: u32 = 10_000;

    /// `width` x `height`, if it is within the limits; else why not, as a sentence.
    pub fn new(width: u32, height: u32) -> Result<Size, String> {
        if width < Size::MIN.width
            || height < Size::MIN.height
            || width > Size::MAX_SIDE
            || height > Size::MAX_SIDE
        {
            return Err(format!(
                "a picture of {width}x{height} pixels does not fit: it takes {}x{} to {max}x{max}",
                Size::MIN.width,
                Size::MIN.height,
                max = Size::MAX_SIDE
            ));
        }
        Ok(Size { width, height })
    }
}

/// The longest run drawn whole when no window is asked for.
pub const WHOLE_RUN_MAX: Ms = 40_000;
/// How much of a longer run the default window shows.
pub const LONG_RUN_WINDOW: Ms = 30_000;
/// How long before the first rejected or corrupting write the default window opens.
const LEAD: Ms = 5_000;

/// The stretch of time a diagram shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub from: Ms,
    pub until: Ms,
}

impl Window {
    /// The window of runs played to `until`: from `from` when given; else the whole run when it
    /// is short enough to read, else [`LONG_RUN_WINDOW`] opening a little before the first write
    /// any of the runs rejected or let corrupt (the moment worth a slide), or at the start.
    pub fn choose(runs: &[&Session], from: Option<Ms>, until: Ms) -> Window {
        if let Some(from) = from {
            return Window { from, until };
        }
        if until <= WHOLE_RUN_MAX {
            return Window { from: 0, until };
        }
        let notable = runs
            .iter()
            .flat_map(|s| s.world().events())
            .filter(|e| e.t <= until)
            .filter(|e| {
                e.kind
                    .verdict()
                    .is_some_and(|v| v.outcome() != Outcome::Accepted)
            })
            .map(|e| e.t)
            .min()
            .unwrap_or(0);
        // On a whole second, so the axis and the note read plainly.
        let from = (notable.saturating_sub(LEAD) / 1000 * 1000).min(until - LONG_RUN_WINDOW);
        Window {
            from,
            until: from + LONG_RUN_WINDOW,
        }
    }

    /// A window fixed from `from` to `until` whatever the run's length, so the slides of one
    /// run played to different moments (`--axis` with `--until`) share their axis.
    pub fn fixed(from: Ms, until: Ms) -> Window {
        Window { from, until }
    }

    pub(super) fn len(&self) -> Ms {
        (self.until - self.from).max(1)
    }
}

/// "Showing 12.0 to 42.0 s of a run played to 600.0 s", when the window is not the whole run;
/// "Played to 9.0 s, on an axis of 0.0 to 23.0 s", when the axis runs past the run's end.
pub(super) fn window_note(session: &Session, window: Window) -> Option<String> {
    let played = session.now();
    if window.until > played {
        return Some(format!(
            "Played to {} s, on an axis of {} to {} s (--axis)",
            fmt_seconds(played),
            fmt_seconds(window.from),
            fmt_seconds(window.until)
        ));
    }
    (window.from != 0 || window.until != played).then(|| {
        format!(
            "Showing {} to {} s of a run played to {} s (--from and --until choose)",
            fmt_seconds(window.from),
            fmt_seconds(window.until),
            fmt_seconds(played)
        )
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::sim::{Scenario, Setup};

    fn played(name: &str, until: Ms) -> Session {
        let scenario = Arc::new(Scenario::built_in(name).expect("built in"));
        Session::played_to(Setup::new(scenario), until)
    }

    #[test]
    fn a_short_run_is_shown_whole_and_a_long_one_from_before_its_first_refused_write() {
        let short = played("gc-pause", 23_000);
        assert_eq!(
            Window::choose(&[&short], None, 23_000),
            Window::fixed(0, 23_000)
        );
        assert_eq!(window_note(&short, Window::fixed(0, 23_000)), None);
        let long = played("chaos", 600_000);
        let window = Window::choose(&[&long], None, 600_000);
        assert_eq!(window.len(), LONG_RUN_WINDOW);
        assert_eq!(window.from % 1000, 0, "on a whole second");
        let note = window_note(&long, window).unwrap();
        assert!(note.starts_with("Showing "), "{note}");
    }

    #[test]
    fn a_fixed_axis_past_the_runs_end_says_how_far_the_run_was_played() {
        let early = played("gc-pause", 9_000);
        let note = window_note(&early, Window::fixed(0, 23_000)).unwrap();
        assert_eq!(
            note,
            "Played to 9.0 s, on an axis of 0.0 to 23.0 s (--axis)"
        );
    }
}
