//! Each event as its arrow or mark, in a group titled with its own sentence, and its labels
//! queued for the placer.

use std::fmt::Write as _;

use super::canvas::Svg;
use super::geometry::{Anchor, Rect};
use super::legend::Legend;
use super::palette::{CORRUPTED, CRASH, FAINT, GC, INK, LIVE, MUTED, REJECTED, WRITE};
use super::panel::Panel;
use super::placer::{Label, Tone};
use crate::pictures::xml::escape;
use crate::sim::phrase::labels;
use crate::sim::time::fmt_seconds;
use crate::sim::{Event, EventKind, Vocab};
use crate::Outcome;

impl Svg {
    /// One event: its arrow or mark, in a group titled with its own sentence.
    pub(super) fn event(&mut self, p: &Panel, event: &Event, vocab: &Vocab, legend: &mut Legend) {
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
    pub(super) fn tick_only(&mut self, p: &Panel, event: &Event, x: f64) -> bool {
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
    pub(super) fn request(&mut self, p: &Panel, x: f64, y: f64, d: f64, faint: bool) {
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
    pub(super) fn reply(&mut self, p: &Panel, x: f64, y: f64, d: f64, refused: bool, faint: bool) {
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

    pub(super) fn diamond(&mut self, x: f64, y: f64, s: f64, fill: &str) {
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

    pub(super) fn tick(&mut self, x: f64, y: f64, h: f64, stroke: &str) {
        let _ = write!(
            self.out,
            r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="{stroke}" stroke-width="2.5"/>"#,
            y - h * 0.6,
            y + h + 4.0
        );
    }

    pub(super) fn switch_line(&mut self, p: &Panel, x: f64, priority: u8, words: &str) {
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
    pub(super) fn op_label(
        &mut self,
        p: &Panel,
        x: f64,
        y: f64,
        priority: u8,
        tone: Tone,
        texts: &[String],
    ) {
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
    pub(super) fn under_client(
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

    pub(super) fn below_lock(&mut self, p: &Panel, x: f64, priority: u8, texts: &[String]) {
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
    pub(super) fn above_storage(
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
    pub(super) fn below_storage(&mut self, p: &Panel, x: f64, texts: &[String]) {
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
