//! The space-time diagram of a run, after Lamport's and Kleppmann's: one horizontal line per
//! actor (the lock service, the three clients, the storage), time left to right, messages as
//! arrows between the lines.
//!
//! What each mark says is read, never worked out: arrows and marks come from the events (a
//! write's mark from its [`Verdict`](crate::Verdict)'s outcome, an honest refusal from the
//! write's own [`honest_refusal`](crate::sim::EventKind::honest_refusal)), their words from the
//! one phrase table ([`crate::sim::phrase`]) in the vocabulary of the system in force, lease
//! bars from the simulation's lanes (the lock service's lane is the truth; a client's belief
//! lane, [`crate::sim::lesson::belief_lane`], is what it believes, the record the UI's lane is
//! drawn from), and every event carries its own sentence as a `<title>`. Labels are placed last,
//! clear of each other and of every mark and line; a label that would collide is left out (its
//! mark and title stay) unless a caption depends on it.
//!
//! It reads in black and white: a lease is solid, a lease believed but gone is striped, a GC
//! pause dotted, a crash cross-hatched, a REJECTED write a white box with a heavy border (dashed
//! when the writer's lease was live), and CORRUPTED DATA! a black box.
//!
//! Its files are layered one way, each using only those above it (a test keeps it so):
//!
//! 1. [`geometry`]: rectangles and lines, a text's width and box, a text cut to fit.
//! 2. [`palette`]: the colours, patterns and arrowheads.
//! 3. [`window`]: the picture's size and the stretch of time it shows.
//! 4. [`placer`]: the label placer: labels clear of each other and of every mark.
//! 5. [`canvas`]: the picture being written, its labels drawn last.
//! 6. [`panel`]: one run's geometry, the time axis and the actors' lines.
//! 7. [`spots`]: where a label may go beside each kind of mark.
//! 8. [`legend`]: which kinds of mark appear, and the legend that names them.
//! 9. [`lanes`]: the lease bars, belief beside truth, and the bands of pauses, crashes and waits.
//! 10. [`strokes`]: arrows, diamonds and ticks, each an obstacle to labels; queueing a label.
//! 11. [`verdicts`]: a write's arrow and verdict, with the labels that must stay.
//! 12. [`marks`]: each event's arrow or mark and its labels; crowds of refused asks.
//! 13. [`minimal`]: the minimal slide's end and actors, and what a lane left out may hide.

mod canvas;
mod geometry;
mod lanes;
mod legend;
mod marks;
mod minimal;
mod palette;
mod panel;
mod placer;
mod spots;
mod strokes;
mod verdicts;
mod window;

use super::words::settings_line;
use crate::sim::lesson::{Lesson, RunView};
use crate::sim::time::fmt_seconds;
use crate::sim::{ClientId, Event, LaneState, Session, Vocab};
use crate::Outcome;
use canvas::Svg;
use geometry::Anchor;
use legend::{Counts, Legend};
use marks::{crowds, Context};
use panel::{Area, Panel};
use placer::Tone;

pub use geometry::text_width;
use minimal::left_out_note;
pub use minimal::{check_left_out, question_axis, question_verdict, story_actors};
use window::window_note;
pub use window::{Size, Window, LONG_RUN_WINDOW, WHOLE_RUN_MAX};

/// How a diagram is drawn, beyond its size and window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Leave out the clients (and the storage) with nothing in the window: no event, no lease,
    /// no pause or wait (`--hide-idle`).
    pub hide_idle: bool,
    /// The actors to show whatever the run shows so far: with `hide_idle`, those of the last
    /// slide of a build, so every slide has the same lanes at the same heights; else the lanes
    /// asked for (`--actors`, `--minimal`). A client without a lane has none of its events
    /// drawn, and the subtitle says so.
    pub actors: Option<Actors>,
    /// The run was played to the verdict on the write its question asks about (`--minimal`).
    pub to_question: bool,
}

/// Which clients (by number, from 1) and whether the storage have a lane.
pub type Actors = ([bool; 3], bool);

/// The diagram of one run, seen through `window`. `id` prefixes the SVG's ids, so several
/// diagrams can share a page.
pub fn diagram(session: &Session, size: Size, window: Window, id: &str) -> String {
    diagram_with(session, size, window, id, Options::default())
}

/// [`diagram`], drawn with `options`.
pub fn diagram_with(
    session: &Session,
    size: Size,
    window: Window,
    id: &str,
    options: Options,
) -> String {
    let scenario = session.scenario();
    let vocab = vocab_of(session);
    let title = format!("{}: {}", scenario.name, vocab.say_script(&scenario.title));
    let notes = notes(&[session], window, options);
    let subtitle = match notes {
        Some(note) => format!("{}. {note}", settings_line(session.setup())),
        None => settings_line(session.setup()),
    };
    let description = format!(
        "A space-time diagram of {title}: {subtitle}. One line per actor, time left to right, \
         messages as arrows. Every mark has its event's sentence as a title."
    );
    let texts = Texts {
        title,
        subtitle,
        description,
    };
    draw(&[(session, None)], size, window, id, options, &texts)
}

