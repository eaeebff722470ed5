//! Memory against the work (issue 26): the peak resident memory of the commands that hold a
//! whole run (`run` as text, markdown, SVG and cast, `export`) as the run's events grow to the
//! 50,000 they hold, next to the JSON stream (which holds none) and `list` (the tool at rest) as
//! baselines, each a separate process of the release binary. Budget: under 100 MiB at the bound.

use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_fencing-lab");

/// A lesson that makes about `events` events: a client asking again every 0.3456 s.
fn heavy(dir: &std::path::Path, events: u64) -> String {
    let end = events as f64 * 0.3456;
    let path = dir.join(format!("heavy-{events}.toml"));
    std::fs::write(
        &path,
        format!(
            "title = \"a client that keeps asking\"\nlease = 86400.0\nend = {end:.3}\n\n\
             [[beat]]\nat = 0.0\nclient = 1\ndo = \"acquire\"\ncaption = \"one\"\n\n\
             [[beat]]\nat = 0.0\nclient = 2\ndo = \"acquire\"\nretry = 0.3456\ncaption = \"two\"\n"
        ),
    )
    .unwrap();
    path.to_str().unwrap().to_owned()
}

/// The peak resident memory of one run of the binary, in MB (from wait4's rusage).
#[allow(clippy::zombie_processes)] // reaped by wait4, which also gives its rusage
fn peak_mb(args: &[&str]) -> f64 {
    let child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid, and wait4 writes only into it and `status`.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as i32;
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid);
    assert_eq!(status, 0, "{args:?} failed");
    usage.ru_maxrss as f64 / 1024.0
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    let page = page.to_str().unwrap();
    // Events a run makes, up to just under the bound (a scenario's estimate counts a few more);
    // export plays two runs (fenced and unfenced) and holds half as many each.
    let sizes = [5_000, 12_000, 24_000, 49_000];
    println!(
        "{:<28} {:>8} {:>8} {:>8} {:>8}  (events of a run; export: half as many)",
        "peak resident MB", "5,000", "12,000", "24,000", "49,000"
    );
    let files: Vec<String> = sizes.iter().map(|&n| heavy(dir.path(), n)).collect();
    let halves: Vec<String> = sizes.iter().map(|&n| heavy(dir.path(), n / 2)).collect();
    let rows: [(&str, &[&str]); 7] = [
        ("baseline: list", &["list"]),
        (
            "baseline: run --format json",
            &["run", "F", "--format", "json"],
        ),
        ("run (text)", &["run", "F"]),
        (
            "run --format markdown",
            &["run", "F", "--format", "markdown"],
        ),
        (
            "run --format svg --from 0",
            &["run", "F", "--format", "svg", "--from", "0"],
        ),
        ("run --format cast", &["run", "F", "--format", "cast"]),
        ("export", &["export", "F", "-o", page]),
    ];
    let mut worst = 0.0_f64;
    for (label, args) in rows {
        let mut line = format!("{label:<28}");
        let files = if label == "export" { &halves } else { &files };
        for file in files {
            let args: Vec<&str> = args
                .iter()
                .map(|a| if *a == "F" { file.as_str() } else { a })
                .collect();
            let mb = peak_mb(&args);
            worst = worst.max(mb);
            line.push_str(&format!(" {mb:>8.1}"));
        }
        println!("{line}");
    }
    println!("largest peak: {worst:.1} MB (budget 100 MiB, at the 50,000 events a run may hold)");
    assert!(worst < 100.0 * 1.048_576);
}
