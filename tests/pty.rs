//! End to end: the real binary in a pseudo-terminal, driven by keys, read back through a
//! terminal emulator, and the terminal checked after it leaves.

use std::io::{Read, Write};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, Child, CommandBuilder, MasterPty, PtySize};

struct Session {
    child: Box<dyn Child + Send + Sync>,
    master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    output: Receiver<Vec<u8>>,
    screen: vt100::Parser,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        Session::start_sized(args, 80, 24)
    }

    fn start_sized(args: &[&str], cols: u16, rows: u16) -> Session {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_fencing-lab"));
        cmd.args(args);
        cmd.env("TERM", "xterm-256color");
        cmd.env("NO_COLOR", "1");
        let child = pair.slave.spawn_command(cmd).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = pair.master.take_writer().unwrap();
        let (tx, output) = channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Session {
            child,
            master: pair.master,
            writer,
            output,
            screen: vt100::Parser::new(rows.clamp(1, 200), cols.clamp(1, 500), 0),
        }
    }

    fn text(&self) -> String {
        self.screen.screen().contents()
    }

    /// Reads output until `wanted` is on screen.
    fn wait_for(&mut self, wanted: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.text().contains(wanted) {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "never saw {wanted:?}; screen:\n{}",
                self.text()
            );
            if let Ok(bytes) = self
                .output
                .recv_timeout(left.min(Duration::from_millis(100)))
            {
                self.screen.process(&bytes);
            }
        }
    }

    fn keys(&mut self, keys: &str) {
        for key in keys.chars() {
            let mut buf = [0u8; 4];
            self.writer
                .write_all(key.encode_utf8(&mut buf).as_bytes())
                .unwrap();
            self.writer.flush().unwrap();
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    fn wait_exit(&mut self) -> u32 {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            while let Ok(bytes) = self.output.try_recv() {
                self.screen.process(&bytes);
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                std::thread::sleep(Duration::from_millis(100));
                while let Ok(bytes) = self.output.try_recv() {
                    self.screen.process(&bytes);
                }
                return status.exit_code();
            }
            assert!(Instant::now() < deadline, "the UI did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The terminal is as it was: main screen, cursor shown, line editing and echo back on.
    fn assert_restored(&self) {
        let screen = self.screen.screen();
        assert!(!screen.alternate_screen(), "still on the alternate screen");
        assert!(!screen.hide_cursor(), "cursor left hidden");
        let fd = self.master.as_raw_fd().expect("a unix pty");
        let mut termios: libc::termios = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::tcgetattr(fd, &mut termios) }, 0);
        assert_ne!(
            termios.c_lflag & libc::ICANON,
            0,
            "left in raw mode (no ICANON)"
        );
        assert_ne!(
            termios.c_lflag & libc::ECHO,
            0,
            "left in raw mode (no ECHO)"
        );
    }
}

#[test]
fn the_lesson_end_to_end_by_keys() {
    let mut ui = Session::start(&[]);
    ui.wait_for("beat 1 of 13");
    assert!(ui.screen.screen().alternate_screen());
    assert!(ui.text().contains("FENCING ON"));
    ui.keys("nnnnnnn");
    ui.wait_for("Will the storage accept client 1's write with token 1?");
    ui.wait_for("a accepted");
    ui.keys("a");
    ui.wait_for("✗ REJECTED t1 < t2");
    assert!(ui.text().contains("You said accepted. Not quite: REJECTED"));
    ui.keys("f");
    ui.wait_for("FENCING OFF");
    ui.keys("r");
    ui.wait_for("t = 0.0 s");
    ui.keys("nnnnnnn");
    ui.wait_for("Will the storage accept");
    ui.keys("a");
    ui.wait_for("CORRUPTED DATA! t1 < t2 · client-1 → file");
    ui.keys("hh");
    ui.wait_for("t = 15.5 s");
    ui.keys("?");
    ui.wait_for(&format!("Help 1/{}", fencing_lab::tui::HELP_PAGES));
    ui.keys(" ");
    ui.wait_for("n next");
    ui.keys("q");
    assert_eq!(ui.wait_exit(), 0);
    ui.assert_restored();
}

#[test]
fn ctrl_c_and_esc_quit_cleanly() {
    for key in ["\u{3}", "\u{1b}"] {
        let mut ui = Session::start(&["tui", "chaos"]);
        ui.wait_for("chaos, seed 1");
        ui.keys("2g");
        ui.wait_for("client-2 freezes in a GC pause");
        ui.keys(key);
        assert_eq!(ui.wait_exit(), 0);
        ui.assert_restored();
    }
}

#[test]
fn sigterm_restores_the_terminal() {
    let mut ui = Session::start(&["tui", "renew"]);
    ui.wait_for("beat 1 of");
    ui.keys(" "); // playing: the loop is polling, not blocked
    let pid = ui.child.process_id().unwrap() as libc::pid_t;
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    assert_eq!(ui.wait_exit(), 128 + libc::SIGTERM as u32);
    ui.assert_restored();
}

impl Session {
    /// Resizes the terminal as a window manager would; the kernel tells the UI by SIGWINCH.
    fn resize(&mut self, cols: u16, rows: u16) {
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        self.screen.screen_mut().set_size(rows, cols);
    }
}

#[test]
fn resizing_redraws_at_the_new_size() {
    let mut ui = Session::start(&[]);
    ui.wait_for("beat 1 of 13");
    ui.resize(60, 15);
    ui.wait_for("Terminal too small: 60x15");
    ui.resize(120, 40);
    ui.wait_for("time (s)  ╵0        ╵5        ╵10       ╵15       ╵20");
    ui.keys("n");
    ui.wait_for("beat 2 of 13");
    ui.keys("q");
    assert_eq!(ui.wait_exit(), 0);
    ui.assert_restored();
}

#[test]
fn record_then_replay_plays_the_same_session_back() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lesson.json");
    let path = file.to_str().unwrap();
    let mut ui = Session::start(&["tui", "gc-pause", "--record", path]);
    ui.wait_for("beat 1 of 13");
    ui.keys("nn3g");
    ui.wait_for("client-3 freezes in a GC pause");
    ui.keys("q");
    assert_eq!(ui.wait_exit(), 0);
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(
        saved.contains("\"action\": \"pause\"") && saved.contains("\"client\": 3"),
        "{saved}"
    );

    let mut replay = Session::start(&["tui", "--replay", path]);
    replay.wait_for("▶ playing");
    replay.keys("+++"); // 8x playback
    replay.wait_for("client-3 freezes in a GC pause until 19.0 s");
    replay.keys("q");
    assert_eq!(replay.wait_exit(), 0);
    replay.assert_restored();
}

