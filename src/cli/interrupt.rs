//! A check or a grade ended by Ctrl-C, SIGTERM or SIGHUP ends the students' programs with it
//! (each program's whole process group, whatever it started) and leaves no progress line
//! behind, then exits as the signal would have (128 + its number).

use std::io::{IsTerminal, Write};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::{Handle, Signals};

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
        let thread = std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                crate::lab::program::groups::stop_all();
                if std::io::stderr().is_terminal() {
                    // The progress line, cleared: the shell's prompt starts on a clean line.
                    let _ = std::io::stderr().write_all(b"\r\x1b[2K");
                }
                std::process::exit(128 + signal);
            }
        });
        Interrupts {
            handle: Some(handle),
            thread: Some(thread),
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
