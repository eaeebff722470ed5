//! The picture being written: its marks as SVG, its labels waiting in the placer, and at the end
//! the labels drawn on top of every mark, in one group a page can keep below its cursor.

use std::fmt::Write as _;

use super::geometry::{fit, text_width, Anchor, Rect, LINE, MIN_TEXT};
use super::palette::{defs, CORRUPTED, CRASH, GC, HONEST, INK, MUTED, REJECTED};
use super::placer::{Label, Placed, Placer, Tone};
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
    pub(super) placer: Placer,
    /// Labels a caption depends on that found no place (a ten-minute window's verdicts): the
    /// legend counts them.
    pub(super) unplaced: Vec<Label>,
    /// The arrow of the write just drawn, on which the corruption it causes may be labelled.
    pub(super) last_write: Option<[usize; 2]>,
    /// When the lock service's clock last jumped: a lease it ends at once is labelled beside
    /// the jump, not under it.
    pub(super) jumped_at: Option<Ms>,
    /// Every label placed, with its moment: the legend names the short forms they use.
    pub(super) said: Vec<(Option<Ms>, String)>,
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
            font: (16.0 * scale).clamp(MIN_TEXT, 40.0),
            out: String::with_capacity(64 * 1024),
            placer: Placer::new(size.width as f64),
            unplaced: Vec::new(),
            last_write: None,
            jumped_at: None,
            said: Vec::new(),
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

    /// A text drawn now (a heading, an actor's name, a tick), cut to fit the width.
    pub(super) fn text(
        &mut self,
        x: f64,
        y: f64,
        anchor: Anchor,
        text: &str,
        size: f64,
        tone: Tone,
    ) {
        let size = size.max(MIN_TEXT);
        let bounds = self.bounds();
        let room = match anchor {
            Anchor::Start => bounds.r - x,
            Anchor::Middle => 2.0 * (bounds.r - x).min(x - bounds.l),
            Anchor::End => x - bounds.l,
        };
        let text = fit(text, room, size, tone.bold());
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
        // A subtitle too long for one line breaks after a sentence, into two.
        let room = self.bounds().r - f;
        let fits = |text: &str| text_width(text, f * 0.95, false) <= room;
        let split = (!fits(subtitle))
            .then(|| {
                subtitle
                    .match_indices(". ")
                    .map(|(i, _)| (&subtitle[..=i], &subtitle[i + 2..]))
                    .filter(|(first, _)| fits(first))
                    .last()
            })
            .flatten();
        match split {
            Some((first, second)) => {
                self.text(f, f * 3.4, Anchor::Start, first, f * 0.95, Tone::Quiet);
                self.text(f, f * 4.6, Anchor::Start, second, f * 0.95, Tone::Quiet);
                f * 5.4
            }
            None => {
                self.text(f, f * 3.4, Anchor::Start, subtitle, f * 0.95, Tone::Quiet);
                f * 4.2
            }
        }
    }

    /// Queues a label to be placed inside `area` once every mark is drawn.
    pub(super) fn label(&mut self, area: Rect, mut label: Label) {
        label.size = label.size.max(MIN_TEXT);
        self.placer.queue(area, label);
    }

    /// Places the queued labels and draws them, after (so above) every mark.
    fn draw_labels(&mut self) {
        let placer = std::mem::replace(&mut self.placer, Placer::new(0.0));
        let (placed, unplaced) = placer.place();
        self.unplaced = unplaced;
        self.said = placed.iter().map(|l| (l.t, l.at.text.clone())).collect();
        // Words inside bars first, the rest above them: a page's curtain goes between, so the
        // future part of a bar fades with its words while every other label of a moment shown
        // stays whole.
        self.out.push_str(r#"<g class="inside">"#);
        for label in placed.iter().filter(|l| l.role == "bar") {
            self.draw_label(label);
        }
        self.out.push_str(r#"</g><g class="labels">"#);
        for label in &placed {
            if let Some(l) = label.leader {
                let at = label
                    .t
                    .map(|t| format!(r#" data-t="{}""#, fmt_seconds(t)))
                    .unwrap_or_default();
                let _ = write!(
                    self.out,
                    r#"<line class="leader"{at} x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{MUTED}" stroke-width="1"/>"#,
                    l.x1, l.y1, l.x2, l.y2
                );
            }
        }
        for label in placed.iter().filter(|l| l.role != "bar") {
            self.draw_label(label);
        }
        self.out.push_str("</g>");
    }

    fn draw_label(&mut self, label: &Placed) {
        let at = label
            .t
            .map(|t| format!(r#" data-t="{}""#, fmt_seconds(t)))
            .unwrap_or_default();
        let r = label.rect;
        let boxed = match label.tone {
            Tone::Rejected => Some(("white", REJECTED, "2.5", "")),
            Tone::Honest => Some(("white", HONEST, "2.5", r#" stroke-dasharray="6 3""#)),
            Tone::Corrupted => Some((CORRUPTED, INK, "1.5", "")),
            _ => None,
        };
        if let Some((fill, stroke, width, dash)) = boxed {
            let _ = write!(
                self.out,
                r#"<rect{at} x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{fill}" stroke="{stroke}" stroke-width="{width}"{dash}/>"#,
                r.l,
                r.t,
                r.r - r.l,
                r.b - r.t
            );
        }
        let (fill, halo) = match label.tone {
            Tone::Quiet => (MUTED, true),
            Tone::Plain | Tone::Strong | Tone::OnStale => (INK, true),
            Tone::Rejected => (REJECTED, false),
            Tone::Honest => (HONEST, false),
            Tone::Corrupted | Tone::OnLive => ("white", false),
            Tone::OnBand(0) => (GC, true),
            Tone::OnBand(_) => (CRASH, true),
        };
        let halo = if halo {
            r##" stroke="white" stroke-width="3" stroke-linejoin="round" paint-order="stroke""##
        } else {
            ""
        };
        let weight = if label.tone.bold() { "bold" } else { "normal" };
        let x = label.at.x;
        // A label of several lines: each line after the first a tspan a line down.
        let mut lines = label.at.text.split('\n');
        let mut text = escape(lines.next().unwrap_or_default()).into_owned();
        for line in lines {
            let _ = write!(
                text,
                r#"<tspan x="{x:.1}" dy="{LINE}em">{}</tspan>"#,
                escape(line)
            );
        }
        let _ = write!(
            self.out,
            r#"<text class="label" data-role="{}"{at} x="{x:.1}" y="{:.1}" font-size="{:.1}" font-weight="{weight}" fill="{fill}" text-anchor="{}"{halo}>{text}</text>"#,
            label.role,
            label.at.y,
            label.size,
            label.at.anchor.name(),
        );
    }

    /// The whole SVG document (its labels placed first, by [`Svg::place_labels`]).
    pub(super) fn finish(self, title: &str, description: &str) -> String {
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
        svg.push_str(&defs(p));
        let _ = write!(svg, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
        svg.push_str(&self.out);
        svg.push_str("</svg>\n");
        // One element a line, so a diff of two pictures reads (text holds no raw `<`); a text's
        // lines stay on its own.
        svg.replace("><", ">\n<")
            .replace(">\n<tspan", "><tspan")
            .replace("</tspan>\n</text>", "</tspan></text>")
    }

    /// Places the queued labels and draws them above every mark drawn so far; the legend,
    /// drawn after, counts those to keep that found no place.
    pub(super) fn place_labels(&mut self) {
        self.draw_labels();
    }
}
