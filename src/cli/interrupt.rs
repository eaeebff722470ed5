//! A command ended by Ctrl-C, SIGTERM or SIGHUP ends the students' programs with it (each
//! program's whole process group, and every other descendant: see `children`) and leaves no
//! progress line behind, then exits as the signal would have (128 + its number).

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::{Handle, Signals};

/// While the terminal UI runs, its own signal thread restores the terminal, ends the programs
/// and exits: this one leaves the signals to it.
static TERMINAL_HAS_THEM: AtomicBool = AtomicBool::new(false);

/// Leaves the signals to the terminal UI's thread (`true`), or takes them back (`false`).
pub fn terminal_has_signals(has: bool) {
    TERMINAL_HAS_THEM.store(has, Ordering::SeqCst);
}

/// While it lives, the signals end the programs first; dropped, they are the default again.
pub struct Interrupts {
    handle: Option<Handle>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Interrupts {
    pub fn end_programs_on_signal() -> Interrupts {
        let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            // Without a handler the programs still see their input close when we are gone.
            return Interrupts {
                handle: None,
                thread: None,
            };
        };
        let handle = signals.handle();
        let thread = std::thread::Builder::new()
            .name("interrupts".into())
            .spawn(move || {
                for signal in signals.forever() {
                    if TERMINAL_HAS_THEM.load(Ordering::SeqCst) {
                        continue;
                    }
                    crate::lab::program::children::end_all();
                    if std::io::stderr().is_terminal() {
                        // The progress line, cleared: the shell's prompt starts on a clean line.
                        let _ = std::io::stderr().write_all(b"\r\x1b[2K");
                    }
                    std::process::exit(128 + signal);
                }
            });
        Interrupts {
            handle: Some(handle),
            // Without a thread to spare the signals keep their default: the programs still see
            // their input close when we are gone.
            thread: thread.ok(),
        }
    }
}

impl Drop for Interrupts {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            handle.close();
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
