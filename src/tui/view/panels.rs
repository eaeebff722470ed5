//! The lock panel and the storage panel (and the compare view's pair of storages).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use crate::sim::{seconds, EventKind, World};
use crate::tui::theme::{Role, Theme};
use crate::{CheckedStorage, FenceCheck, StoredValue};

/// Holder, token, grant and expiry times, time left as a gauge, next token.
pub struct LockPanel<'a> {
    pub world: &'a World,
    pub theme: &'a Theme,
}

impl Widget for LockPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let world = self.world;
        let scenario = world.scenario();
        let block = Block::bordered().title(format!(" Lock: {} ", scenario.lock));
        let inner = block.inner(area);
        block.render(area, buf);
        let locks = world.locks();
        let next = match locks.next_token() {
            Some(t) => t.to_string(),
            None => "none left".to_owned(),
        };
        let mut lines = Vec::new();
        match locks.lease(&scenario.lock) {
            Some(lease) => {
                let left = (lease.expires_at - seconds(world.now())).max(0.0);
                lines.push(Line::from(vec![
                    Span::raw("holder  "),
                    Span::styled(lease.client_id.clone(), self.theme.style(Role::Title)),
                    Span::raw(format!("  token {}", lease.token)),
                ]));
                let full = format!(
                    "granted {:.1} s  expires {:.1} s",
                    lease.granted_at, lease.expires_at
                );
                lines.push(Line::raw(if full.chars().count() <= inner.width as usize {
                    full
                } else {
                    format!(
                        "lease   {:.1} → {:.1} s",
                        lease.granted_at, lease.expires_at
                    )
                }));
                lines.push(gauge_line(
                    left / scenario.lease_seconds,
                    format!("{left:.1} s"),
                    inner.width,
                    self.theme,
                ));
            }
            None => {
                lines.push(Line::from(vec![
                    Span::raw("holder  "),
                    Span::styled("none, the lock is free", self.theme.style(Role::Dim)),
                ]));
                let last = world.events().iter().rev().find_map(|e| match e.kind {
                    EventKind::Expire { client, token } => Some(format!(
                        "t{token} c{} expired {:.1} s",
                        client.number(),
                        seconds(e.t)
                    )),
                    EventKind::Release { client, token } => Some(format!(
                        "t{token} c{} released {:.1} s",
                        client.number(),
                        seconds(e.t)
                    )),
                    _ => None,
                });
                lines.push(Line::raw(format!(
                    "last    {}",
                    last.unwrap_or_else(|| "never granted".into())
                )));
                lines.push(gauge_line(0.0, "-".into(), inner.width, self.theme));
            }
        }
        lines.push(Line::raw(format!(
            "next token {next}   lease {} s",
            scenario.lease_seconds
        )));
        Paragraph::new(lines).render(inner, buf);
    }
}

/// "left [█████░░░░░] 4.5 s", legible without colour.
fn gauge_line(ratio: f64, label: String, width: u16, theme: &Theme) -> Line<'static> {
    // "left   [" + bar + "] " + label
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

/// Per key: value, highest token (the `fence_token` column), who wrote it; the last verdict.
pub struct StoragePanel<'a> {
    pub world: &'a World,
    pub theme: &'a Theme,
}

