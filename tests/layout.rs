//! A projector's 80x24 (and 100x30, 120x40): nothing cut off, nothing dropped without saying so.
//! Generated over every built-in scenario, fencing on and off, every check and every event
//! moment.

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use fencing_lab::sim::{EventKind, Scenario, Session, Setup, Vocab};
use fencing_lab::tui::{self, Action, App, Theme};
use fencing_lab::FenceCheck;

const SIZES: [(u16, u16); 3] = [(80, 24), (100, 30), (120, 40)];
const SETTINGS: [(bool, FenceCheck); 4] = [
    (true, FenceCheck::PerKey),
    (true, FenceCheck::Strict),
    (true, FenceCheck::Global),
    (false, FenceCheck::PerKey),
];

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
    if let Some((_, rows)) = common::boxed(&lines, "Events") {
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
        let (_, rows) = common::boxed(&lines, "Storage").unwrap();
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
    if let Some((_, rows)) = common::boxed(&lines, "Timeline") {
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
        .filter_map(|t| common::boxed(&lines, t))
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

// ------------------------------------------------------------------ what a screen must keep

/// The timeline's rows inside its border (trailing spaces trimmed) and its bottom border.
fn timeline(lines: &[&str]) -> (Vec<String>, String) {
    let (_, rows) = common::boxed(lines, "Timeline").unwrap();
    let top = lines.iter().position(|l| l.contains("┌ Timeline")).unwrap();
    (rows.clone(), lines[top + 1 + rows.len()].to_owned())
}

/// Whether `lock` is held at `t`, from the event stream alone.
fn held(events: &[fencing_lab::sim::Event], lock: fencing_lab::sim::LockId, t: u64) -> bool {
    events
        .iter()
        .take_while(|e| e.t <= t)
        .filter_map(|e| match e.kind {
            EventKind::Grant { lock: l, .. } if l == lock => Some(true),
            EventKind::Expire { lock: l, .. } | EventKind::Release { lock: l, .. } if l == lock => {
                Some(false)
            }
            _ => None,
        })
        .last()
        .unwrap_or(false)
}

/// What a screen must keep whole, checked against the history: the latest write's client, key
/// and tokens; every live lease's token in the lock panel; the newest event; the legend's word
/// for every verdict mark on the lanes; every grant's token at its column of the lock lane, which
/// is drawn held exactly where the lock was held; and with no token, no token anywhere.
fn check_whole(app: &App, w: u16, h: u16, context: &str) {
    let text = tui::render_text(app, w, h);
    let lines: Vec<&str> = text.lines().collect();
    let world = app.session().world();
    let tokens = app.session().setup().has_token();
    let vocab = app.lesson().vocab();
    let events = world.events();

    // The verdict line.
    let latest = events.iter().rev().find_map(|e| match &e.kind {
        EventKind::Write {
            client,
            key,
            verdict,
            ..
        } => Some((client, key, verdict)),
        _ => None,
    });
    let (_, storage) = common::boxed(&lines, "Storage").expect("a storage panel");
    if let Some((client, key, verdict)) = latest {
        let row = storage.iter().rev().find(|r| !r.trim().is_empty()).unwrap();
        let short = format!("c{}", client.number());
        assert!(
            row.contains(&format!("→ {key}"))
                && (row.contains(client.name()) || row.contains(&format!("{short} "))),
            "{context}: the verdict lost its client or key: {row}\n{text}"
        );
        let comparison = app.lesson().vocab().marks().apply(&verdict.comparison());
        let comparison = comparison
            .trim_start_matches("no check")
            .trim_start_matches(", ");
        // "(any key)" may give way to the client and key: the panel's title says it.
        let titled = comparison
            .strip_suffix(" (any key)")
            .filter(|_| lines.iter().any(|l| l.contains("highest(any key)")));
        if tokens && !comparison.is_empty() {
            assert!(
                row.contains(comparison) || titled.is_some_and(|c| row.contains(c)),
                "{context}: the verdict lost '{comparison}': {row}\n{text}"
            );
        }
        assert!(!row.contains('…'), "{context}: {row}");
    }
    // Every key the panel has room for is shown with its value whole (the author column gives
    // way first, then the value goes on under its column); a key with no room is counted.
    let counted = storage.iter().any(|r| r.contains("more key"));
    for (key, _) in world.storage_entries() {
        let shown = storage.iter().any(|r| {
            r.get(2..)
                .is_some_and(|r| r.starts_with(&format!("{key} ")))
        });
        assert!(
            shown || counted,
            "{context}: {key} is neither shown nor counted\n{text}"
        );
    }
    assert!(
        !storage.iter().any(|r| r.contains('…')),
        "{context}: the storage panel cuts something:\n{text}"
    );

    // The lock panel's tokens.
    let (_, lock_panel) = common::boxed(&lines, "Lock")
        .or_else(|| common::boxed(&lines, "Locks"))
        .expect("a lock panel");
    let lock_text = lock_panel.join("\n");
    for (i, _) in world.scenario().locks.iter().enumerate() {
        if let Some(lease) = world.lease(fencing_lab::sim::LockId(i as u8)) {
            let said = format!("{} {}", vocab.token, lease.token);
            assert_eq!(
                lock_text.contains(&said),
                tokens,
                "{context}: the lock panel and '{said}':\n{text}"
            );
        }
    }

    // The newest event, whole (`check_screen` reads it whole where the log is).
    if !events.is_empty() {
        assert!(
            common::boxed(&lines, "Events").is_some(),
            "{context}: no event log:\n{text}"
        );
    }

    // The legend names every verdict mark the lanes show.
    let (rows, bottom) = timeline(&lines);
    for (glyph, word) in [('!', "CORRUPTED"), ('✗', "REJECTED"), ('✓', "accepted")] {
        if rows
            .iter()
            .skip(1)
            .any(|r| r.chars().skip(10).any(|c| c == glyph))
        {
            assert!(
                bottom.contains(&format!("{glyph} {word}")),
                "{context}: the legend drops {glyph}: {bottom}\n{text}"
            );
        }
    }

    // The lock lanes: every grant's token at its column; held exactly where the lock was.
    let (offset, lane_w) = tui::lane_span(w - 2);
    let scenario = world.scenario();
    let now = world.now();
    let window = tui::Window::choose(lane_w, now, scenario.end, scenario.chaos.is_some());
    let lane = |row: &str| -> Vec<char> {
        row.chars()
            .skip(offset as usize)
            .take(lane_w as usize)
            .collect()
    };
    let lock_rows: Vec<usize> = (1 + world.clients().len()..rows.len())
        .filter(|&i| {
            let label: String = rows[i].chars().take(offset as usize).collect();
            !label.trim().is_empty() && !label.contains("network")
        })
        .collect();
    assert_eq!(lock_rows.len(), scenario.locks.len(), "{context}:\n{text}");
    for (lock, &row) in lock_rows.iter().enumerate() {
        let lock = fencing_lab::sim::LockId(lock as u8);
        let cells = lane(&rows[row]);
        let below = rows
            .get(row + 1)
            .filter(|r| r.chars().take(offset as usize).all(|c| c == ' '))
            .map(|r| lane(r))
            .unwrap_or_default();
        for e in events.iter().filter(|e| e.t >= window.start) {
            let EventKind::Grant {
                client,
                lock: l,
                token,
                ..
            } = e.kind
            else {
                continue;
            };
            if l != lock {
                continue;
            }
            let col = window.col_of(e.t).unwrap() as usize;
            let labels = if tokens {
                let marks = app.lesson().vocab().marks();
                let mark = marks.of_token(token);
                vec![
                    format!("c{} {mark}", client.number()),
                    format!("c{} {}", client.number(), marks.compact(token)),
                    mark,
                    marks.compact(token),
                ]
            } else {
                vec![format!("c{}", client.number())]
            };
            let at = |cells: &[char]| -> String { cells.iter().skip(col).collect() };
            assert!(
                labels
                    .iter()
                    .any(|l| at(&cells).starts_with(l.as_str()) || at(&below).starts_with(l.as_str())),
                "{context}: {l:?}'s grant of token {token} at {} ms has no label at column {col}:\n{text}",
                e.t
            );
        }
        for (col, cell) in cells.iter().enumerate() {
            let shown = (window.start + (col as u64 + 1) * window.scale - 1).min(now);
            match cell {
                '=' => assert!(
                    held(events, lock, shown),
                    "{context}: held at column {col} ({shown} ms), after its lease ended:\n{text}"
                ),
                '·' => assert!(
                    !held(events, lock, shown),
                    "{context}: free at column {col} ({shown} ms) while held:\n{text}"
                ),
                _ => {}
            }
        }
    }

    // With no token nothing is numbered, the storage keeps no highest token, and neither f nor
    // v is offered.
    if !tokens {
        let numbered = |s: &str| {
            s.split(|c: char| !c.is_alphanumeric())
                .any(|w| w.len() > 1 && w.starts_with('t') && w[1..].parse::<u64>().is_ok())
        };
        for part in rows.iter().chain(&lock_panel).chain(&storage) {
            assert!(
                !numbered(part),
                "{context}: a token on screen: {part}\n{text}"
            );
        }
        assert!(
            !storage.iter().any(|r| r.contains("highest")),
            "{context}: a highest-token column:\n{text}"
        );
        let footer = lines.last().unwrap();
        for hint in ["f fencing", "v check", "c compare"] {
            assert!(!footer.contains(hint), "{context}: {footer}");
        }
    }
}

#[test]
fn every_screen_keeps_its_verdict_tokens_newest_event_and_every_grant() {
    use fencing_lab::sim::systems::find;
    let mut checked = 0;
    for scenario in Scenario::all_built_in() {
        for system in [None, find("etcd"), find("redlock")] {
            for (fencing, check) in SETTINGS {
                let mut setup = Setup::new(Arc::new(scenario.clone()))
                    .fencing(fencing)
                    .check(check);
                if let Some(system) = system {
                    setup = setup.as_system(system);
                    if !system.has_token && (fencing, check) != SETTINGS[0] {
                        continue; // unfenced whatever the setting
                    }
                }
                let full = Session::played_to(setup.clone(), scenario.end);
                let moments = common::event_and_beat_moments(&full);
                let mut app = App::new(Session::new(setup.clone()), Theme::plain());
                let context = |app: &App, w, h| {
                    format!(
                        "{} --as {:?} fencing={fencing} {} at {} ms ({:?}), {w}x{h}",
                        scenario.name,
                        system.map(|s| s.id),
                        check.name(),
                        app.session().now(),
                        app.mode()
                    )
                };
                for (i, t) in moments.into_iter().enumerate() {
                    if scenario.chaos.is_some() && i % 3 != 0 {
                        continue;
                    }
                    app.seek(t);
                    for (w, h) in [(80, 24), (120, 40)] {
                        check_whole(&app, w, h, &context(&app, w, h));
                        checked += 1;
                    }
                }
                // And as a lecturer walks it with n: the question and its answer too.
                if scenario.chaos.is_none() {
                    let mut app = App::new(Session::new(setup), Theme::plain());
                    while !app.at_end() {
                        match app.mode() {
                            tui::Mode::Question => app.update(Action::Answer(false)),
                            _ => app.update(Action::NextMoment),
                        }
                        check_whole(&app, 80, 24, &context(&app, 80, 24));
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 3_000, "only {checked} screens checked");
}

#[test]
fn chaos_labels_every_grant_under_the_lecturers_hand() {
    // The run of issue 24: seed 11, client 3 frozen at 0 s, client 1 crashed at 20 s; and other
    // seeds, every half second of a minute, fencing on and off.
    use fencing_lab::sim::{ClientId, InputKind};
    let c = |n| ClientId::from_number(n).unwrap();
    let mut checked = 0;
    for (seed, fencing) in [(11, true), (11, false), (1, false), (2, true), (7, false)] {
        let setup = Setup::new(Arc::new(Scenario::built_in("chaos").unwrap()))
            .seed(seed)
            .fencing(fencing);
        let mut app = App::new(Session::new(setup), Theme::plain());
        app.update(Action::Select(c(3)));
        app.update(Action::InjectPause);
        app.seek(20_000);
        app.update(Action::Select(c(1)));
        app.update(Action::Crash);
        let _ = InputKind::Crash { client: c(1) };
        for t in (20_000..80_000).step_by(500).chain([24_367, 38_888]) {
            app.seek(t);
            for (w, h) in [(80, 24), (120, 40)] {
                check_whole(
                    &app,
                    w,
                    h,
                    &format!("chaos --seed {seed} fencing={fencing} at {t} ms, {w}x{h}"),
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 500);
}

#[test]
fn at_the_smallest_size_every_lane_stays() {
    // The layout must fit whole: where it would overflow, ratatui cuts the timeline's last lane
    // (network-delay at 70x20 lost its network lane).
    let mut checked = 0;
    for scenario in Scenario::all_built_in() {
        for fencing in [true, false] {
            let setup = Setup::new(Arc::new(scenario.clone())).fencing(fencing);
            let full = Session::played_to(setup.clone(), scenario.end);
            let moments = common::event_and_beat_moments(&full);
            let mut app = App::new(Session::new(setup), Theme::plain());
            for (i, t) in moments.into_iter().enumerate() {
                if scenario.chaos.is_some() && i % 5 != 0 {
                    continue;
                }
                app.seek(t);
                let (w, h) = (tui::MIN_WIDTH, tui::MIN_HEIGHT);
                let text = tui::render_text(&app, w, h);
                let lines: Vec<&str> = text.lines().collect();
                let context = format!("{} fencing={fencing} at {t} ms, {w}x{h}", scenario.name);
                let (rows, _) = timeline(&lines);
                let world = app.session().world();
                let lanes = 1
                    + world.clients().len()
                    + world.scenario().locks.len()
                    + usize::from(
                        world
                            .events()
                            .iter()
                            .any(|e| matches!(e.kind, EventKind::Send { .. })),
                    );
                let labelled = rows
                    .iter()
                    .filter(|r| r.chars().take(10).any(|c| c != ' '))
                    .count();
                assert_eq!(labelled, lanes, "{context}: a lane is missing:\n{text}");
                for needle in ["┌ Lock", "┌ Storage", "FENCING"] {
                    assert!(text.contains(needle), "{context}: no {needle}:\n{text}");
                }
                assert!(
                    lines
                        .last()
                        .is_some_and(|l| l.contains("q quit") || !l.trim().is_empty()),
                    "{context}: no footer:\n{text}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 300, "{checked}");
}
