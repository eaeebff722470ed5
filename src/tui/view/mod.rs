//! The view: a pure function of a frame's data onto a buffer. Each widget owns its layout and
//! nothing else. Its modules are layered one way, each using only those above it (a test keeps
//! it so):
//!
//! 1. [`fit`]: measuring, clipping and wrapping text to a width.
//! 2. [`lanes`]: lanes drawn into columns of time, and where each label goes.
//! 3. [`header`], [`panels`], [`text`], [`timeline`]: the main view's widgets.
//! 4. [`overlays`]: help, picker and too-small notice, over the main view.

mod fit;
mod header;
mod lanes;
mod overlays;
mod panels;
mod text;
mod timeline;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::Widget;
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use super::app::{App, Mode, Overlay};
use super::frame::FrameData;
use super::theme::Theme;
use crate::sim::Vocab;

pub use fit::{clip, wrap};
pub use lanes::{lock_labels, LockLabels, Window};
pub use overlays::help_pages;
pub use panels::verdict_text;
pub use timeline::{lane_span, LEGEND};

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
    /// Whether the caption shows its prompt (a question's prompt gives way to the log: the
    /// footer offers the same keys).
    pub prompt: bool,
}

/// Splits `height` rows: header 2 and footer 1; the timeline what its lanes need; the panels
/// what their lines need; the caption what its text needs (at least 2 lines); the event log the
/// rest. The log is shown only if its newest event fits whole; to make room for it, a
/// question's prompt gives way first (the footer offers the same keys), then the lock panel's
/// gauges, then the caption's blank second line, then a chaos run's empty row of labels, and
/// last the panels down to two lines (a holder and the footer; the storage's keys counted, its
/// verdict kept).
pub fn heights(data: &FrameData, width: u16, height: u16) -> Heights {
    let inner = width.saturating_sub(2);
    let steady = 2 + timeline::rows(&data.timeline, inner, true);
    let least = 2 + timeline::rows(&data.timeline, inner, false);
    let spare = height.saturating_sub(MIN_HEIGHT);
    let full = (2 + (panels::lock_lines(&data.lock_panel) as u16).max(4)).max(6)
        + (spare.saturating_sub(6) / 4).min(4);
    let compact = (2 + (panels::lock_lines_compact(&data.lock_panel) as u16).max(3)).min(full);
    let tight = (2 + panels::LINES_TIGHT as u16).min(compact);
    let inner = inner as usize;
    let log_needs = 2 + text::newest_event_lines(&data.events, inner).max(1) as u16;
    let keep = !data.caption.prompt_in_footer;
    let tries = [
        (steady, full, true, 2),
        (steady, full, keep, 2),
        (steady, compact, keep, 2),
        (steady, compact, keep, 1),
        (least, compact, keep, 1),
        (least, tight, keep, 1),
    ];
    for (timeline, panels, prompt, fewest) in tries {
        let lines = (text::caption_lines(&data.caption, inner, prompt) as u16).clamp(fewest, 5);
        let rest = height.saturating_sub(3 + timeline + panels);
        // With a log below it, the caption box drops its bottom border: the log's top is the
        // line between them.
        if 1 + lines + log_needs <= rest {
            return Heights {
                timeline,
                panels,
                caption: 1 + lines,
                log: rest - 1 - lines,
                joined: true,
                prompt,
            };
        }
    }
    // No room for the newest event whole: no log; the caption takes what it needs, and the
    // panels give way before a lane would (a layout that overflows cuts the timeline's last).
    let lines = |prompt| (text::caption_lines(&data.caption, inner, prompt) as u16).clamp(2, 5);
    let tries = [
        (steady, full, true),
        (steady, full, keep),
        (steady, compact, keep),
        (steady, tight, keep),
        (least, tight, keep),
    ];
    let fits = |&(timeline, panels, prompt): &(u16, u16, bool)| {
        3 + timeline + panels + 2 + lines(prompt) <= height
    };
    let (timeline, panels, prompt) = tries
        .iter()
        .copied()
        .find(fits)
        .unwrap_or((least, tight, keep));
    let rest = height.saturating_sub(3 + timeline + panels);
    Heights {
        timeline,
        panels,
        caption: (2 + lines(prompt)).min(rest),
        log: 0,
        joined: false,
        prompt,
    }
}

