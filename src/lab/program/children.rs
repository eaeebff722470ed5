//! Whatever fencing-lab starts ends with it. A student's program may start others, and one that
//! forks twice and calls `setsid` leaves its own process group, out of reach of the kill that
//! ends the group. On Linux fencing-lab is therefore the subreaper of everything it starts (an
//! orphan among its descendants becomes its child, not init's), and on every way out (the end
//! of `main`, a signal, the terminal's signal thread) it kills every descendant left.

/// Makes fencing-lab the parent of its descendants' orphans (Linux; elsewhere nothing).
pub fn adopt_orphans() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(PR_SET_CHILD_SUBREAPER) sets a flag of this process; it touches no memory.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Kills every process descended from this one, the students' programs' groups first. For the
/// way out: it waits for no one (what it killed is reaped by whoever adopts it after us).
pub fn end_all() {
    super::groups::stop_all();
    #[cfg(target_os = "linux")]
    {
        // Twice: a descendant may fork between the reading of /proc and its kill.
        for _ in 0..2 {
            for pid in descendants(std::process::id()) {
                if let Ok(pid) = i32::try_from(pid) {
                    // SAFETY: kill(2) of a pid read as our descendant just now; a pid gone
                    // since is only an ESRCH.
                    unsafe {
                        libc::kill(pid, libc::SIGKILL);
                    }
                }
            }
        }
    }
}

/// Every process below `root`, read from /proc: each process's parent is its stat's fourth
/// field, after the command's name in parentheses (which may hold spaces and parentheses).
#[cfg(target_os = "linux")]
pub fn descendants(root: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let after_name = &stat[stat.rfind(')')? + 1..];
            let parent = after_name.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, parent))
        })
        .collect();
    let mut found = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for &(pid, _) in parents.iter().filter(|(_, p)| *p == parent) {
            if !found.contains(&pid) {
                found.push(pid);
                frontier.push(pid);
            }
        }
    }
    found
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_grandchild_is_a_descendant_and_a_stranger_is_not() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & wait"])
            .spawn()
            .unwrap();
        let mut found = Vec::new();
        for _ in 0..200 {
            found = descendants(std::process::id());
            if found.len() >= 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(found.contains(&child.id()), "{found:?}");
        let grandchildren = descendants(child.id());
        assert_eq!(grandchildren.len(), 1, "the sleep: {grandchildren:?}");
        assert!(found.contains(&grandchildren[0]));
        assert!(!found.contains(&1), "init is no descendant");
        let _ = child.kill();
        let _ = child.wait();
        for pid in grandchildren {
            // SAFETY: kill(2) of the sleep this test started.
            unsafe {
                libc::kill(pid as i32, libc::SIGKILL);
            }
        }
    }
}
