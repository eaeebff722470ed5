//! The timeline: one lane per client, one per lock and, when writes are held in the network, a
//! network lane; a cursor at now; each client's belief beside the lock service's truth; and, in
//! the bottom border, a legend of the marks on screen.

use std::collections::BTreeSet;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Block, Widget};

use super::fit::{clip, width};
use crate::sim::{LaneState, MarkKind, Ms, Span};
use crate::tui::frame::TimelineData;
use crate::tui::theme::{Role, Theme};

/// Seconds per column the timeline chooses from, in ms.
const SCALES: [Ms; 4] = [100, 200, 250, 500];
/// The lane labels' column, a gap included so a label never touches its lane.
const LABEL_WIDTH: u16 = 10;

/// Every glyph the timeline draws: (glyph, short word for the legend, meaning for the help).
pub const LEGEND: &[(char, &str, &str)] = &[
    (
        '=',
        "holds",
        "holds the live lease (lock lane: the lock is held)",
    ),
    (
        '/',
        "thinks it holds",
        "thinks it holds a lease that is gone",
    ),
    ('~', "GC", "frozen in a GC pause (labelled GC)"),
    ('x', "down", "crashed and down (labelled down)"),
    ('-', "waits", "asked for the lock, waiting to ask again"),
    ('·', "idle", "idle (lock lane: the lock is free)"),
    ('✓', "accepted", "a write the storage accepted"),
    ('✗', "REJECTED", "a write the storage's check refused"),
    (
        '!',
        "CORRUPTED",
        "CORRUPTED DATA!: accepted with a token older than the key's highest",
    ),
    ('»', "sent", "a write sent into a slow network"),
    ('›', "in flight", "network lane: a write the network holds"),
    ('?', "refused", "asked for the lock: refused"),
    ('+', "renewed", "renewed its lease (same token)"),
    (']', "released", "released the lock"),
    (
        'ø',
        "lease refused",
        "a renew or release the lock service refused",
    ),
];

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
            500
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

    fn col_start(&self, col: u16) -> Ms {
        self.start + col as Ms * self.scale
    }
}

/// The timeline panel.
pub struct Timeline<'a> {
    pub data: &'a TimelineData<'a>,
    pub theme: &'a Theme,
}

/// The belief and truth columns' widths for an inner width.
fn status_widths(inner_width: u16) -> (u16, u16) {
    if inner_width >= 100 {
        (16, 20)
    } else {
        // "t12 10.0 s left" and "ended 10.0 s ago" whole.
        (15, 16)
    }
}

/// Where the lanes sit inside the timeline's border: the offset from the inner left edge and the
/// width, for an inner width. Tests read it to find a column's time.
pub fn lane_span(inner_width: u16) -> (u16, u16) {
    let (belief_w, truth_w) = status_widths(inner_width);
    let width = inner_width.saturating_sub(LABEL_WIDTH + 1 + belief_w + 1 + truth_w);
    (LABEL_WIDTH, width)
}

