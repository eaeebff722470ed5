//! The timeline: one lane per client, one per lock (with a row of labels beneath when grants
//! come too close for one) and, when writes are held in the network, a network lane; a cursor
//! at now; each client's belief beside the lock service's truth; and, in the bottom border, a
//! legend of the marks on screen.

use std::collections::BTreeSet;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Block, Widget};

use super::fit::{clip, width};
use super::lanes::{self, Painter, Window};
use crate::sim::{fmt_seconds, Marks};
use crate::tui::app::{Action, Mode};
use crate::tui::frame::{LockRow, TimelineData};
use crate::tui::keys;
use crate::tui::theme::{Role, Theme};

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
    (
        '≠',
        "your code differs",
        "your code answered otherwise than the seed here (--impl)",
    ),
];

/// The legend's marks in the order they give way on a narrow screen: the last first. A
/// verdict's mark never goes before a stretch's.
const LEGEND_KEPT: &[char] = &[
    '!', '✗', '✓', '≠', '/', '=', '~', 'x', '»', '›', 'ø', '?', '-', '+', ']',
];

/// The timeline panel.
pub struct Timeline<'a> {
    pub data: &'a TimelineData<'a>,
    pub theme: &'a Theme,
    /// Keep a chaos run's rows of labels even where they are empty (see [`rows`]).
    pub steady: bool,
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

/// The window the lanes show in a timeline `inner_width` wide.
fn window(data: &TimelineData, inner_width: u16) -> Window {
    let (_, lane_w) = lane_span(inner_width);
    Window::choose(lane_w, data.now, data.end, data.chaos)
}

/// Whether a lock's lane has a row of labels beneath it: where its grants come too close for
/// one row, and, with `steady`, always in a chaos run, so the screen does not jump as the
/// window moves on.
fn label_row(data: &TimelineData, window: &Window, lock: &LockRow, steady: bool) -> bool {
    let spans = data.history.lock_lane(lock.id.index());
    (steady && data.chaos) || lanes::lock_needs_row(window, data.now, spans, data.tokens)
}

/// The rows inside the timeline's border: the axis, a lane per client, a lane (and maybe a row
/// of labels) per lock, and the network's lane when it has held a write.
pub fn rows(data: &TimelineData, inner_width: u16, steady: bool) -> u16 {
    let window = window(data, inner_width);
    let label_rows = data
        .locks
        .iter()
        .filter(|lock| label_row(data, &window, lock, steady))
        .count();
    (1 + data.clients.len() + data.locks.len() + label_rows) as u16
        + u16::from(!data.flights.is_empty())
}

/// Where each column of the timeline sits.
struct Columns {
    lane_x: u16,
    status_x: u16,
    truth_x: u16,
    belief_w: u16,
    truth_w: u16,
}

impl Columns {
    fn of(inner: Rect) -> Columns {
        let (belief_w, truth_w) = status_widths(inner.width);
        let (lane_offset, lane_w) = lane_span(inner.width);
        let lane_x = inner.x + lane_offset;
        let status_x = lane_x + lane_w + 1;
        Columns {
            lane_x,
            status_x,
            truth_x: status_x + belief_w + 1,
            belief_w,
            truth_w,
        }
    }

    /// The status column beside a lock's or the network's lane: belief and truth together.
    fn status_w(&self) -> usize {
        (self.belief_w + 1 + self.truth_w) as usize
    }
}

impl Widget for Timeline<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let block = Block::bordered().title(" Timeline ");
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.height < 1 || inner.width < LABEL_WIDTH + 40 {
            return;
        }
        let columns = Columns::of(inner);
        let mut p = Painter {
            buf,
            x: columns.lane_x,
            window: window(self.data, inner.width),
            now: self.data.now,
            theme: self.theme,
            drawn: BTreeSet::new(),
        };
        self.axis_row(&mut p, inner, &columns);
        let mut y = inner.y + 1;
        y = self.client_rows(&mut p, inner, &columns, y);
        y = self.lock_rows(&mut p, inner, &columns, y);
        if !self.data.flights.is_empty() && y < inner.bottom() {
            self.network_row(&mut p, inner, &columns, y);
            y += 1;
        }
        // The cursor: the column of now, reversed across every lane.
        if let Some(col) = p.window.col_of(self.data.now) {
            let rows = y.min(inner.bottom()) - inner.y;
            p.buf.set_style(
                Rect::new(columns.lane_x + col, inner.y, 1, rows),
                self.theme.style(Role::Cursor),
            );
        }
        // The legend of what is on screen, in the bottom border.
        let legend = legend_line(&p.drawn, area.width.saturating_sub(4) as usize);
        if !legend.is_empty() && area.height >= 2 {
            p.buf.set_line(
                area.x + 2,
                area.bottom() - 1,
                &Line::styled(legend, self.theme.style(Role::Dim)),
                area.width.saturating_sub(4),
            );
        }
    }
}

