//! The pictures' budgets (issue 13), each next to a baseline in the same run: the SVG of gc-pause
//! under 20 ms; the SVG of a 10-minute chaos run under 500 ms; the export of gc-pause under
//! 100 ms, its page under 1 MB. Each figure includes playing the run, as the command does.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use fencing_lab::cli::report;
use fencing_lab::pictures::{html, svg};
use fencing_lab::sim::{Scenario, Session, Setup};

const TEN_MINUTES: u64 = 600_000;

fn setup(name: &str) -> Setup {
    Setup::new(Arc::new(Scenario::built_in(name).unwrap()))
}

/// `run NAME --format svg`, in process: play, choose the window, draw.
fn svg_of(setup: &Setup, until: u64, from: Option<u64>) -> String {
    let session = Session::played_to(setup.clone(), until);
    let window = svg::Window::choose(&[&session], from, until);
    svg::diagram(&session, svg::Size::DEFAULT, window, "")
}

fn pictures(c: &mut Criterion) {
    let gc = setup("gc-pause");
    let end = gc.scenario.end;
    let mut group = c.benchmark_group("svg of gc-pause (budget 20 ms)");
    group.bench_function("baseline: its text transcript", |b| {
        b.iter(|| {
            let session = Session::played_to(gc.clone(), end);
            let mut out = Vec::with_capacity(8192);
            report::transcript(&mut out, &session).unwrap();
            black_box(out.len())
        })
    });
    group.bench_function("run gc-pause --format svg", |b| {
        b.iter(|| black_box(svg_of(&gc, end, None).len()))
    });
    group.finish();

    let chaos = setup("chaos");
    let mut group = c.benchmark_group("svg of a 10-minute chaos run (budget 500 ms)");
    group.sample_size(10);
    group.bench_function("baseline: playing the 10 minutes, recorded", |b| {
        b.iter(|| black_box(Session::played_to(chaos.clone(), TEN_MINUTES).now()))
    });
    group.bench_function("--until 600 (its default 30 s window)", |b| {
        b.iter(|| black_box(svg_of(&chaos, TEN_MINUTES, None).len()))
    });
    group.bench_function("--until 600 --from 0 (all ten minutes)", |b| {
        b.iter(|| black_box(svg_of(&chaos, TEN_MINUTES, Some(0)).len()))
    });
    group.finish();

    let mut group = c.benchmark_group("export gc-pause (budget 100 ms)");
    group.sample_size(20);
    group.bench_function("baseline: its markdown handout", |b| {
        b.iter(|| {
            let session = Session::played_to(gc.clone(), end);
            let mut out = Vec::with_capacity(16384);
            report::handout(&mut out, &session).unwrap();
            black_box(out.len())
        })
    });
    group.bench_function("export gc-pause -o lesson.html", |b| {
        b.iter(|| black_box(html::page(&gc, end).len()))
    });
    group.finish();

    let page = html::page(&gc, end);
    println!(
        "export gc-pause: {} bytes (budget 1 MB); svg of gc-pause: {} bytes; svg of all ten chaos minutes: {} bytes",
        page.len(),
        svg_of(&gc, end, None).len(),
        svg_of(&chaos, TEN_MINUTES, Some(0)).len()
    );
    assert!(page.len() < 1_000_000);
}

criterion_group!(benches, pictures);
criterion_main!(benches);