impl Widget for Timeline<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let data = self.data;
        let theme = self.theme;
        let block = Block::bordered().title(" Timeline ");
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.height < 1 || inner.width < LABEL_WIDTH + 40 {
            return;
        }
        let (belief_w, truth_w) = status_widths(inner.width);
        let (lane_offset, lane_w) = lane_span(inner.width);
        let lane_x = inner.x + lane_offset;
        let status_x = lane_x + lane_w + 1;
        let truth_x = status_x + belief_w + 1;
        let window = Window::choose(lane_w, data.now, data.end, data.chaos);
        let dim = theme.style(Role::Dim);
        let mut drawn: BTreeSet<char> = BTreeSet::new();

        let mut y = inner.y;
        buf.set_stringn(inner.x, y, "time (s)", LABEL_WIDTH as usize - 1, dim);
        draw_axis(buf, lane_x, y, &window, dim);
        buf.set_stringn(status_x, y, "believes", belief_w as usize, dim);
        buf.set_stringn(truth_x, y, "lock service", truth_w as usize, dim);

        for (row, client) in data.clients.iter().enumerate() {
            y += 1;
            if y >= inner.bottom() {
                break;
            }
            let label = format!("{}{}", if client.selected { "▸" } else { " " }, client.id);
            let label_style = if client.selected {
                theme.style(Role::Selected)
            } else {
                Style::new()
            };
            buf.set_stringn(inner.x, y, label, LABEL_WIDTH as usize - 1, label_style);
            let spans = data.history.lane(row);
            let marks = data.history.marks(row);
            draw_client_lane(
                buf, lane_x, y, &window, data.now, spans, marks, theme, &mut drawn,
            );
            buf.set_stringn(
                status_x,
                y,
                &client.believes,
                belief_w as usize,
                Style::new(),
            );
            let truth_style = if client.stale {
                theme.style(Role::Stale)
            } else {
                Style::new()
            };
            buf.set_stringn(truth_x, y, &client.truth, truth_w as usize, truth_style);
        }

        for lock in &data.locks {
            y += 1;
            if y >= inner.bottom() {
                break;
            }
            let room = LABEL_WIDTH as usize - 2;
            let label = if data.locks.len() == 1 {
                " lock".to_owned()
            } else if width(&lock.name) <= room {
                format!(" {}", lock.name)
            } else {
                // "orders-lock" reads as "orders" on a lane that is plainly a lock's.
                let stem = lock.name.strip_suffix("-lock").unwrap_or(&lock.name);
                format!(" {}", clip(stem, room))
            };
            buf.set_stringn(inner.x, y, label, LABEL_WIDTH as usize - 1, Style::new());
            draw_lock_lane(
                buf,
                lane_x,
                y,
                &window,
                data.now,
                data.history.lock_lane(lock.id.index()),
                theme,
                &mut drawn,
            );
            buf.set_stringn(
                status_x,
                y,
                &lock.status,
                (belief_w + 1 + truth_w) as usize,
                Style::new(),
            );
        }

        if !data.flights.is_empty() {
            y += 1;
            if y < inner.bottom() {
                buf.set_stringn(
                    inner.x,
                    y,
                    " network",
                    LABEL_WIDTH as usize - 1,
                    Style::new(),
                );
                let mut status = String::new();
                for col in 0..window.cols {
                    let t0 = window.col_start(col);
                    if t0 > data.now {
                        break;
                    }
                    buf.set_string(lane_x + col, y, "·", theme.style(Role::Idle));
                }
                for flight in &data.flights {
                    let last = flight.arrives.min(data.now);
                    let first_col = window.col_of(flight.sent.max(window.start));
                    let last_col = window.col_of(last);
                    if let (Some(a), Some(b)) = (first_col, last_col.or(Some(window.cols - 1))) {
                        for col in a..=b.min(window.cols - 1) {
                            buf.set_string(lane_x + col, y, "›", theme.style(Role::Waiting));
                        }
                        drawn.insert('›');
                        let label = format!("c{} t{}", flight.client.number(), flight.token);
                        if (b - a) as usize > width(&label) {
                            buf.set_string(lane_x + a, y, label, theme.style(Role::Waiting));
                        }
                    }
                    if flight.sent <= data.now && flight.arrives > data.now && status.is_empty() {
                        status = format!(
                            "c{} t{} → {} at {} s",
                            flight.client.number(),
                            flight.token,
                            flight.key,
                            crate::sim::fmt_seconds(flight.arrives)
                        );
                    }
                }
                if status.is_empty() {
                    status = "nothing in flight".into();
                }
                buf.set_stringn(
                    status_x,
                    y,
                    status,
                    (belief_w + 1 + truth_w) as usize,
                    Style::new(),
                );
            }
        }

        // The cursor: the column of now, reversed across every lane.
        if let Some(col) = window.col_of(data.now) {
            let rows = (y + 1).min(inner.bottom()) - inner.y;
            buf.set_style(
                Rect::new(lane_x + col, inner.y, 1, rows),
                theme.style(Role::Cursor),
            );
        }

        // The legend of what is on screen, in the bottom border.
        let legend = legend_line(&drawn, area.width.saturating_sub(4) as usize);
        if !legend.is_empty() && area.height >= 2 {
            buf.set_line(
                area.x + 2,
                area.bottom() - 1,
                &Line::styled(legend, dim),
                area.width.saturating_sub(4),
            );
        }
    }
}

/// " = holds  / thinks it holds  ✓ accepted … " for the glyphs on screen, in legend order; short
/// whole items dropped from the end when they do not fit, with "press ? for more" (not "? help",
/// which would read as the `?` glyph, refused).
fn legend_line(drawn: &BTreeSet<char>, room: usize) -> String {
    let items: Vec<(char, &str)> = LEGEND
        .iter()
        .filter(|(glyph, _, _)| drawn.contains(glyph) && *glyph != '·')
        .map(|(glyph, short, _)| (*glyph, *short))
        .collect();
    if items.is_empty() {
        return String::new();
    }
    let full = |items: &[(char, &str)]| {
        let body: Vec<String> = items.iter().map(|(g, w)| format!("{g} {w}")).collect();
        format!(" {} ", body.join("  "))
    };
    let text = full(&items);
    if width(&text) <= room {
        return text;
    }
    for keep in (1..items.len()).rev() {
        let text = format!("{}· press ? for more ", full(&items[..keep]));
        if width(&text) <= room {
            return text;
        }
    }
    String::new()
}

