//! What covers the main view: the help overlay, the scenario picker, the too-small notice.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget, Wrap};

use super::fit::{clip, wrap};
use super::timeline::LEGEND;
use crate::sim::systems::SYSTEMS;
use crate::sim::{ClientId, Scenario, Vocab};
use crate::tui::app::{Action, Mode};
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

/// What the panels and the other marks on screen mean (the third help page, after the glyphs),
/// the keys named from the key table.
fn panels() -> Vec<(String, String)> {
    let key = |action| keys::key_for(Mode::Main, action);
    let clients: Vec<String> = ClientId::ALL
        .iter()
        .map(|&c| key(Action::Select(c)))
        .collect();
    let selected = format!(
        "the selected client ({}): {}, {} and {} act on it",
        clients.join(" "),
        key(Action::InjectPause),
        key(Action::Crash),
        key(Action::DelayWrite)
    );
    [
        ("▸", selected.as_str()),
        (
            "t2",
            "on a client lane: the token it holds or thinks it holds",
        ),
        (
            "c2 t2",
            "on the lock lane (or the row under it): client 2 holds the lock with token 2",
        ),
        ("GC, down", "on a client lane: a GC pause, a crash"),
        ("╵5", "the time axis, in seconds"),
        (
            "believes",
            "the lease as the client reckons it, on its own clock",
        ),
        ("lock service", "the truth: live, or ended how long ago"),
        (
            "highest",
            "the storage's per-key highest token: the fence_token column",
        ),
    ]
    .into_iter()
    .map(|(k, m)| (k.to_owned(), m.to_owned()))
    .collect()
}

/// The help pages, as (title, rows of (key or glyph, meaning)), for `mode`: the keys of the mode,
/// the marks on the timeline, the labels and panels, then what real systems call the token.
/// Each fits the smallest screen whole.
pub fn help_pages(mode: Mode) -> Vec<(String, Vec<(String, String)>)> {
    help_pages_without(mode, None)
        .into_iter()
        .map(|(title, rows)| {
            (
                title,
                rows.into_iter().map(|r| (r.key, r.meaning)).collect(),
            )
        })
        .collect()
}

/// One row of the help: a key or a mark, and what it means.
struct HelpRow {
    key: String,
    meaning: String,
    /// Whether the meaning is said in the words of the system in force (`--as`). A row that
    /// names systems and their tokens as they are is not: the system's word for a token would
    /// turn "no fencing token" into "no grant".
    in_lesson_words: bool,
}

fn lesson_rows(rows: Vec<(String, String)>) -> Vec<HelpRow> {
    rows.into_iter()
        .map(|(key, meaning)| HelpRow {
            key,
            meaning,
            in_lesson_words: true,
        })
        .collect()
}

/// The help pages of a run that lacks some commands (`missing`: which, and why): their rows
/// give way to one row naming their keys and the reason.
fn help_pages_without(
    mode: Mode,
    missing: Option<&(Vec<Action>, String)>,
) -> Vec<(String, Vec<HelpRow>)> {
    let (missing, why): (Vec<Action>, &str) = match missing {
        Some((actions, why)) => (
            actions
                .iter()
                .copied()
                .filter(|&a| keys::keymap(mode).iter().any(|b| b.action == a))
                .collect(),
            why,
        ),
        None => (Vec::new(), ""),
    };
    let mut keys_page = lesson_rows(
        keys::help_rows_without(mode, &missing)
            .into_iter()
            .map(|(k, l)| (k, l.to_owned()))
            .collect(),
    );
    if !missing.is_empty() {
        let keys: Vec<String> = missing.iter().map(|&a| keys::key_for(mode, a)).collect();
        keys_page.push(HelpRow {
            key: keys.join(" "),
            meaning: why.to_owned(),
            in_lesson_words: false,
        });
    }
    let marks = LEGEND
        .iter()
        .map(|(glyph, _, meaning)| (glyph.to_string(), (*meaning).to_owned()))
        .collect();
    let panels = panels();
    let title = match mode {
        Mode::Question => "Keys while a question waits",
        _ => "Keys",
    };
    let mut systems: Vec<(String, String)> = SYSTEMS
        .iter()
        .map(|s| (s.name.to_owned(), s.short.to_owned()))
        .collect();
    systems.push((
        "sources".to_owned(),
        "fencing-lab systems prints every line with its source".to_owned(),
    ));
    let systems = systems
        .into_iter()
        .map(|(key, meaning)| HelpRow {
            key,
            meaning,
            in_lesson_words: false,
        })
        .collect();
    vec![
        (title.to_owned(), keys_page),
        ("Marks on the timeline".to_owned(), lesson_rows(marks)),
        ("Labels and panels".to_owned(), lesson_rows(panels)),
        ("Real systems: the token and the check".to_owned(), systems),
    ]
}

