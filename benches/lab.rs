//! The lab's budgets (README, Performance), each beside its baseline in the same run:
//!
//! - a whole `fencing-lab check DIR` of a correct solution, the command a student runs, at most
//!   1.5x its floor: the student's own adapter fed the very request stream that check sends,
//!   from a file, with nothing waiting on it;
//! - K of those commands side by side, one a core, at most 1.3x one;
//! - the protocol's round trips against the Rust adapter next to the same calls answered
//!   in-process;
//! - `fencing-lab grade` of a class of 30 zoo submissions in Python (the 8 correct solutions and
//!   22 one-rule mutants) with `--jobs 2` against `--jobs 1`: on 2 cores, close to 2x.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fencing_lab::lab::reference::Reference;
use fencing_lab::lab::wire::Request;
use fencing_lab::lab::{check, starter, Plan, Target, Timeouts};

/// A correct zoo solution of `language`, in a fresh starter under `root`.
fn student(root: &Path, language: &str, solution: &str, file: &str, to: &str) -> PathBuf {
    let dir = root.join(language);
    starter::init(language, &dir).unwrap();
    let zoo = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lab/zoo");
    std::fs::copy(zoo.join(solution).join(file), dir.join(to)).unwrap();
    dir
}

/// The program a folder runs, as its words.
fn adapter(dir: &Path) -> Vec<String> {
    if dir.join("adapter.py").is_file() {
        vec![
            "python3".into(),
            dir.join("adapter.py").display().to_string(),
        ]
    } else {
        vec!["node".into(), dir.join("adapter.mjs").display().to_string()]
    }
}

fn whole_check(target: &Target) -> u64 {
    let program = target.start(Timeouts::default()).unwrap();
    let report = check::run(target, program, &Plan::default(), &mut |_| {});
    assert!(
        report.all_passed(),
        "{}",
        fencing_lab::lab::report::text(&report)
    );
    report.calls
}

/// Every request one whole check writes, recorded by `tee` on the way to the program.
fn recorded_stream(dir: &Path, log: &Path) -> Vec<u8> {
    let words = adapter(dir).join(" ");
    let target = Target::Command(vec![
        "sh".into(),
        "-c".into(),
        format!("tee '{}' | {words}", log.display()),
    ]);
    whole_check(&target);
    // `tee` may still be writing the last lines: wait for the stream to stop growing.
    let mut size = 0;
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let now = std::fs::metadata(log).map_or(0, |m| m.len());
        if now == size && now > 0 {
            break;
        }
        size = now;
    }
    std::fs::read(log).unwrap()
}

/// `fencing-lab check DIR`, as a student runs it; it must pass.
fn check_command(dir: &Path) {
    check_on(dir, None);
}

/// `check DIR`, on one core (`taskset -c CORE`, the check and the student's program both) or on
/// every core.
fn check_on(dir: &Path, core: Option<usize>) {
    let mut command = match core {
        Some(core) => {
            let mut taskset = Command::new("taskset");
            taskset
                .args(["-c", &core.to_string()])
                .arg(env!("CARGO_BIN_EXE_fencing-lab"));
            taskset
        }
        None => Command::new(env!("CARGO_BIN_EXE_fencing-lab")),
    };
    let out = command
        .arg("check")
        .arg(dir)
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The floor: the adapter answers the recorded stream from a file, nothing waiting on it.
fn floor(dir: &Path, stream: &Path) {
    let words = adapter(dir);
    let status = Command::new(&words[0])
        .args(&words[1..])
        .stdin(std::fs::File::open(stream).unwrap())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
}

fn check_against_its_floor(c: &mut Criterion) {
    let root = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("lab check against the program's own floor (budget 1.5x)");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(15));
    for (language, solution, file) in [
        ("python", "python-raise-none", "lock_service.py"),
        ("js", "js-throw-map", "lock_service.mjs"),
    ] {
        let dir = student(root.path(), language, solution, file, file);
        let log = root.path().join(format!("{language}.requests"));
        let stream = recorded_stream(&dir, &log);
        eprintln!(
            "{language}: a whole check writes {} requests, {} bytes",
            stream.iter().filter(|&&b| b == b'\n').count(),
            stream.len()
        );
        group.bench_function(
            format!("{language}: floor, the adapter fed the stream"),
            |b| b.iter(|| floor(&dir, &log)),
        );
        group.bench_function(format!("{language}: fencing-lab check DIR"), |b| {
            b.iter(|| check_command(&dir))
        });
    }
    group.finish();
}