/// The fenced run above the unfenced one, on one time axis: the same script, two storages.
pub fn compare(
    fenced: &Session,
    unfenced: &Session,
    size: Size,
    window: Window,
    id: &str,
) -> String {
    compare_with(fenced, unfenced, size, window, id, Options::default())
}

/// [`compare`], drawn with `options`.
pub fn compare_with(
    fenced: &Session,
    unfenced: &Session,
    size: Size,
    window: Window,
    id: &str,
    options: Options,
) -> String {
    let scenario = fenced.scenario();
    let vocab = vocab_of(fenced);
    let title = format!("{}: {}", scenario.name, vocab.say_script(&scenario.title));
    let subtitle = match notes(&[fenced, unfenced], window, options) {
        Some(note) => format!("The same script with fencing on (above) and off (below). {note}"),
        None => "The same script with fencing on (above) and off (below).".to_owned(),
    };
    let description = format!(
        "Two space-time diagrams of {title}, one above the other: {}; and {}.",
        settings_line(fenced.setup()),
        settings_line(unfenced.setup())
    );
    let texts = Texts {
        title,
        subtitle,
        description,
    };
    let runs = [
        (fenced, Some(settings_line(fenced.setup()))),
        (unfenced, Some(settings_line(unfenced.setup()))),
    ];
    draw(&runs, size, window, id, options, &texts)
}

/// What the subtitle says beyond the settings: how far the run was played and through which
/// window, and which clients with events have no lane.
fn notes(runs: &[&Session], window: Window, options: Options) -> Option<String> {
    let played = if options.to_question {
        let at = runs[0].now();
        Some(format!(
            "To the asked write's verdict at {} s (--minimal)",
            fmt_seconds(at)
        ))
    } else {
        window_note(runs[0], window)
    };
    let left_out = runs.iter().find_map(|run| {
        let lanes = lanes_of(run, window, options);
        left_out_note(shown(run.world().events(), window), lanes)
    });
    match (played, left_out) {
        (Some(a), Some(b)) => Some(format!("{a}. {b}")),
        (a, b) => a.or(b),
    }
}

/// Which clients (and whether the storage) have a line: those asked for, or with `hide_idle`
/// those with something in the window, or all.
fn lanes_of(session: &Session, window: Window, options: Options) -> Actors {
    match (options.actors, options.hide_idle) {
        (Some(actors), _) => actors,
        (None, true) => busy_actors(session, window),
        (None, false) => ([true; 3], true),
    }
}

/// Whether `event` is drawn on lanes `actors`: not when it is a client's without a lane.
fn on_lanes(event: &Event, (clients, _): Actors) -> bool {
    event.kind.client().is_none_or(|c| clients[c.index()])
}

/// A picture's title, subtitle and description.
struct Texts {
    title: String,
    subtitle: String,
    description: String,
}

fn vocab_of(session: &Session) -> Vocab {
    let scenario = session.scenario();
    Vocab::of(&scenario.locks, session.setup().system).writing(&scenario.keys())
}

/// The runs one above the other, each under its heading, with one legend: in one row if it fits,
/// else drawn again with two.
fn draw(
    runs: &[(&Session, Option<String>)],
    size: Size,
    window: Window,
    id: &str,
    options: Options,
    texts: &Texts,
) -> String {
    let vocab = vocab_of(runs[0].0);
    // A slide of a build keeps room for two rows of legend, whatever it shows so far: a legend
    // that grew a row would lower every lane of the slides after it.
    let mut rows = if options.hide_idle && options.actors.is_some() {
        2
    } else {
        1
    };
    loop {
        let mut svg = Svg::new(size, id);
        if runs.len() > 1 {
            svg.font *= 0.9;
        }
        let top = svg.heading(&texts.title, &texts.subtitle);
        let legend_top = size.height as f64 - svg.font * (2.2 + 1.35 * (rows - 1) as f64);
        let share = (legend_top - top) / runs.len() as f64;
        let mut legend = Legend::default();
        let mut crowded = false;
        for (i, (session, heading)) in runs.iter().enumerate() {
            let area = Area {
                top: top + share * i as f64,
                bottom: top + share * (i + 1) as f64,
                heading: heading.clone(),
            };
            crowded |= svg
                .panel(session, window, area, options, &mut legend)
                .is_some();
        }
        svg.place_labels();
        legend.see_short_forms(&svg.said, &vocab);
        let unplaced = !svg.unplaced.is_empty();
        if runs.len() == 1 && (crowded || unplaced) {
            let lanes = lanes_of(runs[0].0, window, options);
            legend.counts = Some(tally(runs[0].0, window, lanes));
        }
        let room = svg.bounds().r - svg.font;
        if rows == 1 && legend.rows(room, (svg.font * 0.9).max(geometry::MIN_TEXT), &vocab) > 1 {
            rows = 2;
            continue;
        }
        svg.legend(&legend, legend_top, rows, &vocab);
        return svg.finish(&texts.title, &texts.description);
    }
}

