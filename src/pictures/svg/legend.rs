//! Which kinds of mark a picture shows, each from when it first appears, and the legend row (or
//! two) that names them, in the words of the system in force.

use std::fmt::Write as _;

use super::canvas::Svg;
use super::geometry::{text_width, Anchor, MIN_TEXT};
use super::palette::{CRASH, FAINT, GC, HONEST, INK, LIVE, MUTED, STALE};
use super::placer::Tone;
use crate::sim::time::fmt_seconds;
use crate::sim::{Ms, Vocab};

/// When a kind of mark first appears, if it does: a page keeps a legend entry out of sight
/// until then, so the legend cannot tell the answer to a question before it is asked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Seen(pub(super) Option<Ms>);

impl Seen {
    pub(super) fn see(&mut self, t: Ms) {
        self.0 = Some(self.0.map_or(t, |s| s.min(t)));
    }
}

/// How many writes of each verdict a busy window holds, and when the last was judged: where not
/// every verdict can keep its label, the legend counts them all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Counts {
    pub(super) accepted: usize,
    pub(super) rejected: usize,
    pub(super) corrupted: usize,
    pub(super) last: Ms,
}

/// Which kinds of mark a picture shows.
#[derive(Clone, Debug, Default)]
pub(super) struct Legend {
    pub(super) live: Seen,
    pub(super) believed: Seen,
    pub(super) gc: Seen,
    pub(super) crash: Seen,
    pub(super) waiting: Seen,
    pub(super) retried: Seen,
    pub(super) accepted: Seen,
    pub(super) rejected: Seen,
    pub(super) honest: Seen,
    pub(super) corrupted: Seen,
    pub(super) refused: Seen,
    pub(super) delayed: Seen,
    pub(super) expiry: Seen,
    pub(super) jump: Seen,
    /// The labels' short forms: a short token ("t2"), a client ("c1"), a renewal ("+"), and
    /// verdicts alike at one instant ("×2").
    pub(super) short_token: Seen,
    pub(super) short_client: Seen,
    pub(super) short_renew: Seen,
    pub(super) copies: Seen,
    /// The short token's entry: "t2: token 2", "rev 2: revision 2".
    pub(super) short_token_words: String,
    pub(super) counts: Option<Counts>,
}

