//! Which kinds of mark a picture shows, each from when it first appears, and the legend row.

use std::fmt::Write as _;

use super::canvas::Svg;
use super::geometry::{text_width, Anchor};
use super::palette::{CRASH, GC, LIVE, STALE};
use super::placer::Tone;
use crate::sim::time::fmt_seconds;
use crate::sim::Ms;

/// Which kinds of mark a picture shows, each with when it first appears, for its legend.
#[derive(Default)]
pub(super) struct Legend {
    pub(super) live: Seen,
    pub(super) believed: Seen,
    pub(super) gc: Seen,
    pub(super) crash: Seen,
    pub(super) waiting: Seen,
    pub(super) accepted: Seen,
    pub(super) rejected: Seen,
    pub(super) corrupted: Seen,
    pub(super) refused: Seen,
    pub(super) delayed: Seen,
}

/// When a kind of mark first appears, if it does: a page keeps a legend entry out of sight
/// until then, so the legend cannot tell the answer to a question before it is asked.
#[derive(Clone, Copy, Default)]
pub(super) struct Seen(pub(super) Option<Ms>);

impl Seen {
    pub(super) fn see(&mut self, t: Ms) {
        self.0 = Some(self.0.map_or(t, |s| s.min(t)));
    }
}

impl Svg {
    pub(super) fn legend(&mut self, legend: &Legend, top: f64) {
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
}