impl Session {
    /// Writes `bytes` in one go, as a paste or a burst from tmux does.
    fn burst(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
    }

    fn pid(&self) -> libc::pid_t {
        self.child.process_id().unwrap() as libc::pid_t
    }

    /// Reads whatever output has come.
    fn drain(&mut self) {
        while let Ok(bytes) = self.output.recv_timeout(Duration::from_millis(50)) {
            self.screen.process(&bytes);
        }
    }
}

#[test]
fn a_burst_of_five_thousand_keys_then_q_quits_at_once() {
    let mut ui = Session::start(&[]);
    ui.wait_for("beat 1 of 13");
    let mut keys = vec![b'l'; 5_000];
    keys.push(b'q');
    let sent = Instant::now();
    ui.burst(&keys);
    assert_eq!(ui.wait_exit(), 0);
    assert!(
        sent.elapsed() < Duration::from_secs(3),
        "q took {:?} behind the burst",
        sent.elapsed()
    );
    ui.assert_restored();
}

#[test]
fn hostile_window_sizes_neither_abort_nor_leave_the_terminal_broken() {
    for (cols, rows) in [(65_535, 65_535), (10_000, 10_000), (0, 0), (80, 0), (0, 24)] {
        let mut ui = Session::start_sized(&[], cols, rows);
        std::thread::sleep(Duration::from_millis(300));
        ui.drain();
        ui.keys("q");
        assert_eq!(ui.wait_exit(), 0, "{cols}x{rows}");
        ui.assert_restored();
    }
}

