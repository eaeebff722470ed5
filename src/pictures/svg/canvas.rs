//! The picture being written: its text, its queued labels and what they must not cover.

use std::fmt::Write as _;

use super::geometry::{fit, text_box, Anchor, Rect};
use super::palette::{defs, CORRUPTED, INK, MUTED, REJECTED};
use super::placer::{Label, Tone};
use super::window::{Size, Window};
use crate::pictures::xml::escape;
use crate::sim::time::fmt_seconds;
use crate::sim::Ms;

/// The picture being written.
pub(super) struct Svg {
    pub(super) size: Size,
    pub(super) id: String,
    pub(super) font: f64,
    pub(super) out: String,
    pub(super) labels: Vec<(Rect, Label)>,
    /// What labels must not cover: marks, bars, placed labels.
    pub(super) taken: Vec<Rect>,
    /// The panel being drawn is compact: only the most important labels are queued.
    pub(super) compact: bool,
    /// The event being drawn, whose labels carry its moment.
    pub(super) event_t: Option<Ms>,
    /// The first panel's time axis (window, x of its start and end, top and bottom of its
    /// lanes), written on the root so a page can draw a cursor at a moment.
    pub(super) axis: Option<(Window, f64, f64, f64, f64)>,
}

impl Svg {
    pub(super) fn new(size: Size, id: &str) -> Svg {
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

    pub(super) fn bounds(&self) -> Rect {
        Rect {
            l: 2.0,
            t: 2.0,
            r: self.size.width as f64 - 2.0,
            b: self.size.height as f64 - 2.0,
        }
    }

    /// A text drawn now, cut to fit the width. Returns nothing; the caller knows the place.
    pub(super) fn text(
        &mut self,
        x: f64,
        y: f64,
        anchor: Anchor,
        text: &str,
        size: f64,
        tone: Tone,
    ) {
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
    pub(super) fn heading(&mut self, title: &str, subtitle: &str) -> f64 {
        let f = self.font;
        self.text(f, f * 1.9, Anchor::Start, title, f * 1.35, Tone::Strong);
        self.text(f, f * 3.4, Anchor::Start, subtitle, f * 0.95, Tone::Quiet);
        f * 4.2
    }

    pub(super) fn finish(mut self, title: &str, description: &str) -> String {
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
        svg.push_str(&defs(&self.id));
        let _ = write!(svg, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
        svg.push_str(&self.out);
        svg.push_str("</svg>\n");
        // One element a line, so a diff of two pictures reads; text holds no raw `<`.
        svg.replace("><", ">\n<")
    }

    /// Queues a label; `mark` is the box of what it labels, which stays visible.
    pub(super) fn label(&mut self, bounds: Rect, mut label: Label) {
        if self.compact && label.priority > 2 {
            return;
        }
        label.t = self.event_t;
        self.labels.push((bounds, label));
    }

    /// Places the queued labels, most important first, each at its first free try.
    pub(super) fn place_labels(&mut self) {
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
}
