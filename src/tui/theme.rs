//! Styles by role. Colour is never the only signal: every role also has a glyph or a word, and
//! under `NO_COLOR` the theme uses bold, reverse and underline only (crossterm's colour reset
//! would wipe them), never faint text.

use ratatui::style::{Color, Modifier, Style};

/// What a piece of the screen means, so the theme decides how it looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Bar,
    FencingOn,
    FencingOff,
    Holding,
    Stale,
    Paused,
    Crashed,
    Waiting,
    Idle,
    Accepted,
    Rejected,
    Corrupted,
    Dim,
    Cursor,
    Selected,
    Title,
    Question,
}

/// Colour, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theme {
    color: bool,
}

impl Theme {
    /// Modifiers only, no colour: for `NO_COLOR`, `frame` output and snapshots.
    pub fn plain() -> Theme {
        Theme { color: false }
    }

    /// Colour.
    pub fn colored() -> Theme {
        Theme { color: true }
    }

    /// Colour unless the `NO_COLOR` environment variable is set to something.
    pub fn from_env() -> Theme {
        match std::env::var_os("NO_COLOR") {
            Some(value) if !value.is_empty() => Theme::plain(),
            _ => Theme::colored(),
        }
    }

    /// Whether colours are used.
    pub fn has_color(&self) -> bool {
        self.color
    }

    /// The style of `role`.
    pub fn style(&self, role: Role) -> Style {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let reversed = Style::new().add_modifier(Modifier::REVERSED);
        if !self.color {
            return match role {
                Role::Bar | Role::Cursor | Role::FencingOff | Role::Corrupted => {
                    reversed.add_modifier(Modifier::BOLD)
                }
                Role::FencingOn
                | Role::Rejected
                | Role::Title
                | Role::Selected
                | Role::Question => bold,
                Role::Stale => Style::new().add_modifier(Modifier::UNDERLINED),
                // Faint text is a colour by another name, and a projector loses it: without
                // colour, what is dim in colour is plain.
                _ => Style::new(),
            };
        }
        match role {
            Role::Bar => Style::new().fg(Color::Black).bg(Color::Gray),
            Role::FencingOn => bold.fg(Color::Black).bg(Color::Green),
            Role::FencingOff => bold.fg(Color::White).bg(Color::Red),
            Role::Holding => Style::new().fg(Color::Green),
            Role::Stale => bold.fg(Color::Yellow),
            Role::Paused => Style::new().fg(Color::Cyan),
            Role::Crashed => Style::new().fg(Color::Red),
            Role::Waiting => Style::new().fg(Color::Blue),
            Role::Idle | Role::Dim => Style::new().fg(Color::DarkGray),
            Role::Accepted => bold.fg(Color::Green),
            Role::Rejected => bold.fg(Color::Red),
            Role::Corrupted => bold.fg(Color::White).bg(Color::Red),
            Role::Cursor => reversed,
            Role::Selected => bold.fg(Color::Yellow),
            Role::Title => bold.fg(Color::Cyan),
            Role::Question => bold.fg(Color::Magenta),
        }
    }
}
