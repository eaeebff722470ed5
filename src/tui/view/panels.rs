//! The lock panel and the storage panels (the clients' storage, or the compare view's pair).
//! What a line must keep is kept whole (a holder's token; a verdict's client, key and tokens);
//! the rest gives way first.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use super::fit::{clip, pad, width, wrap_exact};
use crate::sim::text::counted;
use crate::tui::frame::{
    Author, Holder, KeyRow, LockLines, LockPanelData, StorageData, VerdictLine,
};
use crate::tui::theme::{Role, Theme};

/// How many lines the lock panel wants inside its border.
pub fn lock_lines(data: &LockPanelData) -> usize {
    if data.locks.len() == 1 {
        4
    } else {
        2 * data.locks.len() + 1
    }
}

/// How many lines the lock panel needs without its gauges, which give way first (the timeline
/// says how long each lease has left).
pub fn lock_lines_compact(data: &LockPanelData) -> usize {
    if data.locks.len() == 1 {
        3
    } else {
        data.locks.len() + 1
    }
}

/// How many lines the panels need at least: the first lock's holder and the footer (or a second
/// holder), beside the storage's latest verdict and its keys counted.
pub const LINES_TIGHT: usize = 2;

/// Holder, token, grant and expiry times, time left as a gauge, next token.
pub struct LockPanel<'a> {
    pub data: &'a LockPanelData,
    pub theme: &'a Theme,
}

impl Widget for LockPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let data = self.data;
        let title = match data.locks.as_slice() {
            [one] => format!(" Lock: {} ", one.name),
            _ => " Locks ".to_owned(),
        };
        let block = Block::bordered().title(clip(&title, area.width.saturating_sub(2) as usize));
        let inner = block.inner(area);
        block.render(area, buf);
        // (how soon it gives way, the line): the gauges first, then the grant's times, then
        // the footer; a holder's line never.
        let mut lines: Vec<(u8, Line)> = Vec::new();
        for lock in &data.locks {
            lines.extend(lock_entry(
                lock,
                data.locks.len() == 1,
                inner.width,
                self.theme,
            ));
        }
        lines.push((1, Line::raw(clip(&data.footer, inner.width as usize))));
        while lines.len() > inner.height as usize {
            let Some(worst) = (0..lines.len()).max_by_key(|&i| (lines[i].0, i)) else {
                break;
            };
            lines.remove(worst);
        }
        Paragraph::new(lines.into_iter().map(|(_, l)| l).collect::<Vec<_>>()).render(inner, buf);
    }
}

/// One lock's lines, each with how soon it gives way.
fn lock_entry(lock: &LockLines, single: bool, w: u16, theme: &Theme) -> Vec<(u8, Line<'static>)> {
    let w_us = w as usize;
    let mut lines = vec![(0, holder_line(lock, single, w_us, theme))];
    if single {
        let prefix = if lock.holder.is_some() {
            ""
        } else {
            "last    "
        };
        lines.push((2, Line::raw(first_fit(prefix, &lock.details, w_us))));
    }
    lines.push((3, gauge_line(lock.left.as_ref(), w, theme)));
    lines
}

/// `prefix` and the first of `forms` that fits `w` columns, or the last one clipped.
fn first_fit(prefix: &str, forms: &[String], w: usize) -> String {
    let room = w.saturating_sub(width(prefix));
    let form = forms
        .iter()
        .find(|f| width(f) <= room)
        .cloned()
        .unwrap_or_else(|| clip(forms.last().map_or("", String::as_str), room));
    format!("{prefix}{form}")
}

/// "holder  client-2  token 2", or with several locks "orders client-1  token 1": the token is
/// never cut; the lock's name and then the client are shortened first.
fn holder_line(lock: &LockLines, single: bool, w: usize, theme: &Theme) -> Line<'static> {
    let names: Vec<String> = if single {
        vec!["holder  ".to_owned()]
    } else {
        // "orders-lock" reads as "orders" beside a lane that is plainly a lock's.
        let stem = lock.name.strip_suffix("-lock").unwrap_or(&lock.name);
        vec![format!("{} ", lock.name), format!("{stem} ")]
    };
    let Some(holder) = &lock.holder else {
        let name = names.last().cloned().unwrap_or_default();
        let detail = if single {
            String::new()
        } else {
            first_fit("  ", &lock.details, w.saturating_sub(width(&name) + 4))
        };
        return Line::from(vec![
            Span::raw(name),
            Span::styled("free", theme.style(Role::Dim)),
            Span::styled(detail, theme.style(Role::Dim)),
        ]);
    };
    let whos = holder_forms(holder);
    let (name, who) = names
        .iter()
        .flat_map(|n| whos.iter().map(move |h| (n.clone(), h.clone())))
        .find(|(n, h)| width(n) + width(h) <= w)
        .unwrap_or_else(|| {
            // Nothing fits whole: the lock's name gives way, never the holder's token.
            let who = whos.last().cloned().unwrap_or_default();
            let room = w.saturating_sub(width(&who));
            let name = names.last().cloned().unwrap_or_default();
            (clip(name.trim_end(), room.saturating_sub(1)) + " ", who)
        });
    Line::from(vec![
        Span::raw(name),
        Span::styled(who, theme.style(Role::Title)),
    ])
}

