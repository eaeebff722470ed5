//! One run's geometry on the picture: where each actor's line runs and where a moment falls; the
//! time axis and the actors' lines.

use std::fmt::Write as _;

use super::canvas::Svg;
use super::geometry::{text_box, text_width, Anchor, Rect, Seg, MIN_TEXT};
use super::palette::{GRID, INK, MUTED};
use super::placer::Tone;
use super::window::Window;
use crate::sim::time::fmt_seconds;
use crate::sim::{ClientId, Ms};

/// A panel's place on the picture.
pub(super) struct Area {
    pub(super) top: f64,
    pub(super) bottom: f64,
    pub(super) heading: Option<String>,
}

/// Fewer pixels than this between messages, on average, and a panel draws them as ticks.
pub(super) const COMPACT_SPACING: f64 = 2.5;
/// Fewer than this, and a panel is busy: refused asks are drawn as ticks and counted.
pub(super) const BUSY_SPACING: f64 = 12.0;

/// One panel's geometry.
pub(super) struct Panel {
    pub(super) window: Window,
    /// How far the run was played: lanes stop here, though the axis may run on (`--axis`).
    pub(super) now: Ms,
    pub(super) x0: f64,
    pub(super) x1: f64,
    pub(super) lock: f64,
    /// Each client's line, unless it is left out (`--hide-idle`).
    pub(super) clients: [Option<f64>; 3],
    pub(super) storage: f64,
    /// Whether the storage has a line (`--hide-idle` leaves out a storage nothing reached).
    pub(super) storage_shown: bool,
    /// The height of a lease bar or a band.
    pub(super) bar: f64,
    pub(super) font: f64,
    /// How far apart its lanes are.
    pub(super) gap: f64,
    /// Where its labels may go: between its heading and its axis, right of the lane names.
    pub(super) bounds: Rect,
    /// Messages close together: refused asks are ticks, their retries counted.
    pub(super) busy: bool,
    /// Too many messages for arrows to read (a long window): each is a tick on its sender's
    /// line, and only the verdicts that are not plain acceptances and the switches keep labels.
    pub(super) compact: bool,
}

impl Panel {
    /// The geometry of a panel of `width` between `top` and `axis` (its time axis), with a line
    /// for each client shown and for the storage if shown, `messages` messages in its window.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        font: f64,
        width: f64,
        top: f64,
        axis: f64,
        window: Window,
        now: Ms,
        (shown, storage): ([bool; 3], bool),
        messages: usize,
    ) -> Panel {
        let lanes = 1 + usize::from(storage) + shown.iter().filter(|&&s| s).count();
        let gap = (axis - top) / lanes as f64;
        let lane = |i: usize| top + gap * (i as f64 + 0.5);
        let mut clients = [None; 3];
        let mut next = 1;
        for (slot, shown) in clients.iter_mut().zip(shown) {
            if shown {
                *slot = Some(lane(next));
                next += 1;
            }
        }
        let x0 = font * 8.6;
        let x1 = width - font * 1.6;
        let spacing = (x1 - x0) / (messages.max(1) as f64);
        Panel {
            window,
            now,
            x0,
            x1,
            gap,
            lock: lane(0),
            clients,
            storage: if storage { lane(next) } else { axis },
            storage_shown: storage,
            // Tall enough for a token's label of the smallest size.
            bar: (gap * 0.18)
                .clamp(font * 0.8, font * 1.1)
                .max(MIN_TEXT / 0.8),
            font: font * 0.88,
            // Right of the lane names: a label there would read as a lane's name, or as
            // something before the axis begins.
            bounds: Rect {
                l: x0,
                t: top,
                r: width - 2.0,
                b: axis,
            },
            busy: spacing < BUSY_SPACING,
            compact: spacing < COMPACT_SPACING,
        }
    }

    /// The x of moment `t` (clamped to the window).
    pub(super) fn x(&self, t: Ms) -> f64 {
        let t = t.clamp(self.window.from, self.window.until);
        self.x0 + (t - self.window.from) as f64 * (self.x1 - self.x0) / self.window.len() as f64
    }

    /// Pixels a duration takes.
    pub(super) fn px(&self, ms: Ms) -> f64 {
        ms as f64 * (self.x1 - self.x0) / self.window.len() as f64
    }

    /// The part of `a..b` inside the window, if any.
    pub(super) fn clip(&self, a: Ms, b: Ms) -> Option<(Ms, Ms)> {
        let a = a.max(self.window.from);
        let b = b.min(self.window.until);
        (a < b).then_some((a, b))
    }

    /// The y of a client's line (a client with an event is never left out).
    pub(super) fn y(&self, client: ClientId) -> f64 {
        self.clients[client.index()].unwrap_or(self.lock)
    }

    /// The text size of a label inside a bar.
    pub(super) fn bar_text(&self) -> f64 {
        (self.bar * 0.8).min(self.font).max(MIN_TEXT)
    }
}

/// A tick's label: whole seconds plain, else as every time is written.
fn tick_label(ms: Ms) -> String {
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        fmt_seconds(ms)
    }
}

impl Svg {
    /// The time axis at `y`, with a grid line up through the panel at each tick.
    pub(super) fn axis_line(&mut self, p: &Panel, y: f64) {
        let f = (self.font * 0.85).max(MIN_TEXT);
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

    /// Each actor's line with its name; labels keep off both.
    pub(super) fn actors(&mut self, p: &Panel) {
        let f = self.font;
        let mut lanes: Vec<(f64, String)> = vec![(p.lock, "lock service".into())];
        for (client, y) in ClientId::ALL.iter().zip(p.clients) {
            if let Some(y) = y {
                lanes.push((y, client.name().into()));
            }
        }
        if p.storage_shown {
            lanes.push((p.storage, "storage".into()));
        }
        for (y, name) in lanes {
            let _ = write!(
                self.out,
                r#"<line class="actor" x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{INK}" stroke-width="1.6"/>"#,
                p.x0, p.x1
            );
            self.placer.line(Seg::new(p.x0, y, p.x1, y), 0.0);
            let (x, base) = (p.x0 - f * 0.6, y + f * 0.35);
            self.text(x, base, Anchor::End, &name, f, Tone::Strong);
            self.placer
                .block(text_box(x, base, Anchor::End, &name, f, true));
        }
    }
}