/// How an entry's swatch looks.
#[derive(Clone, Copy)]
enum Swatch {
    None,
    /// A bar: fill, stroke.
    Bar(&'static str, &'static str),
    /// A bar with a pattern of the picture's defs, and its stroke.
    Pattern(&'static str, &'static str),
    /// A dashed line.
    Dashed,
    /// A short upward tick.
    Tick,
    /// A diamond of this fill.
    Diamond(&'static str),
    /// A box with a dashed border.
    DashedBox(&'static str),
}

/// An entry's words in `vocab`'s. Under a system with no token, corruption is not explained by
/// an order of numbers the storage never sees.
fn said(words: &str, vocab: &Vocab) -> String {
    let no_token = vocab.system.is_some_and(|s| !s.has_token);
    let ordered = "(token below the key's highest)";
    if no_token && words.contains(ordered) {
        return words.replace(ordered, "(an older lease's write over newer data)");
    }
    vocab.say(words)
}

/// How many entries a legend may have.
const ENTRIES: usize = 18;

/// The order entries are dropped in when not all fit: the verdicts last.
const KEEP_ORDER: [usize; ENTRIES] = [7, 8, 9, 6, 0, 1, 2, 3, 14, 15, 16, 17, 12, 13, 4, 5, 10, 11];

impl Legend {
    /// Sees the short forms the placed labels `said` use, in `vocab`'s marks.
    pub(super) fn see_short_forms(&mut self, said: &[(Option<Ms>, String)], vocab: &Vocab) {
        let marks = vocab.marks();
        let word = vocab.token;
        for (t, text) in said {
            let t = t.unwrap_or(0);
            if marks.shortened_in(text, word) {
                self.short_token.see(t);
            }
            let words = || text.split([' ', '\n']);
            if words().any(|w| {
                w.len() == 2 && w.starts_with('c') && w[1..].bytes().all(|b| b.is_ascii_digit())
            }) {
                self.short_client.see(t);
            }
            if text == "+" {
                self.short_renew.see(t);
            }
            if text.contains('×') {
                self.copies.see(t);
            }
        }
        self.short_token_words = format!("{}: {word} 2", marks.of_token(2));
    }

    /// The entries, in the order drawn: when each first appears, its swatch and its words.
    fn entries(&self) -> [(Seen, Swatch, String); ENTRIES] {
        let count = |n: Option<usize>, words: &str| match n {
            Some(n) => format!("{words}: {n}"),
            None => words.to_owned(),
        };
        let c = self.counts;
        let counted = |seen: Seen| match c {
            Some(c) => Seen(seen.0.map(|t| t.max(c.last))),
            None => seen,
        };
        [
            (self.live, Swatch::Bar(LIVE, LIVE), "holds the lease".into()),
            (
                self.believed,
                Swatch::Pattern("stripes", STALE),
                "believed, lease gone".into(),
            ),
            (self.gc, Swatch::Pattern("dots", GC), "GC pause".into()),
            (
                self.crash,
                Swatch::Pattern("cross", CRASH),
                "crashed, down".into(),
            ),
            (self.waiting, Swatch::Dashed, "waiting to ask".into()),
            (self.retried, Swatch::Tick, "a refused ask".into()),
            (
                counted(self.accepted),
                Swatch::None,
                count(c.map(|c| c.accepted), "✓ accepted"),
            ),
            (
                counted(self.rejected),
                Swatch::None,
                count(c.map(|c| c.rejected), "✗ REJECTED"),
            ),
            (
                self.honest,
                Swatch::DashedBox(HONEST),
                "REJECTED though its lease was live".into(),
            ),
            (
                counted(self.corrupted),
                Swatch::None,
                count(
                    c.map(|c| c.corrupted),
                    "! CORRUPTED DATA! (token below the key's highest)",
                ),
            ),
            (self.refused, Swatch::None, "dashed: refused".into()),
            (self.delayed, Swatch::None, "slanted: delayed".into()),
            (
                self.expiry,
                Swatch::Diamond("white"),
                "a lease runs out".into(),
            ),
            (self.jump, Swatch::Diamond(INK), "its clock jumps".into()),
            (
                self.short_token,
                Swatch::None,
                self.short_token_words.clone(),
            ),
            (self.short_client, Swatch::None, "c1: client-1".into()),
            (self.short_renew, Swatch::None, "+ renewed".into()),
            (self.copies, Swatch::None, "×2: two alike at once".into()),
        ]
    }

    /// Which entries show, each with its row, packed into at most `rows` rows of `room` pixels
    /// (the verdicts' entries the last to go).
    fn layout(&self, room: f64, f: f64, rows: usize, vocab: &Vocab) -> Vec<Option<usize>> {
        let entries = self.entries();
        let widths: Vec<f64> = entries
            .iter()
            .map(|(_, swatch, words)| entry_width(*swatch, &said(words, vocab), f))
            .collect();
        let mut kept = [false; ENTRIES];
        let mut total = 0.0;
        for i in KEEP_ORDER {
            if entries[i].0 .0.is_some() && total + widths[i] <= room * rows as f64 * 0.92 {
                kept[i] = true;
                total += widths[i];
            }
        }
        loop {
            let mut rows_of = vec![None; ENTRIES];
            let (mut row, mut used) = (0, 0.0);
            for i in (0..ENTRIES).filter(|&i| kept[i]) {
                if used + widths[i] > room && used > 0.0 {
                    row += 1;
                    used = 0.0;
                }
                rows_of[i] = Some(row);
                used += widths[i];
            }
            if row < rows {
                return rows_of;
            }
            // Too many for the rows: drop the entry that goes first.
            match KEEP_ORDER.iter().rev().find(|&&i| kept[i]) {
                Some(&i) => kept[i] = false,
                None => return rows_of,
            }
        }
    }

    /// How many rows (one or two) the legend needs at this width.
    pub(super) fn rows(&self, room: f64, f: f64, vocab: &Vocab) -> usize {
        let entries = self.entries();
        let total: f64 = entries
            .iter()
            .filter(|(seen, _, _)| seen.0.is_some())
            .map(|(_, swatch, words)| entry_width(*swatch, &said(words, vocab), f))
            .sum();
        if total <= room {
            1
        } else {
            2
        }
    }
}

/// The width an entry takes, its gap to the next included.
fn entry_width(swatch: Swatch, words: &str, f: f64) -> f64 {
    swatch_width(swatch, f) + text_width(words, f, false) + f * 1.4
}

fn swatch_width(swatch: Swatch, f: f64) -> f64 {
    match swatch {
        Swatch::None => 0.0,
        Swatch::Diamond(_) | Swatch::Tick => f * 1.3,
        _ => f * 2.3,
    }
}

impl Svg {
    /// The legend in `rows` rows from `top`, in `vocab`'s words.
    pub(super) fn legend(&mut self, legend: &Legend, top: f64, rows: usize, vocab: &Vocab) {
        let f = (self.font * 0.9).max(MIN_TEXT);
        let left = self.font;
        let room = self.bounds().r - left;
        let layout = legend.layout(room, f, rows, vocab);
        let mut x = [left; 2];
        for ((seen, swatch, words), row) in legend.entries().into_iter().zip(layout) {
            let (Some(first), Some(row)) = (seen.0, row) else {
                continue;
            };
            let words = said(&words, vocab);
            let y = top + f * 1.4 + row as f64 * f * 1.5;
            // Where it stands in its row, so a page hiding entries can close the gaps.
            let _ = write!(
                self.out,
                r#"<g class="legend" data-t="{}" data-row="{row}" data-x="{:.1}" data-w="{:.1}">"#,
                fmt_seconds(first),
                x[row],
                entry_width(swatch, &words, f)
            );
            self.swatch(swatch, x[row], y, f);
            let sw = swatch_width(swatch, f);
            self.text(x[row] + sw, y, Anchor::Start, &words, f, Tone::Plain);
            self.out.push_str("</g>");
            x[row] += entry_width(swatch, &words, f);
        }
    }

    fn swatch(&mut self, swatch: Swatch, x: f64, y: f64, f: f64) {
        let p = &self.id;
        let (w, h, top) = (f * 1.8, f * 0.8, y - f * 0.75);
        let _ = match swatch {
            Swatch::None => Ok(()),
            Swatch::Bar(fill, stroke) => write!(
                self.out,
                r#"<rect x="{x:.1}" y="{top:.1}" width="{w:.1}" height="{h:.1}" fill="{fill}" stroke="{stroke}" stroke-width="1.2"/>"#
            ),
            Swatch::Pattern(pattern, stroke) => write!(
                self.out,
                r#"<rect x="{x:.1}" y="{top:.1}" width="{w:.1}" height="{h:.1}" fill="url(#{p}{pattern})" stroke="{stroke}" stroke-width="1.2"/>"#
            ),
            Swatch::Dashed => write!(
                self.out,
                r#"<line x1="{x:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{MUTED}" stroke-width="3" stroke-dasharray="6 4"/>"#,
                top + h / 2.0,
                x + w,
                top + h / 2.0
            ),
            Swatch::Tick => write!(
                self.out,
                r#"<line x1="{:.1}" y1="{top:.1}" x2="{:.1}" y2="{:.1}" stroke="{FAINT}" stroke-width="2"/>"#,
                x + f * 0.4,
                x + f * 0.4,
                top + h
            ),
            Swatch::Diamond(fill) => {
                let (cx, cy, s) = (x + f * 0.45, top + h / 2.0, f * 0.42);
                write!(
                    self.out,
                    r#"<path d="M{cx:.1},{:.1}L{:.1},{cy:.1}L{cx:.1},{:.1}L{:.1},{cy:.1}z" fill="{fill}" stroke="{INK}" stroke-width="1.5"/>"#,
                    cy - s,
                    cx + s,
                    cy + s,
                    cx - s
                )
            }
            Swatch::DashedBox(stroke) => write!(
                self.out,
                r#"<rect x="{x:.1}" y="{top:.1}" width="{w:.1}" height="{h:.1}" fill="white" stroke="{stroke}" stroke-width="2" stroke-dasharray="4 2"/>"#
            ),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> Vocab {
        Vocab::plain(&["file".to_owned()])
    }

    #[test]
    fn only_the_kinds_seen_are_named_from_when_first_seen() {
        let mut legend = Legend::default();
        legend.expiry.see(10_000);
        legend.expiry.see(4_000);
        legend.jump.see(3_000);
        let layout = legend.layout(1200.0, 14.0, 1, &vocab());
        let shown: Vec<usize> = (0..14).filter(|&i| layout[i].is_some()).collect();
        assert_eq!(shown, [12, 13], "the two diamonds");
        assert_eq!(legend.expiry, Seen(Some(4_000)));
    }

    #[test]
    fn a_crowded_legend_takes_two_rows_and_then_drops_all_but_the_verdicts() {
        let mut legend = Legend::default();
        for seen in [
            &mut legend.live,
            &mut legend.believed,
            &mut legend.gc,
            &mut legend.crash,
            &mut legend.waiting,
            &mut legend.rejected,
            &mut legend.corrupted,
            &mut legend.expiry,
        ] {
            seen.see(0);
        }
        let f = 14.0;
        assert_eq!(legend.rows(1200.0, f, &vocab()), 2);
        let two = legend.layout(1200.0, f, 2, &vocab());
        assert_eq!(two.iter().flatten().count(), 8, "all fit in two rows");
        let narrow = legend.layout(300.0, f, 1, &vocab());
        assert!(narrow[7].is_some(), "REJECTED stays");
        assert!(narrow[0].is_none(), "the rest go first");
    }

    #[test]
    fn a_busy_window_counts_every_verdict_from_its_last() {
        let mut legend = Legend::default();
        legend.accepted.see(1_000);
        legend.rejected.see(2_000);
        legend.counts = Some(Counts {
            accepted: 24,
            rejected: 10,
            corrupted: 0,
            last: 9_000,
        });
        let entries = legend.entries();
        assert_eq!(entries[6].2, "✓ accepted: 24");
        assert_eq!(entries[7].2, "✗ REJECTED: 10");
        assert_eq!(
            entries[7].0,
            Seen(Some(9_000)),
            "out of sight until the last"
        );
    }
}