impl Timeline<'_> {
    /// "time (s)", the ticks, and the status columns' headings.
    fn axis_row(&self, p: &mut Painter, inner: Rect, c: &Columns) {
        let dim = self.theme.style(Role::Dim);
        let y = inner.y;
        p.buf
            .set_stringn(inner.x, y, "time (s)", LABEL_WIDTH as usize - 1, dim);
        draw_axis(p.buf, c.lane_x, y, &p.window, dim);
        p.buf
            .set_stringn(c.status_x, y, "believes", c.belief_w as usize, dim);
        p.buf
            .set_stringn(c.truth_x, y, "lock service", c.truth_w as usize, dim);
    }

    /// A lane per client, with its belief and the lock service's truth beside it.
    fn client_rows(&self, p: &mut Painter, inner: Rect, c: &Columns, mut y: u16) -> u16 {
        let data = self.data;
        for (row, client) in data.clients.iter().enumerate() {
            if y >= inner.bottom() {
                break;
            }
            let label = format!("{}{}", if client.selected { "▸" } else { " " }, client.id);
            let label_style = if client.selected {
                self.theme.style(Role::Selected)
            } else {
                Style::new()
            };
            p.buf
                .set_stringn(inner.x, y, label, LABEL_WIDTH as usize - 1, label_style);
            lanes::client_lane(
                p,
                y,
                data.history.lane(row),
                data.history.marks(row),
                data.tokens,
            );
            // "rev 12 8.5 s left" is too wide for the column: the time left is still read.
            let believes = match client.believes.strip_suffix(" left") {
                Some(short) if width(&client.believes) > c.belief_w as usize => short,
                _ => client.believes.as_str(),
            };
            p.buf
                .set_stringn(c.status_x, y, believes, c.belief_w as usize, Style::new());
            let truth_style = if client.stale {
                self.theme.style(Role::Stale)
            } else {
                Style::new()
            };
            p.buf
                .set_stringn(c.truth_x, y, &client.truth, c.truth_w as usize, truth_style);
            y += 1;
        }
        y
    }

    /// A lane per lock, its holder beside it, and a row of labels beneath where it needs one.
    fn lock_rows(&self, p: &mut Painter, inner: Rect, c: &Columns, mut y: u16) -> u16 {
        let data = self.data;
        for lock in &data.locks {
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
            p.buf
                .set_stringn(inner.x, y, label, LABEL_WIDTH as usize - 1, Style::new());
            let below = label_row(data, &p.window, lock, self.steady).then_some(y + 1);
            let below = below.filter(|&b| b < inner.bottom());
            let spans = data.history.lock_lane(lock.id.index());
            lanes::lock_lane(p, y, below, spans, data.tokens);
            p.buf
                .set_stringn(c.status_x, y, &lock.status, c.status_w(), Style::new());
            y += 1 + u16::from(below.is_some());
        }
        y
    }

    /// The network's lane: each write it holds from its sending to its arrival (or now), and
    /// beside it what is in flight.
    fn network_row(&self, p: &mut Painter, inner: Rect, c: &Columns, y: u16) {
        let data = self.data;
        p.buf.set_stringn(
            inner.x,
            y,
            " network",
            LABEL_WIDTH as usize - 1,
            Style::new(),
        );
        let window = p.window;
        for col in 0..window.drawn(data.now) {
            p.buf
                .set_string(c.lane_x + col, y, "·", self.theme.style(Role::Idle));
        }
        let waiting = self.theme.style(Role::Waiting);
        let mut status = String::new();
        for flight in &data.flights {
            let last = flight.arrives.min(data.now);
            // A write that arrived before the window is not on it.
            let span = window
                .col_of(flight.sent.max(window.start))
                .zip(window.col_of(last));
            if let Some((a, b)) = span.filter(|_| last >= window.start) {
                for col in a..=b {
                    p.buf.set_string(c.lane_x + col, y, "›", waiting);
                }
                p.drawn.insert('›');
                let label = flight_label(flight.client.number(), flight.token, data.tokens);
                if (b - a) as usize > width(&label) {
                    p.buf.set_string(c.lane_x + a, y, label, waiting);
                }
            }
            if flight.in_flight_at(data.now) && status.is_empty() {
                status = format!(
                    "{} → {} at {} s",
                    flight_label(flight.client.number(), flight.token, data.tokens),
                    flight.key,
                    fmt_seconds(flight.arrives)
                );
            }
        }
        if status.is_empty() {
            status = "nothing in flight".into();
        }
        p.buf
            .set_stringn(c.status_x, y, status, c.status_w(), Style::new());
    }
}

