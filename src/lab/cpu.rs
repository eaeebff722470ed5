//! One CPU for the checker and the student's program.
//!
//! The protocol is strict request and reply: the two never run at once, so each call is two
//! hand-overs. Between CPUs a hand-over is an inter-processor interrupt, which in a virtual
//! machine is very slow; on one CPU it is a local wakeup. Measured on this project's 2-core VM:
//! the whole `check` of the Python solution takes 12.6 s spread over both CPUs and 3.3 s on one.
//! So the thread that talks to a program pins itself to one CPU just before starting it (the
//! program inherits the pin), and builds run with the CPUs the process started with.

/// Pins the calling thread to one of the CPUs it may use, taking turns so that threads that
/// each drive a program (the tests) spread over the machine. The program started next from
/// this thread inherits the pin. Does nothing where it cannot.
pub fn pin_this_thread() {
    imp::pin_this_thread()
}

/// Lets `command` run on every CPU the process started with, whatever this thread is pinned to
/// (a build should use the whole machine).
pub fn unpinned(command: &mut std::process::Command) {
    imp::unpinned(command)
}

#[cfg(target_os = "linux")]
mod imp {
    use std::os::unix::process::CommandExt;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::OnceLock;

    /// The CPUs the process may use, read before any thread pinned itself.
    fn original() -> Option<libc::cpu_set_t> {
        static ORIGINAL: OnceLock<Option<libc::cpu_set_t>> = OnceLock::new();
        *ORIGINAL.get_or_init(|| {
            // SAFETY: cpu_set_t is plain data; sched_getaffinity writes at most its size.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                let size = std::mem::size_of::<libc::cpu_set_t>();
                (libc::sched_getaffinity(0, size, &mut set) == 0).then_some(set)
            }
        })
    }

    pub fn pin_this_thread() {
        static TURN: AtomicUsize = AtomicUsize::new(0);
        let Some(allowed) = original() else { return };
        let cpus: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
            // SAFETY: `cpu` is below CPU_SETSIZE, the set's capacity.
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &allowed) })
            .collect();
        if cpus.len() < 2 {
            return;
        }
        let cpu = cpus[TURN.fetch_add(1, Ordering::Relaxed) % cpus.len()];
        // SAFETY: as above; a failed call leaves the thread as it was, which is harmless.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
        }
    }

    pub fn unpinned(command: &mut std::process::Command) {
        let Some(allowed) = original() else { return };
        // SAFETY: the closure runs in the child between fork and exec and makes one system
        // call, which is async-signal-safe; it allocates nothing.
        unsafe {
            command.pre_exec(move || {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &allowed);
                Ok(())
            });
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub fn pin_this_thread() {}
    pub fn unpinned(_command: &mut std::process::Command) {}
}

#[cfg(test)]
#[cfg(target_os = "linux")]
mod tests {
    use std::process::Command;

    fn allowed_of(mut command: Command) -> String {
        let out = command
            .args(["-c", "grep Cpus_allowed_list /proc/self/status"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    #[test]
    fn a_program_inherits_the_pin_and_a_build_does_not() {
        let before = allowed_of(Command::new("sh"));
        std::thread::spawn(move || {
            super::pin_this_thread();
            let pinned = allowed_of(Command::new("sh"));
            let mut build = Command::new("sh");
            super::unpinned(&mut build);
            let unpinned = allowed_of(build);
            if std::thread::available_parallelism().map_or(1, |n| n.get()) > 1 {
                assert_ne!(pinned, before, "the program runs on one CPU");
                let one = pinned.rsplit(['\t', ' ']).next().unwrap();
                assert!(one.parse::<usize>().is_ok(), "one CPU: {pinned}");
            }
            assert_eq!(unpinned, before, "a build keeps every CPU");
        })
        .join()
        .unwrap();
    }

    /// Threads that each drive a program take turns over the CPUs, so the tests' programs
    /// spread over the machine.
    #[test]
    fn successive_pins_take_turns_over_every_cpu() {
        let before = allowed_of(Command::new("sh"));
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        if cpus < 2 {
            return;
        }
        let used: std::collections::BTreeSet<String> = std::thread::spawn(move || {
            (0..4 * cpus)
                .map(|_| {
                    super::pin_this_thread();
                    allowed_of(Command::new("sh"))
                })
                .collect()
        })
        .join()
        .unwrap();
        assert_eq!(used.len(), cpus, "{used:?}, of {before}");
    }
}
