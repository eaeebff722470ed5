//! One run's geometry on the picture: where each actor's line runs, where a time falls; the time
//! axis and the actors' lines.

use std::fmt::Write as _;

use super::canvas::Svg;
use super::geometry::{text_box, text_width, Anchor, Rect};
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

/// One panel's geometry.
pub(super) struct Panel {
    pub(super) window: Window,
    pub(super) x0: f64,
    pub(super) x1: f64,
    pub(super) lock: f64,
    pub(super) clients: [f64; 3],
    pub(super) storage: f64,
    pub(super) bar: f64,
    pub(super) font: f64,
    pub(super) bounds: Rect,
    /// Messages close together: the many refused asks of a busy lock are drawn faint, so they
    /// do not drown the grants.
    pub(super) busy: bool,
    /// Too many messages for arrows to read (a long window): each is a tick on its sender's
    /// line, and only verdicts and switches keep their labels.
    pub(super) compact: bool,
}

/// Fewer pixels than this between messages, on average, and a panel draws them as ticks.
pub(super) const COMPACT_SPACING: f64 = 2.5;
/// Fewer than this, and refused asks are drawn faint.
pub(super) const BUSY_SPACING: f64 = 12.0;

impl Panel {
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
}

impl Svg {
    pub(super) fn axis(&mut self, p: &Panel, y: f64) {
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

    pub(super) fn actors(&mut self, p: &Panel) {
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
}

/// A tick's label: whole seconds plain, else as every time is written.
pub(super) fn tick_label(ms: Ms) -> String {
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        fmt_seconds(ms)
    }
}
