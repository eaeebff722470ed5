//! Nothing a student's program starts outlives fencing-lab. The program here starts a daemon
//! (it forks twice and calls `setsid`, leaving its process group) that ignores SIGTERM, then
//! either holds up its `hello` (killed at startup) or answers slowly (killed mid-run). Every
//! command that runs a student's code is ended by SIGINT, SIGTERM and SIGHUP at both moments,
//! and when it has gone no process carrying the case's tag in its environment is left.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_fencing-lab");

/// The JavaScript starter's correct solution, with a daemon started on import and a marker
/// file written when the moment to kill has come.
fn hostile_folder(into: &Path, name: &str, moment: &str, markers: &Path) -> PathBuf {
    let correct = common::zoo::entry("js", "js-throw-map");
    let dir = common::zoo::build_as(&correct, into, name);
    let marker = markers.join(format!("{name}.started"));
    let code = std::fs::read_to_string(dir.join("lock_service.mjs")).unwrap();
    let wait = match moment {
        // Never says hello: the import itself takes a minute.
        "startup" => "const until = Date.now() + 60000; while (Date.now() < until) {}\n",
        _ => "",
    };
    let slow = match moment {
        // Each acquire takes 20 ms: the check is long under way when the signal comes.
        "midrun" => "const began = Date.now(); while (Date.now() < began + 20) {}\n",
        _ => "",
    };
    let prologue = format!(
        "import {{ spawn }} from \"node:child_process\";\n\
         import * as fs from \"node:fs\";\n\
         spawn(\"sh\", [\"-c\", \"setsid sh -c 'trap \\\"\\\" TERM HUP INT; sleep 300 & wait' </dev/null >/dev/null 2>&1 &\"], {{ stdio: \"ignore\" }});\n\
         fs.writeFileSync({marker:?}, \"\");\n\
         {wait}",
        marker = marker.display().to_string()
    );
    let code = code.replacen(
        "  acquire(",
        &format!("  acquire(...args) {{ {slow} return this.acquire_(...args); }}\n  acquire_("),
        1,
    );
    std::fs::write(dir.join("lock_service.mjs"), prologue + &code).unwrap();
    dir
}

/// The processes whose environment carries `tag`.
fn tagged(tag: &str) -> Vec<String> {
    let needle = format!("FENCING_LAB_TEST_TAG={tag}");
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .filter_map(|e| {
            let environ = std::fs::read(e.path().join("environ")).ok()?;
            let has = environ.split(|b| *b == 0).any(|v| v == needle.as_bytes());
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            // A zombie has ended; it holds nothing but its entry.
            let state = stat
                .rfind(')')
                .and_then(|i| stat[i + 1..].split_whitespace().next());
            (has && state != Some("Z")).then(|| {
                let line = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
                String::from_utf8_lossy(&line).replace('\0', " ")
            })
        })
        .collect()
}

/// What still carries `tag` a second after its fencing-lab ended (a process killed a moment
/// ago may take that long to go).
fn left_after_a_second(tag: &str) -> Vec<String> {
    let mut left = tagged(tag);
    for _ in 0..50 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        left = tagged(tag);
    }
    left
}

