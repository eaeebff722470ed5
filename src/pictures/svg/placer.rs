//! The label placer: every label of a picture waits here until all the marks are drawn, then
//! takes a place clear of every other label, every mark and every line (an arrow, an actor's
//! line), the labels a caption depends on first.
//!
//! A label offers its places in order of preference (beside its arrow, one level up, the other
//! side...). A label that must be kept (a verdict, a rise of a key's highest, the write a
//! question asks about) that finds none of them free searches outward from its first place; one
//! that need not be kept is left out, its mark and the mark's title staying. A label may sit on
//! one obstacle of its own: a bar's token inside the bar.

use super::geometry::{text_box, Anchor, Rect, Seg};
use crate::sim::Ms;

/// How a label looks; the canvas gives each its colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tone {
    Plain,
    Strong,
    Quiet,
    /// White box, heavy red border: a write the storage refused.
    Rejected,
    /// White box, dashed amber border: an honest write a stricter check refused.
    Honest,
    /// Black box, white text: CORRUPTED DATA!
    Corrupted,
    /// White on a live lease's green bar.
    OnLive,
    /// Dark with a white halo, on a striped bar.
    OnStale,
    /// A band's own colour with a white halo: GC pause (0) or crashed (1).
    OnBand(u8),
}

impl Tone {
    pub(super) fn bold(self) -> bool {
        !matches!(self, Tone::Plain | Tone::Quiet)
    }

    /// Room kept around the text: a boxed label's box.
    pub(super) fn pad(self, size: f64) -> f64 {
        match self {
            Tone::Rejected | Tone::Honest | Tone::Corrupted => size * 0.35,
            // Inside its bar, which is its own room.
            Tone::OnLive | Tone::OnStale | Tone::OnBand(_) => 0.0,
            _ => 1.0,
        }
    }
}

/// How much a label matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Need {
    /// A caption depends on it: it is placed first (the lower the sooner) and searched for.
    Keep(u8),
    /// Placed if it fits, the lower the sooner.
    Want(u8),
}

/// One place a label may take: baseline at (x, y), anchored, with this wording.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Try {
    pub(super) x: f64,
    pub(super) y: f64,
    pub(super) anchor: Anchor,
    pub(super) text: String,
}

/// A label waiting for a place.
#[derive(Clone, Debug)]
pub(super) struct Label {
    pub(super) need: Need,
    pub(super) tone: Tone,
    pub(super) size: f64,
    /// Places in order of preference.
    pub(super) tries: Vec<Try>,
    /// The moment it tells of, so a page can keep the future out of sight.
    pub(super) t: Option<Ms>,
    /// The obstacles it may sit on (its own bar, its own arrow), from [`Placer::block`] and
    /// [`Placer::line`].
    pub(super) hosts: Vec<usize>,
    /// The point it labels: a label placed away from it is joined to it by a line.
    pub(super) mark: Option<(f64, f64)>,
    /// What it labels, for readers of the SVG (`verdict`, `highest`, `asked`...).
    pub(super) role: &'static str,
    /// For a label to keep: how many of its first wordings are its whole words (a verdict with
    /// its comparison), searched for further away before a shorter wording is tried near.
    pub(super) whole: usize,
    /// How many marks at its moment it stands for: two verdicts alike at one instant are one
    /// box, "accepted ×2".
    pub(super) copies: usize,
}

/// A label with its place.
#[derive(Clone, Debug)]
pub(super) struct Placed {
    pub(super) at: Try,
    pub(super) tone: Tone,
    pub(super) size: f64,
    pub(super) t: Option<Ms>,
    pub(super) role: &'static str,
    /// The box it covers, its padding included.
    pub(super) rect: Rect,
    /// A line from its mark to it, when it was placed away from its mark.
    pub(super) leader: Option<Seg>,
}

/// Arrows keep this much room from a label (an actor's line none: a bar's label sits on it).
pub(super) const ARROW_ROOM: f64 = 2.5;
/// The width of a column of the index.
const COLUMN: f64 = 48.0;

