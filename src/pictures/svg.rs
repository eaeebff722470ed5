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

use std::fmt::Write as _;

use super::words::settings_line;
use super::xml::escape;
use crate::sim::phrase::labels;
use crate::sim::time::fmt_seconds;
use crate::sim::{ClientId, Event, EventKind, History, LaneState, Ms, Session, Vocab};
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

    fn len(&self) -> Ms {
        (self.until - self.from).max(1)
    }
}

/// The diagram of one run, seen through `window`. `id` prefixes the SVG's ids, so several
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

/// "Showing 12.0 to 42.0 s of a run played to 600.0 s", when the window is not the whole run.
fn window_note(session: &Session, window: Window) -> Option<String> {
    let played = session.now();
    (window.from != 0 || window.until != played).then(|| {
        format!(
            "Showing {} to {} s of a run played to {} s (--from and --until choose)",
            fmt_seconds(window.from),
            fmt_seconds(window.until),
            fmt_seconds(played)
        )
    })
}

/// A panel's place on the picture.
struct Area {
    top: f64,
    bottom: f64,
    heading: Option<String>,
}

/// Which kinds of mark a picture shows, each with when it first appears, for its legend.
#[derive(Default)]
struct Legend {
    live: Seen,
    believed: Seen,
    gc: Seen,
    crash: Seen,
    waiting: Seen,
    accepted: Seen,
    rejected: Seen,
    corrupted: Seen,
    refused: Seen,
    delayed: Seen,
}

/// When a kind of mark first appears, if it does: a page keeps a legend entry out of sight
/// until then, so the legend cannot tell the answer to a question before it is asked.
#[derive(Clone, Copy, Default)]
struct Seen(Option<Ms>);

