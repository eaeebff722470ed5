//! A projector's 80x24 (and 100x30, 120x40): nothing cut off, nothing dropped without saying so.
//! Generated over every built-in scenario, fencing on and off, every check and every event
//! moment.

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use fencing_lab::sim::{Scenario, Session, Setup, Vocab};
use fencing_lab::tui::{self, Action, App, Theme};
use fencing_lab::FenceCheck;

const SIZES: [(u16, u16); 3] = [(80, 24), (100, 30), (120, 40)];
const SETTINGS: [(bool, FenceCheck); 4] = [
    (true, FenceCheck::PerKey),
    (true, FenceCheck::Strict),
    (true, FenceCheck::Global),
    (false, FenceCheck::PerKey),
];

/// The rows of the box whose top border carries `title`, inside its borders (trailing spaces
/// trimmed), and the top border line itself. A box's top may join the one above (`├ Events ┤`),
/// and a box ends at its bottom line or where the next box joins it.
fn boxed(lines: &[&str], title: &str) -> Option<(String, Vec<String>)> {
    let tops = [format!("┌ {title}"), format!("├ {title}")];
    let top = lines
        .iter()
        .position(|l| tops.iter().any(|t| l.contains(t.as_str())))?;
    let start = tops
        .iter()
        .find_map(|t| lines[top].find(t.as_str()))
        .unwrap();
    let start_col = lines[top][..start].chars().count();
    let width = lines[top][start..]
        .chars()
        .skip(1)
        .take_while(|&c| c != '┐' && c != '┤')
        .count()
        + 2;
    let mut rows = Vec::new();
    for line in &lines[top + 1..] {
        let cells: Vec<char> = line.chars().skip(start_col).take(width).collect();
        if matches!(cells.first(), Some('└' | '├')) {
            break;
        }
        let inner: String = cells[1..cells.len().saturating_sub(1)].iter().collect();
        rows.push(inner.trim_end().to_owned());
    }
    Some((lines[top].to_owned(), rows))
}

fn check_screen(app: &App, w: u16, h: u16, context: &str) {
    let text = tui::render_text(app, w, h);
    let lines: Vec<&str> = text.lines().collect();
    let world = app.session().world();
    let vocab = Vocab::plain(&world.scenario().locks);

    // The header always holds fencing, the rule and the time.
    let header = lines[0];
    let rule = match world.judge() {
        fencing_lab::Judge::Check(c) => c.rule(),
        fencing_lab::Judge::External => "your FencedStorage",
    };
    for needle in [
        if world.judge() == fencing_lab::Judge::External {
            "YOUR CODE"
        } else if world.fencing() {
            "FENCING ON"
        } else {
            "FENCING OFF"
        },
        rule,
        &format!("t = {} s", fencing_lab::sim::fmt_seconds(world.now())),
    ] {
        assert!(
            header.contains(needle),
            "{context}: header lacks {needle}: {header}"
        );
    }

    // Every event line of the log is a whole sentence of the transcript.
    if let Some((_, rows)) = boxed(&lines, "Events") {
        let sentences: BTreeSet<String> =
            world.events().iter().map(|e| e.describe(&vocab)).collect();
        let mut joined: Vec<String> = Vec::new();
        for row in &rows {
            if row.trim().is_empty() {
                continue;
            }
            let trimmed = row.trim_start();
            let first = trimmed.split(' ').next().unwrap_or("");
            let starts_with_time = first.parse::<f64>().is_ok() && row.len() - trimmed.len() < 4;
            if starts_with_time {
                joined.push(trimmed[first.len()..].trim().to_owned());
            } else if let Some(last) = joined.last_mut() {
                last.push(' ');
                last.push_str(trimmed);
            } else {
                joined.push(trimmed.to_owned());
            }
        }
        // The newest event is always shown, whole.
        if let Some(newest) = world.events().last() {
            assert_eq!(
                joined.last(),
                Some(&newest.describe(&vocab)),
                "{context}: the log does not end with the newest event whole:\n{text}"
            );
        }
        for sentence in joined {
            if sentence == "nothing has happened yet" {
                continue;
            }
            assert!(
                sentences.contains(&sentence),
                "{context}: the log shows a cut sentence {sentence:?}:\n{text}"
            );
        }
    }

    // Every key the storage holds is shown or counted.
    let storage_title = lines.iter().any(|l| l.contains("┌ Storage"));
    if storage_title {
        let (_, rows) = boxed(&lines, "Storage").unwrap();
        let keys: Vec<String> = world
            .storage_entries()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        let shown = keys
            .iter()
            .filter(|k| {
                rows.iter()
                    .any(|r| r.len() > 2 && r[2..].starts_with(&format!("{k} ")))
            })
            .count();
        let counted: usize = rows
            .iter()
            .find_map(|r| {
                r.strip_prefix('+')
                    .and_then(|r| r.split(' ').next())
                    .and_then(|n| n.parse().ok())
            })
            .unwrap_or(0);
        assert_eq!(
            shown + counted,
            keys.len(),
            "{context}: keys shown {shown}, counted {counted}, held {}:\n{text}",
            keys.len()
        );
    }

    // Each client's belief and the lock service's truth are whole.
    let data = tui::FrameData::of(app);
    for client in &data.timeline.clients {
        let row = lines.iter().find(|l| l.contains(client.id.name())).unwrap();
        for cell in [&client.believes, &client.truth] {
            assert!(
                row.contains(cell.as_str()),
                "{context}: {cell:?} is cut: {row}"
            );
        }
    }

    // Lane labels keep a gap from their lane; tick labels are whole and evenly spaced.
    if let Some((_, rows)) = boxed(&lines, "Timeline") {
        for row in rows.iter().skip(1) {
            let cells: Vec<char> = row.chars().collect();
            if cells.len() > 10 {
                assert_eq!(
                    cells[9], ' ',
                    "{context}: a lane label touches its lane: {row}"
                );
            }
        }
        let ticks: Vec<u64> = rows[0]
            .split('╵')
            .skip(1)
            .map(|t| t.split_whitespace().next().unwrap().parse().unwrap())
            .collect();
        let steps: BTreeSet<u64> = ticks.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(
            steps.len() <= 1,
            "{context}: ticks {ticks:?} are not evenly spaced: {}",
            rows[0]
        );
    }

    // The caption appears whole.
    let caption = app.caption().text;
    let caption_flat: String = caption.split_whitespace().collect::<Vec<_>>().join(" ");
    let boxes_flat: String = ["Lesson", "Chaos", "Question", "Answer"]
        .iter()
        .filter_map(|t| boxed(&lines, t))
        .flat_map(|(_, rows)| rows)
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        boxes_flat.contains(&caption_flat),
        "{context}: the caption is not whole: {caption:?}\n{text}"
    );
}

