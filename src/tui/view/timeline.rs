//! The timeline: one lane per client and one for the lock, over time, with a cursor at now and
//! each client's belief beside the lock service's truth.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::widgets::{Block, Widget};

use crate::sim::{
    fmt_seconds, seconds, Activity, Client, ClientId, LaneState, LockSpan, MarkKind, Ms, Span,
    World,
};
use crate::tui::theme::{Role, Theme};

/// Seconds per column the timeline chooses from, in ms.
const SCALES: [Ms; 4] = [100, 200, 250, 500];
const LABEL_WIDTH: u16 = 9;

/// The glyphs: (glyph, short form for the legend row, meaning for the help overlay).
pub const LEGEND: &[(&str, &str, &str)] = &[
    ("=", "holds", "holds the lock (live lease)"),
    ("/", "thinks it holds", "thinks it holds: lease gone"),
    ("~", "GC pause", "frozen in a GC pause"),
    ("✓", "accepted", "write accepted"),
    ("✗", "REJECTED", "write REJECTED (stale)"),
    ("!", "CORRUPTED", "stale write landed: CORRUPT"),
    ("x", "down", "crashed, down"),
    ("-", "waits", "waiting for the lock"),
    ("?", "refused", "asked for the lock: refused"),
    ("+", "renew", "renewed its lease"),
    ("]", "release", "released the lock"),
    ("ø", "lease refused", "renew/release refused"),
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
                .min(500)
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

    fn col_of(&self, t: Ms) -> Option<u16> {
        let col = t.checked_sub(self.start)? / self.scale;
        (col < self.cols as Ms).then_some(col as u16)
    }

    fn col_start(&self, col: u16) -> Ms {
        self.start + col as Ms * self.scale
    }
}

/// The timeline panel.
pub struct Timeline<'a> {
    pub world: &'a World,
    pub selected: ClientId,
    pub theme: &'a Theme,
}

impl Timeline<'_> {
    fn status_widths(inner_width: u16) -> (u16, u16) {
        if inner_width >= 100 {
            (16, 18)
        } else {
            (13, 16)
        }
    }
}

impl Widget for Timeline<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let block = Block::bordered().title(" Timeline ");
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.height < 1 || inner.width < LABEL_WIDTH + 10 {
            return;
        }
        let (belief_w, truth_w) = Timeline::status_widths(inner.width);
        let status_w = belief_w + 1 + truth_w;
        let lane_x = inner.x + LABEL_WIDTH;
        let lane_w = inner.width.saturating_sub(LABEL_WIDTH + 1 + status_w);
        let status_x = lane_x + lane_w + 1;
        let world = self.world;
        let now = world.now();
        let scenario = world.scenario();
        let window = Window::choose(lane_w, now, scenario.end, scenario.chaos.is_some());
        let theme = self.theme;
        let dim = theme.style(Role::Dim);

        // Row 0: the time axis and the status headings.
        let y = inner.y;
        buf.set_stringn(inner.x, y, "time (s)", LABEL_WIDTH as usize, dim);
        draw_axis(buf, lane_x, y, &window, dim);
        buf.set_stringn(status_x, y, "believes", belief_w as usize, dim);
        buf.set_stringn(
            status_x + belief_w + 1,
            y,
            "lock service",
            truth_w as usize,
            dim,
        );

        for (row, client) in world.clients().iter().enumerate() {
            let y = inner.y + 1 + row as u16;
            if y >= inner.bottom() {
                return;
            }
            let selected = client.id == self.selected;
            let label = format!("{}{}", if selected { "▸" } else { " " }, client.id);
            let label_style = if selected {
                theme.style(Role::Selected)
            } else {
                Style::new()
            };
            buf.set_stringn(inner.x, y, label, LABEL_WIDTH as usize, label_style);
            draw_client_lane(buf, lane_x, y, &window, world, row, theme);
            let (belief, truth, stale) = belief_and_truth(world, client);
            buf.set_stringn(status_x, y, belief, belief_w as usize, Style::new());
            let truth_style = if stale {
                theme.style(Role::Stale)
            } else {
                Style::new()
            };
            buf.set_stringn(
                status_x + belief_w + 1,
                y,
                truth,
                truth_w as usize,
                truth_style,
            );
        }

        let y = inner.y + 4;
        if y < inner.bottom() {
            buf.set_stringn(inner.x, y, " lock", LABEL_WIDTH as usize, Style::new());
            draw_lock_lane(buf, lane_x, y, &window, now, world.lock_lane(), theme);
            let status = match world.locks().lease(&scenario.lock) {
                Some(lease) => format!("{} t{}", lease.client_id, lease.token),
                None => match world.locks().next_token() {
                    Some(next) => format!("free · next t{next}"),
                    None => "free · no tokens left".to_owned(),
                },
            };
            buf.set_stringn(status_x, y, status, status_w as usize, Style::new());
        }

        let y = inner.y + 5;
        if y < inner.bottom() {
            let mut x = inner.x;
            for (glyph, short, _) in LEGEND {
                let item = format!("{glyph} {short}  ");
                if x + item.chars().count() as u16 > inner.right() {
                    break;
                }
                buf.set_string(x, y, &item, dim);
                x += item.chars().count() as u16;
            }
        }

        // The cursor: the column of now, reversed across every lane.
        if let Some(col) = window.col_of(now) {
            let x = lane_x + col;
            let rows = inner.height.min(5);
            buf.set_style(Rect::new(x, inner.y, 1, rows), theme.style(Role::Cursor));
        }
    }
}