/// Every key (from the same table that dispatches them) and what each mark means, in pages.
pub struct Help<'a> {
    pub page: usize,
    pub mode: Mode,
    pub theme: &'a Theme,
    /// The lesson's words: with `--as`, the system's word for a token (not on the last page,
    /// which names every system's).
    pub vocab: &'a Vocab,
    /// The commands this run does not have, and why.
    pub missing: Option<&'a (Vec<Action>, String)>,
}

impl Widget for Help<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let pages = help_pages_without(self.mode, self.missing);
        let page = self.page.min(pages.len() - 1);
        let (title, rows) = &pages[page];
        let said = |row: &HelpRow| {
            if row.in_lesson_words {
                self.vocab.say(&row.meaning)
            } else {
                row.meaning.clone()
            }
        };
        let box_w = area.width.min(78);
        let key_w = rows
            .iter()
            .map(|r| r.key.chars().count())
            .max()
            .unwrap_or(4)
            + 2;
        let text_w = (box_w.saturating_sub(2) as usize).saturating_sub(key_w);
        let key_style = self.theme.style(Role::Title);
        let mut lines = Vec::new();
        for row in rows {
            for (i, part) in wrap(&said(row), text_w).into_iter().enumerate() {
                let k = if i == 0 { row.key.as_str() } else { "" };
                lines.push(Line::from(vec![
                    Span::styled(format!("{k:<key_w$}"), key_style),
                    Span::raw(part),
                ]));
            }
        }
        // The box grows with the wrapped lines; a page taller than the screen says so on its
        // last line instead of dropping rows silently.
        let box_area = centered(area, box_w, lines.len() as u16 + 2);
        let room = box_area.height.saturating_sub(2) as usize;
        if lines.len() > room && room > 0 {
            let hidden = lines.len() - (room - 1);
            lines.truncate(room - 1);
            lines.push(Line::styled(
                format!("… {hidden} more lines: enlarge the terminal"),
                key_style,
            ));
        }
        Clear.render(box_area, buf);
        let next = keys::key_for(Mode::Help, Action::HelpNext);
        let block = Block::bordered().title(clip(
            &format!(
                " Help {}/{}: {title} · {next} next page, any other key closes ",
                page + 1,
                pages.len()
            ),
            box_w.saturating_sub(2) as usize,
        ));
        let inner = block.inner(box_area);
        block.render(box_area, buf);
        Paragraph::new(lines).render(inner, buf);
    }
}

/// The built-in scenarios with their titles, wrapped; Enter loads one.
pub struct Picker<'a> {
    pub theme: &'a Theme,
    pub cursor: usize,
}

impl Widget for Picker<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let scenarios = Scenario::all_built_in();
        let box_w = area.width.min(78);
        let text_w = box_w.saturating_sub(2 + 4) as usize;
        // Each scenario: its name, then its whole title wrapped under it.
        let entries: Vec<Vec<String>> = scenarios
            .iter()
            .map(|s| {
                let mut lines = vec![s.name.clone()];
                lines.extend(wrap(&s.title, text_w));
                lines
            })
            .collect();
        let total: usize = entries.iter().map(Vec::len).sum();
        let box_area = centered(area, box_w, (total as u16 + 2).min(area.height));
        Clear.render(box_area, buf);
        let key = |action| keys::key_for(Mode::Picker, action);
        let title = format!(
            " Choose a scenario: {}{} {}, {} cancels ",
            key(Action::PickerUp),
            key(Action::PickerDown),
            key(Action::PickerChoose),
            key(Action::CloseOverlay)
        );
        let block = Block::bordered().title(clip(&title, box_w.saturating_sub(2) as usize));
        let inner = block.inner(box_area);
        block.render(box_area, buf);
        // Scroll so the chosen entry is whole on screen.
        let rows = inner.height as usize;
        let start_of = |i: usize| entries[..i].iter().map(Vec::len).sum::<usize>();
        let chosen_end = start_of(self.cursor) + entries[self.cursor].len();
        let skip = chosen_end.saturating_sub(rows);
        let mut lines = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let chosen = i == self.cursor;
            for (j, text) in entry.iter().enumerate() {
                let line = if j == 0 {
                    let marker = if chosen { "▸ " } else { "  " };
                    let style = if chosen {
                        self.theme.style(Role::Cursor)
                    } else {
                        self.theme.style(Role::Title)
                    };
                    Line::styled(format!("{marker}{text}"), style)
                } else {
                    Line::styled(format!("    {text}"), Style::new())
                };
                lines.push(line);
            }
        }
        let lines: Vec<Line> = lines.into_iter().skip(skip).collect();
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
            "Terminal too small: {}x{}. fencing-lab needs at least {}x{}. Enlarge the window, or press {} to quit.",
            self.width,
            self.height,
            self.min_width,
            self.min_height,
            keys::key_for(Mode::Main, Action::Quit)
        );
        Paragraph::new(text)
            .wrap(Wrap { trim: true })
            .render(area, buf);
    }
}
