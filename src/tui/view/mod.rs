//! The view: a pure function of the app's state onto a frame.

mod overlays;
mod panels;
mod text;
mod timeline;

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::Frame;

use super::app::{App, Overlay};
use crate::FenceCheck;

pub use timeline::{belief_and_truth, Window, LEGEND};

/// The smallest screen the full layout fits.
pub const MIN_WIDTH: u16 = 70;
/// The smallest screen the full layout fits.
pub const MIN_HEIGHT: u16 = 20;

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    let buf = frame.buffer_mut();
    draw_area(area, buf, app);
}

fn draw_area(area: Rect, buf: &mut ratatui::buffer::Buffer, app: &App) {
    use ratatui::widgets::Widget;
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
    let spare = area.height - MIN_HEIGHT;
    let timeline_h = 7 + u16::from(spare >= 6);
    let panels_h = 6 + (spare.saturating_sub(6) / 4).min(4);
    let [header, timeline, panels, caption, log, footer] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(timeline_h),
        Constraint::Length(panels_h),
        Constraint::Length(4),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);

    let world = app.session().world();
    let theme = &app.theme;
    text::Header { app }.render(header, buf);
    timeline::Timeline {
        world,
        selected: app.selected(),
        theme,
    }
    .render(timeline, buf);
    if app.compare() {
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(panels);
        let fenced = match world.fenced_check() {
            FenceCheck::Unchecked => FenceCheck::PerKey,
            check => check,
        };
        panels::MirrorPanel {
            world,
            check: fenced,
            theme,
        }
        .render(left, buf);
        panels::MirrorPanel {
            world,
            check: FenceCheck::Unchecked,
            theme,
        }
        .render(right, buf);
    } else {
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(40), Constraint::Percentage(60)])
                .areas(panels);
        panels::LockPanel { world, theme }.render(left, buf);
        panels::StoragePanel { world, theme }.render(right, buf);
    }
    text::Caption { app }.render(caption, buf);
    if log.height >= 3 {
        text::EventLog { app }.render(log, buf);
    }
    text::Footer { app }.render(footer, buf);

    match app.overlay() {
        Overlay::None => {}
        Overlay::Help => overlays::Help { theme }.render(area, buf),
        Overlay::Picker { cursor } => overlays::Picker { theme, cursor }.render(area, buf),
    }
}

/// The screen as plain text, `width` x `height`, trailing spaces trimmed: for `frame`, the
/// README and tests.
pub fn render_text(app: &App, width: u16, height: u16) -> String {
    let area = Rect::new(0, 0, width, height);
    let mut buf = ratatui::buffer::Buffer::empty(area);
    draw_area(area, &mut buf, app);
    buffer_text(&buf)
}

/// A buffer's symbols, one line a row, trailing spaces trimmed.
pub fn buffer_text(buf: &ratatui::buffer::Buffer) -> String {
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