fn draw_axis(buf: &mut Buffer, x: u16, y: u16, window: &Window, style: Style) {
    let every = [
        1_000u64, 2_000, 5_000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000,
    ]
    .into_iter()
    .find(|every| every / window.scale >= 6)
    .unwrap_or(600_000);
    let first = window.start.div_ceil(every) * every;
    let mut t = first;
    while let Some(col) = window.col_of(t) {
        let label = format!("{}", t / 1_000);
        let room = window.cols - col;
        buf.set_stringn(x + col, y, format!("╵{label}"), room as usize, style);
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

fn mark_glyph(kind: MarkKind) -> (char, Role) {
    match kind {
        MarkKind::Released => (']', Role::Holding),
        MarkKind::Renewed => ('+', Role::Holding),
        MarkKind::Refused => ('?', Role::Waiting),
        MarkKind::LeaseRefusal => ('ø', Role::Stale),
        MarkKind::Accepted => ('✓', Role::Accepted),
        MarkKind::Rejected => ('✗', Role::Rejected),
        MarkKind::Corrupted => ('!', Role::Corrupted),
    }
}

/// The span in force at `t`.
fn span_at(spans: &[Span], t: Ms) -> Option<&Span> {
    let i = spans.partition_point(|s| s.start <= t);
    i.checked_sub(1).map(|i| &spans[i])
}

/// One client's lane: its state in each column, a label where a stretch starts (the token held,
/// GC, down) unless a mark sits there, and the most important mark of each column on top.
fn draw_client_lane(
    buf: &mut Buffer,
    x: u16,
    y: u16,
    window: &Window,
    world: &World,
    index: usize,
    theme: &Theme,
) {
    let now = world.now();
    let spans = world.lane(index);
    let cells: Vec<(LaneState, Option<u64>)> = (0..window.cols)
        .map(|col| window.col_start(col))
        .take_while(|&t0| t0 <= now)
        .map(|t0| span_at(spans, t0).map_or((LaneState::Idle, None), |s| (s.state, s.token)))
        .collect();

    // An instant matters more than the stretch it sits in: keep each column's weightiest mark.
    let mut marks: Vec<Option<MarkKind>> = vec![None; cells.len()];
    let all = world.marks(index);
    for mark in &all[all.partition_point(|m| m.t < window.start)..] {
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
        let width = label.chars().count();
        let clear = marks[start..start + width.min(run)]
            .iter()
            .all(Option::is_none);
        if width > 0 && run > width && clear {
            buf.set_string(x + start as u16, y, label, theme.style(lane_cell(state).1));
        }
        start += run;
    }
    for (col, mark) in marks.iter().enumerate() {
        if let Some(kind) = mark {
            draw_mark(buf, x + col as u16, y, *kind, theme);
        }
    }
}

fn draw_mark(buf: &mut Buffer, x: u16, y: u16, kind: MarkKind, theme: &Theme) {
    let (glyph, role) = mark_glyph(kind);
    buf.set_string(x, y, glyph.to_string(), theme.style(role));
}

fn draw_lock_lane(
    buf: &mut Buffer,
    x: u16,
    y: u16,
    window: &Window,
    now: Ms,
    spans: &[LockSpan],
    theme: &Theme,
) {
    // (first column, column after the last, holder)
    type Run = (u16, u16, Option<(ClientId, u64)>);
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
        let long = format!("c{} t{token}", client.number());
        let short = format!("t{token}");
        for label in [long, short] {
            if end - start > label.chars().count() as u16 {
                buf.set_string(x + start, y, label, theme.style(Role::Holding));
                break;
            }
        }
    }
}

/// What the client believes, what the lock service knows, and whether they disagree.
pub fn belief_and_truth(world: &World, client: &Client) -> (String, String, bool) {
    let now = world.now();
    if client.activity == Activity::Crashed {
        let back = client
            .restart_at
            .map(|t| format!("back at {} s", fmt_seconds(t)))
            .unwrap_or_default();
        return ("crashed".into(), back, false);
    }
    let frozen = client.is_paused();
    let Some(belief) = client.belief else {
        let belief = match (client.activity, frozen) {
            (_, true) => "frozen (GC)".to_owned(),
            (Activity::Waiting, _) => "wants lock".to_owned(),
            _ => "no lock".to_owned(),
        };
        return (belief, String::new(), false);
    };
    let left = client.believed_left(now).unwrap_or(0);
    let believes = if left > 0 {
        format!(
            "t{} {} left",
            belief.token,
            short_seconds(left as f64 / 1000.0)
        )
    } else {
        format!("t{} ran out", belief.token)
    };
    let live = world
        .locks()
        .lease(&world.scenario().lock)
        .filter(|l| l.client_id == client.id.name() && l.token == belief.token);
    match live {
        Some(lease) => {
            let remaining = (lease.expires_at - seconds(now)).max(0.0);
            (
                believes,
                format!("live {}", short_seconds(remaining)),
                false,
            )
        }
        None => {
            let ended = lease_end(world.lock_lane(), client.id, belief.token);
            let truth = match ended {
                Some(t) => format!("expired {} ago", short_seconds(seconds(now - t))),
                None => "not its lease".to_owned(),
            };
            (believes, truth, true)
        }
    }
}

/// When the lease with `token` stopped being live, from the lock's lane.
fn lease_end(spans: &[LockSpan], client: ClientId, token: u64) -> Option<Ms> {
    let i = spans
        .iter()
        .rposition(|s| s.holder == Some((client, token)))?;
    spans.get(i + 1).map(|s| s.start)
}

/// "9.5s", or "12s" from ten seconds up, so status columns stay narrow.
fn short_seconds(s: f64) -> String {
    if s >= 9.95 {
        format!("{s:.0}s")
    } else {
        format!("{s:.1}s")
    }
}