#[test]
fn a_signal_at_startup_or_mid_run_leaves_no_process_of_a_student_behind() {
    if !common::zoo::can_run("js") || !Path::new("/proc/self/environ").exists() {
        return;
    }
    let place = tempfile::tempdir().unwrap();
    let root = place.path();
    let mut cases = 0;
    for moment in ["startup", "midrun"] {
        let dir = hostile_folder(root, &format!("student-{moment}"), moment, root);
        let class = root.join(format!("class-{moment}"));
        std::fs::create_dir(&class).unwrap();
        hostile_folder(&class, &format!("ada-{moment}"), moment, root);
        let folder = dir.to_str().unwrap().to_owned();
        let page = root.join("page.html").display().to_string();
        let mut commands: Vec<Vec<String>> = [
            vec!["check", &folder],
            vec!["run", "gc-pause", "--impl", &folder],
            vec!["chaos", "--impl", &folder, "--runs", "50"],
            vec!["frame", "gc-pause", "--impl", &folder],
            vec!["export", "gc-pause", "--impl", &folder, "-o", &page],
            vec!["grade", class.to_str().unwrap(), "--jobs", "1"],
        ]
        .iter()
        .map(|words| words.iter().map(|w| w.to_string()).collect())
        .collect();
        if moment == "startup" {
            // Before its screen opens the terminal UI is starting the program.
            commands.push(vec![
                "tui".into(),
                "gc-pause".into(),
                "--impl".into(),
                folder.clone(),
            ]);
        }
        for command in &commands {
            for (signal, number) in [
                ("INT", libc::SIGINT),
                ("TERM", libc::SIGTERM),
                ("HUP", libc::SIGHUP),
            ] {
                cases += 1;
                let tag = format!("{}-{cases}", std::process::id());
                let student = if command[0] == "grade" {
                    "ada"
                } else {
                    "student"
                };
                let marker = root.join(format!("{student}-{moment}.started"));
                let _ = std::fs::remove_file(&marker);
                let mut child = Command::new(BIN)
                    .args(command)
                    .env("FENCING_LAB_TEST_TAG", &tag)
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap();
                let began = Instant::now();
                while !marker.exists() && began.elapsed() < Duration::from_secs(30) {
                    std::thread::sleep(Duration::from_millis(10));
                }
                assert!(marker.exists(), "{command:?} never started the program");
                std::thread::sleep(Duration::from_millis(if moment == "midrun" {
                    150
                } else {
                    50
                }));
                // SAFETY: kill(2) of the fencing-lab this test started.
                unsafe {
                    libc::kill(child.id() as i32, number);
                }
                let status = child.wait().unwrap();
                let left = left_after_a_second(&tag);
                assert_eq!(
                    left,
                    Vec::<String>::new(),
                    "{command:?} killed by SIG{signal} at {moment} ({status:?}) left these running"
                );
            }
        }
    }
    assert!(cases >= 30, "{cases} cases");
}

/// The terminal UI on a student's code, its screen open (the program answering, the daemon
/// started), ended by each signal: the terminal's own signal thread restores it and ends every
/// process of the student's.
#[test]
fn the_terminal_ui_ended_by_a_signal_leaves_no_process_of_a_student_behind() {
    use portable_pty::{native_pty_system, CommandBuilder, PtySize};
    use std::io::Read;
    if !common::zoo::can_run("js") || !Path::new("/proc/self/environ").exists() {
        return;
    }
    let place = tempfile::tempdir().unwrap();
    let root = place.path();
    let dir = hostile_folder(root, "student", "midrun", root);
    for (case, number) in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP]
        .into_iter()
        .enumerate()
    {
        let tag = format!("{}-tui-{case}", std::process::id());
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 24,
                cols: 80,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut command = CommandBuilder::new(BIN);
        command.args(["tui", "gc-pause", "--impl", dir.to_str().unwrap()]);
        command.env("TERM", "xterm-256color");
        command.env("FENCING_LAB_TEST_TAG", &tag);
        let mut child = pair.slave.spawn_command(command).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let mut seen = Vec::new();
        let began = Instant::now();
        while !String::from_utf8_lossy(&seen).contains("Timeline") {
            assert!(
                began.elapsed() < Duration::from_secs(20),
                "the screen never opened"
            );
            if let Ok(bytes) = rx.recv_timeout(Duration::from_millis(100)) {
                seen.extend(bytes);
            }
        }
        let pid = child.process_id().unwrap();
        // SAFETY: kill(2) of the fencing-lab this test started.
        unsafe {
            libc::kill(pid as i32, number);
        }
        let began = Instant::now();
        while child.try_wait().unwrap().is_none() {
            assert!(
                began.elapsed() < Duration::from_secs(10),
                "the UI did not exit"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let left = left_after_a_second(&tag);
        assert_eq!(
            left,
            Vec::<String>::new(),
            "signal {number} left these running"
        );
    }
}