#[test]
fn suspend_gives_the_terminal_back_and_continue_redraws_it_whole() {
    for how in ["ctrl-z", "sigtstp"] {
        let mut ui = Session::start(&[]);
        ui.wait_for("beat 1 of 13");
        ui.keys("nn");
        ui.wait_for("beat 3 of 13");
        match how {
            "ctrl-z" => ui.keys("\u{1a}"),
            _ => assert_eq!(unsafe { libc::kill(ui.pid(), libc::SIGTSTP) }, 0),
        }
        std::thread::sleep(Duration::from_millis(400));
        ui.drain();
        // Stopped: the shell gets a sane terminal back.
        ui.assert_restored();
        assert_eq!(unsafe { libc::kill(ui.pid(), libc::SIGCONT) }, 0);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !(ui.screen.screen().alternate_screen() && ui.text().contains("beat 3 of 13")) {
            assert!(
                Instant::now() < deadline,
                "{how}: not redrawn after SIGCONT:\n{}",
                ui.text()
            );
            ui.drain();
        }
        assert!(
            ui.text().contains("FENCING ON"),
            "{how}: the whole screen is back"
        );
        ui.keys("n");
        ui.wait_for("beat 4 of 13");
        ui.keys("q");
        assert_eq!(ui.wait_exit(), 0, "{how}");
        ui.assert_restored();
    }
}

#[test]
fn sigterm_while_recording_saves_the_session_and_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("kept.json");
    let mut ui = Session::start(&["tui", "gc-pause", "--record", file.to_str().unwrap()]);
    ui.wait_for("beat 1 of 13");
    ui.keys("n3g");
    ui.wait_for("client-3 freezes in a GC pause");
    assert_eq!(unsafe { libc::kill(ui.pid(), libc::SIGTERM) }, 0);
    assert_eq!(ui.wait_exit(), 128 + libc::SIGTERM as u32);
    ui.assert_restored();
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("\"action\": \"pause\""), "{saved}");
    assert!(ui.text().contains("session saved to"), "{}", ui.text());
}

#[test]
fn check_on_a_terminal_names_the_check_under_way_and_clears_the_line_at_the_end() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        return;
    }
    let slow = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/lab/faulty/slow.py");
    let mut session = Session::start(&["check", "--deadline", "4", "--", "python3", slow]);
    // slow.py takes 30 ms an answer: long enough for the line to be drawn between results.
    session.wait_for("checking ");
    assert_eq!(session.wait_exit(), 2);
    let screen = session.text();
    assert!(screen.contains("deadline of 4.0 s passed"), "{screen}");
    assert!(
        !screen.contains("checking "),
        "the line is cleared at the end:\n{screen}"
    );
}

#[test]
fn no_colour_draws_nothing_faint_and_a_system_with_no_token_offers_no_fencing() {
    let mut ui = Session::start(&["tui", "gc-pause", "--as", "redlock"]);
    ui.wait_for("Redlock: no token to check");
    ui.keys("nnnnnnnn");
    ui.wait_for("CORRUPTED DATA!");
    let screen = ui.screen.screen();
    let (rows, cols) = screen.size();
    for row in 0..rows {
        for col in 0..cols {
            let cell = screen.cell(row, col).unwrap();
            assert!(
                !cell.dim() && cell.fgcolor() == vt100::Color::Default,
                "NO_COLOR: {:?} at {row},{col} is dim or coloured:\n{}",
                cell.contents(),
                ui.text()
            );
        }
    }
    let text = ui.text();
    let footer = text.lines().last().unwrap();
    assert!(
        !footer.contains("f fencing") && !footer.contains("v check"),
        "{footer}"
    );
    let heading = text.lines().find(|l| l.contains("key  value")).unwrap();
    assert!(!heading.contains("highest"), "{heading}");
    ui.keys("f");
    ui.wait_for("fencing stays off");
    assert!(ui.text().contains("FENCING OFF"));
    ui.keys("q");
    assert_eq!(ui.wait_exit(), 0);
    ui.assert_restored();
}