fn draw_axis(buf: &mut Buffer, x: u16, y: u16, window: &Window, style: Style) {
    let every = [
        1_000u64, 2_000, 5_000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000,
    ]
    .into_iter()
    .find(|every| every / window.scale >= 6)
    .unwrap_or(600_000);
    let mut t = window.start.div_ceil(every) * every;
    let mut free_from = 0u16;
    while let Some(col) = window.col_of(t) {
        let label = format!("╵{}", t / 1_000);
        let w = width(&label) as u16;
        // A tick label is drawn whole or not at all, with a space before the next.
        if col >= free_from && col + w <= window.cols {
            buf.set_string(x + col, y, &label, style);
            free_from = col + w + 1;
        }
        t += every;
    }
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

/// The span in force at `t`.
fn span_at(spans: &[Span], t: Ms) -> Option<&Span> {
    let i = spans.partition_point(|s| s.start <= t);
    i.checked_sub(1).map(|i| &spans[i])
}

/// One client's lane: its state in each column, a label where a stretch starts (the token held,
/// GC, down) unless a mark sits there, and the most important mark of each column on top.
#[allow(clippy::too_many_arguments)]
fn draw_client_lane(
    buf: &mut Buffer,
    x: u16,
    y: u16,
    window: &Window,
    now: Ms,
    spans: &[Span],
    all_marks: &[crate::sim::Mark],
    theme: &Theme,
    drawn: &mut BTreeSet<char>,
) {
    let cells: Vec<(LaneState, Option<u64>)> = (0..window.cols)
        .map(|col| window.col_start(col))
        .take_while(|&t0| t0 <= now)
        .map(|t0| span_at(spans, t0).map_or((LaneState::Idle, None), |s| (s.state, s.token)))
        .collect();

    // An instant matters more than the stretch it sits in: keep each column's weightiest mark.
    let mut marks: Vec<Option<MarkKind>> = vec![None; cells.len()];
    for mark in &all_marks[all_marks.partition_point(|m| m.t < window.start)..] {
        match window
            .col_of(mark.t)
            .and_then(|col| marks.get_mut(col as usize))
        {
            Some(slot) => *slot = (*slot).max(Some(mark.kind)),
            None => break,
        }
    }

    for (col, &(state, _)) in cells.iter().enumerate() {
        let (glyph, role) = lane_cell(state);
        drawn.insert(glyph);
        buf.set_string(x + col as u16, y, glyph.to_string(), theme.style(role));
    }
    let mut start = 0;
    while start < cells.len() {
        let run = cells[start..]
            .iter()
            .take_while(|&&c| c == cells[start])
            .count();
        let (state, token) = cells[start];
        let label = match (state, token) {
            (LaneState::Holding | LaneState::Stale, Some(token)) => format!("t{token}"),
            (LaneState::Paused, _) => "GC".to_owned(),
            (LaneState::Crashed, _) => "down".to_owned(),
            _ => String::new(),
        };
        let w = width(&label);
        let clear = marks[start..start + w.min(run)].iter().all(Option::is_none);
        if w > 0 && run > w && clear {
            buf.set_string(x + start as u16, y, label, theme.style(lane_cell(state).1));
        }
        start += run;
    }
    for (col, mark) in marks.iter().enumerate() {
        if let Some(kind) = mark {
            let (glyph, role) = mark_glyph(*kind);
            drawn.insert(glyph);
            buf.set_string(x + col as u16, y, glyph.to_string(), theme.style(role));
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn draw_lock_lane(
    buf: &mut Buffer,
    x: u16,
    y: u16,
    window: &Window,
    now: Ms,
    spans: &[crate::sim::LockSpan],
    theme: &Theme,
    drawn: &mut BTreeSet<char>,
) {
    // (first column, column after the last, holder)
    type Run = (u16, u16, Option<(crate::sim::ClientId, u64)>);
    let mut runs: Vec<Run> = Vec::new();
    for col in 0..window.cols {
        let t0 = window.col_start(col);
        if t0 > now {
            break;
        }
        let i = spans.partition_point(|s| s.start <= t0);
        let holder = i.checked_sub(1).and_then(|i| spans[i].holder);
        let (glyph, role) = match holder {
            Some(_) => ('=', Role::Holding),
            None => ('·', Role::Idle),
        };
        drawn.insert(glyph);
        buf.set_string(x + col, y, glyph.to_string(), theme.style(role));
        match runs.last_mut() {
            Some(run) if run.2 == holder => run.1 = col + 1,
            _ => runs.push((col, col + 1, holder)),
        }
    }
    for (start, end, holder) in runs {
        let Some((client, token)) = holder else {
            continue;
        };
        for label in [
            format!("c{} t{token}", client.number()),
            format!("t{token}"),
        ] {
            if end - start > width(&label) as u16 {
                buf.set_string(x + start, y, label, theme.style(Role::Holding));
                break;
            }
        }
    }
}