/// The writes of each verdict drawn in the window.
fn tally(session: &Session, window: Window, lanes: Actors) -> Counts {
    let mut counts = Counts::default();
    let events = shown(session.world().events(), window);
    for event in events.iter().filter(|e| on_lanes(e, lanes)) {
        let Some(verdict) = event.kind.verdict() else {
            continue;
        };
        counts.last = event.t;
        match verdict.outcome() {
            Outcome::Accepted => counts.accepted += 1,
            Outcome::Rejected => counts.rejected += 1,
            Outcome::Corrupted => counts.corrupted += 1,
        }
    }
    counts
}

/// The events inside the window.
fn shown(events: &[Event], window: Window) -> &[Event] {
    let first = events.partition_point(|e| e.t < window.from);
    let last = first + events[first..].partition_point(|e| e.t <= window.until);
    &events[first..last]
}

/// Which clients (and whether the storage) have anything in the window: an event, or a lane
/// that is not idle.
/// The actors with something in `window`: an event, a lease, a pause or a wait (for the
/// storage, a write). What `--hide-idle` keeps.
pub fn busy_actors(session: &Session, window: Window) -> Actors {
    let events = shown(session.world().events(), window);
    let history = session.world().history();
    let clients = ClientId::ALL.map(|c| {
        let spans = history.lane(c.index());
        events.iter().any(|e| e.kind.client() == Some(c))
            || spans.iter().enumerate().any(|(k, s)| {
                let stop = spans.get(k + 1).map_or(session.now(), |n| n.start);
                s.state != LaneState::Idle && s.start <= window.until && stop > window.from
            })
    });
    let storage = events.iter().any(|e| {
        e.kind.verdict().is_some() || matches!(e.kind, crate::sim::EventKind::Send { .. })
    });
    (clients, storage)
}

impl Svg {
    /// One run's lanes, bars, arrows and marks inside `area`; the counts of its verdicts when it
    /// is too busy to label them all.
    fn panel(
        &mut self,
        session: &Session,
        window: Window,
        area: Area,
        options: Options,
        legend: &mut Legend,
    ) -> Option<Counts> {
        let f = self.font;
        let mut top = area.top;
        let events = shown(session.world().events(), window);
        let lanes = lanes_of(session, window, options);
        let mut heading = area.heading;
        let p = Panel::new(
            f,
            self.size.width as f64,
            top + heading.as_ref().map_or(0.0, |_| f * 1.6),
            area.bottom - f * 2.0,
            window,
            session.now(),
            lanes,
            events.iter().filter(|e| on_lanes(e, lanes)).count(),
        );
        let counts = (p.busy || p.compact).then(|| tally(session, window, lanes));
        if let (Some(text), Some(c)) = (heading.as_mut(), counts) {
            text.push_str(&format!(
                " · writes here: ✓ {}, ✗ {}, ! {}",
                c.accepted, c.rejected, c.corrupted
            ));
        }
        if let Some(heading) = &heading {
            self.text(f, top + f * 1.2, Anchor::Start, heading, f, Tone::Strong);
            top += f * 1.6;
        }
        debug_assert_eq!(top, p.bounds.t);
        if self.axis.is_none() {
            self.axis = Some((window, p.x0, p.x1, p.bounds.t, p.bounds.b));
        }
        self.axis_line(&p, p.bounds.b);
        self.actors(&p);
        let vocab = vocab_of(session);
        self.lock_bars(&p, session, &vocab, legend);
        let history = session.world().history();
        for client in ClientId::ALL {
            self.client_lane(&p, history, client, &vocab, legend);
        }
        let lesson = Lesson::of(session);
        let cx = Context {
            vocab: &vocab,
            asked: lesson.asked_writes(RunView::of(session)),
        };
        for event in events.iter().filter(|e| on_lanes(e, lanes)) {
            self.event(&p, event, &cx, legend);
        }
        if p.busy && !p.compact {
            for crowd in crowds(events).iter().filter(|c| lanes.0[c.client.index()]) {
                self.crowd(&p, crowd, &vocab);
            }
        }
        counts
    }
}
