//! The text parts of the screen: header, lesson caption, event log, footer.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

use crate::sim::{explain_write, fmt_seconds, EventKind};
use crate::tui::app::App;
use crate::tui::keys;
use crate::tui::theme::Role;

/// Two lines: fencing, clock, step, play state; then the scenario and where the lesson is.
pub struct Header<'a> {
    pub app: &'a App,
}

impl Widget for Header<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let theme = &app.theme;
        let world = app.session().world();
        let scenario = world.scenario();
        let bar = theme.style(Role::Bar);
        buf.set_style(Rect::new(area.x, area.y, area.width, 1), bar);
        let fencing = if world.fencing() {
            Span::styled(" FENCING ON ", theme.style(Role::FencingOn))
        } else {
            Span::styled(" FENCING OFF ", theme.style(Role::FencingOff))
        };
        let rule = if world.fencing() {
            world.fenced_check().rule()
        } else {
            "no check"
        };
        let play = if app.is_playing() {
            format!("▶ playing {}x", app.speed())
        } else {
            format!("❚❚ paused ({}x)", app.speed())
        };
        let clock = format!(
            "t = {} s │ step {} s │ {play}",
            fmt_seconds(world.now()),
            fmt_seconds(app.step_ms())
        );
        let full = format!(" {rule} │ {clock}");
        // Narrow, the rule gives way (the storage panel's title names it too): the clock and
        // the play state always show.
        let fits = fencing.width() + full.chars().count() <= area.width as usize;
        let rest = if fits { full } else { format!(" {clock}") };
        let spans = vec![fencing, Span::styled(rest, bar)];
        Paragraph::new(Line::from(spans)).render(Rect::new(area.x, area.y, area.width, 1), buf);

        if area.height < 2 {
            return;
        }
        let progress = match (scenario.chaos.is_some(), scenario.beat_at(world.now())) {
            (true, _) => format!("chaos, seed {}", app.session().seed()),
            (false, Some(i)) => format!("beat {} of {}", i + 1, scenario.beats.len()),
            (false, None) => format!("{} beats", scenario.beats.len()),
        };
        let compare = if app.compare() { "COMPARE · " } else { "" };
        let right = format!(" {compare}{progress} ");
        let title_w = area.width.saturating_sub(right.chars().count() as u16);
        let name = format!(" {}: ", scenario.name);
        let room = (title_w as usize).saturating_sub(name.chars().count() + 1);
        let line = Line::from(vec![
            Span::styled(name, theme.style(Role::Title)),
            Span::raw(super::panels::clip(&scenario.title, room)),
        ]);
        buf.set_line(area.x, area.y + 1, &line, title_w);
        buf.set_string(area.x + title_w, area.y + 1, right, theme.style(Role::Dim));
    }
}

/// The current beat's caption, or the lesson's question and, once answered, its reveal.
pub struct Caption<'a> {
    pub app: &'a App,
}

impl Widget for Caption<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let theme = &app.theme;
        let world = app.session().world();
        let scenario = world.scenario();
        let title = if scenario.chaos.is_some() {
            " Chaos "
        } else {
            " Lesson "
        };
        let block = Block::bordered().title(title);
        let mut lines = Vec::new();
        match app.prediction() {
            Some(p) => {
                let beat = &scenario.beats[p.beat];
                let question = beat.ask.as_ref().map_or("", |q| q.text.as_str());
                match p.answer {
                    None => {
                        lines.push(Line::styled(
                            format!("? {question}"),
                            theme.style(Role::Question),
                        ));
                        lines.push(Line::raw("Predict, then see: press y for yes or n for no."));
                    }
                    Some(answer) => {
                        let outcome =
                            world.events().iter().rev().find(|e| {
                                e.t == beat.at && matches!(e.kind, EventKind::Write { .. })
                            });
                        let why =
                            outcome.and_then(|e| explain_write(&e.kind, world.storage().check()));
                        let accepted = outcome.is_some_and(|e| {
                            matches!(e.kind, EventKind::Write { accepted: true, .. })
                        });
                        let verdict = if answer == accepted {
                            "Right"
                        } else {
                            "Not quite"
                        };
                        let said = if answer { "yes" } else { "no" };
                        lines.push(Line::from(vec![
                            Span::styled(
                                format!("You said {said}. {verdict}: "),
                                theme.style(Role::Question),
                            ),
                            Span::styled(
                                why.unwrap_or_else(|| "the write did not happen.".into()),
                                theme.style(if accepted {
                                    Role::Corrupted
                                } else {
                                    Role::Rejected
                                }),
                            ),
                        ]));
                    }
                }
            }
            None => {
                let beat = scenario.beat_at(world.now()).map(|i| &scenario.beats[i]);
                // A check stricter than the seed's refused an honest write at this beat: say
                // so, since the lesson's caption was written for the seed's rule.
                let broken = beat.and_then(|beat| {
                    world
                        .events()
                        .iter()
                        .rev()
                        .take_while(|e| e.t >= beat.at)
                        .find(|e| e.t == beat.at && e.kind.is_honest_refusal())
                });
                match (beat, broken) {
                    (_, Some(event)) => {
                        let check = world.storage().check();
                        let why = explain_write(&event.kind, check).unwrap_or_default();
                        lines.push(Line::from(vec![
                            Span::styled(
                                format!("With the {} check: ", check.name()),
                                theme.style(Role::Question),
                            ),
                            Span::styled(why, theme.style(Role::Rejected)),
                        ]));
                    }
                    (Some(beat), None) => {
                        let caption = beat.caption_for(world.fencing());
                        let style = if caption.contains("CORRUPTED") {
                            theme.style(Role::Corrupted)
                        } else {
                            Style::new()
                        };
                        lines.push(Line::styled(caption.to_owned(), style));
                    }
                    (None, None) => lines.push(Line::raw("Press n to begin the lesson.")),
                }
            }
        }
        Paragraph::new(lines)
            .wrap(Wrap { trim: true })
            .block(block)
            .render(area, buf);
    }
}