enum Obstacle {
    Rect(Rect),
    /// A line, and the room a label keeps from it.
    Line(Seg, f64),
}

/// Everything a label must keep clear of, indexed by columns of x.
struct Index {
    items: Vec<Obstacle>,
    columns: Vec<Vec<usize>>,
}

impl Index {
    fn new(width: f64) -> Index {
        Index {
            items: Vec::new(),
            columns: vec![Vec::new(); (width / COLUMN) as usize + 2],
        }
    }

    fn span(&self, l: f64, r: f64) -> std::ops::RangeInclusive<usize> {
        let last = self.columns.len() - 1;
        let col = |x: f64| ((x / COLUMN).max(0.0) as usize).min(last);
        col(l)..=col(r)
    }

    fn add(&mut self, item: Obstacle) -> usize {
        let bounds = match &item {
            Obstacle::Rect(r) => *r,
            Obstacle::Line(s, room) => s.bounds().grown(*room),
        };
        let id = self.items.len();
        for c in self.span(bounds.l, bounds.r) {
            self.columns[c].push(id);
        }
        self.items.push(item);
        id
    }

    /// Whether `rect` is clear of every obstacle but its `hosts`.
    fn clear(&self, rect: &Rect, hosts: &[usize]) -> bool {
        self.span(rect.l, rect.r).all(|c| {
            self.columns[c]
                .iter()
                .filter(|id| !hosts.contains(id))
                .all(|&id| match &self.items[id] {
                    Obstacle::Rect(r) => !r.overlaps(rect),
                    Obstacle::Line(s, room) => !rect.grown(*room).crossed_by(s),
                })
        })
    }
}

/// The labels of one picture and what they must keep clear of.
pub(super) struct Placer {
    index: Index,
    queue: Vec<(Rect, Label)>,
}

impl Placer {
    pub(super) fn new(width: f64) -> Placer {
        Placer {
            index: Index::new(width),
            queue: Vec::new(),
        }
    }

    /// A mark labels must not cover; its id, for a label that may sit on it.
    pub(super) fn block(&mut self, rect: Rect) -> usize {
        self.index.add(Obstacle::Rect(rect))
    }

    /// A line labels must not cross, nor come within `room` of; its id, for a label that may
    /// sit on it.
    pub(super) fn line(&mut self, seg: Seg, room: f64) -> usize {
        self.index.add(Obstacle::Line(seg, room))
    }

    /// A label to place inside `area`.
    pub(super) fn queue(&mut self, area: Rect, label: Label) {
        if label.role == "verdict" {
            let same = self.queue.iter_mut().find(|(_, queued)| {
                queued.role == "verdict"
                    && queued.t == label.t
                    && queued.tone == label.tone
                    && queued.tries.first().map(|t| &t.text) == label.tries.first().map(|t| &t.text)
            });
            if let Some((_, same)) = same {
                same.copies += 1;
                return;
            }
        }
        self.queue.push((area, label));
    }

    /// Places every queued label, those to keep first, then by need, each in the order queued:
    /// the placed ones, and those to keep that found no place.
    pub(super) fn place(mut self) -> (Vec<Placed>, Vec<Label>) {
        let mut queue = std::mem::take(&mut self.queue);
        queue.sort_by_key(|(_, l)| l.need);
        let mut placed: Vec<Placed> = Vec::new();
        let mut left: Vec<Label> = Vec::new();
        for (area, mut label) in queue {
            if label.copies > 1 {
                let times = format!(" ×{}", label.copies);
                for at in &mut label.tries {
                    at.text = match at.text.split_once('\n') {
                        Some((first, rest)) => format!("{first}{times}\n{rest}"),
                        None => format!("{}{times}", at.text),
                    };
                }
            }
            let keep = matches!(label.need, Need::Keep(_));
            let found = if keep {
                self.keep_place(&area, &label)
            } else {
                self.first_free(&area, &label, &label.tries)
            };
            let Some((at, rect)) = found else {
                if keep {
                    left.push(label);
                }
                continue;
            };
            if !keep && said_nearby(&placed, &at) {
                continue;
            }
            self.index.add(Obstacle::Rect(rect));
            // Placed away from its mark: a line from the mark to the nearest point of the box
            // (an obstacle too).
            let leader = label.mark.filter(|_| keep).and_then(|(mx, my)| {
                let (lx, ly) = (mx.clamp(rect.l, rect.r), my.clamp(rect.t, rect.b));
                let far = (lx - mx).hypot(ly - my) > label.size * 1.2;
                far.then(|| {
                    let line = Seg::new(mx, my, lx, ly);
                    self.index.add(Obstacle::Line(line, 1.0));
                    line
                })
            });
            placed.push(Placed {
                at,
                tone: label.tone,
                size: label.size,
                t: label.t,
                role: label.role,
                rect,
                leader,
            });
        }
        (placed, left)
    }