fn draw_area(area: Rect, buf: &mut Buffer, app: &App) {
    let data = FrameData::of(app);
    let vocab = app.lesson().vocab();
    draw_data(area, buf, &data, app.theme(), app.mode_beneath(), vocab);
}

/// Draws a frame's data (from the app, or from a live run's board) onto `buf`; `beneath` is the
/// key table the help describes, in `vocab`'s words.
pub fn draw_data(
    area: Rect,
    buf: &mut Buffer,
    data: &FrameData,
    theme: &Theme,
    beneath: Mode,
    vocab: &Vocab,
) {
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
    draw_main(area, buf, data, theme);
    draw_overlay(area, buf, data, theme, beneath, vocab);
}

/// The main view: header, timeline, panels, caption, event log and footer.
fn draw_main(area: Rect, buf: &mut Buffer, data: &FrameData, theme: &Theme) {
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
        steady: h.timeline > 2 + timeline::rows(&data.timeline, area.width - 2, false),
    }
    .render(timeline, buf);
    draw_panels(panels, buf, data, theme);
    text::Caption {
        data: &data.caption,
        theme,
        joined: h.joined,
        prompt: h.prompt,
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
}

/// The lock panel beside the clients' storage, or the compare view's two storages.
fn draw_panels(area: Rect, buf: &mut Buffer, data: &FrameData, theme: &Theme) {
    let split = |left: u16| -> [Rect; 2] {
        Layout::horizontal([
            Constraint::Percentage(left),
            Constraint::Percentage(100 - left),
        ])
        .areas(area)
    };
    match &data.compare {
        Some([fenced, unfenced]) => {
            let [left, right] = split(50);
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
            let [left, right] = split(40);
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
}

/// The help or the picker, over the body: it covers the body whole (header and footer stay),
/// since half-covered words and borders beside it would read as cut text.
fn draw_overlay(
    area: Rect,
    buf: &mut Buffer,
    data: &FrameData,
    theme: &Theme,
    beneath: Mode,
    vocab: &Vocab,
) {
    if data.overlay == Overlay::None {
        return;
    }
    // An overlay covers the body whole (header and footer stay): half-covered words and
    // borders beside it would read as cut text.
    let body = Rect::new(
        area.x,
        area.y + 2,
        area.width,
        area.height.saturating_sub(3),
    );
    ratatui::widgets::Clear.render(body, buf);
    match data.overlay {
        Overlay::None => {}
        Overlay::Help { page } => overlays::Help {
            page,
            mode: beneath,
            theme,
            vocab,
            missing: data.help_missing.as_ref(),
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

/// The cells of row `y` a terminal shows. A double-width character covers the cell after it,
/// which holds a blank the terminal never shows: skipped, so a line of CJK or emoji keeps the
/// screen's width in every copy of the screen (text, page, recording).
pub fn shown_cells(buf: &Buffer, y: u16) -> impl Iterator<Item = &ratatui::buffer::Cell> + '_ {
    let area = buf.area;
    let mut covered = 0usize;
    (area.left()..area.right()).filter_map(move |x| {
        if covered > 0 {
            covered -= 1;
            return None;
        }
        let cell = &buf[(x, y)];
        covered = UnicodeWidthStr::width(cell.symbol()).saturating_sub(1);
        Some(cell)
    })
}

/// A buffer's symbols, one line a row, trailing spaces trimmed.
pub fn buffer_text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::with_capacity((area.width as usize + 1) * area.height as usize);
    for y in area.top()..area.bottom() {
        let mut line = String::with_capacity(area.width as usize);
        for cell in shown_cells(buf, y) {
            line.push_str(cell.symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
