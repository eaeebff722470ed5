//! A write reaching the storage: its arrow, the verdict's mark where it lands (✓, ✗, a dashed ✗
//! for an honest write refused, !), and the labels that must stay: the verdict, in one line or
//! two, and the rise of the key's highest.

use std::fmt::Write as _;

use super::canvas::Svg;
use super::geometry::{Anchor, Rect, Seg};
use super::legend::Legend;
use super::palette::{CORRUPTED, HONEST, INK, LIVE, REJECTED, WRITE};
use super::panel::Panel;
use super::placer::{Need, Tone};
use super::spots;
use crate::sim::phrase::Labels;
use crate::sim::{Event, EventKind, Ms};
use crate::Outcome;

/// A label's wordings with, after the longest, the longest on two lines (what happened, then
/// why: "CORRUPTED DATA!" over "token 1 overwrote token 2", "renew token 1:" over "refused"),
/// narrow enough to fit where the one line does not, before a shorter wording drops the why. It
/// breaks after a colon or an exclamation mark; a verdict (`verdict`) also after its first word
/// ("REJECTED" over "t1 < t2").
pub(super) fn two_lines(forms: &[String], verdict: bool) -> Vec<String> {
    let mut out = forms.to_vec();
    if let Some(long) = forms.first() {
        let split = long
            .find(": ")
            .map(|i| i + 1)
            .or_else(|| long.find("! ").map(|i| i + 1))
            .or_else(|| long.find(' ').filter(|_| verdict));
        if let Some(i) = split {
            let (head, tail) = long.split_at(i);
            out.insert(1, format!("{head}\n{}", tail.trim_start()));
        }
    }
    out
}

/// How a verdict's label looks.
pub(super) fn verdict_tone(outcome: Outcome, honest: bool) -> Tone {
    match outcome {
        Outcome::Accepted => Tone::Quiet,
        Outcome::Rejected if honest => Tone::Honest,
        Outcome::Rejected => Tone::Rejected,
        Outcome::Corrupted => Tone::Corrupted,
    }
}

/// A verdict's name as the SVG's `data-outcome` says it (and the JSON's `outcome`).
pub(super) fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Accepted => "accepted",
        Outcome::Rejected => "rejected",
        Outcome::Corrupted => "corrupted",
    }
}

impl Svg {
    /// A write reaching the storage: its arrow (unless the network held it: its send drew it),
    /// the verdict's mark where it lands, and the verdict's and the key's highest's labels.
    pub(super) fn write(
        &mut self,
        p: &Panel,
        event: &Event,
        words: &Labels,
        asked: &[&Event],
        legend: &mut Legend,
    ) {
        let EventKind::Write {
            client,
            verdict,
            sent_at,
            ..
        } = &event.kind
        else {
            return;
        };
        let (x, t) = (p.x(event.t), event.t);
        let y = p.y(*client);
        let tip = x + self.reach(p);
        let asked = asked.iter().any(|e| std::ptr::eq(*e, event));
        let mut arrow = None;
        if sent_at.is_none() && !p.compact {
            let _ = write!(
                self.out,
                r#"<line x1="{x:.1}" y1="{y:.1}" x2="{tip:.1}" y2="{:.1}" stroke="{WRITE}" stroke-width="1.8" marker-end="url(#{}warrow)"/>"#,
                p.storage - 1.0,
                self.id
            );
            arrow = Some(self.arrow(Seg::new(x, y, tip, p.storage - 1.0), 1.8));
            let need = if asked { Need::Keep(1) } else { Need::Want(5) };
            let role = if asked { "asked" } else { "write" };
            let mut tries = spots::under_client(p, tip + 3.0, y, Anchor::Start, &words.main);
            tries.extend(spots::under_client(p, x - 4.0, y, Anchor::End, &words.main));
            self.queue(p, t, (need, Tone::Plain, p.font), tries, role);
        }
        let outcome = verdict.outcome();
        let honest = event.kind.honest_refusal();
        let s = p.font * 1.05;
        self.verdict_mark(p, tip, s, outcome, honest, t, legend);
        // Every verdict keeps its label; a busy window counts its acceptances instead. The
        // label may sit on the write's own arrow, which points into it.
        let (need, tone) = match outcome {
            Outcome::Accepted if p.busy => (Need::Want(9), Tone::Quiet),
            // Ten minutes drawn whole: a verdict labelled where it fits, all of them counted.
            Outcome::Rejected | Outcome::Corrupted if p.compact => {
                (Need::Want(0), verdict_tone(outcome, honest))
            }
            Outcome::Accepted => (Need::Keep(2), Tone::Quiet),
            other => (Need::Keep(0), verdict_tone(other, honest)),
        };
        let point = Some((tip, p.storage - s - 3.0));
        if !words.verdict.is_empty() {
            let tries = spots::above_storage(p, tip, s, &two_lines(&words.verdict, true));
            let on = (arrow.into_iter().flatten().collect(), point);
            self.queue_on(p, t, (need, tone, p.font), tries, "verdict", on);
        }
        // A corrupting write's words are its corruption's, which comes next.
        self.last_write = arrow;
        if !words.highest.is_empty() {
            let size = p.font * 0.92;
            let need = if p.busy { Need::Want(6) } else { Need::Keep(2) };
            let tries = spots::below_storage(p, tip, size, &words.highest);
            let on = (Vec::new(), Some((tip, p.storage + 1.0)));
            self.queue_on(p, t, (need, Tone::Quiet, size), tries, "highest", on);
        }
    }