impl Widget for StoragePanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let world = self.world;
        let check = world.storage().check();
        let title = if world.fencing() {
            format!(" Storage: {} ", check.rule())
        } else {
            " Storage: NO CHECK (fencing off) ".to_owned()
        };
        let block = Block::bordered().title(title);
        let inner = block.inner(area);
        block.render(area, buf);
        let theme = self.theme;
        let rows = inner.height as usize;
        let by = |key: &str, entry: &StoredValue| match world.authors().get(key) {
            Some(client) => format!("{client} t{}", entry.value_token),
            None => String::new(),
        };
        let mut lines = key_rows(world.storage(), Some(&by), inner.width, theme);
        if world.storage().is_empty() {
            lines.push(Line::styled(
                "(nothing written yet)",
                theme.style(Role::Dim),
            ));
        }
        // The latest write's verdict, unmistakable on the last line.
        let last_write = world.events().iter().rev().find_map(|e| match &e.kind {
            EventKind::Write {
                client,
                key,
                token,
                accepted,
                highest,
                ..
            } => Some((e.t, *client, key, *token, *accepted, *highest)),
            _ => None,
        });
        if let Some((t, client, key, token, accepted, highest)) = last_write {
            let fresh = t == world.now();
            let stale = highest.is_some_and(|h| token < h);
            let (verdict, role) = match (accepted, stale) {
                (false, _) => (
                    format!("✗ REJECTED t{} < t{}", token, highest.unwrap_or_default()),
                    Role::Rejected,
                ),
                (true, true) => (format!("! CORRUPTED DATA! t{token}"), Role::Corrupted),
                (true, false) => (format!("✓ accepted t{token}"), Role::Accepted),
            };
            let style = if fresh {
                theme.style(role)
            } else {
                Style::new()
            };
            let line = Line::from(vec![
                Span::styled(verdict, style),
                Span::raw(format!(" {client} → {key} at {:.1} s", seconds(t))),
            ]);
            while lines.len() + 1 > rows && lines.len() > 1 {
                lines.pop();
            }
            lines.push(line);
        }
        Paragraph::new(lines).render(inner, buf);
    }
}

/// One of the compare view's storages: the same writes, under `check`, from t = 0.
pub struct MirrorPanel<'a> {
    pub world: &'a World,
    pub check: FenceCheck,
    pub theme: &'a Theme,
}

impl Widget for MirrorPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (storage, stats): (&CheckedStorage, _) = self.world.mirror(self.check);
        let name = if self.check == FenceCheck::Unchecked {
            "Unfenced"
        } else {
            "Fenced"
        };
        let block = Block::bordered().title(format!(" {name}: {} ", self.check.rule()));
        let inner = block.inner(area);
        block.render(area, buf);
        let theme = self.theme;
        let mut lines = key_rows(storage, None, inner.width, theme);
        let summary = format!(
            "accepted {}  rejected {}  corrupted {}",
            stats.writes_accepted, stats.writes_rejected, stats.corruptions
        );
        while lines.len() + 1 > inner.height as usize && lines.len() > 1 {
            lines.pop();
        }
        lines.push(Line::styled(summary, theme.style(Role::Title)));
        Paragraph::new(lines).render(inner, buf);
    }
}

/// Who wrote a key's current value, as the storage table's last column says it.
type WrittenBy<'a> = &'a dyn Fn(&str, &StoredValue) -> String;

/// The storage table: a heading, then per key its value, highest token (the `fence_token`
/// column) and, given `by`, who wrote it; a key whose value came from a stale write gets a
/// CORRUPTED DATA! line under it.
fn key_rows(
    storage: &CheckedStorage,
    by: Option<WrittenBy<'_>>,
    width: u16,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let by_w = if by.is_some() { 13 } else { 0 };
    let value_w = (width as usize).saturating_sub(9 + 6 + by_w).max(6);
    let heading = format!("{:<8} {:<value_w$} {:>5}", "key", "value", "fence");
    let heading = if by.is_some() {
        heading + " by"
    } else {
        heading
    };
    let mut lines = vec![Line::styled(heading, theme.style(Role::Dim))];
    for (key, entry) in storage.entries() {
        let mut row = format!(
            "{:<8} {:<value_w$} {:>5}",
            clip(key, 8),
            clip(&format!("\"{}\"", entry.value), value_w),
            entry.highest
        );
        if let Some(by) = by {
            row = format!("{row} {}", by(key, entry));
        }
        lines.push(Line::raw(row));
        if entry.value_token < entry.highest {
            lines.push(Line::styled(
                format!(
                    "  ! CORRUPTED DATA! t{} overwrote t{}",
                    entry.value_token, entry.highest
                ),
                theme.style(Role::Corrupted),
            ));
        }
    }
    lines
}

/// `text` cut to `width` characters, with an ellipsis when cut.
pub fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_owned()
    } else {
        let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}
