//! The text parts of the screen: the caption, the event log, the footer.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::symbols::border;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

use super::fit::{clip, width, wrap};
use crate::tui::frame::{CaptionData, EventLine, FooterData};
use crate::tui::keys::Hint;
use crate::tui::theme::{Role, Theme};

/// The lines the caption's text (and its prompt, with `prompt`) take at `width` columns.
pub fn caption_lines(data: &CaptionData, width: usize, prompt: bool) -> usize {
    let prompt_lines = match &data.prompt {
        Some(p) if prompt => wrap(p, width).len(),
        _ => 0,
    };
    wrap(&data.text, width).len() + prompt_lines
}

/// The caption box: the true sentence for now, the question or its answer.
pub struct Caption<'a> {
    pub data: &'a CaptionData,
    pub theme: &'a Theme,
    /// The event log below draws the bottom line.
    pub joined: bool,
    /// Whether the prompt is shown (it gives way to the event log when it only repeats the
    /// footer).
    pub prompt: bool,
}

impl Widget for Caption<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let data = self.data;
        let borders = if self.joined {
            Borders::TOP | Borders::LEFT | Borders::RIGHT
        } else {
            Borders::ALL
        };
        let block = Block::new().borders(borders).title(data.title);
        let inner = block.inner(area);
        block.render(area, buf);
        let w = inner.width as usize;
        let style = data.role.map_or(Style::new(), |r| self.theme.style(r));
        let mut lines: Vec<Line> = wrap(&data.text, w)
            .into_iter()
            .map(|l| Line::styled(l, style))
            .collect();
        if let Some(prompt) = data.prompt.as_ref().filter(|_| self.prompt) {
            lines.extend(wrap(prompt, w).into_iter().map(Line::raw));
        }
        let rows = inner.height as usize;
        if lines.len() > rows && rows > 0 {
            // Say it was shortened, rather than cut a sentence silently.
            lines.truncate(rows);
            let last = lines.pop().map(|l| l.to_string()).unwrap_or_default();
            lines.push(Line::styled(
                format!("{}…", clip(&last, w.saturating_sub(1))),
                style,
            ));
        }
        Paragraph::new(lines).render(inner, buf);
    }
}

/// The width of the log's time column for these events.
fn time_width(lines: &[EventLine]) -> usize {
    lines
        .iter()
        .map(|e| width(&e.time))
        .max()
        .unwrap_or(4)
        .max(4)
}

/// The rows the newest event takes in a log `inner` columns wide (0 with no events).
pub fn newest_event_lines(lines: &[EventLine], inner: usize) -> usize {
    let time_w = time_width(lines);
    lines
        .last()
        .map_or(0, |e| wrap(&e.text, inner.saturating_sub(time_w + 1)).len())
}

/// The latest events, newest last and always whole, wrapped; how many earlier ones are off
/// screen in the title.
pub struct EventLog<'a> {
    /// Its top line joins the caption box above (├ ┤).
    pub joined: bool,
    pub lines: &'a [EventLine],
    /// Events earlier than `lines`, counted in the title.
    pub before: usize,
    pub theme: &'a Theme,
}

impl Widget for EventLog<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let rows = area.height.saturating_sub(2) as usize;
        let w = area.width.saturating_sub(2) as usize;
        // Whole events only, from the newest back, as many as fit.
        let time_w = time_width(self.lines);
        let mut shown: Vec<(Vec<String>, &EventLine)> = Vec::new();
        let mut used = 0;
        for event in self.lines.iter().rev() {
            let wrapped = wrap(&event.text, w.saturating_sub(time_w + 1))
                .into_iter()
                .enumerate();
            let wrapped: Vec<String> = wrapped
                .map(|(i, l)| {
                    let time = if i == 0 { event.time.as_str() } else { "" };
                    format!("{time:>time_w$} {l}")
                })
                .collect();
            // `heights` gives the log room for the newest event whole, or no log at all.
            if used + wrapped.len() > rows {
                break;
            }
            used += wrapped.len();
            shown.push((wrapped, event));
        }
        shown.reverse();
        let earlier = self.before + self.lines.len() - shown.len();
        let title = if earlier > 0 {
            format!(" Events ({earlier} earlier) ")
        } else {
            " Events ".to_owned()
        };
        let block = if self.joined {
            Block::bordered().border_set(border::Set {
                top_left: "├",
                top_right: "┤",
                ..border::PLAIN
            })
        } else {
            Block::bordered()
        }
        .title(title);
        let inner = block.inner(area);
        block.render(area, buf);
        if self.lines.is_empty() {
            buf.set_stringn(
                inner.x,
                inner.y,
                "nothing has happened yet",
                inner.width as usize,
                self.theme.style(Role::Dim),
            );
            return;
        }
        let mut lines = Vec::new();
        for (wrapped, event) in shown {
            let mut style = event.role.map_or(Style::new(), |r| self.theme.style(r));
            if !event.fresh {
                style = style.remove_modifier(Modifier::BOLD);
            }
            lines.extend(wrapped.into_iter().map(|l| Line::styled(l, style)));
        }
        Paragraph::new(lines).render(inner, buf);
    }
}

/// Key hints from the mode's key table, or the note about the last key.
pub struct Footer<'a> {
    pub data: &'a FooterData,
    pub theme: &'a Theme,
}

impl Widget for Footer<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let theme = self.theme;
        let data = self.data;
        let room = area.width as usize;
        if let Some(status) = &data.status {
            let text = format!(" {status}");
            buf.set_stringn(
                area.x,
                area.y,
                clip(&text, room),
                room,
                theme.style(Role::Selected),
            );
            return;
        }
        // Narrow, hints of higher order give way first; the table's order is kept.
        let lead = data.lead.map(|l| format!(" {l}")).unwrap_or_default();
        let item = |hint: &Hint| width(&hint.key) + 1 + width(hint.text) + 2;
        let mut hints: Vec<&Hint> = data.hints.iter().collect();
        while !hints.is_empty()
            && width(&lead) + 1 + hints.iter().map(|h| item(h)).sum::<usize>() > room
        {
            let worst = hints
                .iter()
                .enumerate()
                .max_by_key(|(i, h)| (h.order, *i))
                .map(|(i, _)| i)
                .unwrap_or(0);
            hints.remove(worst);
        }
        let mut spans = vec![
            Span::styled(lead, theme.style(Role::Selected)),
            Span::raw(" "),
        ];
        for hint in hints {
            spans.push(Span::styled(hint.key.clone(), theme.style(Role::Title)));
            spans.push(Span::raw(format!(" {}  ", hint.text)));
        }
        buf.set_line(area.x, area.y, &Line::from(spans), area.width);
    }
}