    /// The box `at` would cover, if it is free.
    fn fits(&self, area: &Rect, label: &Label, at: &Try) -> Option<Rect> {
        let b = text_box(
            at.x,
            at.y,
            at.anchor,
            &at.text,
            label.size,
            label.tone.bold(),
        );
        let rect = b.grown(label.tone.pad(label.size));
        (rect.inside(area) && self.index.clear(&rect, &label.hosts)).then_some(rect)
    }

    fn first_free(&self, area: &Rect, label: &Label, tries: &[Try]) -> Option<(Try, Rect)> {
        tries
            .iter()
            .find_map(|at| self.fits(area, label, at).map(|rect| (at.clone(), rect)))
    }

    /// A label to keep: its whole words near, then further away, then its shorter words near,
    /// then further away.
    fn keep_place(&self, area: &Rect, label: &Label) -> Option<(Try, Rect)> {
        let mut texts: Vec<&str> = Vec::new();
        for t in &label.tries {
            if !texts.contains(&t.text.as_str()) {
                texts.push(&t.text);
            }
        }
        let whole = &texts[..label.whole.min(texts.len())];
        let (first, rest): (Vec<Try>, Vec<Try>) = label
            .tries
            .iter()
            .cloned()
            .partition(|t| whole.contains(&t.text.as_str()));
        [first, rest].iter().find_map(|tries| {
            self.first_free(area, label, tries)
                .or_else(|| self.search(area, label, tries))
        })
    }

    /// Places around the first try of each wording, nearest first: up and down a line at a
    /// time, then sideways.
    fn search(&self, area: &Rect, label: &Label, tries: &[Try]) -> Option<(Try, Rect)> {
        let mut origins: Vec<&Try> = Vec::new();
        for t in tries {
            if !origins.iter().any(|o| o.text == t.text) {
                origins.push(t);
            }
        }
        let step_y = label.size * 1.2;
        let step_x = label.size * 2.5;
        let mut offsets: Vec<(f64, f64)> = Vec::new();
        for dy in -8i32..=8 {
            for dx in -12i32..=12 {
                offsets.push((dx as f64 * step_x, dy as f64 * step_y));
            }
        }
        offsets.sort_by(|a, b| {
            let d = |(x, y): &(f64, f64)| x.abs() * 0.6 + y.abs();
            d(a).total_cmp(&d(b))
        });
        origins.iter().find_map(|t| {
            offsets.iter().find_map(|(dx, dy)| {
                let at = Try {
                    x: t.x + dx,
                    y: t.y + dy,
                    ..(*t).clone()
                };
                self.fits(area, label, &at).map(|rect| (at, rect))
            })
        })
    }
}