impl Seen {
    fn see(&mut self, t: Ms) {
        self.0 = Some(self.0.map_or(t, |s| s.min(t)));
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn name(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// A rectangle: left, top, right, bottom.
#[derive(Clone, Copy, Debug)]
struct Rect {
    l: f64,
    t: f64,
    r: f64,
    b: f64,
}

impl Rect {
    fn overlaps(&self, o: &Rect) -> bool {
        self.l < o.r && o.l < self.r && self.t < o.b && o.t < self.b
    }

    fn inside(&self, o: &Rect) -> bool {
        self.l >= o.l && self.r <= o.r && self.t >= o.t && self.b <= o.b
    }
}

/// How a label looks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tone {
    Plain,
    Strong,
    Quiet,
    /// White box, heavy border.
    Rejected,
    /// Black box, white text.
    Corrupted,
}

/// A label waiting for a place: the first try that fits is drawn, else none.
struct Label {
    priority: u8,
    tone: Tone,
    size: f64,
    /// (x, baseline y, anchor, text), in order of preference.
    tries: Vec<(f64, f64, Anchor, String)>,
    /// The moment of the event it labels, so a page can keep the future out of sight.
    t: Option<Ms>,
}

/// The width text of `size` takes, estimated generously for a sans-serif face.
pub fn text_width(text: &str, size: f64, bold: bool) -> f64 {
    let em: f64 = text
        .chars()
        .map(|c| match c {
            'i' | 'l' | 'j' | '.' | ',' | ':' | ';' | '\'' | '!' | '|' | ' ' | '(' | ')' => 0.36,
            'm' | 'w' | 'M' | 'W' => 0.92,
            c if c.is_ascii_uppercase() => 0.74,
            _ => 0.62,
        })
        .sum();
    em * size * if bold { 1.08 } else { 1.0 }
}

/// The box text of `size` at baseline `y` covers.
fn text_box(x: f64, y: f64, anchor: Anchor, text: &str, size: f64, bold: bool) -> Rect {
    let w = text_width(text, size, bold);
    let l = match anchor {
        Anchor::Start => x,
        Anchor::Middle => x - w / 2.0,
        Anchor::End => x - w,
    };
    Rect {
        l,
        t: y - size * 0.95,
        r: l + w,
        b: y + size * 0.3,
    }
}

/// The picture being written.
struct Svg {
    size: Size,
    id: String,
    font: f64,
    out: String,
    labels: Vec<(Rect, Label)>,
    /// What labels must not cover: marks, bars, placed labels.
    taken: Vec<Rect>,
    /// The panel being drawn is compact: only the most important labels are queued.
    compact: bool,
    /// The event being drawn, whose labels carry its moment.
    event_t: Option<Ms>,
    /// The first panel's time axis (window, x of its start and end, top and bottom of its
    /// lanes), written on the root so a page can draw a cursor at a moment.
    axis: Option<(Window, f64, f64, f64, f64)>,
}

/// Colours; each kind also has its own pattern or shape, so grey print reads the same.
const INK: &str = "#1a1d23";
const MUTED: &str = "#5b6270";
const GRID: &str = "#e4e7ec";
const FAINT: &str = "#a3aab6";
const LIVE: &str = "#2f7d4a";
const STALE: &str = "#c2570c";
const GC: &str = "#1f6f8b";
const CRASH: &str = "#8f2d2d";
const WRITE: &str = "#1f4fa0";
const REJECTED: &str = "#b91c1c";
const CORRUPTED: &str = "#7f1010";

impl Svg {
    fn new(size: Size, id: &str) -> Svg {
        let scale = (size.width as f64 / 1280.0).min(size.height as f64 / 720.0);
        Svg {
            size,
            id: id.to_owned(),
            font: (16.0 * scale).clamp(11.0, 40.0),
            out: String::with_capacity(64 * 1024),
            labels: Vec::new(),
            taken: Vec::new(),
            compact: false,
            event_t: None,
            axis: None,
        }
    }

    fn bounds(&self) -> Rect {
        Rect {
            l: 2.0,
            t: 2.0,
            r: self.size.width as f64 - 2.0,
            b: self.size.height as f64 - 2.0,
        }
    }

    /// A text drawn now, cut to fit the width. Returns nothing; the caller knows the place.
    fn text(&mut self, x: f64, y: f64, anchor: Anchor, text: &str, size: f64, tone: Tone) {
        let bold = matches!(tone, Tone::Strong | Tone::Rejected | Tone::Corrupted);
        let bounds = self.bounds();
        let room = match anchor {
            Anchor::Start => bounds.r - x,
            Anchor::Middle => 2.0 * (bounds.r - x).min(x - bounds.l),
            Anchor::End => x - bounds.l,
        };
        let text = fit(text, room, size, bold);
        let (fill, weight) = match tone {
            Tone::Quiet => (MUTED, "normal"),
            Tone::Plain => (INK, "normal"),
            _ => (INK, "bold"),
        };
        let _ = write!(
            self.out,
            r#"<text x="{x:.1}" y="{y:.1}" font-size="{size:.1}" font-weight="{weight}" fill="{fill}" text-anchor="{}">{}</text>"#,
            anchor.name(),
            escape(&text)
        );
    }

    /// Title and subtitle; returns where the panels begin.
    fn heading(&mut self, title: &str, subtitle: &str) -> f64 {
        let f = self.font;
        self.text(f, f * 1.9, Anchor::Start, title, f * 1.35, Tone::Strong);
        self.text(f, f * 3.4, Anchor::Start, subtitle, f * 0.95, Tone::Quiet);
        f * 4.2
    }

    fn defs(&self) -> String {
        let p = &self.id;
        format!(
            concat!(
                r#"<defs>"#,
                r#"<pattern id="{p}stripes" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="white"/><rect width="3.5" height="8" fill="{stale}"/></pattern>"#,
                r#"<pattern id="{p}dots" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="white"/><circle cx="3" cy="3" r="1.6" fill="{gc}"/></pattern>"#,
                r#"<pattern id="{p}cross" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="white"/><path d="M0,0L8,8M8,0L0,8" stroke="{crash}" stroke-width="1.4"/></pattern>"#,
                r#"<marker id="{p}arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="{ink}"/></marker>"#,
                r#"<marker id="{p}warrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="{write}"/></marker>"#,
                r#"<marker id="{p}rarrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="{muted}"/></marker>"#,
                r#"<marker id="{p}farrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0L10,5L0,10z" fill="{faint}"/></marker>"#,
                r#"</defs>"#
            ),
            p = p,
            stale = STALE,
            gc = GC,
            crash = CRASH,
            ink = INK,
            write = WRITE,
            muted = MUTED,
            faint = FAINT,
        )
    }

    /// Queues a label; `mark` is the box of what it labels, which stays visible.
    fn label(&mut self, bounds: Rect, mut label: Label) {
        if self.compact && label.priority > 2 {
            return;
        }
        label.t = self.event_t;
        self.labels.push((bounds, label));
    }

    /// Places the queued labels, most important first, each at its first free try.
    fn place_labels(&mut self) {
        let mut labels = std::mem::take(&mut self.labels);
        labels.sort_by_key(|(_, l)| l.priority);
        // Words already said nearby are not said again: the marks stay, each with its title.
        let mut said: Vec<(String, f64, f64)> = Vec::new();
        for (bounds, label) in labels {
            let bold = matches!(label.tone, Tone::Strong | Tone::Rejected | Tone::Corrupted);
            let pad = if matches!(label.tone, Tone::Rejected | Tone::Corrupted) {
                label.size * 0.35
            } else {
                1.0
            };
            let fits = label.tries.iter().find_map(|(x, y, anchor, text)| {
                let b = text_box(*x, *y, *anchor, text, label.size, bold);
                let padded = Rect {
                    l: b.l - pad,
                    t: b.t - pad,
                    r: b.r + pad,
                    b: b.b + pad,
                };
                (padded.inside(&bounds) && !self.taken.iter().any(|t| t.overlaps(&padded)))
                    .then_some((padded, *x, *y, *anchor, text.clone()))
            });
            let Some((padded, x, y, anchor, text)) = fits else {
                continue;
            };
            let verdict = matches!(label.tone, Tone::Rejected | Tone::Corrupted);
            let near = self.font * 14.0;
            if !verdict
                && said.iter().any(|(words, sx, sy)| {
                    *words == text && (sx - x).abs() < near && (sy - y).abs() < self.font * 4.0
                })
            {
                continue;
            }
            said.push((text.clone(), x, y));
            self.taken.push(padded);
            let at = label
                .t
                .map(|t| format!(r#" data-t="{}""#, fmt_seconds(t)))
                .unwrap_or_default();
            match label.tone {
                Tone::Rejected => {
                    let _ = write!(
                        self.out,
                        r#"<rect{at} x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="white" stroke="{REJECTED}" stroke-width="2.5"/>"#,
                        padded.l,
                        padded.t,
                        padded.r - padded.l,
                        padded.b - padded.t
                    );
                }
                Tone::Corrupted => {
                    let _ = write!(
                        self.out,
                        r#"<rect{at} x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{CORRUPTED}" stroke="{INK}" stroke-width="1.5"/>"#,
                        padded.l,
                        padded.t,
                        padded.r - padded.l,
                        padded.b - padded.t
                    );
                }
                _ => {}
            }
            let (fill, weight, halo) = match label.tone {
                Tone::Quiet => (MUTED, "normal", true),
                Tone::Plain => (INK, "normal", true),
                Tone::Strong => (INK, "bold", true),
                Tone::Rejected => (REJECTED, "bold", false),
                Tone::Corrupted => ("white", "bold", false),
            };
            let halo = if halo {
                r##" stroke="white" stroke-width="3" stroke-linejoin="round" paint-order="stroke""##
            } else {
                ""
            };
            let _ = write!(
                self.out,
                r#"<text class="label"{} x="{x:.1}" y="{y:.1}" font-size="{:.1}" font-weight="{weight}" fill="{fill}" text-anchor="{}"{halo}>{}</text>"#,
                at,
                label.size,
                anchor.name(),
                escape(&text)
            );
        }
    }

    fn legend(&mut self, legend: &Legend, top: f64) {
        let f = self.font * 0.9;
        let p = self.id.clone();
        let y = top + f * 1.4;
        let mut x = self.font;
        let right = self.bounds().r;
        let swatch = |fill: &str, stroke: &str| {
            format!(
                r#"<rect x="{{x}}" y="{{y}}" width="{w:.1}" height="{h:.1}" fill="{fill}" stroke="{stroke}" stroke-width="1.2"/>"#,
                w = f * 1.8,
                h = f * 0.8
            )
        };
        let items: Vec<(Seen, String, &str)> = vec![
            (legend.live, swatch(LIVE, LIVE), "holds the lease"),
            (
                legend.believed,
                swatch(&format!("url(#{p}stripes)"), STALE),
                "believed, but the lease is gone",
            ),
            (legend.gc, swatch(&format!("url(#{p}dots)"), GC), "GC pause"),
            (
                legend.crash,
                swatch(&format!("url(#{p}cross)"), CRASH),
                "crashed, down",
            ),
            (legend.waiting, String::new(), "- - waiting to ask again"),
            (legend.accepted, String::new(), "✓ accepted"),
            (legend.rejected, String::new(), "✗ REJECTED"),
            (
                legend.corrupted,
                String::new(),
                "! CORRUPTED DATA! (token below the key's highest)",
            ),
            (legend.refused, String::new(), "dashed reply: refused"),
            (
                legend.delayed,
                String::new(),
                "slanted: held by the network",
            ),
        ];
        let width = |swatch: &str, words: &str| {
            let sw = if swatch.is_empty() { 0.0 } else { f * 2.3 };
            (sw, sw + text_width(words, f, false) + f * 1.4)
        };
        // When not all fit, the verdicts' entries are the last to go; the rest keep their order.
        const KEEP_ORDER: [usize; 10] = [6, 7, 0, 1, 2, 3, 5, 4, 8, 9];
        let mut room = right - x;
        let mut kept = [false; 10];
        for i in KEEP_ORDER {
            let (seen, swatch, words) = &items[i];
            let w = width(swatch, words).1;
            if seen.0.is_some() && w <= room {
                kept[i] = true;
                room -= w;
            }
        }
        for (i, (seen, swatch, words)) in items.into_iter().enumerate() {
            let Some(first) = seen.0.filter(|_| kept[i]) else {
                continue;
            };
            let (sw, w) = width(&swatch, words);
            let _ = write!(
                self.out,
                r#"<g class="legend" data-t="{}">"#,
                fmt_seconds(first)
            );
            if !swatch.is_empty() {
                self.out.push_str(
                    &swatch
                        .replace("{x}", &format!("{x:.1}"))
                        .replace("{y}", &format!("{:.1}", y - f * 0.75)),
                );
            }
            self.text(x + sw, y, Anchor::Start, words, f, Tone::Plain);
            self.out.push_str("</g>");
            x += w;
        }
    }

    fn finish(mut self, title: &str, description: &str) -> String {
        self.place_labels();
        let (w, h) = (self.size.width, self.size.height);
        let p = &self.id;
        let mut svg = String::with_capacity(self.out.len() + 2048);
        let _ = write!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-labelledby="{p}title {p}desc" font-family="DejaVu Sans, Verdana, Helvetica, Arial, sans-serif""#
        );
        if let Some((window, x0, x1, top, bottom)) = self.axis {
            let _ = write!(
                svg,
                r#" data-from="{}" data-until="{}" data-x0="{x0:.1}" data-x1="{x1:.1}" data-top="{top:.1}" data-bottom="{bottom:.1}""#,
                window.from, window.until
            );
        }
        svg.push('>');
        let _ = write!(
            svg,
            r#"<title id="{p}title">{}</title><desc id="{p}desc">{}</desc>"#,
            escape(title),
            escape(description)
        );
        svg.push_str(&self.defs());
        let _ = write!(svg, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
        svg.push_str(&self.out);
        svg.push_str("</svg>\n");
        // One element a line, so a diff of two pictures reads; text holds no raw `<`.
        svg.replace("><", ">\n<")
    }

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

    fn axis(&mut self, p: &Panel, y: f64) {
        let f = self.font * 0.85;
        let steps = [
            100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000,
            600_000, 1_800_000, 3_600_000,
        ];
        let every = steps
            .into_iter()
            .find(|&s| p.px(s) >= f * 4.5)
            .unwrap_or(3_600_000);
        let _ = write!(
            self.out,
            r#"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{MUTED}" stroke-width="1"/>"#,
            p.x0, p.x1
        );
        let mut t = p.window.from.div_ceil(every) * every;
        while t <= p.window.until {
            let x = p.x(t);
            let _ = write!(
                self.out,
                r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{y:.1}" stroke="{GRID}" stroke-width="1"/><line x1="{x:.1}" y1="{y:.1}" x2="{x:.1}" y2="{:.1}" stroke="{MUTED}" stroke-width="1"/>"#,
                p.bounds.t,
                y + f * 0.4
            );
            let label = tick_label(t);
            if x + text_width(&label, f, false) / 2.0 <= self.bounds().r {
                self.text(x, y + f * 1.45, Anchor::Middle, &label, f, Tone::Quiet);
            }
            t += every;
        }
        self.text(
            p.x0 - f * 1.6,
            y + f * 1.45,
            Anchor::End,
            "time (s)",
            f,
            Tone::Quiet,
        );
    }

    fn actors(&mut self, p: &Panel) {
        let f = self.font;
        let mut lanes: Vec<(f64, String)> = vec![(p.lock, "lock service".into())];
        for (client, y) in ClientId::ALL.iter().zip(p.clients) {
            lanes.push((y, client.name().into()));
        }
        lanes.push((p.storage, "storage".into()));
        for (y, name) in lanes {
            let _ = write!(
                self.out,
                r#"<line class="actor" x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{INK}" stroke-width="1.6"/>"#,
                p.x0, p.x1
            );
            self.text(
                p.x0 - f * 0.6,
                y + f * 0.35,
                Anchor::End,
                &name,
                f,
                Tone::Strong,
            );
            self.taken.push(text_box(
                p.x0 - f * 0.6,
                y + f * 0.35,
                Anchor::End,
                &name,
                f,
                true,
            ));
        }
    }

    /// The lock service's truth: who holds each lock, as bars above its line.
    fn lock_bars(&mut self, p: &Panel, history: &History, session: &Session, legend: &mut Legend) {
        let locks = &session.scenario().locks;
        let end = session.now();
        for (i, name) in locks.iter().enumerate() {
            let spans = history.lock_lane(i);
            let y = p.lock - 2.0 - p.bar * (i + 1) as f64 - i as f64;
            for (k, span) in spans.iter().enumerate() {
                let Some((client, token)) = span.holder else {
                    continue;
                };
                let stop = spans.get(k + 1).map_or(end, |s| s.start);
                let Some((a, b)) = p.clip(span.start, stop) else {
                    continue;
                };
                legend.live.see(a);
                let lock = if locks.len() > 1 {
                    format!("{name}: ")
                } else {
                    String::new()
                };
                let title = format!(
                    "the lock service: {client} holds {name} with token {token}, {} to {} s",
                    fmt_seconds(span.start),
                    fmt_seconds(stop)
                );
                self.bar(
                    p,
                    a,
                    b,
                    y,
                    "lease",
                    &title,
                    &format!("fill=\"{LIVE}\""),
                    &[
                        format!("{lock}{client}, token {token}"),
                        format!("{lock}c{} t{token}", client.number()),
                        format!("t{token}"),
                    ],
                    "white",
                );
            }
        }
    }

    /// A bar from `a` to `b` ms whose top is `y`, with a title and the first label that fits
    /// inside it.
    #[allow(clippy::too_many_arguments)]
    fn bar(
        &mut self,
        p: &Panel,
        a: Ms,
        b: Ms,
        y: f64,
        class: &str,
        title: &str,
        paint: &str,
        labels: &[String],
        text_fill: &str,
    ) {
        let (xa, xb) = (p.x(a), p.x(b).max(p.x(a) + 1.5));
        let _ = write!(
            self.out,
            r#"<g class="{class}" data-t="{}"><title>{}</title><rect x="{xa:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" {paint}/>"#,
            fmt_seconds(a),
            escape(title),
            xb - xa,
            p.bar
        );
        let size = (p.bar * 0.85).min(p.font);
        if let Some(label) = labels
            .iter()
            .find(|l| text_width(l, size, true) + 6.0 <= xb - xa)
        {
            let halo = if text_fill == "white" {
                String::new()
            } else {
                r##" stroke="white" stroke-width="3" paint-order="stroke""##.to_owned()
            };
            let _ = write!(
                self.out,
                r#"<text x="{:.1}" y="{:.1}" font-size="{size:.1}" font-weight="bold" fill="{text_fill}"{halo}>{}</text>"#,
                xa + 3.0,
                y + p.bar * 0.5 + size * 0.36,
                escape(label)
            );
        }
        self.out.push_str("</g>");
        self.taken.push(Rect {
            l: xa,
            t: y,
            r: xb,
            b: y + p.bar,
        });
    }

    /// A client's lane: what it believes it holds (solid while the lock service agrees, striped
    /// once the lease is gone), its GC pauses and crashes as bands, waiting as a dashed line.
    fn client_lane(
        &mut self,
        p: &Panel,
        history: &History,
        locks: usize,
        client: ClientId,
        legend: &mut Legend,
    ) {
        let y = p.clients[client.index()];
        let spans = history.lane(client.index());
        let end = p.window.until;
        // Stretches of one state (bands) and of one believed token (belief bars), each merged
        // across the lane's spans so a bar is not cut where only the other changed.
        let mut states: Vec<(Ms, Ms, LaneState)> = Vec::new();
        let mut beliefs: Vec<(Ms, Ms, u64)> = Vec::new();
        for (k, span) in spans.iter().enumerate() {
            let stop = spans.get(k + 1).map_or(end, |s| s.start).min(end);
            let Some((a, b)) = p.clip(span.start, stop) else {
                continue;
            };
            match states.last_mut() {
                Some(last) if last.2 == span.state && last.1 == a => last.1 = b,
                _ => states.push((a, b, span.state)),
            }
            if let Some(token) = span.token.filter(|_| span.state != LaneState::Crashed) {
                match beliefs.last_mut() {
                    Some(last) if last.2 == token && last.1 == a => last.1 = b,
                    _ => beliefs.push((a, b, token)),
                }
            }
        }
        for (a, b, state) in states {
            match state {
                LaneState::Paused => {
                    legend.gc.see(a);
                    self.band(p, a, b, y, "gc", "dots", GC, client, "GC pause");
                }
                LaneState::Crashed => {
                    legend.crash.see(a);
                    self.band(p, a, b, y, "down", "cross", CRASH, client, "crashed");
                }
                LaneState::Waiting => {
                    legend.waiting.see(a);
                    let _ = write!(
                        self.out,
                        r#"<line class="waiting" x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{MUTED}" stroke-width="3" stroke-dasharray="6 4"><title>{client} waits to ask for the lock again, {} to {} s</title></line>"#,
                        p.x(a),
                        p.x(b),
                        fmt_seconds(a),
                        fmt_seconds(b)
                    );
                }
                _ => {}
            }
        }
        for (a, b, token) in beliefs {
            // The belief split where the lock service's truth changes.
            let mut cuts: Vec<Ms> = vec![a];
            for lock in 0..locks {
                for s in history.lock_lane(lock) {
                    if s.start > a && s.start < b {
                        cuts.push(s.start);
                    }
                }
            }
            cuts.sort_unstable();
            cuts.dedup();
            cuts.push(b);
            let mut pieces: Vec<(Ms, Ms, bool)> = Vec::new();
            for w in cuts.windows(2) {
                let live =
                    (0..locks).any(|lock| holder_at(history, lock, w[0]) == Some((client, token)));
                match pieces.last_mut() {
                    Some(last) if last.2 == live && last.1 == w[0] => last.1 = w[1],
                    _ => pieces.push((w[0], w[1], live)),
                }
            }
            for (a, b, live) in pieces {
                let top = y - 2.0 - p.bar;
                if live {
                    legend.live.see(a);
                    self.bar(
                        p,
                        a,
                        b,
                        top,
                        "belief live",
                        &format!(
                            "{client} holds token {token}, and the lock service agrees, {} to {} s",
                            fmt_seconds(a),
                            fmt_seconds(b)
                        ),
                        &format!("fill=\"{LIVE}\""),
                        &[format!("token {token}"), format!("t{token}")],
                        "white",
                    );
                } else {
                    legend.believed.see(a);
                    self.bar(
                        p,
                        a,
                        b,
                        top,
                        "belief stale",
                        &format!(
                            "{client} believes it holds token {token}, but that lease is gone, {} to {} s",
                            fmt_seconds(a),
                            fmt_seconds(b)
                        ),
                        &format!("fill=\"url(#{}stripes)\" stroke=\"{STALE}\"", self.id),
                        &[
                            format!("believes token {token}: lease gone"),
                            format!("believes t{token}"),
                            format!("t{token}?"),
                        ],
                        INK,
                    );
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn band(
        &mut self,
        p: &Panel,
        a: Ms,
        b: Ms,
        y: f64,
        class: &str,
        pattern: &str,
        stroke: &str,
        client: ClientId,
        words: &str,
    ) {
        let (xa, xb) = (p.x(a), p.x(b).max(p.x(a) + 1.5));
        let top = y + 2.0;
        let _ = write!(
            self.out,
            r#"<g class="{class}" data-t="{}"><title>{client}: {words}, {} to {} s</title><rect x="{xa:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="url(#{}{pattern})" stroke="{stroke}" stroke-width="1.2"/>"#,
            fmt_seconds(a),
            fmt_seconds(a),
            fmt_seconds(b),
            xb - xa,
            p.bar,
            self.id
        );
        let size = (p.bar * 0.85).min(p.font);
        let long = format!("{words} {} s", fmt_seconds(b - a));
        if let Some(label) = [long.as_str(), words]
            .into_iter()
            .find(|l| text_width(l, size, true) + 6.0 <= xb - xa)
        {
            let _ = write!(
                self.out,
                r##"<text x="{:.1}" y="{:.1}" font-size="{size:.1}" font-weight="bold" fill="{stroke}" stroke="white" stroke-width="3" paint-order="stroke">{}</text>"##,
                xa + 3.0,
                top + p.bar * 0.5 + size * 0.36,
                escape(label)
            );
        }
        self.out.push_str("</g>");
        self.taken.push(Rect {
            l: xa,
            t: top,
            r: xb,
            b: top + p.bar,
        });
    }

    /// One event: its arrow or mark, in a group titled with its own sentence.
    fn event(&mut self, p: &Panel, event: &Event, vocab: &Vocab, legend: &mut Legend) {
        let t = event.t;
        let x = p.x(t);
        let d = (p.font * 0.3).max(3.0);
        let name = event.kind.name();
        let _ = write!(
            self.out,
            r#"<g class="event {name}" data-event="{name}" data-t="{}"><title>{} s: {}</title>"#,
            fmt_seconds(t),
            fmt_seconds(t),
            escape(&event.describe(vocab))
        );
        let f = p.font;
        if p.compact && self.tick_only(p, event, x) {
            self.out.push_str("</g>");
            return;
        }
        self.event_t = Some(t);
        let words = labels(event, vocab);
        match &event.kind {
            EventKind::Grant { client, .. } => {
                let y = p.clients[client.index()];
                self.request(p, x, y, d, false);
                self.reply(p, x + d, y, d, false, false);
                self.op_label(p, x + 2.0 * d, y, 4, Tone::Strong, &words.main);
            }
            EventKind::AcquireRefused { client, .. } => {
                legend.refused.see(t);
                let y = p.clients[client.index()];
                self.request(p, x, y, d, p.busy);
                self.reply(p, x + d, y, d, true, p.busy);
                self.op_label(p, x + 2.0 * d, y, 7, Tone::Quiet, &words.main);
            }
            EventKind::Renew { client, .. } => {
                let y = p.clients[client.index()];
                self.request(p, x, y, d, false);
                self.reply(p, x + d, y, d, false, false);
                self.op_label(p, x + 2.0 * d, y, 8, Tone::Plain, &words.main);
            }
            EventKind::RenewRefused { client, .. } => {
                legend.refused.see(t);
                let y = p.clients[client.index()];
                self.request(p, x, y, d, false);
                self.reply(p, x + d, y, d, true, false);
                self.op_label(p, x + 2.0 * d, y, 5, Tone::Plain, &words.main);
            }
            EventKind::Release { client, .. } => {
                let y = p.clients[client.index()];
                self.request(p, x, y, d, false);
                self.op_label(p, x + d, y, 8, Tone::Quiet, &words.main);
            }
            EventKind::ReleaseRefused { client, .. } => {
                legend.refused.see(t);
                let y = p.clients[client.index()];
                self.request(p, x, y, d, false);
                self.reply(p, x + d, y, d, true, false);
                self.op_label(p, x + 2.0 * d, y, 6, Tone::Plain, &words.main);
            }
            EventKind::Expire { .. } => {
                self.diamond(x, p.lock, d * 1.4, "white");
                self.below_lock(p, x, 5, &words.main);
            }
            EventKind::Differs { client, .. } => match client {
                Some(c) => {
                    let y = p.clients[c.index()];
                    self.under_client(p, x, y, 1, &words.main, Anchor::Middle);
                }
                None => self.below_lock(p, x, 1, &words.main),
            },
            EventKind::ClockJump { .. } => {
                self.diamond(x, p.lock, d * 1.4, INK);
                self.below_lock(p, x, 3, &words.main);
            }
            EventKind::Pause { client, .. } => {
                self.tick(x, p.clients[client.index()], p.bar, GC);
            }
            EventKind::Resume { client } => {
                let y = p.clients[client.index()];
                self.tick(x, y, p.bar, GC);
                self.under_client(p, x, y, 6, &words.main, Anchor::Middle);
            }
            EventKind::Crash { client, .. } => {
                let y = p.clients[client.index()];
                let s = d * 1.4;
                let _ = write!(
                    self.out,
                    r#"<path d="M{:.1},{:.1}L{:.1},{:.1}M{:.1},{:.1}L{:.1},{:.1}" stroke="{CRASH}" stroke-width="2.5"/>"#,
                    x - s,
                    y - s,
                    x + s,
                    y + s,
                    x - s,
                    y + s,
                    x + s,
                    y - s
                );
            }
            EventKind::Restart { client } => {
                let y = p.clients[client.index()];
                self.tick(x, y, p.bar, CRASH);
                self.under_client(p, x, y, 6, &words.main, Anchor::Middle);
            }
            EventKind::Send {
                client, deliver_at, ..
            } => {
                legend.delayed.see(t);
                let y = p.clients[client.index()];
                let (x2, y2) = if *deliver_at <= p.window.until {
                    (p.x(*deliver_at) + d, p.storage)
                } else {
                    let share = (p.window.until - t) as f64 / (*deliver_at - t).max(1) as f64;
                    (p.x(p.window.until), y + (p.storage - y) * share)
                };
                let _ = write!(
                    self.out,
                    r#"<line x1="{x:.1}" y1="{y:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{WRITE}" stroke-width="1.8" stroke-dasharray="2 3" marker-end="url(#{}warrow)"/>"#,
                    self.id
                );
                self.under_client(p, x + 3.0, y, 5, &words.main, Anchor::Start);
            }
            EventKind::Write {
                client,
                verdict,
                sent_at,
                ..
            } => {
                let y = p.clients[client.index()];
                let tip = x + d;
                if sent_at.is_none() && !p.compact {
                    let _ = write!(
                        self.out,
                        r#"<line x1="{x:.1}" y1="{y:.1}" x2="{tip:.1}" y2="{:.1}" stroke="{WRITE}" stroke-width="1.8" marker-end="url(#{}warrow)"/>"#,
                        p.storage - 1.0,
                        self.id
                    );
                    self.under_client(p, tip + 3.0, y, 5, &words.main, Anchor::Start);
                }
                let s = f * 1.05;
                let (cx, cy) = (tip, p.storage - s * 0.5 - 3.0);
                let mark = Rect {
                    l: cx - s / 2.0,
                    t: cy - s / 2.0,
                    r: cx + s / 2.0,
                    b: cy + s / 2.0,
                };
                match verdict.outcome() {
                    Outcome::Accepted if p.compact => {
                        // Thousands of these: a thin stroke, so no verdict hides under them.
                        legend.accepted.see(t);
                        let _ = write!(
                            self.out,
                            r#"<line x1="{cx:.1}" y1="{:.1}" x2="{cx:.1}" y2="{:.1}" stroke="{LIVE}" stroke-width="1"/>"#,
                            mark.t, p.storage
                        );
                    }
                    Outcome::Accepted => {
                        legend.accepted.see(t);
                        let _ = write!(
                            self.out,
                            r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="{:.1}" fill="white" stroke="{LIVE}" stroke-width="1.6"/><text x="{cx:.1}" y="{:.1}" font-size="{:.1}" font-weight="bold" fill="{LIVE}" text-anchor="middle">✓</text>"#,
                            s * 0.5,
                            cy + s * 0.3,
                            s * 0.8
                        );
                        self.above_storage(p, cx, s, 9, Tone::Quiet, &words.verdict);
                    }
                    Outcome::Rejected => {
                        legend.rejected.see(t);
                        let _ = write!(
                            self.out,
                            r#"<rect x="{:.1}" y="{:.1}" width="{s:.1}" height="{s:.1}" fill="white" stroke="{REJECTED}" stroke-width="2.5"/><text x="{cx:.1}" y="{:.1}" font-size="{:.1}" font-weight="bold" fill="{REJECTED}" text-anchor="middle">✗</text>"#,
                            mark.l,
                            mark.t,
                            cy + s * 0.3,
                            s * 0.8
                        );
                        self.above_storage(p, cx, s, 1, Tone::Rejected, &words.verdict);
                    }
                    Outcome::Corrupted => {
                        legend.corrupted.see(t);
                        let _ = write!(
                            self.out,
                            r#"<rect x="{:.1}" y="{:.1}" width="{s:.1}" height="{s:.1}" fill="{CORRUPTED}" stroke="{INK}" stroke-width="1.5"/><text x="{cx:.1}" y="{:.1}" font-size="{:.1}" font-weight="bold" fill="white" text-anchor="middle">!</text>"#,
                            mark.l,
                            mark.t,
                            cy + s * 0.3,
                            s * 0.8
                        );
                    }
                }
                self.taken.push(mark);
                // The key's highest token, where this write raised it.
                if !words.highest.is_empty() {
                    self.below_storage(p, cx, &words.highest);
                }
            }
            EventKind::Corruption { .. } => {
                let s = f * 1.05;
                self.above_storage(p, x + d, s, 0, Tone::Corrupted, &words.verdict);
            }
            EventKind::Fencing { .. } | EventKind::Check { .. } => {
                self.switch_line(p, x, 2, &words.main[0]);
            }
        }
        self.event_t = None;
        self.out.push_str("</g>");
    }

    /// A message as a tick on its sender's line, in a compact panel: up for the lock service
    /// (dark for a grant, faint for a refusal), down for a write. False: not a message.
    fn tick_only(&mut self, p: &Panel, event: &Event, x: f64) -> bool {
        let (client, stroke, down) = match &event.kind {
            EventKind::Grant { client, .. } => (client, INK, false),
            EventKind::AcquireRefused { client, .. } => (client, FAINT, false),
            EventKind::Renew { client, .. }
            | EventKind::RenewRefused { client, .. }
            | EventKind::Release { client, .. }
            | EventKind::ReleaseRefused { client, .. } => (client, MUTED, false),
            EventKind::Send { client, .. } => (client, WRITE, true),
            EventKind::Write {
                client,
                sent_at: None,
                ..
            } => {
                // The verdict's mark stays on the storage's line: only the arrow goes.
                let y = p.clients[client.index()];
                let _ = write!(
                    self.out,
                    r#"<line x1="{x:.1}" y1="{y:.1}" x2="{x:.1}" y2="{:.1}" stroke="{WRITE}" stroke-width="1"/>"#,
                    y + p.bar + 2.0
                );
                return false;
            }
            _ => return false,
        };
        let y = p.clients[client.index()];
        let (y1, y2) = if down {
            (y, y + p.bar + 2.0)
        } else {
            (y - p.bar - 2.0, y)
        };
        let _ = write!(
            self.out,
            r#"<line x1="{x:.1}" y1="{y1:.1}" x2="{x:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="1"/>"#
        );
        true
    }

    /// A message to the lock service, from `x` on the client's line at `y`; `faint` for the
    /// many refused asks of a busy lock, so they do not drown the grants.
    fn request(&mut self, p: &Panel, x: f64, y: f64, d: f64, faint: bool) {
        let (stroke, width, marker) = if faint {
            (FAINT, 1.0, "farrow")
        } else {
            (INK, 1.3, "arrow")
        };
        let _ = write!(
            self.out,
            r#"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{:.1}" stroke="{stroke}" stroke-width="{width}" marker-end="url(#{}{marker})"/>"#,
            x + d,
            p.lock + 1.0,
            self.id
        );
    }

    /// The lock service's answer, back to the client's line at `y`; dashed when refused.
    fn reply(&mut self, p: &Panel, x: f64, y: f64, d: f64, refused: bool, faint: bool) {
        let (stroke, dash, marker) = match (refused, faint) {
            (true, true) => (FAINT, r#" stroke-dasharray="4 3""#, "farrow"),
            (true, false) => (MUTED, r#" stroke-dasharray="4 3""#, "rarrow"),
            _ => (INK, "", "arrow"),
        };
        let _ = write!(
            self.out,
            r#"<line x1="{x:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{stroke}" stroke-width="1.3"{dash} marker-end="url(#{}{marker})"/>"#,
            p.lock + 1.0,
            x + d,
            y - 1.0,
            self.id
        );
    }

    fn diamond(&mut self, x: f64, y: f64, s: f64, fill: &str) {
        let _ = write!(
            self.out,
            r#"<path d="M{x:.1},{:.1}L{:.1},{y:.1}L{x:.1},{:.1}L{:.1},{y:.1}z" fill="{fill}" stroke="{INK}" stroke-width="1.5"/>"#,
            y - s,
            x + s,
            y + s,
            x - s
        );
        self.taken.push(Rect {
            l: x - s,
            t: y - s,
            r: x + s,
            b: y + s,
        });
    }

    fn tick(&mut self, x: f64, y: f64, h: f64, stroke: &str) {
        let _ = write!(
            self.out,
            r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="{stroke}" stroke-width="2.5"/>"#,
            y - h * 0.6,
            y + h + 4.0
        );
    }

    fn switch_line(&mut self, p: &Panel, x: f64, priority: u8, words: &str) {
        let _ = write!(
            self.out,
            r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="{INK}" stroke-width="1.5" stroke-dasharray="8 4"/>"#,
            p.bounds.t, p.bounds.b
        );
        let f = p.font;
        let y = p.bounds.t + f * 1.1;
        self.label(
            p.bounds,
            Label {
                priority,
                tone: Tone::Strong,
                size: f,
                tries: vec![
                    (x + 4.0, y, Anchor::Start, words.to_owned()),
                    (x - 4.0, y, Anchor::End, words.to_owned()),
                ],
                t: None,
            },
        );
    }

    /// A lock-service answer's label, near the client's end of the arrows, above its bar.
    fn op_label(&mut self, p: &Panel, x: f64, y: f64, priority: u8, tone: Tone, texts: &[String]) {
        let f = p.font;
        let base = y - p.bar - 6.0;
        let mut tries = Vec::new();
        for text in texts {
            for level in 0..3 {
                let ly = base - level as f64 * f * 1.15;
                tries.push((x + 3.0, ly, Anchor::Start, text.clone()));
                tries.push((
                    x - 2.0 * p.bar.min(6.0) - 3.0,
                    ly,
                    Anchor::End,
                    text.clone(),
                ));
            }
        }
        self.label(
            p.bounds,
            Label {
                priority,
                tone,
                size: f,
                tries,
                t: None,
            },
        );
    }

    /// A label under a client's line (below its bands).
    fn under_client(
        &mut self,
        p: &Panel,
        x: f64,
        y: f64,
        priority: u8,
        texts: &[String],
        anchor: Anchor,
    ) {
        let f = p.font;
        let base = y + p.bar + 4.0 + f;
        let mut tries = Vec::new();
        for text in texts {
            for level in 0..3 {
                tries.push((x, base + level as f64 * f * 1.15, anchor, text.clone()));
            }
        }
        self.label(
            p.bounds,
            Label {
                priority,
                tone: Tone::Plain,
                size: f,
                tries,
                t: None,
            },
        );
    }

    fn below_lock(&mut self, p: &Panel, x: f64, priority: u8, texts: &[String]) {
        let f = p.font;
        let mut tries = Vec::new();
        for text in texts {
            for level in 0..2 {
                let y = p.lock + f * 1.3 + level as f64 * f * 1.15;
                tries.push((x, y, Anchor::Middle, text.clone()));
                tries.push((x + 4.0, y, Anchor::Start, text.clone()));
            }
        }
        self.label(
            p.bounds,
            Label {
                priority,
                tone: Tone::Plain,
                size: f * 0.92,
                tries,
                t: None,
            },
        );
    }

    /// A verdict's label above its mark on the storage's line.
    fn above_storage(
        &mut self,
        p: &Panel,
        x: f64,
        mark: f64,
        priority: u8,
        tone: Tone,
        texts: &[String],
    ) {
        let f = p.font;
        let base = p.storage - mark - f * 0.9;
        let mut tries = Vec::new();
        for text in texts {
            for level in 0..4 {
                let y = base - level as f64 * f * 1.5;
                tries.push((x, y, Anchor::Middle, text.clone()));
                tries.push((x + mark, y, Anchor::Start, text.clone()));
                tries.push((x - mark, y, Anchor::End, text.clone()));
            }
        }
        self.label(
            p.bounds,
            Label {
                priority,
                tone,
                size: f,
                tries,
                t: None,
            },
        );
    }

    /// The key's highest token, under the storage's line.
    fn below_storage(&mut self, p: &Panel, x: f64, texts: &[String]) {
        let f = p.font * 0.92;
        let mut tries = Vec::new();
        for text in texts {
            for level in 0..2 {
                let y = p.storage + f * 1.3 + level as f64 * f * 1.15;
                tries.push((x, y, Anchor::Middle, text.clone()));
                tries.push((x + 3.0, y, Anchor::Start, text.clone()));
            }
        }
        self.label(
            p.bounds,
            Label {
                priority: 6,
                tone: Tone::Quiet,
                size: f,
                tries,
                t: None,
            },
        );
    }
}

/// One panel's geometry.
struct Panel {
    window: Window,
    x0: f64,
    x1: f64,
    lock: f64,
    clients: [f64; 3],
    storage: f64,
    bar: f64,
    font: f64,
    bounds: Rect,
    /// Messages close together: the many refused asks of a busy lock are drawn faint, so they
    /// do not drown the grants.
    busy: bool,
    /// Too many messages for arrows to read (a long window): each is a tick on its sender's
    /// line, and only verdicts and switches keep their labels.
    compact: bool,
}

/// Fewer pixels than this between messages, on average, and a panel draws them as ticks.
const COMPACT_SPACING: f64 = 2.5;
/// Fewer than this, and refused asks are drawn faint.
const BUSY_SPACING: f64 = 12.0;

impl Panel {
    fn x(&self, t: Ms) -> f64 {
        let t = t.clamp(self.window.from, self.window.until);
        self.x0 + (t - self.window.from) as f64 * (self.x1 - self.x0) / self.window.len() as f64
    }

    /// Pixels a duration takes.
    fn px(&self, ms: Ms) -> f64 {
        ms as f64 * (self.x1 - self.x0) / self.window.len() as f64
    }

    /// The part of `a..b` inside the window, if any.
    fn clip(&self, a: Ms, b: Ms) -> Option<(Ms, Ms)> {
        let a = a.max(self.window.from);
        let b = b.min(self.window.until);
        (a < b).then_some((a, b))
    }
}

/// Who held lock `lock` at `t`, by the lock service's lane.
fn holder_at(history: &History, lock: usize, t: Ms) -> Option<(ClientId, u64)> {
    let spans = history.lock_lane(lock);
    let i = spans.partition_point(|s| s.start <= t);
    i.checked_sub(1).and_then(|i| spans[i].holder)
}

/// A tick's label: whole seconds plain, else as every time is written.
fn tick_label(ms: Ms) -> String {
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        fmt_seconds(ms)
    }
}

/// `text` cut with an ellipsis to fit `room` pixels.
fn fit(text: &str, room: f64, size: f64, bold: bool) -> String {
    if text_width(text, size, bold) <= room {
        return text.to_owned();
    }
    let mut out = String::new();
    for c in text.chars() {
        out.push(c);
        if text_width(&out, size, bold) + size > room {
            out.pop();
            break;
        }
    }
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}
