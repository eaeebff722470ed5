//! `fencing-lab`: parse, dispatch, report errors (see `fencing_lab::cli`).

fn main() -> std::process::ExitCode {
    fencing_lab::cli::main(start::stdout_was_closed())
}

/// Whether standard output was closed when the process started (`>&-`). Rust's runtime puts
/// `/dev/null` on a closed standard descriptor as `main` starts, after which a closed stdout
/// and a null device (`>/dev/null`, or Python's and Node's DEVNULL) look the same. The C
/// library runs `.init_array` functions before that, so one looks first.
#[cfg(target_os = "linux")]
mod start {
    use std::sync::atomic::{AtomicBool, Ordering};

    static CLOSED: AtomicBool = AtomicBool::new(false);

    extern "C" {
        fn fcntl(fd: i32, cmd: i32, ...) -> i32;
    }

    /// F_GETFD: fails only on a descriptor that is not open.
    const F_GETFD: i32 = 1;

    extern "C" fn look() {
        // SAFETY: fcntl(F_GETFD) only reads the descriptor's flags; it touches no memory.
        let closed = unsafe { fcntl(1, F_GETFD) } == -1;
        CLOSED.store(closed, Ordering::Relaxed);
    }

    #[used]
    #[link_section = ".init_array"]
    static LOOK: extern "C" fn() = look;

    pub fn stdout_was_closed() -> bool {
        CLOSED.load(Ordering::Relaxed)
    }
}

#[cfg(not(target_os = "linux"))]
mod start {
    pub fn stdout_was_closed() -> bool {
        false
    }
}