fn checks_side_by_side(c: &mut Criterion) {
    let root = tempfile::tempdir().unwrap();
    let k = std::thread::available_parallelism().map_or(2, |n| n.get());
    let dirs: Vec<PathBuf> = (0..k)
        .map(|i| {
            let root = root.path().join(i.to_string());
            student(
                &root,
                "python",
                "python-raise-none",
                "lock_service.py",
                "lock_service.py",
            )
        })
        .collect();
    let mut group = c.benchmark_group(format!("{k} checks side by side against one (budget 1.3x)"));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(15));
    group.bench_function("one check", |b| b.iter(|| check_command(&dirs[0])));
    group.bench_function(format!("{k} checks at once"), |b| {
        b.iter(|| {
            std::thread::scope(|scope| {
                for dir in &dirs {
                    scope.spawn(move || check_command(dir));
                }
            })
        })
    });
    // One check alone uses more than one core (the checker beside the student's program), so K
    // checks on K cores also compete for CPU time: the same comparison with each check given
    // one core of its own, against one check on one core, shows what side by side costs beyond
    // the CPU each needs.
    group.bench_function("one check on one core", |b| {
        b.iter(|| check_on(&dirs[0], Some(0)))
    });
    group.bench_function(
        format!("{k} checks at once, each on a core of its own"),
        |b| {
            b.iter(|| {
                std::thread::scope(|scope| {
                    for (core, dir) in dirs.iter().enumerate() {
                        scope.spawn(move || check_on(dir, Some(core)));
                    }
                })
            })
        },
    );
    group.finish();
}

/// A mix of the calls a check makes: a grant, a refusal, writes, reads and clock steps.
fn calls() -> Vec<Request> {
    let mut calls = vec![Request::New {
        lease_seconds: Some(10.0),
        first_token: Some(1),
    }];
    for i in 0..100u64 {
        calls.push(Request::Clock {
            now: i as f64 * 0.5,
        });
        calls.push(Request::Acquire {
            name: "file".into(),
            client_id: "client-1".into(),
        });
        calls.push(Request::Write {
            key: "file".into(),
            value: "v".into(),
            token: i / 20 + 1,
        });
        calls.push(Request::HighestToken { key: "file".into() });
    }
    calls
}

fn round_trips(c: &mut Criterion) {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("rust");
    starter::init("rust", &dir).unwrap();
    let zoo = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lab/zoo/rust-correct/lib.rs");
    std::fs::copy(zoo, dir.join("src/lib.rs")).unwrap();
    let calls = calls();
    let mut group = c.benchmark_group("lab round trips");
    group.throughput(Throughput::Elements(calls.len() as u64));
    group.bench_function("in-process library (baseline)", |b| {
        b.iter(|| {
            let mut reference = Reference::default();
            for call in &calls {
                black_box(reference.answer(call));
            }
        })
    });
    let mut program = Target::Folder(dir)
        .start(Timeouts::default())
        .expect("the Rust adapter starts");
    group.bench_function("Rust adapter over the pipe, one at a time", |b| {
        b.iter(|| {
            for call in &calls {
                black_box(program.call(call).unwrap());
            }
        })
    });
    group.bench_function("Rust adapter over the pipe, pipelined", |b| {
        b.iter(|| {
            for call in &calls {
                program.send(call).unwrap();
            }
            for _ in &calls {
                black_box(program.receive().unwrap());
            }
        })
    });
    group.finish();
}

/// A class of `size` Python submissions like the zoo's: each correct solution, then its one-rule
/// mutants (those of one find-and-replace), each in a fresh starter.
fn python_class(root: &Path, size: usize) -> PathBuf {
    let zoo = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lab/zoo");
    let manifest: toml::Table = std::fs::read_to_string(zoo.join("python.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let entries = |kind: &str| manifest[kind].as_array().unwrap().clone();
    let text =
        |key: &str, entry: &toml::Value| entry.get(key).and_then(|v| v.as_str()).map(String::from);
    let mut made: Vec<(String, String)> = Vec::new();
    for solution in entries("solution") {
        let name = text("name", &solution).unwrap();
        let source = std::fs::read_to_string(zoo.join(&name).join("lock_service.py")).unwrap();
        made.push((name, source));
    }
    for mutant in entries("mutant") {
        let (Some(base), Some(find), Some(replace)) = (
            text("base", &mutant),
            text("find", &mutant),
            text("replace", &mutant),
        ) else {
            continue;
        };
        if mutant.get("edit").is_some() || mutant.get("unwritten").is_some() {
            continue;
        }
        let source = std::fs::read_to_string(zoo.join(&base).join("lock_service.py")).unwrap();
        if source.matches(find.as_str()).count() == 1 {
            made.push((
                text("name", &mutant).unwrap(),
                source.replace(&find, &replace),
            ));
        }
    }
    let class = root.join("class");
    for (name, source) in made.into_iter().take(size) {
        let dir = class.join(name.replace('/', "--"));
        starter::init("python", &dir).unwrap();
        std::fs::write(dir.join("lock_service.py"), source).unwrap();
    }
    assert_eq!(std::fs::read_dir(&class).unwrap().count(), size);
    class
}

/// `fencing-lab grade CLASS --jobs N`, as a teacher runs it.
fn grade_class(class: &Path, jobs: usize) {
    let out = Command::new(env!("CARGO_BIN_EXE_fencing-lab"))
        .arg("grade")
        .arg(class)
        .args(["--jobs", &jobs.to_string(), "--format", "json"])
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn grading_a_class(c: &mut Criterion) {
    let root = tempfile::tempdir().unwrap();
    let class = python_class(root.path(), 30);
    let mut group = c.benchmark_group("grade a class of 30 Python submissions");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(60));
    for jobs in [1, 2] {
        group.bench_function(format!("--jobs {jobs}"), |b| {
            b.iter(|| grade_class(&class, jobs))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    round_trips,
    check_against_its_floor,
    checks_side_by_side,
    grading_a_class
);
criterion_main!(benches);