/// The latest events, newest last; those of this very moment in bold.
pub struct EventLog<'a> {
    pub app: &'a App,
}

impl Widget for EventLog<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let theme = &app.theme;
        let world = app.session().world();
        let block = Block::bordered().title(" Events ");
        let inner = block.inner(area);
        block.render(area, buf);
        let rows = inner.height as usize;
        let events = world.events();
        let shown = &events[events.len().saturating_sub(rows)..];
        let lock = &world.scenario().lock;
        for (row, event) in shown.iter().enumerate() {
            let role = match &event.kind {
                EventKind::Write {
                    accepted: false, ..
                } => Some(Role::Rejected),
                EventKind::Corruption { .. } => Some(Role::Corrupted),
                EventKind::Write { .. } | EventKind::Grant { .. } => Some(Role::Holding),
                EventKind::Pause { .. } | EventKind::Resume { .. } => Some(Role::Paused),
                EventKind::Expire { .. }
                | EventKind::RenewRefused { .. }
                | EventKind::ReleaseRefused { .. } => Some(Role::Stale),
                EventKind::Crash { .. } | EventKind::Restart { .. } => Some(Role::Crashed),
                EventKind::Fencing { .. } => Some(Role::Title),
                _ => None,
            };
            let mut style = role.map_or(Style::new(), |r| theme.style(r));
            if event.t != world.now() && !matches!(event.kind, EventKind::Corruption { .. }) {
                style = style.remove_modifier(ratatui::style::Modifier::BOLD);
            }
            let line = format!("{:>6} {}", fmt_seconds(event.t), event.describe(lock));
            buf.set_stringn(
                inner.x,
                inner.y + row as u16,
                line,
                inner.width as usize,
                style,
            );
        }
        if events.is_empty() {
            buf.set_stringn(
                inner.x,
                inner.y,
                "nothing has happened yet",
                inner.width as usize,
                theme.style(Role::Dim),
            );
        }
    }
}

/// Key hints from the key table, or the note about the last action.
pub struct Footer<'a> {
    pub app: &'a App,
}

impl Widget for Footer<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let theme = &self.app.theme;
        if let Some(status) = self.app.status() {
            buf.set_stringn(
                area.x,
                area.y,
                format!(" {status}"),
                area.width as usize,
                theme.style(Role::Selected),
            );
            return;
        }
        // Narrow, the hints a newcomer needs least give way first; help and quit never do.
        const GIVE_WAY: [&str; 5] = ["back", "crash", "step", "GC", "play"];
        let needed = |hints: &[(&str, &str)]| -> usize {
            1 + hints
                .iter()
                .map(|(k, h)| k.chars().count() + h.len() + 3)
                .sum::<usize>()
        };
        let mut hints: Vec<_> = keys::hints().collect();
        for hint in GIVE_WAY {
            if needed(&hints) <= area.width as usize {
                break;
            }
            hints.retain(|(_, h)| *h != hint);
        }
        let mut x = area.x + 1;
        for (key, hint) in hints {
            let width = (key.chars().count() + hint.len() + 3) as u16;
            if x + width > area.right() {
                break;
            }
            buf.set_string(x, area.y, key, theme.style(Role::Title));
            buf.set_string(
                x + key.chars().count() as u16 + 1,
                area.y,
                hint,
                Style::new(),
            );
            x += width;
        }
    }
}
