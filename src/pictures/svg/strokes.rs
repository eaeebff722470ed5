//! The strokes every mark is made of, each made an obstacle for the labels as it is drawn: an
//! arrow up to the lock service and its answer back, a diamond, a tick; and the queueing of a
//! mark's label for the placer.

use std::fmt::Write as _;

use super::canvas::Svg;
use super::geometry::{Rect, Seg};
use super::palette::{INK, MUTED};
use super::panel::Panel;
use super::placer::{Label, Need, Tone, Try, ARROW_ROOM};
use crate::sim::Ms;

impl Svg {
    /// How far right of an event's x its arrows end.
    pub(super) fn reach(&self, p: &Panel) -> f64 {
        (p.font * 0.3).max(3.0)
    }

    /// Queues a label with tries of `(need, tone, size)`, for the moment `t`.
    pub(super) fn queue(
        &mut self,
        p: &Panel,
        t: Ms,
        look: (Need, Tone, f64),
        tries: Vec<Try>,
        role: &'static str,
    ) {
        self.queue_on(p, t, look, tries, role, (Vec::new(), None));
    }

    /// [`Svg::queue`], for a label that may sit on `hosts` and is joined to `mark` if placed
    /// away from its tries.
    pub(super) fn queue_on(
        &mut self,
        p: &Panel,
        t: Ms,
        (need, tone, size): (Need, Tone, f64),
        tries: Vec<Try>,
        role: &'static str,
        (hosts, mark): (Vec<usize>, Option<(f64, f64)>),
    ) {
        // A compact panel keeps only the labels a caption depends on and the switches.
        if p.compact && !matches!(need, Need::Keep(_) | Need::Want(0..=2)) {
            return;
        }
        // A verdict keeps its comparison (its first wording, on one line or two) wherever there
        // is room for it, unless the window is too busy to look far.
        let whole = if role == "verdict" && !p.busy { 2 } else { 0 };
        self.label(
            p.bounds,
            Label {
                need,
                tone,
                size,
                tries,
                t: Some(t),
                hosts,
                mark,
                role,
                whole,
                copies: 1,
            },
        );
    }

    /// A call's arrow up to the lock service, from `x` on the client's line at `y`.
    pub(super) fn request(&mut self, p: &Panel, x: f64, y: f64, d: f64) {
        let _ = write!(
            self.out,
            r#"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{:.1}" stroke="{INK}" stroke-width="1.3" marker-end="url(#{}arrow)"/>"#,
            x + d,
            p.lock + 1.0,
            self.id
        );
        self.arrow(Seg::new(x, y, x + d, p.lock + 1.0), 1.3);
    }

    /// The lock service's answer, back to the client's line at `y`; dashed when refused.
    pub(super) fn reply(&mut self, p: &Panel, x: f64, y: f64, d: f64, refused: bool) {
        let (stroke, dash, marker) = if refused {
            (MUTED, r#" stroke-dasharray="4 3""#, "rarrow")
        } else {
            (INK, "", "arrow")
        };
        let _ = write!(
            self.out,
            r#"<line x1="{x:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{stroke}" stroke-width="1.3"{dash} marker-end="url(#{}{marker})"/>"#,
            p.lock + 1.0,
            x + d,
            y - 1.0,
            self.id
        );
        self.arrow(Seg::new(x, p.lock + 1.0, x + d, y - 1.0), 1.3);
    }

    /// An arrow `width` wide as labels' obstacles: its line and its head (7 widths long, as the
    /// markers draw it); their ids, for a label that may sit on them.
    pub(super) fn arrow(&mut self, seg: Seg, width: f64) -> [usize; 2] {
        let line = self.placer.line(seg, ARROW_ROOM);
        let head = self.placer.block(seg.head(7.0 * width, 3.5 * width));
        [line, head]
    }

    pub(super) fn diamond(&mut self, x: f64, y: f64, s: f64, fill: &str) {
        let _ = write!(
            self.out,
            r#"<path d="M{x:.1},{:.1}L{:.1},{y:.1}L{x:.1},{:.1}L{:.1},{y:.1}z" fill="{fill}" stroke="{INK}" stroke-width="1.5"/>"#,
            y - s,
            x + s,
            y + s,
            x - s
        );
        self.placer.block(Rect {
            l: x - s,
            t: y - s,
            r: x + s,
            b: y + s,
        });
    }

    /// A tick down across a client's bands, from its line: a pause's start or end, a restart.
    pub(super) fn tick(&mut self, x: f64, y: f64, h: f64, stroke: &str) {
        let (y1, y2) = (y - 2.0, y + h + 4.0);
        let _ = write!(
            self.out,
            r#"<line x1="{x:.1}" y1="{y1:.1}" x2="{x:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="2.5"/>"#
        );
        // Under the line only: a bar above it keeps its whole width for its words.
        self.placer.line(Seg::new(x, y + 2.5, x, y2), 1.5);
    }
}
