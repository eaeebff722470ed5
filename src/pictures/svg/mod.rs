//! The space-time diagram of a run, after Lamport's and Kleppmann's: one horizontal line per
//! actor (the lock service, the three clients, the storage), time left to right, messages as
//! arrows between the lines.
//!
//! What each mark says is read, never worked out: arrows and marks come from the events (a
//! write's mark from its [`Verdict`](crate::Verdict)'s outcome), lease bars from the history's
//! lanes (the lock service's lane is the truth; a client's lane is what it believes), and every
//! event carries its own sentence as a `<title>`. Labels that would collide are left out rather
//! than drawn on top of each other; the mark and its title stay.
//!
//! It reads in black and white: a lease is solid, a lease believed but gone is striped, a GC
//! pause dotted, a crash cross-hatched, a REJECTED write a white box with a heavy border, and
//! CORRUPTED DATA! a black box.
//!
//! Its files are layered one way, each using only those above it (a test keeps it so):
//!
//! 1. [`geometry`]: rectangles, a text's width and box, a text cut to fit.
//! 2. [`palette`]: the colours, patterns and arrowheads.
//! 3. [`window`]: the picture's size and the stretch of time it shows.
//! 4. [`placer`]: labels placed most important first, none on another.
//! 5. [`canvas`]: the picture being written.
//! 6. [`panel`]: one run's geometry, the time axis and the actors' lines.
//! 7. [`legend`]: which kinds of mark appear, and the legend row.
//! 8. [`lanes`]: the lease bars, belief beside truth, and the bands of pauses, crashes and waits.
//! 9. [`marks`]: each event's arrow or mark and its labels.

mod canvas;
mod geometry;
mod lanes;
mod legend;
mod marks;
mod palette;
mod panel;
mod placer;
mod window;

use super::words::settings_line;
use crate::sim::{ClientId, Session, Vocab};
use canvas::Svg;
use geometry::{Anchor, Rect};
use legend::Legend;
use panel::{Area, Panel, BUSY_SPACING, COMPACT_SPACING};
use placer::Tone;

pub use geometry::text_width;
use window::window_note;
pub use window::{Size, Window, LONG_RUN_WINDOW, WHOLE_RUN_MAX};

/// diagrams can share a page.
pub fn diagram(session: &Session, size: Size, window: Window, id: &str) -> String {
    let mut svg = Svg::new(size, id);
    let scenario = session.scenario();
    let title = format!("{}: {}", scenario.name, scenario.title);
    let subtitle = match window_note(session, window) {
        Some(note) => format!("{}. {note}", settings_line(session.setup())),
        None => settings_line(session.setup()),
    };
    let description = format!(
        "A space-time diagram of {title}: {subtitle}. One line per actor, time left to right, \
         messages as arrows. Every mark has its event's sentence as a title."
    );
    let top = svg.heading(&title, &subtitle);
    let legend_top = size.height as f64 - svg.font * 2.2;
    let mut legend = Legend::default();
    let area = Area {
        top,
        bottom: legend_top,
        heading: None,
    };
    svg.panel(session, window, area, &mut legend);
    svg.legend(&legend, legend_top);
    svg.finish(&title, &description)
}

/// The fenced run above the unfenced one, on one time axis: the same script, two storages.
pub fn compare(
    fenced: &Session,
    unfenced: &Session,
    size: Size,
    window: Window,
    id: &str,
) -> String {
    let mut svg = Svg::new(size, id);
    svg.font *= 0.9;
    let scenario = fenced.scenario();
    let title = format!("{}: {}", scenario.name, scenario.title);
    let subtitle = match window_note(fenced, window) {
        Some(note) => format!("The same script with fencing on (above) and off (below). {note}"),
        None => "The same script with fencing on (above) and off (below).".to_owned(),
    };
    let description = format!(
        "Two space-time diagrams of {title}, one above the other: {}; and {}.",
        settings_line(fenced.setup()),
        settings_line(unfenced.setup())
    );
    let top = svg.heading(&title, &subtitle);
    let legend_top = size.height as f64 - svg.font * 2.2;
    let half = (legend_top - top) / 2.0;
    let mut legend = Legend::default();
    for (i, session) in [fenced, unfenced].into_iter().enumerate() {
        let heading = settings_line(session.setup());
        let area = Area {
            top: top + half * i as f64,
            bottom: top + half * (i + 1) as f64,
            heading: Some(heading),
        };
        svg.panel(session, window, area, &mut legend);
    }
    svg.legend(&legend, legend_top);
    svg.finish(&title, &description)
}

impl Svg {
    /// One run's lanes, bars, arrows and marks inside `area`.
    fn panel(&mut self, session: &Session, window: Window, area: Area, legend: &mut Legend) {
        let f = self.font;
        let mut top = area.top;
        if let Some(heading) = &area.heading {
            self.text(f, top + f * 1.2, Anchor::Start, heading, f, Tone::Strong);
            top += f * 1.6;
        }
        let axis = area.bottom - f * 2.0;
        let gap = (axis - top) / 5.0;
        let lane = |i: usize| top + gap * (i as f64 + 0.5);
        let x0 = f * 8.6;
        let x1 = self.size.width as f64 - f * 1.6;
        let bar = (gap * 0.18).clamp(f * 0.8, f * 1.1);
        let events = session.world().events();
        let first = events.partition_point(|e| e.t < window.from);
        let shown = events[first..].partition_point(|e| e.t <= window.until);
        let spacing = (x1 - x0) / (shown.max(1) as f64);
        let compact = spacing < COMPACT_SPACING;
        self.compact = compact;
        let p = Panel {
            compact,
            busy: spacing < BUSY_SPACING,
            window,
            x0,
            x1,
            lock: lane(0),
            clients: [lane(1), lane(2), lane(3)],
            storage: lane(4),
            bar,
            font: f * 0.88,
            bounds: Rect {
                l: 2.0,
                t: top,
                r: self.size.width as f64 - 2.0,
                b: axis,
            },
        };
        if self.axis.is_none() {
            self.axis = Some((window, x0, x1, top, axis));
        }
        self.axis(&p, axis);
        self.actors(&p);
        let history = session.world().history();
        self.lock_bars(&p, history, session, legend);
        let locks = session.scenario().locks.len();
        for client in ClientId::ALL {
            self.client_lane(&p, history, locks, client, legend);
        }
        let vocab = Vocab::of(&session.scenario().locks, session.setup().system);
        for event in &events[first..] {
            if event.t > window.until {
                break;
            }
            self.event(&p, event, &vocab, legend);
        }
    }
}
