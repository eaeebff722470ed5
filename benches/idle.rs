//! The budgets (README, Performance): paused, the UI uses under 1% of a core and stays under 30 MB resident.
//! Runs the real release binary in a pseudo-terminal and reads its CPU time and memory from
//! /proc, next to `cat` blocked on a terminal as the baseline of a process doing nothing.

use std::io::{Read, Write};
use std::thread::sleep;
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, Child, CommandBuilder, MasterPty, PtySize};

const WATCH: Duration = Duration::from_secs(5);

struct Running {
    child: Box<dyn Child + Send + Sync>,
    _master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    last_output: std::sync::Arc<std::sync::Mutex<Instant>>,
}

fn start(program: &str, args: &[&str]) -> Running {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 120,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(program);
    cmd.args(args);
    cmd.env("TERM", "xterm-256color");
    let child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let writer = pair.master.take_writer().unwrap();
    let last_output = std::sync::Arc::new(std::sync::Mutex::new(Instant::now()));
    let seen = last_output.clone();
    // Drain the output, or a full pty buffer would block the UI and flatter the figure.
    std::thread::spawn(move || {
        let mut buf = [0u8; 65536];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            *seen.lock().unwrap() = Instant::now();
        }
    });
    Running {
        child,
        _master: pair.master,
        writer,
        last_output,
    }
}

impl Running {
    fn pid(&self) -> u32 {
        self.child.process_id().unwrap()
    }

    fn keys(&mut self, keys: &str) {
        for key in keys.chars() {
            write!(self.writer, "{key}").unwrap();
            self.writer.flush().unwrap();
            sleep(Duration::from_millis(5));
        }
    }

    /// Waits until nothing has been drawn for half a second.
    fn settle(&self) {
        sleep(Duration::from_millis(300));
        while self.last_output.lock().unwrap().elapsed() < Duration::from_millis(500) {
            sleep(Duration::from_millis(50));
        }
    }
}

/// utime + stime of `pid`, in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name in parentheses; utime and stime are fields 14 and 15.
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
}

/// (resident now, peak resident) of `pid`, in MB.
fn memory_mb(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb = |field: &str| -> f64 {
        status
            .lines()
            .find(|l| l.starts_with(field))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0)
    };
    (kb("VmRSS:") / 1024.0, kb("VmHWM:") / 1024.0)
}

fn measure(label: &str, mut running: Running, setup_keys: &str) -> (f64, f64) {
    running.settle();
    running.keys(setup_keys);
    running.settle();
    let pid = running.pid();
    let before = cpu_seconds(pid);
    let started = Instant::now();
    sleep(WATCH);
    let used = cpu_seconds(pid) - before;
    let percent = used / started.elapsed().as_secs_f64() * 100.0;
    let (rss, peak) = memory_mb(pid);
    println!("{label:<58} {percent:>6.2}% of a core  {rss:>6.1} MB resident  {peak:>6.1} MB peak");
    let _ = running.child.kill();
    (percent, peak)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list` and friends: nothing to list
    }
    let lab = env!("CARGO_BIN_EXE_fencing-lab");
    println!(
        "idle cost over {} s, 120x40 pseudo-terminal:",
        WATCH.as_secs()
    );
    measure(
        "baseline: `cat` blocked on a terminal",
        start("cat", &[]),
        "",
    );
    let lesson = measure("fencing-lab, paused on gc-pause", start(lab, &[]), "nnnnnn");
    // 5 s steps to 10 minutes, then back to 5 min: a long history, travelled through.
    let travel = format!("]]]{}{}", "l".repeat(120), "h".repeat(60));
    let chaos = measure(
        "fencing-lab, paused after 10 minutes of chaos history",
        start(lab, &["tui", "chaos"]),
        &travel,
    );
    let mut over = false;
    for (percent, peak) in [lesson, chaos] {
        over |= percent >= 1.0 || peak >= 30.0;
    }
    if over {
        eprintln!("over budget: paused CPU must stay under 1% and resident memory under 30 MB");
        std::process::exit(1);
    }
    println!("within budget: under 1% of a core and under 30 MB resident");
}
