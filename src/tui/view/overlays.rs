//! What covers the main view: the help overlay, the scenario picker, the too-small notice.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget, Wrap};

use super::timeline::LEGEND;
use crate::sim::Scenario;
use crate::tui::keys;
use crate::tui::theme::{Role, Theme};

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    )
}

/// Every key (from the same table that dispatches them) and what the panels and glyphs mean.
pub struct Help<'a> {
    pub theme: &'a Theme,
}

const PANELS: &[&str] = &[
    "Timeline: lanes, ▸ = selected",
    "believes: lease by its own clock",
    "lock service: the truth",
    "Lock: holder, token, expiry",
    "Storage: value, fence_token/key",
];

impl Widget for Help<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let box_area = centered(area, 78, 24);
        Clear.render(box_area, buf);
        let block = Block::bordered().title(" Help: any key closes ");
        let inner = block.inner(box_area);
        block.render(box_area, buf);
        let key_style = self.theme.style(Role::Title);
        let left_w = 41.min(inner.width);
        for (y, (keys, label)) in (inner.y..inner.bottom()).zip(keys::help_rows()) {
            let line = Line::from(vec![
                Span::styled(format!("{keys:<8}"), key_style),
                Span::raw(label),
            ]);
            buf.set_line(inner.x, y, &line, left_w);
        }
        let right_x = inner.x + left_w + 1;
        if right_x + 20 > inner.right() {
            return;
        }
        let right_w = inner.right() - right_x;
        // Narrow, each mark gets its short name and the panel notes make room.
        let narrow = right_w < 30;
        let legend = LEGEND.iter().map(|(glyph, short, meaning)| {
            let text = if narrow { short } else { meaning };
            Line::from(vec![
                Span::styled(format!("{glyph} "), key_style),
                Span::raw(*text),
            ])
        });
        let panels = PANELS.iter().take(if narrow { 0 } else { PANELS.len() });
        let panels = panels.map(|text| {
            let (name, rest) = text.split_once(':').unwrap_or((text, ""));
            Line::from(vec![
                Span::styled(name.to_owned(), key_style),
                Span::raw(format!(":{rest}")),
            ])
        });
        let lines = std::iter::once(Line::raw("The timeline's marks"))
            .chain(legend)
            .chain(std::iter::once(Line::raw("")))
            .chain(panels);
        for (y, line) in (inner.y..inner.bottom()).zip(lines) {
            buf.set_line(right_x, y, &line, right_w);
        }
    }
}

/// The built-in scenarios with their titles; Enter loads one.
pub struct Picker<'a> {
    pub theme: &'a Theme,
    pub cursor: usize,
}

impl Widget for Picker<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let scenarios = Scenario::all_built_in();
        let box_area = centered(area, 78, scenarios.len() as u16 * 2 + 2);
        Clear.render(box_area, buf);
        let block = Block::bordered().title(" Choose a scenario: ↑↓ Enter, Esc to cancel ");
        let inner = block.inner(box_area);
        block.render(box_area, buf);
        let mut lines = Vec::new();
        for (i, scenario) in scenarios.iter().enumerate() {
            let chosen = i == self.cursor;
            let marker = if chosen { "▸ " } else { "  " };
            let style = if chosen {
                self.theme.style(Role::Cursor)
            } else {
                Style::new()
            };
            lines.push(Line::styled(
                format!("{marker}{:<14}", scenario.name),
                style,
            ));
            lines.push(Line::styled(
                format!("    {}", scenario.title),
                self.theme.style(Role::Dim),
            ));
        }
        Paragraph::new(lines).render(inner, buf);
    }
}

/// Shown instead of a broken layout when the terminal is smaller than the minimum.
pub struct TooSmall {
    pub width: u16,
    pub height: u16,
    pub min_width: u16,
    pub min_height: u16,
}

impl Widget for TooSmall {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let text = format!(
            "Terminal too small: {}x{}. fencing-lab needs at least {}x{}. Enlarge the window, or press q to quit.",
            self.width, self.height, self.min_width, self.min_height
        );
        Paragraph::new(text)
            .wrap(Wrap { trim: true })
            .render(area, buf);
    }
}
