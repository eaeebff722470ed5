//! Lanes drawn into columns of time. A column shows what is in force at its last instant (at
//! now, in the column of now), so a lane never shows a lease after it ended; a stretch's label
//! sits at the column where the stretch begins. On a lock's lane every grant is labelled with
//! its token at its own column, in a second row when grants are too close for one.

use std::collections::BTreeSet;

use ratatui::buffer::Buffer;

use super::fit::width;
use crate::sim::{ClientId, LaneState, LockSpan, Mark, MarkKind, Marks, Ms, Span};
use crate::tui::theme::{Role, Theme};

/// Seconds per column the timeline chooses from, in ms.
const SCALES: [Ms; 4] = [100, 200, 250, 500];
/// A chaos run's scale: a grant every second or so still gets its token on the lock lane.
const CHAOS_SCALE: Ms = 250;

/// Which stretch of time the lanes show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub start: Ms,
    /// Ms per column.
    pub scale: Ms,
    pub cols: u16,
}

impl Window {
    /// The window for `cols` columns at `now`: a lesson whole when it fits, else following now.
    /// Half a second a column at most, so a job or a write is never squeezed out of sight.
    pub fn choose(cols: u16, now: Ms, end: Ms, chaos: bool) -> Window {
        let cols = cols.max(1);
        let scale = if chaos {
            CHAOS_SCALE
        } else {
            SCALES
                .iter()
                .copied()
                .find(|s| s * cols as Ms >= end)
                .unwrap_or(500)
        };
        let span = scale * cols as Ms;
        // Keep now at about 85% of the width once the story outgrows the window.
        let lead = span * 85 / 100;
        let start = if now <= lead {
            0
        } else {
            (now - lead) / scale * scale
        };
        Window { start, scale, cols }
    }

    /// The column of time `t`, if it is in the window.
    pub fn col_of(&self, t: Ms) -> Option<u16> {
        let col = t.checked_sub(self.start)? / self.scale;
        (col < self.cols as Ms).then_some(col as u16)
    }

    pub(super) fn col_start(&self, col: u16) -> Ms {
        self.start + col as Ms * self.scale
    }

    /// The columns that have begun by `now`: the lanes are drawn up to the cursor.
    pub(super) fn drawn(&self, now: Ms) -> u16 {
        match now.checked_sub(self.start) {
            Some(d) => (d / self.scale + 1).min(self.cols as Ms) as u16,
            None => 0,
        }
    }

    /// The instant a column shows: its last, or now in the column of now.
    fn shown_at(&self, col: u16, now: Ms) -> Ms {
        (self.col_start(col) + self.scale - 1).min(now)
    }
}

/// Draws glyphs and labels into one lane row and remembers which glyphs the screen shows, for
/// the legend.
pub struct Painter<'a> {
    pub buf: &'a mut Buffer,
    /// The lanes' first column on screen.
    pub x: u16,
    pub window: Window,
    pub now: Ms,
    pub theme: &'a Theme,
    pub drawn: BTreeSet<char>,
}

impl Painter<'_> {
    fn glyph(&mut self, col: u16, y: u16, glyph: char, role: Role) {
        self.drawn.insert(glyph);
        self.buf
            .set_string(self.x + col, y, glyph.to_string(), self.theme.style(role));
    }

    fn label(&mut self, col: u16, y: u16, label: &str, role: Role) {
        self.buf
            .set_string(self.x + col, y, label, self.theme.style(role));
    }
}

/// The span in force at `t`.
fn span_at(spans: &[Span], t: Ms) -> Option<&Span> {
    let i = spans.partition_point(|s| s.start <= t);
    i.checked_sub(1).map(|i| &spans[i])
}

fn lane_cell(state: LaneState) -> (char, Role) {
    match state {
        LaneState::Idle => ('·', Role::Idle),
        LaneState::Waiting => ('-', Role::Waiting),
        LaneState::Holding => ('=', Role::Holding),
        LaneState::Stale => ('/', Role::Stale),
        LaneState::Paused => ('~', Role::Paused),
        LaneState::Crashed => ('x', Role::Crashed),
    }
}

