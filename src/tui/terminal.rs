//! The terminal loop: draw, then sleep until a key, a resize or (only while playing) a tick.
//!
//! The terminal is restored on quit, on panic, and on SIGTERM, SIGHUP, SIGINT and SIGQUIT; Ctrl-Z
//! and SIGTSTP suspend like a shell job should (the screen is given back, then redrawn whole on
//! SIGCONT). The drawn area is clamped to [`MAX_WIDTH`] x [`MAX_HEIGHT`], so a hostile terminal
//! size never makes the UI allocate without bound.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossterm::event::{self, Event, KeyCode, KeyModifiers};
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};

use super::app::{Action, App};
use super::keys::{action_for, KeyPress};
use super::view::{self, MAX_HEIGHT, MAX_WIDTH};

/// How often playback advances while playing.
const TICK: Duration = Duration::from_millis(50);

/// The most events handled before the screen is drawn again: a burst of keys (a paste, a held
/// key) is coalesced into few redraws, and `q` in it is reached at once.
const BURST: usize = 4096;

/// How long the drain waits for the next event of a burst. crossterm's `/dev/tty` source (the
/// `use-dev-tty` feature, level-triggered) answers a zero-timeout poll without looking at the
/// events it has already parsed, so a zero timeout would draw once per key; its default mio
/// source is edge-triggered and reads one 1 KiB chunk per wake-up, stranding the rest of a
/// burst until the next key arrives.
const DRAIN: Duration = Duration::from_millis(1);

type Screen = Terminal<CrosstermBackend<io::Stdout>>;

/// What the signal thread may need of the session: its recording, kept current by the loop.
#[derive(Clone, Default)]
pub struct Shared {
    /// The session as recording JSON, and where to save it, when recording.
    pub recording: Arc<Mutex<Option<(crate::sim::recording::SavePath, String)>>>,
    /// Set by the signal thread after SIGCONT: the next frame clears and redraws everything.
    redraw_all: Arc<AtomicBool>,
}

/// Runs the UI until the user quits; returns the app so its session can be saved. With
/// `record`, the session is kept saveable so a SIGTERM or SIGHUP saves it too.
pub fn run_terminal(
    mut app: App,
    record: Option<crate::sim::recording::SavePath>,
) -> io::Result<App> {
    let shared = Shared::default();
    if let Some(path) = &record {
        *lock(&shared.recording) =
            Some((path.clone(), crate::sim::recording::to_json(app.session())));
    }
    watch_signals(shared.clone())?;
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        report(info);
    }));
    enter()?;
    let mut screen = Terminal::with_options(
        CrosstermBackend::new(io::stdout()),
        TerminalOptions {
            viewport: Viewport::Fixed(clamped(terminal::size().unwrap_or((80, 24)))),
        },
    )?;
    // crossterm installs its SIGWINCH handler when its event source first runs; do that before
    // the first frame, or a resize right after start-up is lost.
    let result = event::poll(Duration::ZERO)
        .and_then(|_| event_loop(&mut screen, &mut app, &shared, record.is_some()));
    restore();
    result.map(|()| app)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The area drawn for a terminal of `(columns, rows)`: at least 1x1, at most the maximum.
pub fn clamped((w, h): (u16, u16)) -> Rect {
    Rect::new(0, 0, w.clamp(1, MAX_WIDTH), h.clamp(1, MAX_HEIGHT))
}

/// Raw mode, the alternate screen, the cursor hidden.
pub(super) fn enter() -> io::Result<()> {
    terminal::enable_raw_mode()?;
    let mut out = io::stdout();
    crossterm::execute!(out, EnterAlternateScreen, crossterm::cursor::Hide)?;
    out.flush()
}

/// Puts the terminal back as it was: cooked mode, main screen, cursor shown.
pub(super) fn restore() {
    let _ = terminal::disable_raw_mode();
    let mut out = io::stdout();
    let _ = crossterm::execute!(out, LeaveAlternateScreen, crossterm::cursor::Show);
    let _ = out.flush();
}

/// Gives the terminal back and stops the process like a shell job; on SIGCONT takes it again.
fn suspend() {
    restore();
    let _ = signal_hook::low_level::raise(signal_hook::consts::SIGSTOP);
}

