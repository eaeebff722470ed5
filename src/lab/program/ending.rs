//! How a program ended (an exit or a signal, named as a student would look it up), asked
//! without reaping it.

/// How a program ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ended {
    Exited(i32),
    Killed(i32),
}

/// Whether process `pid`, a child of ours, has ended, asked without reaping it (`WNOWAIT`).
#[cfg(unix)]
pub(super) fn ended_unreaped(pid: u32) -> Option<Ended> {
    let pid = libc::id_t::try_from(pid).ok()?;
    // SAFETY: waitid(2) writes only the siginfo it is given, which lives on this stack.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        if libc::waitid(libc::P_PID, pid, &mut info, flags) != 0 || info.si_pid() == 0 {
            return None;
        }
        Some(if info.si_code == libc::CLD_EXITED {
            Ended::Exited(info.si_status())
        } else {
            Ended::Killed(info.si_status())
        })
    }
}

#[cfg(not(unix))]
pub(super) fn ended_unreaped(_pid: u32) -> Option<Ended> {
    None
}

/// A signal's name, as a student would look it up: SIGABRT for an abort.
pub(super) fn signal_name(signal: i32) -> String {
    let name = match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        6 => "SIGABRT (an abort)",
        7 => "SIGBUS",
        8 => "SIGFPE (an arithmetic error)",
        9 => "SIGKILL",
        11 => "SIGSEGV (a segmentation fault)",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return format!("signal {signal}"),
    };
    format!("signal {signal}, {name}")
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// Every signal named is named by its number on this system, and any other by its number.
    #[test]
    fn each_signal_is_named_as_its_constant() {
        let named = [
            (libc::SIGHUP, "SIGHUP"),
            (libc::SIGINT, "SIGINT"),
            (libc::SIGQUIT, "SIGQUIT"),
            (libc::SIGILL, "SIGILL"),
            (libc::SIGABRT, "SIGABRT (an abort)"),
            (libc::SIGBUS, "SIGBUS"),
            (libc::SIGFPE, "SIGFPE (an arithmetic error)"),
            (libc::SIGKILL, "SIGKILL"),
            (libc::SIGSEGV, "SIGSEGV (a segmentation fault)"),
            (libc::SIGPIPE, "SIGPIPE"),
            (libc::SIGTERM, "SIGTERM"),
        ];
        for (signal, name) in named {
            assert_eq!(signal_name(signal), format!("signal {signal}, {name}"));
        }
        assert_eq!(signal_name(64), "signal 64");
    }
}
