//! The lab's budgets (README, Performance): the whole `check` of a correct Python solution under
//! 10 s and of a JavaScript one under 5 s, and the protocol's round trips per second against the
//! Rust adapter (the floor of the pipe) next to the same calls answered in-process.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fencing_lab::lab::protocol::Request;
use fencing_lab::lab::script::{Reference, Subject};
use fencing_lab::lab::{check, Plan, Target, DEFAULT_TIMEOUT};

fn folder(name: &str) -> Target {
    Target::Folder(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/lab/correct")
            .join(name),
    )
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
    let mut program = folder("rust")
        .start(DEFAULT_TIMEOUT)
        .expect("the Rust adapter starts");
    group.bench_function("Rust adapter over the pipe", |b| {
        b.iter(|| {
            for call in &calls {
                black_box(Subject::call(&mut program, call).unwrap());
            }
        })
    });
    group.finish();
}

fn whole_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("lab check, every check (budget: python 10 s, js 5 s)");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    for (language, name) in [("rust", "rust"), ("js", "js"), ("python", "python")] {
        let target = folder(name);
        group.bench_function(language, |b| {
            b.iter(|| {
                let program = target.start(DEFAULT_TIMEOUT).unwrap();
                let report = check::run(&target, program, &Plan::default()).unwrap();
                assert!(report.all_passed());
                black_box(report.calls)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, round_trips, whole_check);
criterion_main!(benches);