    /// A verdict's mark on the storage's line at `cx`, `s` wide: ✓ in a circle, ✗ in a box (its
    /// border dashed for an honest write), ! in a black box; in a compact panel an acceptance is
    /// a thin stroke, so no verdict hides under the thousands of them.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn verdict_mark(
        &mut self,
        p: &Panel,
        cx: f64,
        s: f64,
        outcome: Outcome,
        honest: bool,
        t: Ms,
        legend: &mut Legend,
    ) {
        let cy = p.storage - s * 0.5 - 3.0;
        let mark = Rect {
            l: cx - s / 2.0,
            t: cy - s / 2.0,
            r: cx + s / 2.0,
            b: cy + s / 2.0,
        };
        let glyph = (s * 0.8).max(super::geometry::MIN_TEXT);
        let text = |fill: &str, sign: &str| {
            format!(
                r#"<text x="{cx:.1}" y="{:.1}" font-size="{glyph:.1}" font-weight="bold" fill="{fill}" text-anchor="middle">{sign}</text>"#,
                cy + glyph * 0.36
            )
        };
        let drawn = match outcome {
            Outcome::Accepted if p.compact => {
                legend.accepted.see(t);
                format!(
                    r#"<line x1="{cx:.1}" y1="{:.1}" x2="{cx:.1}" y2="{:.1}" stroke="{LIVE}" stroke-width="1"/>"#,
                    mark.t, p.storage
                )
            }
            Outcome::Accepted => {
                legend.accepted.see(t);
                format!(
                    r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="{:.1}" fill="white" stroke="{LIVE}" stroke-width="1.6"/>{}"#,
                    s * 0.5,
                    text(LIVE, "✓")
                )
            }
            Outcome::Rejected => {
                let (stroke, dash) = if honest {
                    legend.honest.see(t);
                    (HONEST, r#" stroke-dasharray="4 2""#)
                } else {
                    legend.rejected.see(t);
                    (REJECTED, "")
                };
                format!(
                    r#"<rect x="{:.1}" y="{:.1}" width="{s:.1}" height="{s:.1}" fill="white" stroke="{stroke}" stroke-width="2.5"{dash}/>{}"#,
                    mark.l,
                    mark.t,
                    text(stroke, "✗")
                )
            }
            Outcome::Corrupted => {
                legend.corrupted.see(t);
                format!(
                    r#"<rect x="{:.1}" y="{:.1}" width="{s:.1}" height="{s:.1}" fill="{CORRUPTED}" stroke="{INK}" stroke-width="1.5"/>{}"#,
                    mark.l,
                    mark.t,
                    text("white", "!")
                )
            }
        };
        self.out.push_str(&drawn);
        self.placer.block(mark.grown(1.5));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_may_take_two_lines_its_verdict_over_its_why() {
        let forms =
            |f: &[&str]| two_lines(&f.iter().map(|s| s.to_string()).collect::<Vec<_>>(), true);
        assert_eq!(
            forms(&[
                "CORRUPTED DATA! token 1 overwrote token 2",
                "CORRUPTED DATA!"
            ]),
            [
                "CORRUPTED DATA! token 1 overwrote token 2",
                "CORRUPTED DATA!\ntoken 1 overwrote token 2",
                "CORRUPTED DATA!"
            ]
        );
        assert_eq!(forms(&["REJECTED t1 < t2"])[1], "REJECTED\nt1 < t2");
        assert_eq!(
            forms(&["REJECTED though its lease was live: t1 < t2 (any key)"])[1],
            "REJECTED though its lease was live:\nt1 < t2 (any key)"
        );
        assert_eq!(forms(&["accepted"]), ["accepted"]);
        let call =
            |f: &[&str]| two_lines(&f.iter().map(|s| s.to_string()).collect::<Vec<_>>(), false);
        assert_eq!(
            call(&["grant, token 3", "grant t3"]),
            ["grant, token 3", "grant t3"]
        );
        assert_eq!(
            call(&["renew token 1: refused"])[1],
            "renew token 1:\nrefused"
        );
    }
}