/// Words already said close by are not said again; the marks stay, each with its title.
fn said_nearby(placed: &[Placed], at: &Try) -> bool {
    placed.iter().any(|p| {
        p.at.text == at.text
            && (p.at.x - at.x).abs() < p.size * 16.0
            && (p.at.y - at.y).abs() < p.size * 4.5
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const AREA: Rect = Rect {
        l: 0.0,
        t: 0.0,
        r: 400.0,
        b: 200.0,
    };

    fn label(need: Need, tries: &[(f64, f64)], text: &str) -> Label {
        Label {
            need,
            tone: Tone::Plain,
            size: 12.0,
            tries: tries
                .iter()
                .map(|&(x, y)| Try {
                    x,
                    y,
                    anchor: Anchor::Start,
                    text: text.into(),
                })
                .collect(),
            t: None,
            hosts: Vec::new(),
            mark: None,
            role: "test",
            whole: 0,
            copies: 1,
        }
    }

    #[test]
    fn no_two_labels_overlap_and_the_more_needed_is_placed_first() {
        let mut placer = Placer::new(400.0);
        placer.queue(AREA, label(Need::Want(5), &[(10.0, 50.0)], "later label"));
        placer.queue(AREA, label(Need::Want(1), &[(12.0, 52.0)], "first label"));
        let (placed, left) = placer.place();
        assert_eq!(placed.len(), 1);
        assert_eq!(placed[0].at.text, "first label");
        assert!(
            left.is_empty(),
            "the other had one place only; left out, it is not kept"
        );
    }

    #[test]
    fn a_label_takes_its_first_free_place_clear_of_marks_and_lines() {
        let mut placer = Placer::new(400.0);
        placer.block(Rect {
            l: 0.0,
            t: 30.0,
            r: 100.0,
            b: 60.0,
        });
        placer.line(Seg::new(150.0, 0.0, 150.0, 200.0), ARROW_ROOM);
        placer.queue(
            AREA,
            label(
                Need::Want(1),
                &[(10.0, 50.0), (140.0, 100.0), (160.0, 100.0)],
                "words",
            ),
        );
        let (placed, _) = placer.place();
        assert_eq!((placed[0].at.x, placed[0].at.y), (160.0, 100.0));
    }

    #[test]
    fn a_label_to_keep_searches_outward_when_its_places_are_taken() {
        let mut placer = Placer::new(400.0);
        let wall = Rect {
            l: 0.0,
            t: 40.0,
            r: 400.0,
            b: 60.0,
        };
        placer.block(wall);
        let mut kept = label(Need::Keep(0), &[(20.0, 55.0)], "REJECTED t1 < t2");
        kept.mark = Some((20.0, 58.0));
        placer.queue(AREA, kept);
        placer.queue(AREA, label(Need::Want(1), &[(20.0, 55.0)], "dropped"));
        let (placed, left) = placer.place();
        assert_eq!(placed.len(), 1);
        assert!(!placed[0].rect.overlaps(&wall), "{:?}", placed[0].rect);
        assert!(placed[0].rect.inside(&AREA));
        assert!(placed[0].leader.is_some(), "joined to its mark");
        assert!(left.is_empty());
    }

    #[test]
    fn a_label_may_sit_on_its_own_bar_but_not_on_another() {
        let mut placer = Placer::new(400.0);
        let bar = Rect {
            l: 0.0,
            t: 40.0,
            r: 200.0,
            b: 60.0,
        };
        let own = placer.block(bar);
        placer.block(Rect {
            t: 80.0,
            b: 100.0,
            ..bar
        });
        let mut inside = label(Need::Want(1), &[(5.0, 55.0)], "token 1");
        inside.hosts = vec![own];
        placer.queue(AREA, inside);
        placer.queue(AREA, label(Need::Want(1), &[(5.0, 95.0)], "token 2"));
        let (placed, _) = placer.place();
        assert_eq!(placed.len(), 1);
        assert_eq!(placed[0].at.text, "token 1");
    }

    #[test]
    fn the_same_words_close_by_are_said_once_unless_kept() {
        let mut placer = Placer::new(400.0);
        placer.queue(AREA, label(Need::Want(3), &[(10.0, 30.0)], "refused"));
        placer.queue(AREA, label(Need::Want(3), &[(80.0, 30.0)], "refused"));
        placer.queue(AREA, label(Need::Keep(0), &[(10.0, 130.0)], "accepted"));
        placer.queue(AREA, label(Need::Keep(0), &[(80.0, 130.0)], "accepted"));
        let (placed, _) = placer.place();
        let said = |w: &str| placed.iter().filter(|p| p.at.text == w).count();
        assert_eq!((said("refused"), said("accepted")), (1, 2));
    }
}
