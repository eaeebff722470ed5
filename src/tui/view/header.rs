//! The header: fencing, the storage's rule and the time on the first line (the other fields give
//! way first when narrow); the scenario and where the lesson is on the second.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::fit::{clip, width};
use crate::tui::frame::{HeaderData, HEADER_KEPT};
use crate::tui::theme::{Role, Theme};

pub struct Header<'a> {
    pub data: &'a HeaderData,
    pub theme: &'a Theme,
}

const SEPARATOR: &str = " │ ";

impl Widget for Header<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let data = self.data;
        let theme = self.theme;
        let bar = theme.style(Role::Bar);
        buf.set_style(Rect::new(area.x, area.y, area.width, 1), bar);
        // Drop fields from the end (the least important) until the line fits.
        let room = area.width as usize;
        let mut fields = data.fields.len();
        let line_width = |n: usize| {
            data.fields[..n]
                .iter()
                .enumerate()
                .map(|(i, f)| width(&f.text) + if i == 0 { 1 } else { width(SEPARATOR) })
                .sum::<usize>()
        };
        while fields > HEADER_KEPT && line_width(fields) > room {
            fields -= 1;
        }
        let mut spans = Vec::new();
        for (i, field) in data.fields[..fields].iter().enumerate() {
            spans.push(Span::styled(if i == 0 { "" } else { SEPARATOR }, bar));
            let style = field.role.map_or(bar, |r| theme.style(r));
            spans.push(Span::styled(field.text.clone(), style));
        }
        buf.set_line(area.x, area.y, &Line::from(spans), area.width);
        if area.height < 2 {
            return;
        }
        let name = format!(" {}: ", data.name);
        let text_room_beside =
            |progress: &str| room.saturating_sub(width(progress) + width(&name) + 1);
        // The progress gives way to its short form before the title is cut.
        let progress = [&data.progress, &data.short_progress]
            .map(|p| format!(" {p} "))
            .into_iter()
            .find(|p| width(&data.short_title) <= text_room_beside(p))
            .unwrap_or_else(|| format!(" {} ", data.short_progress));
        let title_room = room.saturating_sub(width(&progress));
        let text_room = text_room_beside(&progress);
        let title = if width(&data.title) <= text_room {
            data.title.clone()
        } else {
            clip(&data.short_title, text_room)
        };
        let line = Line::from(vec![
            Span::styled(name, theme.style(Role::Title)),
            Span::raw(title),
        ]);
        buf.set_line(area.x, area.y + 1, &line, title_room as u16);
        buf.set_string(
            area.x + title_room as u16,
            area.y + 1,
            progress,
            theme.style(Role::Dim),
        );
    }
}
