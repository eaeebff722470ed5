//! A lesson played by keys: the terminal UI's own app, driven by the page's keys and buttons
//! (and by `frame --keys`, `run --keys`, so a page's screen and diagram can be asked of the
//! command line for the same keys), with its screen drawn by the terminal's own view and its
//! diagram by the slides' own.

use std::sync::Arc;

use crate::pictures::{screen, svg};
use crate::sim::time::Ms;
use crate::sim::{Scenario, Session, Setup};
use crate::tui::{self, action_for, Action, App, KeyPress, Mode, Theme};
use crate::FenceCheck;

/// The lesson a page shows.
pub struct Lesson {
    app: App,
    width: u16,
    height: u16,
}

/// How a page (or `--keys`) names its keys: a key a word, space-separated (`n`, `ArrowRight`,
/// `g`, `2`, `space`, `Shift+Tab`), as [`KeyPress::named`] reads them.
pub fn keys_of(words: &str) -> Result<Vec<KeyPress>, String> {
    words
        .split_whitespace()
        .map(|word| {
            KeyPress::named(word).ok_or_else(|| {
                format!(
                    "`{}` names no key: give keys as n, ArrowRight, ArrowLeft, g, 1, space, \
                     Enter, Escape, ... separated by spaces",
                    crate::sim::text::printable(word)
                )
            })
        })
        .collect()
}

/// The app of `setup` after `keys`, pressed from its first moment as the terminal's loop
/// presses them: each key's action in the mode then in force. (Playing, which runs on real
/// time, is left paused: a key that starts it starts nothing here.)
pub fn played(setup: Setup, keys: &[KeyPress], theme: Theme) -> App {
    let mut app = App::new(Session::new(setup), theme);
    for &key in keys {
        press(&mut app, key);
    }
    app
}

/// One key, as the terminal's loop hands it to the app.
fn press(app: &mut App, key: KeyPress) {
    if let Some(action) = action_for(key, app.mode()) {
        // Quitting means nothing to a page or a picture; playing is the page's own clock.
        if !matches!(action, Action::Quit) {
            app.update(action);
        }
    }
}

impl Lesson {
    /// A built-in lesson with the page's settings (a real system's words with `system`), drawn
    /// `width` x `height`.
    pub fn new(
        scenario: &str,
        fencing: bool,
        check: FenceCheck,
        system: Option<&'static crate::sim::systems::System>,
        width: u16,
        height: u16,
    ) -> Result<Lesson, String> {
        let scenario: Arc<Scenario> =
            Scenario::built_in(scenario).map(Arc::new).ok_or_else(|| {
                format!(
                    "no built-in lesson `{}`",
                    crate::sim::text::printable(scenario)
                )
            })?;
        let mut setup = Setup::new(scenario).fencing(fencing).check(check);
        if let Some(system) = system {
            setup = setup.as_system(system);
        }
        Ok(Lesson::of(setup, width, height))
    }

    /// The lesson of `setup` (this library, or a student's code behind its backend).
    pub fn of(setup: Setup, width: u16, height: u16) -> Lesson {
        Lesson {
            app: App::new(Session::new(setup), Theme::colored()),
            width,
            height,
        }
    }

    /// A key by its name; `Err` says which name is none.
    pub fn press(&mut self, key: &str) -> Result<(), String> {
        let keys = keys_of(key)?;
        for key in keys {
            press(&mut self.app, key);
        }
        Ok(())
    }

    /// Real time passing while the lesson plays, as the terminal's tick tells it.
    pub fn tick(&mut self, elapsed: Ms) {
        if self.app.wants_ticks() {
            self.app.update(Action::Tick(elapsed));
        }
    }

    /// A new size, as a resized terminal has.
    pub fn resize(&mut self, width: u16, height: u16) {
        (self.width, self.height) = (width, height);
    }

    pub fn app(&self) -> &App {
        &self.app
    }

    /// The screen as the terminal draws it, in the page's colours.
    pub fn screen_html(&self) -> String {
        screen::to_html(&tui::render_buffer(&self.app, self.width, self.height))
    }

    /// The screen's text, as `frame` prints it.
    pub fn screen_text(&self) -> String {
        tui::render_text(&self.app, self.width, self.height)
    }

    /// The diagram of the run so far, as `run --format svg` draws it.
    pub fn diagram(&self) -> String {
        diagram_of(&self.app)
    }

    /// Whether a question waits for its answer.
    pub fn asking(&self) -> bool {
        self.app.mode() == Mode::Question
    }
}

/// The diagram of an app's run up to its moment, at the slides' default size, on an axis of the
/// whole lesson, so that it grows left to right as the lesson goes (a window of its own only
/// once the lecturer plays past the lesson's end).
pub fn diagram_of(app: &App) -> String {
    let session = app.session();
    let now = session.now();
    let end = session.scenario().end;
    let window = if now <= end {
        svg::Window::fixed(0, end)
    } else {
        svg::Window::choose(&[session], None, now)
    };
    svg::diagram(session, svg::Size::DEFAULT, window, "")
}