/// The glyph of a mark: the one mapping from a mark to what the screen shows.
pub fn mark_glyph(kind: MarkKind) -> (char, Role) {
    match kind {
        MarkKind::Released => (']', Role::Holding),
        MarkKind::Renewed => ('+', Role::Holding),
        MarkKind::Refused => ('?', Role::Waiting),
        MarkKind::LeaseRefusal => ('ø', Role::Stale),
        MarkKind::Sent => ('»', Role::Waiting),
        MarkKind::Accepted => ('✓', Role::Accepted),
        MarkKind::Rejected => ('✗', Role::Rejected),
        MarkKind::Corrupted => ('!', Role::Corrupted),
        MarkKind::Differs => ('≠', Role::Corrupted),
    }
}

/// One client's lane: its state in each column, a label where a stretch starts (the token held,
/// GC, down; a little later when a mark sits there), and the most important mark of each
/// column on top. A
/// grant at now, too short yet for its token, has it just past the cursor, so a grant made a
/// moment ago still shows its token.
pub fn client_lane(p: &mut Painter, y: u16, spans: &[Span], marks: &[Mark], tokens: Marks) {
    let (window, now) = (p.window, p.now);
    let cells: Vec<(LaneState, Option<u64>)> = (0..window.drawn(now))
        .map(|col| {
            span_at(spans, window.shown_at(col, now))
                .map_or((LaneState::Idle, None), |s| (s.state, s.token))
        })
        .collect();
    // An instant matters more than the stretch it sits in: keep each column's weightiest mark.
    let mut weightiest: Vec<Option<MarkKind>> = vec![None; cells.len()];
    for mark in &marks[marks.partition_point(|m| m.t < window.start)..] {
        match window
            .col_of(mark.t)
            .and_then(|col| weightiest.get_mut(col as usize))
        {
            Some(slot) => *slot = (*slot).max(Some(mark.kind)),
            None => break,
        }
    }
    for (col, &(state, _)) in cells.iter().enumerate() {
        let (glyph, role) = lane_cell(state);
        p.glyph(col as u16, y, glyph, role);
    }
    let mut start = 0;
    while start < cells.len() {
        let run = cells[start..]
            .iter()
            .take_while(|&&c| c == cells[start])
            .count();
        let (state, token) = cells[start];
        // The token in the system's words ("rev 4"), or in the fewest characters ("r4") where
        // the stretch is too short for them.
        let labels = match (state, token) {
            (LaneState::Holding | LaneState::Stale, Some(token)) if tokens.shown() => {
                vec![tokens.of_token(token), tokens.compact(token)]
            }
            (LaneState::Paused, _) => vec!["GC".to_owned()],
            (LaneState::Crashed, _) => vec!["down".to_owned()],
            _ => vec![String::new()],
        };
        // At the stretch's start, or as near it as the marks in it allow, with at least one of
        // its glyphs still showing.
        let place_of = |label: &String| {
            let w = width(label);
            let clear = |at: usize| weightiest[at..at + w].iter().all(Option::is_none);
            (run > w)
                .then(|| (start..start + run - w).find(|&at| clear(at)))
                .flatten()
        };
        let found = labels
            .iter()
            .find_map(|label| place_of(label).map(|at| (label, at)));
        let (label, place) = match found {
            Some((label, at)) => (label.clone(), Some(at)),
            None => (labels[0].clone(), None),
        };
        let w = width(&label);
        if let Some(at) = place.filter(|_| w > 0) {
            p.label(at as u16, y, &label, lane_cell(state).1);
        } else if w > 0
            && state == LaneState::Holding
            && start + run == cells.len()
            && cells.len() + w <= window.cols as usize
        {
            // A grant at now, too short yet for its token: the token follows the cursor, so
            // the stretch's own glyph still shows.
            p.label(cells.len() as u16, y, &label, lane_cell(state).1);
        }
        start += run;
    }
    for (col, mark) in weightiest.iter().enumerate() {
        if let Some(kind) = mark {
            let (glyph, role) = mark_glyph(*kind);
            p.glyph(col as u16, y, glyph, role);
        }
    }
}

/// Where each grant's label goes on a lock's lane: in the lane's own row, from the grant's
/// column up to the next grant's; else in the row beneath, from the grant's column, a space
/// after the label before it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct LockLabels {
    /// (column, label) in the lane's row.
    pub lane: Vec<(u16, String)>,
    /// (column, label) in the row beneath.
    pub below: Vec<(u16, String)>,
    /// Grants whose label found no place.
    pub unplaced: usize,
}