#[test]
fn every_screen_fits_at_projector_sizes() {
    let mut checked = 0;
    for scenario in Scenario::all_built_in() {
        for (fencing, check) in SETTINGS {
            let setup = Setup::new(Arc::new(scenario.clone()))
                .fencing(fencing)
                .check(check);
            let full = Session::played_to(setup.clone(), scenario.end);
            let moments = common::event_and_beat_moments(&full);
            let mut app = App::new(Session::new(setup), Theme::plain());
            for (i, t) in moments.into_iter().enumerate() {
                // Chaos has hundreds of moments: every third is plenty.
                if scenario.chaos.is_some() && i % 3 != 0 {
                    continue;
                }
                app.seek(t);
                for (w, h) in SIZES {
                    for compare in [false, true] {
                        app.set_compare(compare);
                        let context = format!(
                            "{} fencing={fencing} {} at {t} ms, {w}x{h}, compare={compare}",
                            scenario.name,
                            check.name()
                        );
                        check_screen(&app, w, h, &context);
                        checked += 1;
                    }
                }
                app.set_compare(false);
            }
        }
    }
    assert!(checked > 4_500, "only {checked} screens checked");
}

#[test]
fn the_minimum_size_shows_a_complete_screen_and_below_it_the_notice() {
    let setup = Setup::new(Arc::new(Scenario::built_in("gc-pause").unwrap()));
    let mut app = App::new(Session::new(setup), Theme::plain());
    app.seek(16_500);
    let text = tui::render_text(&app, tui::MIN_WIDTH, tui::MIN_HEIGHT);
    for needle in [
        "FENCING ON",
        "┌ Timeline",
        "┌ Lock",
        "┌ Storage",
        "┌ Lesson",
        "✗ REJECTED t1 < t2",
        "n next",
    ] {
        assert!(text.contains(needle), "70x20 lacks {needle}:\n{text}");
    }
    for (w, h) in [
        (tui::MIN_WIDTH - 1, tui::MIN_HEIGHT),
        (tui::MIN_WIDTH, tui::MIN_HEIGHT - 1),
    ] {
        assert!(
            tui::render_text(&app, w, h).contains("Terminal too small"),
            "{w}x{h}"
        );
    }
}

#[test]
fn a_long_status_note_is_shortened_with_a_mark_not_cut() {
    let setup = Setup::new(Arc::new(Scenario::built_in("gc-pause").unwrap()));
    let mut app = App::new(Session::new(setup), Theme::plain());
    app.seek(23_000);
    app.update(Action::StepForward);
    let footer = tui::render_text(&app, 70, 20)
        .lines()
        .last()
        .unwrap()
        .to_owned();
    assert!(
        footer.ends_with('…') || footer.contains("s picks another."),
        "{footer}"
    );
}
