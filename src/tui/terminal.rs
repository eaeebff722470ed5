//! The terminal loop: draw, then sleep until a key, a resize or (only while playing) a tick.
//! The terminal is restored on quit, on panic (ratatui's hook) and on SIGTERM, SIGHUP, SIGINT.

use std::io;
use std::time::{Duration, Instant};

use crossterm::event::{self, Event};
use ratatui::DefaultTerminal;

use super::app::{Action, App};
use super::keys::action_for;
use super::view;

/// How often playback advances while playing.
const TICK: Duration = Duration::from_millis(50);

/// Runs the UI until the user quits; returns the app so its session can be saved.
pub fn run_terminal(mut app: App) -> io::Result<App> {
    watch_signals()?;
    // ratatui's hook (installed by try_init) restores raw mode and the screen, then calls this
    // one, which shows the cursor again before the panic message is printed.
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        show_cursor();
        report(info);
    }));
    let mut terminal = ratatui::try_init()?;
    // crossterm installs its SIGWINCH handler when its event source first runs; do that before
    // the first frame, or a resize right after start-up is lost.
    let result = event::poll(Duration::ZERO).and_then(|_| event_loop(&mut terminal, &mut app));
    restore();
    result.map(|()| app)
}

/// Puts the terminal back as it was: cooked mode, main screen, cursor shown.
fn restore() {
    ratatui::restore();
    show_cursor();
}

fn show_cursor() {
    use std::io::Write;
    let mut out = io::stdout();
    let _ = crossterm::execute!(out, crossterm::cursor::Show);
    let _ = out.flush();
}

/// Raw mode swallows Ctrl-C as a key, but a `kill` still arrives as a signal: put the terminal
/// back before leaving, whichever thread is drawing.
fn watch_signals() -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT, SIGQUIT])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                restore();
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
}

fn event_loop(terminal: &mut DefaultTerminal, app: &mut App) -> io::Result<()> {
    let mut dirty = true;
    let mut last_tick = Instant::now();
    while !app.should_quit() {
        if dirty {
            terminal.draw(|frame| view::draw(frame, app))?;
            dirty = false;
        }
        let event = if app.wants_ticks() {
            let wait = TICK.saturating_sub(last_tick.elapsed());
            if event::poll(wait)? {
                Some(event::read()?)
            } else {
                None
            }
        } else {
            // Paused: block until something happens. No polling, no CPU.
            Some(event::read()?)
        };
        match event {
            Some(Event::Resize(..)) => dirty = true,
            Some(event) => {
                if let Some(action) = event
                    .as_key_press_event()
                    .and_then(|key| action_for(key, app.overlay()))
                {
                    let was_playing = app.is_playing();
                    app.update(action);
                    if app.is_playing() && !was_playing {
                        last_tick = Instant::now();
                    }
                    dirty = true;
                }
            }
            None => {}
        }
        if app.wants_ticks() && last_tick.elapsed() >= TICK {
            let elapsed = last_tick.elapsed();
            last_tick = Instant::now();
            app.update(Action::Tick(elapsed.as_millis() as u64));
            dirty = true;
        }
    }
    Ok(())
}
