//! The lock panel and the storage panels (the clients' storage, or the compare view's pair).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use super::fit::{clip, width};
use crate::sim::text::counted;
use crate::tui::frame::{LockPanelData, StorageData, VerdictLine};
use crate::tui::theme::{Role, Theme};

/// How many lines the lock panel needs inside its border.
pub fn lock_lines(data: &LockPanelData) -> usize {
    if data.locks.len() == 1 {
        4
    } else {
        2 * data.locks.len() + 1
    }
}

/// Holder, token, grant and expiry times, time left as a gauge, next token.
pub struct LockPanel<'a> {
    pub data: &'a LockPanelData,
    pub theme: &'a Theme,
}

impl Widget for LockPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let data = self.data;
        let theme = self.theme;
        let title = match data.locks.as_slice() {
            [one] => format!(" Lock: {} ", one.name),
            _ => " Locks ".to_owned(),
        };
        let block = Block::bordered().title(clip(&title, area.width.saturating_sub(2) as usize));
        let inner = block.inner(area);
        block.render(area, buf);
        let w = inner.width as usize;
        let mut lines = Vec::new();
        for lock in &data.locks {
            let single = data.locks.len() == 1;
            let name = if single {
                "holder  ".to_owned()
            } else {
                format!("{} ", clip(&lock.name, 12))
            };
            // Whatever follows the name is clipped with a mark, never cut mid-word silently.
            let room = w.saturating_sub(width(&name));
            match &lock.holder {
                Some(holder) => lines.push(Line::from(vec![
                    Span::raw(name),
                    Span::styled(clip(holder, room), theme.style(Role::Title)),
                ])),
                None => lines.push(Line::from(vec![
                    Span::raw(name),
                    Span::styled("free", theme.style(Role::Dim)),
                    Span::raw(if single { "" } else { "  " }),
                    Span::styled(
                        if single {
                            String::new()
                        } else {
                            clip(&lock.detail, room.saturating_sub(6))
                        },
                        theme.style(Role::Dim),
                    ),
                ])),
            }
            if single {
                let detail = match &lock.holder {
                    Some(_) if width(&lock.detail) <= w => lock.detail.clone(),
                    Some(_) => lock.detail_short.clone(),
                    None => format!("last    {}", lock.detail),
                };
                lines.push(Line::raw(clip(&detail, w)));
            }
            lines.push(gauge_line(lock.left.as_ref(), inner.width, theme));
        }
        lines.push(Line::raw(clip(&data.footer, w)));
        Paragraph::new(lines).render(inner, buf);
    }
}

/// "left   [█████░░░░░] 4.5 s", legible without colour.
fn gauge_line(left: Option<&(f64, String)>, width: u16, theme: &Theme) -> Line<'static> {
    let (ratio, label) = match left {
        Some((ratio, label)) => (*ratio, label.clone()),
        None => (0.0, "-".to_owned()),
    };
    let bar_w = (width as usize)
        .saturating_sub(8 + 2 + label.chars().count())
        .clamp(4, 30);
    let filled = ((ratio.clamp(0.0, 1.0) * bar_w as f64).round() as usize).min(bar_w);
    Line::from(vec![
        Span::raw("left   ["),
        Span::styled("█".repeat(filled), theme.style(Role::Holding)),
        Span::styled("░".repeat(bar_w - filled), theme.style(Role::Dim)),
        Span::raw(format!("] {label}")),
    ])
}

/// A storage: per key its value, highest token (the `fence_token` column) and who wrote it; the
/// latest write's verdict on the last line; keys that do not fit counted, never dropped silently.
pub struct StoragePanel<'a> {
    pub data: &'a StorageData,
    pub theme: &'a Theme,
}

