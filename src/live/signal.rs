//! Signals to other processes, through the system's `kill` command (the standard library only
//! sends SIGKILL, and this crate has no unsafe code), and a process's state as Linux shows it.

use std::process::{Command, Stdio};

/// The signals the lesson sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// Freeze: the GC pause.
    Stop,
    /// Thaw: the pause is over.
    Cont,
    /// Ask to end (etcd shuts down cleanly on it).
    Term,
}

impl Signal {
    pub fn name(self) -> &'static str {
        match self {
            Signal::Stop => "SIGSTOP",
            Signal::Cont => "SIGCONT",
            Signal::Term => "SIGTERM",
        }
    }
}

/// Sends `signal` to process `pid`; why not, if it could not.
pub fn send(pid: u32, signal: Signal) -> Result<(), String> {
    let name = &signal.name()[3..];
    let status = Command::new("kill")
        .args(["-s", name, &pid.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("could not run `kill` to send {}: {e}", signal.name()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`kill -s {name} {pid}` failed: the process is gone"
        ))
    }
}

/// Process `pid`'s state letter in `/proc/PID/stat` (`T`: stopped), if it exists.
pub fn state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name in parentheses may hold spaces; the state follows its closing parenthesis.
    stat.rsplit_once(") ")?.1.chars().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_process_shows_t_and_runs_again_after_sigcont() {
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        let pid = child.id();
        send(pid, Signal::Stop).unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while state(pid) != Some('T') && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_eq!(state(pid), Some('T'));
        send(pid, Signal::Cont).unwrap();
        while state(pid) == Some('T') && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_ne!(state(pid), Some('T'));
        send(pid, Signal::Term).unwrap();
        child.wait().unwrap();
        assert_eq!(state(pid), None, "reaped: no such process");
        assert!(send(pid, Signal::Cont).is_err());
    }
}