/// Raw mode swallows Ctrl-C as a key, but a `kill` still arrives as a signal: put the terminal
/// back (saving the recording first) before leaving, whichever thread is drawing. SIGTSTP
/// suspends; SIGCONT takes the terminal again and asks for a full redraw (by a SIGWINCH, which
/// wakes the loop through crossterm's own resize handling).
fn watch_signals(shared: Shared) -> io::Result<()> {
    use signal_hook::consts::{SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP, SIGWINCH};
    let mut signals =
        signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGCONT])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                match signal {
                    SIGTSTP => suspend(),
                    SIGCONT => {
                        let _ = enter();
                        shared.redraw_all.store(true, Ordering::SeqCst);
                        let _ = signal_hook::low_level::raise(SIGWINCH);
                    }
                    _ => {
                        let saved = lock(&shared.recording).take();
                        restore();
                        // A student's program behind the lesson ends with it.
                        crate::lab::program::children::end_all();
                        if let Some((path, json)) = saved {
                            report_save(path.save_json(&json), &path);
                        }
                        std::process::exit(128 + signal);
                    }
                }
            }
        })?;
    Ok(())
}

/// Tells the user where the recording went (or why it did not), on stderr.
pub fn report_save(result: Result<(), String>, path: &crate::sim::recording::SavePath) {
    let message = match result {
        Ok(()) => format!(
            "fencing-lab: session saved to {}\n",
            crate::sim::text::printable(&path.path().display().to_string())
        ),
        Err(e) => format!("fencing-lab: {e}\n"),
    };
    let _ = io::stderr().write_all(message.as_bytes());
}

fn event_loop(
    screen: &mut Screen,
    app: &mut App,
    shared: &Shared,
    recording: bool,
) -> io::Result<()> {
    let mut dirty = true;
    let mut last_tick = Instant::now();
    while !app.should_quit() {
        if shared.redraw_all.swap(false, Ordering::SeqCst) {
            redraw_all(screen)?;
            dirty = true;
        }
        if dirty {
            screen.draw(|frame| view::draw(frame, app))?;
            dirty = false;
        }
        // Paused: block until something happens (no polling, no CPU). Playing: wake for ticks.
        let first = if app.wants_ticks() {
            let wait = TICK.saturating_sub(last_tick.elapsed());
            if event::poll(wait)? {
                Some(event::read()?)
            } else {
                None
            }
        } else {
            Some(event::read()?)
        };
        // Handle every event already waiting before drawing again: a burst is one redraw.
        let mut next = first;
        let mut handled = 0;
        while let Some(event) = next.take() {
            handled += 1;
            dirty |= handle(event, app, screen, &mut last_tick)?;
            if app.should_quit() || handled >= BURST {
                break;
            }
            if event::poll(DRAIN)? {
                next = Some(event::read()?);
            }
        }
        if app.wants_ticks() && last_tick.elapsed() >= TICK {
            let elapsed = last_tick.elapsed();
            last_tick = Instant::now();
            app.update(Action::Tick(elapsed.as_millis() as u64));
            dirty = true;
        }
        if recording && dirty {
            let mut slot = lock(&shared.recording);
            if let Some((_, json)) = slot.as_mut() {
                *json = crate::sim::recording::to_json(app.session());
            }
        }
    }
    Ok(())
}

/// Forgets what is on screen so the next frame draws every cell, at the terminal's size now.
/// (`Terminal::clear` would ask the terminal for the cursor position, which a terminal that
/// does not answer turns into a two-second stall and an error.)
fn redraw_all(screen: &mut Screen) -> io::Result<()> {
    screen.resize(clamped(terminal::size().unwrap_or((80, 24))))
}

/// One terminal event; whether the screen needs drawing again.
fn handle(
    event: Event,
    app: &mut App,
    screen: &mut Screen,
    last_tick: &mut Instant,
) -> io::Result<bool> {
    match event {
        Event::Resize(w, h) => {
            screen.resize(clamped((w, h)))?;
            Ok(true)
        }
        Event::Key(key) if key.is_press() => {
            if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('z') {
                suspend();
                // Back after SIGCONT (the signal thread re-entered raw mode): redraw it all.
                enter()?;
                redraw_all(screen)?;
                return Ok(true);
            }
            let Some(action) = action_for(press_of(key), app.mode()) else {
                return Ok(false);
            };
            let was_playing = app.is_playing();
            app.update(action);
            if app.is_playing() && !was_playing {
                *last_tick = Instant::now();
            }
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// A terminal's key as the key tables name it.
pub(super) fn press_of(key: event::KeyEvent) -> KeyPress {
    use super::keys::KeyCode as K;
    let code = match key.code {
        KeyCode::Char(c) => K::Char(c),
        KeyCode::Enter => K::Enter,
        KeyCode::Esc => K::Esc,
        KeyCode::Left => K::Left,
        KeyCode::Right => K::Right,
        KeyCode::Up => K::Up,
        KeyCode::Down => K::Down,
        KeyCode::Tab => K::Tab,
        KeyCode::BackTab => K::BackTab,
        _ => K::Other,
    };
    KeyPress {
        code,
        ctrl: key.modifiers.contains(KeyModifiers::CONTROL),
    }
}