/// The grants a lock's lane shows (the holder in force at the window's start included), each
/// with its column and holder.
fn grants(window: &Window, now: Ms, spans: &[LockSpan]) -> Vec<Grant> {
    let from = spans
        .partition_point(|s| s.start <= window.start)
        .saturating_sub(1);
    spans[from..]
        .iter()
        .take_while(|s| s.start <= now)
        .filter_map(|s| {
            let (client, token) = s.holder?;
            let col = window.col_of(s.start.max(window.start))?;
            Some(Grant {
                col,
                client,
                token,
                seen: s.start >= window.start,
            })
        })
        .collect()
}

/// A grant on a lock's lane.
struct Grant {
    col: u16,
    client: ClientId,
    token: u64,
    /// It began in the window, so its boundary is on screen (not the holder at the window's
    /// start, whose label only takes room its own stretch leaves free).
    seen: bool,
}

/// Places every grant's label at its own column. Without a row beneath, each label ends where
/// the next grant begins, so every boundary shows. With one, a label that does not fit goes
/// beneath; failing that, the token alone may run over the next boundary in the lane, whose
/// own label then goes beneath.
pub fn lock_labels(
    window: &Window,
    now: Ms,
    spans: &[LockSpan],
    tokens: Marks,
    below: bool,
) -> LockLabels {
    let grants = grants(window, now, spans);
    let mut placed = LockLabels::default();
    let (mut lane_free, mut below_free) = (0u16, 0u16);
    for (i, grant) in grants.iter().enumerate() {
        let col = grant.col;
        // A lock lane is crowded: its token in the fewest characters ("r4" for revision 4).
        let short = if tokens.shown() {
            tokens.compact(grant.token)
        } else {
            format!("c{}", grant.client.number())
        };
        let long = format!(
            "c{} {}",
            grant.client.number(),
            tokens.of_token(grant.token)
        );
        // The holder and the token's fewest characters: "c1 r10020".
        let medium = format!("c{} {}", grant.client.number(), tokens.compact(grant.token));
        // Right after another label in the lane, the token alone: "t13t14" reads as two,
        // "t13c2 t14" does not.
        let touching = i > 0 && col == lane_free;
        let next = grants.get(i + 1).map_or(window.cols, |g| g.col);
        let ends = |label: &str, until: u16| col as usize + width(label) <= until as usize;
        let lane = [long.as_str(), medium.as_str(), short.as_str()]
            .into_iter()
            .filter(|l| tokens.shown() || *l == short)
            .filter(|l| !touching || *l == short)
            .find(|l| col >= lane_free && ends(l, next));
        if let Some(label) = lane {
            lane_free = col + width(label) as u16;
            placed.lane.push((col, label.to_owned()));
        } else if below && grant.seen && col >= below_free && ends(&short, window.cols) {
            below_free = col + width(&short) as u16;
            placed.below.push((col, short));
        } else if below && grant.seen && col >= lane_free && ends(&short, window.cols) {
            lane_free = col + width(&short) as u16;
            placed.lane.push((col, short));
        } else if grant.seen {
            placed.unplaced += 1;
        }
    }
    placed
}

/// Whether a lock's lane needs a row beneath for its labels: when grants come too close for one.
pub fn lock_needs_row(window: &Window, now: Ms, spans: &[LockSpan], tokens: Marks) -> bool {
    lock_labels(window, now, spans, tokens, false).unplaced > 0
}

/// One lock's lane: held (`=`) or free (`·`) in each column, every grant's label at its column
/// (in `below`'s row when it has one and the lane's own row is too crowded).
pub fn lock_lane(p: &mut Painter, y: u16, below: Option<u16>, spans: &[LockSpan], tokens: Marks) {
    let (window, now) = (p.window, p.now);
    for col in 0..window.drawn(now) {
        let t = window.shown_at(col, now);
        let i = spans.partition_point(|s| s.start <= t);
        let held = i.checked_sub(1).is_some_and(|i| spans[i].holder.is_some());
        let (glyph, role) = if held {
            ('=', Role::Holding)
        } else {
            ('·', Role::Idle)
        };
        p.glyph(col, y, glyph, role);
    }
    let labels = lock_labels(&window, now, spans, tokens, below.is_some());
    for (col, label) in &labels.lane {
        p.label(*col, y, label, Role::Holding);
    }
    if let Some(below) = below {
        for (col, label) in &labels.below {
            p.label(*col, below, label, Role::Holding);
        }
    }
}