/// "client-2  token 2", longest first, down to "c2 token 2"; the client alone with no token.
fn holder_forms(holder: &Holder) -> Vec<String> {
    match &holder.token {
        Some(token) => vec![
            format!("{}  {token}", holder.client),
            format!("{} {token}", holder.client),
            format!("{}  {token}", holder.short),
            format!("{} {token}", holder.short),
        ],
        None => vec![holder.client.clone(), holder.short.clone()],
    }
}

/// "left   [█████░░░░░] 4.5 s", legible without colour.
fn gauge_line(left: Option<&(f64, String)>, width: u16, theme: &Theme) -> Line<'static> {
    let (ratio, label) = match left {
        Some((ratio, label)) => (*ratio, label.clone()),
        None => (0.0, "-".to_owned()),
    };
    let bar_w = (width as usize)
        .saturating_sub(8 + 2 + super::fit::width(&label))
        .clamp(4, 30);
    let filled = ((ratio.clamp(0.0, 1.0) * bar_w as f64).round() as usize).min(bar_w);
    Line::from(vec![
        Span::raw("left   ["),
        Span::styled("█".repeat(filled), theme.style(Role::Holding)),
        Span::styled("░".repeat(bar_w - filled), theme.style(Role::Dim)),
        Span::raw(format!("] {label}")),
    ])
}