/// "c1 t1": a write's sender and token (the sender alone where there are no tokens).
fn flight_label(client: u8, token: u64, tokens: Marks) -> String {
    if tokens.shown() {
        format!("c{client} {}", tokens.of_token(token))
    } else {
        format!("c{client}")
    }
}

/// " = holds  / thinks it holds  ✓ accepted … " for the glyphs on screen, in legend order; when
/// they do not fit, the least needed give way (never a verdict's mark before a stretch's) and it
/// ends "press ? for more" (not "? help", which would read as the `?` glyph, refused).
fn legend_line(drawn: &BTreeSet<char>, room: usize) -> String {
    let items: Vec<(char, &str)> = LEGEND
        .iter()
        .filter(|(glyph, _, _)| drawn.contains(glyph) && *glyph != '·')
        .map(|(glyph, short, _)| (*glyph, *short))
        .collect();
    if items.is_empty() {
        return String::new();
    }
    let line = |kept: &[(char, &str)], more: bool| {
        let body: Vec<String> = kept.iter().map(|(g, w)| format!("{g} {w}")).collect();
        let more = if more {
            format!(
                "· press {} for more ",
                keys::key_for(Mode::Main, Action::ToggleHelp)
            )
        } else {
            String::new()
        };
        format!(" {} {more}", body.join("  "))
    };
    let text = line(&items, false);
    if width(&text) <= room {
        return text;
    }
    let rank = |glyph: char| {
        LEGEND_KEPT
            .iter()
            .position(|&g| g == glyph)
            .unwrap_or(usize::MAX)
    };
    let mut kept = items.clone();
    let mut dropped = Vec::new();
    while kept.len() > 1 {
        let worst = (0..kept.len())
            .max_by_key(|&i| rank(kept[i].0))
            .unwrap_or(0);
        dropped.push(kept.remove(worst));
        if width(&line(&kept, true)) <= room {
            // A shorter one dropped before may fit in the room a longer one left: back in its
            // place, the most needed first.
            for item in dropped.into_iter().rev() {
                let mut with: Vec<(char, &str)> = items
                    .iter()
                    .copied()
                    .filter(|i| kept.contains(i) || *i == item)
                    .collect();
                if width(&line(&with, true)) <= room {
                    std::mem::swap(&mut kept, &mut with);
                }
            }
            return line(&kept, kept.len() < items.len());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_keeps_a_verdicts_mark_before_a_stretchs() {
        let drawn: BTreeSet<char> = LEGEND.iter().map(|(g, _, _)| *g).collect();
        let line = legend_line(&drawn, 76);
        assert!(line.contains("! CORRUPTED"), "{line}");
        assert!(
            line.contains("✗ REJECTED") && line.contains("✓ accepted"),
            "{line}"
        );
        assert!(line.ends_with("press ? for more "), "{line}");
        assert!(width(&line) <= 76, "{line}");
        let all = legend_line(&drawn, 500);
        assert!(!all.contains("more"), "{all}");
    }

    #[test]
    fn a_short_entry_dropped_early_comes_back_into_the_room_a_long_one_left() {
        let drawn: BTreeSet<char> = ['=', '/', '~', '✓'].into_iter().collect();
        let room = width(" ~ GC  ✓ accepted · press ? for more ");
        let line = legend_line(&drawn, room);
        assert_eq!(line, " ~ GC  ✓ accepted · press ? for more ");
    }
}