impl Widget for StoragePanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let data = self.data;
        let theme = self.theme;
        let block = Block::bordered().title(format!(
            " {} ",
            clip(&data.title, area.width.saturating_sub(4) as usize)
        ));
        let inner = block.inner(area);
        block.render(area, buf);
        let w = inner.width as usize;
        let rows = inner.height as usize;
        let reserved = usize::from(data.verdict.is_some()) + usize::from(data.counts.is_some());
        // Lines for the heading, the keys and their notes.
        let avail = rows.saturating_sub(reserved);

        let key_w = data
            .rows
            .iter()
            .map(|r| width(&r.key))
            .max()
            .unwrap_or(3)
            .clamp(3, 12);
        let high_w = 7;
        // The value comes first; the author column takes its short form ("c1 (t1)") when the
        // long one ("client-1 (t1)") would cut a value.
        let value_need = data
            .rows
            .iter()
            .map(|r| width(&r.value) + 2)
            .max()
            .unwrap_or(5);
        let by_long = data
            .rows
            .iter()
            .filter_map(|r| r.by.as_ref().map(|b| width(&b.0)))
            .max();
        let by_short = data
            .rows
            .iter()
            .filter_map(|r| r.by.as_ref().map(|b| width(&b.1)))
            .max();
        // Two columns for the corruption mark: "! " before a key whose value is stale.
        let fixed = 2 + key_w + 1 + high_w + 1;
        let (by_w, long) = match (by_long, by_short) {
            (Some(l), _) if w >= fixed + value_need + l + 2 => (l + 2, true),
            (_, Some(s)) => (s + 2, false),
            _ => (0, false),
        };
        let value_w = w.saturating_sub(fixed + by_w).max(5);
        // Every key gets a line before the heading does; a key's corruption note comes last.
        let keys_fit = data.rows.len() <= avail;
        let heading_fits = data.rows.len() < avail;
        let mut lines = Vec::new();
        if heading_fits {
            let mut heading = format!(
                "  {:<key_w$} {:<value_w$}{:>high_w$}",
                "key", "value", "highest"
            );
            if by_w > 0 {
                heading.push_str(if long { "  written by" } else { "  by" });
            }
            lines.push(Line::styled(clip(&heading, w), theme.style(Role::Dim)));
        }
        let key_room = if keys_fit {
            data.rows.len()
        } else {
            avail.saturating_sub(1)
        };
        for row in data.rows.iter().take(key_room) {
            let mut text = format!(
                "{} {:<key_w$} {:<value_w$}{:>high_w$}",
                if row.corrupted.is_some() { "!" } else { " " },
                clip(&row.key, key_w),
                clip(&format!("\"{}\"", row.value), value_w),
                row.highest
            );
            if let Some((by_long, by_short)) = &row.by {
                text.push_str("  ");
                text.push_str(if long { by_long } else { by_short });
            }
            let style = if row.corrupted.is_some() {
                theme.style(Role::Corrupted)
            } else {
                Style::new()
            };
            lines.push(Line::styled(clip(&text, w), style));
        }
        if !keys_fit {
            let more = (data.rows.len() - key_room) as u64;
            lines.push(Line::styled(
                format!("+{}", counted(more, "more key", "more keys")),
                theme.style(Role::Dim),
            ));
        } else if data.rows.is_empty() && avail > lines.len() {
            lines.push(Line::styled(
                "(nothing written yet)",
                theme.style(Role::Dim),
            ));
        }
        // Spare lines say what the "!" means, key by key.
        for row in &data.rows {
            if lines.len() >= avail {
                break;
            }
            if let Some((token, highest)) = row.corrupted {
                lines.push(Line::styled(
                    clip(
                        &format!("! {} holds a stale write: t{token} < t{highest}", row.key),
                        w,
                    ),
                    theme.style(Role::Corrupted),
                ));
            }
        }
        // The last lines: the verdict, then the counts, always shown.
        while lines.len() + reserved > rows && lines.len() > 1 {
            lines.pop();
        }
        while lines.len() + reserved < rows {
            lines.push(Line::raw(""));
        }
        if let Some(verdict) = &data.verdict {
            lines.push(verdict_spans(verdict, w, theme));
        }
        if let Some(counts) = &data.counts {
            lines.push(Line::styled(clip(counts, w), theme.style(Role::Title)));
        }
        Paragraph::new(lines).render(inner, buf);
    }
}

/// "✗ REJECTED t1 < t2 · client-1 → file · 16.5 s": the mark, the word and the comparison always;
/// the rest as room allows.
fn verdict_spans(verdict: &VerdictLine, w: usize, theme: &Theme) -> Line<'static> {
    let head = format!("{} {} {}", verdict.mark, verdict.word, verdict.comparison);
    let style = if verdict.fresh {
        theme.style(verdict.role)
    } else {
        Style::new()
    };
    let rest_room = w.saturating_sub(width(&head) + 3);
    // Who and where first; the time gives way before anything is clipped.
    let short = verdict
        .rest
        .rsplit_once(" · ")
        .map_or(verdict.rest.as_str(), |(who, _)| who);
    let rest = if width(&verdict.rest) <= rest_room {
        format!(" · {}", verdict.rest)
    } else if rest_room >= 6 {
        format!(" · {}", clip(short, rest_room))
    } else {
        String::new()
    };
    Line::from(vec![Span::styled(head, style), Span::raw(rest)])
}