/// A storage: per key its value, highest token (the `fence_token` column, where tokens reach
/// the storage) and who wrote it; the latest write's verdict on the last line; keys that do not
/// fit counted, never dropped silently.
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
        let columns = Columns::of(data, w);
        let mut lines = table_lines(data, &columns, avail, theme);
        // Spare lines say what the "!" means, key by key.
        for row in &data.rows {
            if lines.len() >= avail {
                break;
            }
            if let Some((token, highest)) = row.corrupted {
                let note = if data.highest {
                    format!(
                        "! {} holds a stale write: {} < {}",
                        row.key,
                        data.marks.of_token(token),
                        data.marks.of_token(highest)
                    )
                } else {
                    format!("! {} holds a stale write", row.key)
                };
                lines.push(Line::styled(clip(&note, w), theme.style(Role::Corrupted)));
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

/// The storage table's column widths.
struct Columns {
    key: usize,
    value: usize,
    /// 0: no highest-token column.
    high: usize,
    /// 0: no author column.
    by: usize,
    /// Which of the author's forms the column shows.
    form: AuthorForm,
}

/// The author's long form ("client-1 (t1)"), its short one ("c1 (t1)"), or the bare client
/// ("c1") where the token is the highest column's.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AuthorForm {
    Long,
    Short,
    Bare,
}

impl AuthorForm {
    fn of(self, author: &Author) -> &str {
        match self {
            AuthorForm::Long => &author.long,
            AuthorForm::Short => &author.short,
            AuthorForm::Bare => &author.bare,
        }
    }
}

impl Columns {
    /// The value comes first; the author column takes its short form when the long one would
    /// cut a value, and its bare one when the short would. Two columns for the corruption mark:
    /// "! " before a key whose value is stale.
    fn of(data: &StorageData, w: usize) -> Columns {
        let key = data
            .rows
            .iter()
            .map(|r| width(&r.key))
            .max()
            .unwrap_or(3)
            .clamp(3, 12);
        let high = if data.highest { 7 } else { 0 };
        let value_need = data
            .rows
            .iter()
            .map(|r| width(&r.value) + 2)
            .max()
            .unwrap_or(5);
        let widest = |form: AuthorForm| {
            data.rows
                .iter()
                .filter_map(|r| r.by.as_ref().map(|b| width(form.of(b))))
                .max()
        };
        let fixed = 2 + key + 1 + high + 1;
        let fits = |by: usize| w >= fixed + value_need + by + 2;
        // The long form's heading is "written by", the others' "by".
        let long = widest(AuthorForm::Long).map(|l| l.max(10));
        let short = widest(AuthorForm::Short);
        let bare = widest(AuthorForm::Bare).map(|b| b.max(2));
        let (by, form) = match (long, short, bare) {
            (Some(l), _, _) if fits(l) => (l + 2, AuthorForm::Long),
            (_, Some(s), _) if fits(s) => (s + 2, AuthorForm::Short),
            (_, _, Some(b)) => (b + 2, AuthorForm::Bare),
            _ => (0, AuthorForm::Short),
        };
        Columns {
            key,
            value: w.saturating_sub(fixed + by).max(5),
            high,
            by,
            form,
        }
    }
}

/// The heading and each key's lines (a value too long for its column goes on under it, never
/// cut); every key gets its lines before the heading does, and keys that do not fit are counted.
fn table_lines(data: &StorageData, c: &Columns, avail: usize, theme: &Theme) -> Vec<Line<'static>> {
    let w = 2 + c.key + 1 + c.value + c.high + c.by;
    let rows: Vec<Vec<Line<'static>>> = data
        .rows
        .iter()
        .map(|r| key_lines(r, c, w, theme))
        .collect();
    let needed: usize = rows.iter().map(Vec::len).sum();
    let keys_fit = needed <= avail;
    let mut lines = Vec::new();
    if needed < avail {
        let (key_w, value_w, high_w) = (c.key, c.value, c.high);
        let highest = if c.high > 0 { "highest" } else { "" };
        let mut heading = format!(
            "  {:<key_w$} {:<value_w$}{:>high_w$}",
            "key", "value", highest
        );
        if c.by > 0 {
            let long = c.form == AuthorForm::Long;
            heading.push_str(if long { "  written by" } else { "  by" });
        }
        lines.push(Line::styled(clip(&heading, w), theme.style(Role::Dim)));
    }
    // Room for whole keys, and a line to count the rest when not all fit.
    let room = if keys_fit {
        avail
    } else {
        avail.saturating_sub(1)
    };
    let mut shown = 0;
    let mut used = 0;
    for row in &rows {
        if used + row.len() > room {
            break;
        }
        used += row.len();
        shown += 1;
        lines.extend(row.iter().cloned());
    }
    if shown < rows.len() {
        let more = (rows.len() - shown) as u64;
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
    lines
}

/// A key's line, and the lines its value goes on to under the value column when it is longer.
fn key_lines(row: &KeyRow, c: &Columns, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let (key_w, value_w, high_w) = (c.key, c.value, c.high);
    let highest = row.highest.map(|h| h.to_string()).unwrap_or_default();
    let value = wrap_exact(&format!("\"{}\"", row.value), value_w);
    let mut text = format!(
        "{} {} {}{:>high_w$}",
        if row.corrupted.is_some() { "!" } else { " " },
        pad(&clip(&row.key, key_w), key_w),
        pad(&value[0], value_w),
        highest
    );
    if let Some(author) = &row.by {
        text.push_str("  ");
        text.push_str(c.form.of(author));
    }
    let style = if row.corrupted.is_some() {
        theme.style(Role::Corrupted)
    } else {
        Style::new()
    };
    let indent = " ".repeat(2 + key_w + 1);
    std::iter::once(text)
        .chain(value[1..].iter().map(|more| format!("{indent}{more}")))
        .map(|text| Line::styled(clip(&text, w), style))
        .collect()
}

/// "✗ REJECTED t1 < t2 · client-1 → file · 16.5 s". The mark, the word, the tokens, the client
/// and the key always; the time gives way first, then the check's note ("no check", which the
/// panel's title says), then the client's long name ("c1"), then the long word
/// ("CORRUPTED DATA!" as "CORRUPTED").
pub fn verdict_text(verdict: &VerdictLine, w: usize) -> (String, String) {
    let time = crate::sim::time::fmt_seconds(verdict.t);
    let client = verdict.client.to_string();
    let short = format!("c{}", verdict.client.number());
    let head = |word: &str, note: bool| {
        let mut head = format!("{} {word}", verdict.mark);
        let note = note && !verdict.note.is_empty();
        match (note, verdict.comparison.is_empty()) {
            // "no check, t1 < t2", as the library says it.
            (true, false) => head.push_str(&format!(" {}, {}", verdict.note, verdict.comparison)),
            (true, true) => head.push_str(&format!(" {}", verdict.note)),
            (false, false) => head.push_str(&format!(" {}", verdict.comparison)),
            (false, true) => {}
        }
        head
    };
    let key = &verdict.key;
    let forms = [
        (
            head(verdict.word, true),
            format!(" · {client} → {key} · {time} s"),
        ),
        (head(verdict.word, true), format!(" · {client} → {key}")),
        (head(verdict.word, false), format!(" · {client} → {key}")),
        (head(verdict.word, false), format!(" · {short} → {key}")),
        (
            head(verdict.short_word, false),
            format!(" · {short} → {key}"),
        ),
        (head(verdict.short_word, false), format!(" {short} → {key}")),
        // The panel's title says the check compares with any key.
        (
            head(verdict.short_word, false).replace(" (any key)", ""),
            format!(" · {short} → {key}"),
        ),
        (head(verdict.short_word, false), format!(" {short}→{key}")),
    ];
    let last = forms[forms.len() - 1].clone();
    forms
        .into_iter()
        .find(|(head, rest)| width(head) + width(rest) <= w)
        .unwrap_or_else(|| {
            let room = w.saturating_sub(width(&last.0));
            (last.0, clip(&last.1, room))
        })
}

fn verdict_spans(verdict: &VerdictLine, w: usize, theme: &Theme) -> Line<'static> {
    let style = if verdict.fresh {
        theme.style(verdict.role)
    } else {
        Style::new()
    };
    let (head, rest) = verdict_text(verdict, w);
    Line::from(vec![Span::styled(head, style), Span::raw(rest)])
}
