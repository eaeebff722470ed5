//! The process groups of the programs running now, so that a check or a grade ended by a
//! signal ends them too: each program leads a group of its own, holding whatever it starts.

use std::sync::Mutex;

static LIVE: Mutex<Vec<u32>> = Mutex::new(Vec::new());

pub(super) fn started(pid: u32) {
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).push(pid);
}

/// Ends a program's group, and forgets it; called before the program is reaped.
pub(super) fn stopped(pid: u32) {
    LIVE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|&p| p != pid);
    kill_group(pid);
}

/// Ends every program's group still running (from a signal's handler: no waiting). Each is
/// a group whose leader was not reaped yet, so its id names no other.
pub fn stop_all() {
    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner()).clone();
    for pid in live {
        kill_group(pid);
    }
}

fn kill_group(pid: u32) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: kill(2) with a negative pid signals a process group; it touches no
        // memory. A group already gone is only an ESRCH.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    fn is_live(pid: u32) -> bool {
        LIVE.lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&pid)
    }

    /// Stopping one program forgets that one only: a grade runs several at once, and a
    /// Ctrl-C must still reach the others.
    #[test]
    fn stopping_one_program_keeps_the_others_to_stop() {
        let spawn = || {
            std::process::Command::new("sleep")
                .arg("300")
                .process_group(0)
                .spawn()
                .unwrap()
        };
        let (mut first, mut second) = (spawn(), spawn());
        started(first.id());
        started(second.id());
        stopped(first.id());
        let (first_live, second_live) = (is_live(first.id()), is_live(second.id()));
        stopped(second.id());
        first.wait().unwrap();
        second.wait().unwrap();
        assert!(!first_live, "a stopped program is forgotten");
        assert!(second_live, "a program still running is kept");
        assert!(!is_live(second.id()));
    }
}
