//! The budgets (README, Performance): drawing a full 120x40 frame over a 10-minute chaos history (median under
//! 1 ms), and time travel to any earlier moment of that run (under 16 ms).

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use fencing_lab::sim::{Scenario, Session, Setup};
use fencing_lab::tui::{self, App, Theme};
use ratatui::backend::TestBackend;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};
use ratatui::Terminal;

const TEN_MINUTES: u64 = 600_000;

fn ten_minute_chaos() -> Session {
    let scenario = Arc::new(Scenario::built_in("chaos").unwrap());
    Session::played_to(Setup::new(scenario), TEN_MINUTES)
}

fn draw(c: &mut Criterion) {
    let app = App::new(ten_minute_chaos(), Theme::colored());
    let events = app.session().world().events().len();
    let mut group = c.benchmark_group(format!("draw 120x40 ({events} events of history)"));
    group.bench_function("baseline: a full-screen paragraph", |b| {
        let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
        let lines: Vec<Line> = (0..38)
            .map(|i| Line::raw(format!("{i:>4} {}", "x".repeat(110))))
            .collect();
        b.iter(|| {
            terminal
                .draw(|frame| {
                    frame.render_widget(
                        Paragraph::new(lines.clone()).block(Block::bordered()),
                        frame.area(),
                    )
                })
                .unwrap();
        })
    });
    group.bench_function("fencing-lab frame", |b| {
        let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
        b.iter(|| {
            terminal
                .draw(|frame| tui::draw(frame, black_box(&app)))
                .unwrap();
        })
    });
    group.finish();
}

fn time_travel(c: &mut Criterion) {
    let mut group = c.benchmark_group("time travel in a 10-minute chaos run (budget 16 ms)");
    group.sample_size(20);
    group.bench_function("baseline: one 0.5 s step forward", |b| {
        b.iter_batched(
            ten_minute_chaos,
            |mut session| {
                session.seek(TEN_MINUTES + 500);
                session
            },
            criterion::BatchSize::LargeInput,
        )
    });
    for (label, t) in [
        ("back to 5 s", 5_000),
        ("back to 9:59 (the worst case)", TEN_MINUTES - 1_000),
    ] {
        group.bench_function(label, |b| {
            b.iter_batched(
                ten_minute_chaos,
                |mut session| {
                    session.seek(t);
                    session
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, draw, time_travel);
criterion_main!(benches);
