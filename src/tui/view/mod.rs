//! The view: a pure function of a frame's data onto a buffer. Each widget owns its layout and
//! nothing else. Its modules are layered one way, each using only those above it (a test keeps
//! it so):
//!
//! 1. [`fit`]: measuring, clipping and wrapping text to a width.
//! 2. [`header`], [`panels`], [`text`], [`timeline`]: the main view's widgets.
//! 3. [`overlays`]: help, picker and too-small notice, over the main view.

mod fit;
mod header;
mod overlays;
mod panels;
mod text;
mod timeline;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::Widget;
use ratatui::Frame;

use super::app::{App, Mode, Overlay};
use super::frame::FrameData;
use super::theme::Theme;

pub use fit::{clip, wrap};
pub use overlays::help_pages;
pub use timeline::{lane_span, Window, LEGEND};

/// The smallest screen the full layout fits.
pub const MIN_WIDTH: u16 = 70;
/// The smallest screen the full layout fits.
pub const MIN_HEIGHT: u16 = 20;
/// The largest screen drawn: a bigger terminal gets this much, top left, so a hostile size never
/// makes the UI allocate without bound.
pub const MAX_WIDTH: u16 = 500;
/// See [`MAX_WIDTH`].
pub const MAX_HEIGHT: u16 = 200;
// Every row of the tallest log has an event to show.
const _: () = assert!(crate::tui::frame::EVENTS_DESCRIBED >= MAX_HEIGHT as usize);

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    draw_area(area, frame.buffer_mut(), app);
}

/// How tall each part of the screen is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Heights {
    pub timeline: u16,
    pub panels: u16,
    pub caption: u16,
    pub log: u16,
    /// The caption box and the log share a border (the log's top line), which saves a row.
    pub joined: bool,
}

/// Splits `height` rows: header 2 and footer 1; the timeline what its lanes need; the panels
/// what their lines need; the caption what its text needs (at least 2 lines); the event log the
/// rest (hidden below 3 rows).
pub fn heights(data: &FrameData, width: u16, height: u16) -> Heights {
    let lanes = 1 + data.timeline.clients.len() + data.timeline.locks.len();
    let network = u16::from(!data.timeline.flights.is_empty());
    let timeline = 2 + lanes as u16 + network;
    let lock_lines = panels::lock_lines(&data.lock_panel) as u16;
    let spare = height.saturating_sub(MIN_HEIGHT);
    let panels = (2 + lock_lines.max(4)).max(6) + (spare.saturating_sub(6) / 4).min(4);
    let inner = width.saturating_sub(2) as usize;
    let caption_lines = text::caption_lines(&data.caption, inner) as u16;
    let rest = height.saturating_sub(3 + timeline + panels);
    let caption = (2 + caption_lines.clamp(2, 5)).min(rest.max(4));
    // The log is shown only if the newest event fits in it whole.
    let log_needs = 2 + text::newest_event_lines(&data.events, inner).max(1) as u16;
    // With a log below it, the caption box drops its bottom border: the log's top is the line
    // between them.
    let joined = rest.saturating_sub(caption - 1) >= log_needs;
    let caption = if joined { caption - 1 } else { caption };
    let log = rest.saturating_sub(caption);
    Heights {
        timeline,
        panels,
        caption,
        log: if joined { log } else { 0 },
        joined,
    }
}

fn draw_area(area: Rect, buf: &mut Buffer, app: &App) {
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        overlays::TooSmall {
            width: area.width,
            height: area.height,
            min_width: MIN_WIDTH,
            min_height: MIN_HEIGHT,
        }
        .render(area, buf);
        return;
    }
    let data = FrameData::of(app);
    draw_data(area, buf, &data, app.theme(), app.mode_beneath());
}

/// Draws a frame's data (from the app, or from a live run's board) onto `buf`; `beneath` is the
/// key table the help describes.
pub fn draw_data(area: Rect, buf: &mut Buffer, data: &FrameData, theme: &Theme, beneath: Mode) {
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        overlays::TooSmall {
            width: area.width,
            height: area.height,
            min_width: MIN_WIDTH,
            min_height: MIN_HEIGHT,
        }
        .render(area, buf);
        return;
    }
    let h = heights(data, area.width, area.height);
    // Rows nothing needs (a hidden log) stay blank above the footer, which keeps the last row.
    let [header, timeline, panels, caption, log, _, footer] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(h.timeline),
        Constraint::Length(h.panels),
        Constraint::Length(h.caption),
        Constraint::Length(h.log),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);

    header::Header {
        data: &data.header,
        theme,
    }
    .render(header, buf);
    timeline::Timeline {
        data: &data.timeline,
        theme,
    }
    .render(timeline, buf);
    match &data.compare {
        Some([fenced, unfenced]) => {
            let [left, right] =
                Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                    .areas(panels);
            panels::StoragePanel {
                data: fenced,
                theme,
            }
            .render(left, buf);
            panels::StoragePanel {
                data: unfenced,
                theme,
            }
            .render(right, buf);
        }
        None => {
            let [left, right] =
                Layout::horizontal([Constraint::Percentage(40), Constraint::Percentage(60)])
                    .areas(panels);
            panels::LockPanel {
                data: &data.lock_panel,
                theme,
            }
            .render(left, buf);
            panels::StoragePanel {
                data: &data.storage,
                theme,
            }
            .render(right, buf);
        }
    }
    text::Caption {
        data: &data.caption,
        theme,
        joined: h.joined,
    }
    .render(caption, buf);
    if h.log > 0 {
        text::EventLog {
            lines: &data.events,
            before: data.events_before,
            theme,
            joined: h.joined,
        }
        .render(log, buf);
    }
    text::Footer {
        data: &data.footer,
        theme,
    }
    .render(footer, buf);

    // An overlay covers the body whole (header and footer stay): half-covered words and
    // borders beside it would read as cut text.
    if data.overlay != Overlay::None {
        let body = Rect::new(
            area.x,
            area.y + 2,
            area.width,
            area.height.saturating_sub(3),
        );
        ratatui::widgets::Clear.render(body, buf);
    }
    match data.overlay {
        Overlay::None => {}
        Overlay::Help { page } => overlays::Help {
            page,
            mode: beneath,
            theme,
        }
        .render(area, buf),
        Overlay::Picker { cursor } => overlays::Picker { theme, cursor }.render(area, buf),
    }
}

/// The screen as plain text, `width` x `height`, trailing spaces trimmed: for `frame`, the
/// README and tests.
pub fn render_text(app: &App, width: u16, height: u16) -> String {
    buffer_text(&render_buffer(app, width, height))
}

/// The screen as a buffer (styles included), for pages that draw it in colour.
pub fn render_buffer(app: &App, width: u16, height: u16) -> Buffer {
    let area = Rect::new(0, 0, width.min(MAX_WIDTH), height.min(MAX_HEIGHT));
    let mut buf = Buffer::empty(area);
    draw_area(area, &mut buf, app);
    buf
}

/// A buffer's symbols, one line a row, trailing spaces trimmed.
pub fn buffer_text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::with_capacity((area.width as usize + 1) * area.height as usize);
    for y in area.top()..area.bottom() {
        let mut line = String::with_capacity(area.width as usize);
        for x in area.left()..area.right() {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
