//! The UI without a terminal: driven by actions, rendered to a buffer, checked as text
//! (snapshots) and by the styles of key cells.

use std::sync::Arc;

use fencing_lab::sim::{ClientId, EventKind, InputKind, Scenario, Session};
use fencing_lab::tui::{self, Action, App, Overlay, Theme, KEYMAP};
use fencing_lab::FenceCheck;
use ratatui::backend::TestBackend;
use ratatui::style::{Color, Modifier};
use ratatui::Terminal;

fn app(name: &str, fencing: bool) -> App {
    let scenario = Arc::new(Scenario::built_in(name).unwrap());
    let seed = scenario.seed;
    App::new(
        Session::new(scenario, seed, fencing, FenceCheck::PerKey),
        Theme::plain(),
    )
}

fn app_at(name: &str, fencing: bool, t: u64) -> App {
    let mut app = app(name, fencing);
    app.seek(t);
    app
}

fn screen(app: &App, w: u16, h: u16) -> String {
    tui::render_text(app, w, h)
}

fn press(app: &mut App, actions: &[Action]) {
    for &a in actions {
        app.update(a);
    }
}

// ------------------------------------------------------------------ the lesson, by keys

#[test]
fn pressing_n_walks_the_lesson_and_stops_at_the_question() {
    let mut app = app("gc-pause", true);
    let mut times = Vec::new();
    while app.prediction().is_none() {
        app.update(Action::NextMoment);
        times.push(app.session().now());
        assert!(times.len() < 20, "never reached the question");
    }
    // The seventh press asks instead of moving: the write at 16.5 s waits for a prediction.
    assert_eq!(
        times,
        [1_000, 4_000, 10_000, 11_000, 12_000, 16_000, 16_000]
    );
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("? Will the storage accept client 1's write with token 1?"),
        "{text}"
    );
    // Forward moves wait for the answer; n answers "no".
    app.update(Action::StepForward);
    assert_eq!(app.session().now(), 16_000);
    assert!(app.status().unwrap().contains("Answer the question first"));
    app.update(Action::Answer(false));
    assert_eq!(app.session().now(), 16_500);
    let text = screen(&app, 80, 24);
    assert!(text.contains("You said no. Right: REJECTED"), "{text}");
    assert!(text.contains("✗ REJECTED t1 < t2"));
}

#[test]
fn f_then_r_replays_the_lesson_into_corruption() {
    let mut app = app_at("gc-pause", true, 5_000);
    press(&mut app, &[Action::ToggleFencing]);
    assert!(!app.session().world().fencing());
    assert!(screen(&app, 80, 24).contains("FENCING OFF"));
    press(&mut app, &[Action::Restart]);
    assert_eq!(app.session().now(), 0);
    assert!(
        !app.session().world().fencing(),
        "restart keeps the fencing setting"
    );
    assert!(app.session().inputs().is_empty());
    for _ in 0..7 {
        app.update(Action::NextMoment);
    }
    app.update(Action::Answer(true));
    let text = screen(&app, 80, 24);
    assert!(text.contains("CORRUPTED DATA!"), "{text}");
    assert!(text.contains("You said yes. Right: ACCEPTED"), "{text}");
}

#[test]
fn stepping_back_is_time_travel_and_loses_nothing() {
    let mut app = app_at("chaos", true, 12_000);
    press(
        &mut app,
        &[Action::Select(ClientId::ALL[1]), Action::InjectPause],
    );
    press(
        &mut app,
        &[Action::LargerStep, Action::LargerStep, Action::LargerStep],
    ); // 5 s
    for _ in 0..4 {
        app.update(Action::StepForward);
    }
    let forward = app.session().world().events().to_vec();
    assert_eq!(app.session().now(), 32_000);
    for _ in 0..6 {
        app.update(Action::StepBack);
    }
    assert_eq!(app.session().now(), 2_000);
    assert!(app.session().world().events().iter().all(|e| e.t <= 2_000));
    for _ in 0..6 {
        app.update(Action::StepForward);
    }
    assert_eq!(
        app.session().world().events(),
        &forward[..],
        "the injected pause replays"
    );
    assert!(forward.iter().any(|e| e.t == 12_000
        && e.kind
            == EventKind::Pause {
                client: ClientId::ALL[1],
                until: 16_500
            }));
}

#[test]
fn g_pauses_and_x_crashes_the_selected_client() {
    let mut app = app_at("chaos", true, 8_000);
    press(
        &mut app,
        &[Action::Select(ClientId::ALL[2]), Action::InjectPause],
    );
    assert!(app.session().world().clients()[2].is_paused());
    assert_eq!(
        app.session().inputs()[0].kind,
        InputKind::Pause {
            client: ClientId::ALL[2]
        }
    );
    press(&mut app, &[Action::Select(ClientId::ALL[0]), Action::Crash]);
    let text = screen(&app, 80, 24);
    assert!(text.contains("crashed"), "{text}");
    app.seek(11_500);
    let restarted = app.session().world().events().iter().any(|e| {
        e.kind
            == EventKind::Restart {
                client: ClientId::ALL[0],
            }
    });
    assert!(restarted, "a crashed client restarts");
}

#[test]
fn step_and_speed_keys_stay_in_their_ranges() {
    let mut app = app("gc-pause", true);
    assert_eq!(app.step_ms(), 500);
    press(&mut app, &[Action::SmallerStep, Action::SmallerStep]);
    assert_eq!(app.step_ms(), 100);
    assert!(screen(&app, 80, 24).contains("step 0.1 s"));
    for _ in 0..9 {
        app.update(Action::LargerStep);
    }
    assert_eq!(app.step_ms(), 5_000);
    assert_eq!(app.speed(), 1.0);
    for _ in 0..9 {
        app.update(Action::Faster);
    }
    assert_eq!(app.speed(), 8.0);
}

#[test]
fn playing_advances_with_real_time_and_stops_at_the_lessons_end() {
    let mut app = app("late-release", true);
    press(
        &mut app,
        &[Action::TogglePlay, Action::Tick(250), Action::Tick(250)],
    );
    assert!(app.is_playing());
    assert_eq!(app.session().now(), 500);
    press(&mut app, &[Action::Faster, Action::Faster, Action::Faster]); // 8x
    for _ in 0..20 {
        app.update(Action::Tick(100));
    }
    assert_eq!(app.session().now(), 13_000, "stops at the end");
    assert!(!app.is_playing());
    app.update(Action::TogglePlay);
    assert!(!app.is_playing());
    assert!(app.status().unwrap().contains("The lesson is over"));
}

#[test]
fn playing_stops_at_a_question() {
    let mut app = app_at("gc-pause", true, 14_000);
    press(&mut app, &[Action::TogglePlay]);
    for _ in 0..40 {
        app.update(Action::Tick(100));
    }
    assert!(!app.is_playing());
    assert_eq!(
        app.session().now(),
        16_400,
        "the last tick before the write at 16.5 s"
    );
    assert!(app.prediction().is_some());
}

#[test]
fn the_picker_loads_a_scenario_and_keeps_fencing() {
    let mut app = app("gc-pause", false);
    press(&mut app, &[Action::OpenPicker]);
    assert_eq!(app.overlay(), Overlay::Picker { cursor: 0 });
    assert!(screen(&app, 80, 24).contains("Choose a scenario"));
    press(
        &mut app,
        &[
            Action::PickerDown,
            Action::PickerDown,
            Action::PickerUp,
            Action::PickerChoose,
        ],
    );
    assert_eq!(app.overlay(), Overlay::None);
    assert_eq!(app.session().scenario().name, "late-release");
    assert!(!app.session().world().fencing());
    press(&mut app, &[Action::OpenPicker, Action::CloseOverlay]);
    assert_eq!(app.session().scenario().name, "late-release");
}

#[test]
fn v_cycles_the_check_and_the_header_names_it() {
    let mut app = app_at("renew", true, 9_000);
    app.update(Action::CycleCheck);
    assert_eq!(app.session().world().fenced_check(), FenceCheck::Strict);
    assert!(screen(&app, 80, 24).contains("token > highest(key)"));
    app.seek(10_000);
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("✗ REJECTED"),
        "strict refuses the holder's second write:\n{text}"
    );
    press(&mut app, &[Action::CycleCheck, Action::CycleCheck]);
    assert_eq!(app.session().world().fenced_check(), FenceCheck::PerKey);
}

#[test]
fn quit_from_anywhere() {
    for setup in [&[][..], &[Action::ToggleHelp], &[Action::OpenPicker]] {
        let mut app = app("gc-pause", true);
        press(&mut app, setup);
        app.update(Action::Quit);
        assert!(app.should_quit());
    }
}

// ------------------------------------------------------------------ what is on screen

#[test]
fn help_lists_every_key_of_the_dispatch_table() {
    let mut app = app("gc-pause", true);
    app.update(Action::ToggleHelp);
    let text = screen(&app, 80, 24);
    for binding in KEYMAP.iter().filter(|b| !b.label.is_empty()) {
        assert!(
            text.contains(binding.label),
            "help lacks {:?}:\n{text}",
            binding.label
        );
        assert!(text.contains(binding.keys), "help lacks {:?}", binding.keys);
    }
    for (glyph, _, meaning) in tui::LEGEND {
        assert!(
            text.contains(&format!("{glyph} {meaning}")),
            "legend lacks {meaning}"
        );
    }
    app.update(Action::StepForward);
    assert_eq!(app.overlay(), Overlay::None, "any key closes help");
    assert_eq!(app.session().now(), 0, "and does nothing else");
}

#[test]
fn belief_and_truth_disagree_at_the_key_moment() {
    let app = app_at("gc-pause", true, 16_500);
    let world = app.session().world();
    let (belief, truth, stale) = tui::belief_and_truth(world, &world.clients()[0]);
    assert_eq!(
        (belief.as_str(), truth.as_str(), stale),
        ("t1 8.5s left", "expired 6.5s ago", true)
    );
    // Frozen, the belief stands still while the truth runs on.
    let frozen = app_at("gc-pause", true, 9_000);
    let later = app_at("gc-pause", true, 14_000);
    let at =
        |a: &App| tui::belief_and_truth(a.session().world(), &a.session().world().clients()[0]);
    assert_eq!(at(&frozen).0, "t1 9.0s left");
    assert_eq!(at(&later).0, "t1 9.0s left");
    assert_eq!(at(&frozen).1, "live 1.0s");
    assert_eq!(at(&later).1, "expired 4.0s ago");
}

#[test]
fn every_screen_fits_80x24_without_cutting_the_lesson() {
    for scenario in Scenario::all_built_in() {
        for fencing in [true, false] {
            for t in (0..=scenario.end).step_by(500) {
                let app = app_at(&scenario.name, fencing, t);
                let text = screen(&app, 80, 24);
                assert_eq!(text.lines().count(), 24);
                let first = text.lines().next().unwrap();
                assert!(first.contains(if fencing { "FENCING ON" } else { "FENCING OFF" }));
                if let Some(i) = scenario.beat_at(t) {
                    let caption = scenario.beats[i].caption_for(app.session().world().fencing());
                    let last_word = caption.split_whitespace().last().unwrap();
                    assert!(
                        text.contains(last_word),
                        "{} at {t}: caption cut\n{text}",
                        scenario.name
                    );
                }
            }
        }
    }
}

#[test]
fn too_small_says_so_and_tiny_areas_do_not_panic() {
    let app = app_at("gc-pause", true, 16_500);
    let text = screen(&app, 60, 15);
    assert!(text.contains("Terminal too small: 60x15"));
    assert!(text.contains("at least 70x20"));
    for (w, h) in [
        (1, 1),
        (0, 0),
        (2, 40),
        (200, 3),
        (70, 20),
        (71, 21),
        (300, 100),
    ] {
        let _ = screen(&app, w, h);
    }
    let mut help = app_at("gc-pause", true, 3_000);
    help.update(Action::ToggleHelp);
    for (w, h) in [(70, 20), (1, 1), (75, 22)] {
        let _ = screen(&help, w, h);
    }
}

#[test]
fn draw_through_a_real_terminal_backend() {
    let app = app_at("gc-pause", true, 16_500);
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    terminal.draw(|frame| tui::draw(frame, &app)).unwrap();
    let text = tui::buffer_text(terminal.backend().buffer());
    assert_eq!(text, screen(&app, 100, 30));
}

// ------------------------------------------------------------------ styles

fn buffer(app: &App, w: u16, h: u16) -> ratatui::buffer::Buffer {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|frame| tui::draw(frame, app)).unwrap();
    terminal.backend().buffer().clone()
}

fn find(buf: &ratatui::buffer::Buffer, needle: &str) -> (u16, u16) {
    let text = tui::buffer_text(buf);
    for (y, line) in text.lines().enumerate() {
        if let Some(byte) = line.find(needle) {
            return (line[..byte].chars().count() as u16, y as u16);
        }
    }
    panic!("{needle} not on screen:\n{text}");
}

#[test]
fn colour_marks_key_cells_and_plain_uses_no_colour_at_all() {
    let scenario = Arc::new(Scenario::built_in("gc-pause").unwrap());
    let mut colored = App::new(
        Session::new(scenario, 1, true, FenceCheck::PerKey),
        Theme::colored(),
    );
    colored.seek(16_500);
    let buf = buffer(&colored, 80, 24);
    let (x, y) = find(&buf, "FENCING ON");
    assert_eq!(buf[(x + 1, y)].bg, Color::Green);
    let (x, y) = find(&buf, "✗ REJECTED");
    assert_eq!(buf[(x, y)].fg, Color::Red);
    assert!(buf[(x, y)].modifier.contains(Modifier::BOLD));

    let plain = app_at("gc-pause", false, 16_500);
    let buf = buffer(&plain, 80, 24);
    for cell in buf.content() {
        assert_eq!(
            (cell.fg, cell.bg),
            (Color::Reset, Color::Reset),
            "NO_COLOR means no colour"
        );
    }
    // Without colour the state still shows: reversed header chip, reversed corruption.
    let (x, y) = find(&buf, "FENCING OFF");
    assert!(buf[(x + 1, y)].modifier.contains(Modifier::REVERSED));
    let (x, y) = find(&buf, "! CORRUPTED DATA! t1");
    assert!(buf[(x, y)].modifier.contains(Modifier::REVERSED));
}

// ------------------------------------------------------------------ snapshots

#[test]
fn snapshots_of_the_key_moments() {
    insta::assert_snapshot!(
        "gc_pause_fenced_80x24",
        screen(&app_at("gc-pause", true, 16_500), 80, 24)
    );
    insta::assert_snapshot!(
        "gc_pause_unfenced_80x24",
        screen(&app_at("gc-pause", false, 16_500), 80, 24)
    );
    insta::assert_snapshot!(
        "gc_pause_fenced_120x40",
        screen(&app_at("gc-pause", true, 16_500), 120, 40)
    );
    insta::assert_snapshot!(
        "gc_pause_unfenced_120x40",
        screen(&app_at("gc-pause", false, 16_500), 120, 40)
    );
    insta::assert_snapshot!(
        "gc_pause_frozen_belief_80x24",
        screen(&app_at("gc-pause", true, 14_000), 80, 24)
    );
    let mut question = app_at("gc-pause", true, 16_000);
    question.update(Action::NextMoment);
    insta::assert_snapshot!("gc_pause_question_80x24", screen(&question, 80, 24));
    let mut compare = app_at("gc-pause", true, 16_500);
    compare.update(Action::ToggleCompare);
    insta::assert_snapshot!("gc_pause_compare_80x24", screen(&compare, 80, 24));
    let mut help = app("gc-pause", true);
    help.update(Action::ToggleHelp);
    insta::assert_snapshot!("help_80x24", screen(&help, 80, 24));
    insta::assert_snapshot!("too_small_60x15", screen(&app("gc-pause", true), 60, 15));
    insta::assert_snapshot!(
        "chaos_120x40",
        screen(&app_at("chaos", true, 30_000), 120, 40)
    );
}

// ------------------------------------------------------------------ record and replay

#[test]
fn a_recorded_session_replays_event_for_event() {
    let mut app = app("chaos", true);
    let plan: &[(u64, &[Action])] = &[
        (
            4_000,
            &[Action::Select(ClientId::ALL[1]), Action::InjectPause],
        ),
        (9_000, &[Action::ToggleFencing]),
        (12_500, &[Action::Select(ClientId::ALL[0]), Action::Crash]),
        (20_000, &[Action::CycleCheck, Action::ToggleFencing]),
    ];
    for (t, actions) in plan {
        app.seek(*t);
        press(&mut app, actions);
    }
    app.seek(45_000);
    let json = tui::recording::to_json(app.session());
    assert!(
        json.contains("\"scenario\": \"chaos\"") && json.contains("\"action\": \"crash\""),
        "{json}"
    );
    let mut replay = tui::recording::from_json(&json, "test.json").unwrap();
    replay.seek(45_000);
    assert_eq!(replay.world().events(), app.session().world().events());
    assert_eq!(replay.inputs(), app.session().inputs());
}

#[test]
fn a_broken_recording_is_one_sentence() {
    let err = tui::recording::from_json("{\"format\": 1}", "r.json")
        .err()
        .unwrap();
    assert!(
        err.starts_with("r.json, line 1: not a fencing-lab recording: missing field"),
        "{err}"
    );
    let bad_client = r#"{"format":1,"scenario":"chaos","seed":1,"fencing":true,"check":"per-key",
        "inputs":[{"at":1.0,"action":"pause","client":7}]}"#;
    let err = tui::recording::from_json(bad_client, "r.json")
        .err()
        .unwrap();
    assert_eq!(err, "r.json: input 1: field `client` must be 1, 2 or 3");
    let bad_scenario =
        r#"{"format":1,"scenario":"nope","seed":1,"fencing":true,"check":"per-key","inputs":[]}"#;
    let err = tui::recording::from_json(bad_scenario, "r.json")
        .err()
        .unwrap();
    assert!(err.starts_with("r.json names scenario nope:"), "{err}");
}

#[test]
fn a_wrong_check_says_what_it_broke_in_the_caption() {
    let scenario = Arc::new(Scenario::built_in("per-key").unwrap());
    let mut app = App::new(
        Session::new(scenario, 1, true, FenceCheck::Global),
        Theme::plain(),
    );
    app.seek(9_500);
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("With the global check: REJECTED: another key has accepted"),
        "{text}"
    );
    // Under the seed's rule the lesson's own caption stands.
    let text = screen(&app_at("per-key", true, 9_500), 80, 24);
    assert!(text.contains("orders has seen only 1, so it"), "{text}");
}

#[test]
fn a_token_label_is_never_half_covered_by_a_mark() {
    for scenario in Scenario::all_built_in() {
        for t in (0..=scenario.end).step_by(1_000) {
            let text = screen(&app_at(&scenario.name, true, t), 120, 40);
            for line in text.lines().filter(|l| l.contains("client-")) {
                let lane: Vec<char> = line.chars().collect();
                for pair in lane.windows(2) {
                    let stray = pair[0] == 't' && "✓✗!?+]ø".contains(pair[1]);
                    assert!(
                        !stray,
                        "{} at {t}: a mark covers a label\n{line}",
                        scenario.name
                    );
                }
            }
        }
    }
}

#[test]
fn at_the_minimum_size_the_essentials_stay_on_screen() {
    let mut app = app_at("gc-pause", true, 12_000);
    let text = screen(&app, tui::MIN_WIDTH, tui::MIN_HEIGHT);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].contains("FENCING ON")
            && lines[0].contains("t = 12.0 s")
            && lines[0].contains("paused"),
        "{}",
        lines[0]
    );
    let footer = lines.last().unwrap();
    for hint in ["n next", "f fencing", "? help", "q quit"] {
        assert!(footer.contains(hint), "footer lacks {hint}: {footer}");
    }
    assert!(text.contains("lease   11.0 → 21.0 s"), "{text}");
    app.update(Action::ToggleHelp);
    let help = screen(&app, tui::MIN_WIDTH, tui::MIN_HEIGHT);
    assert!(
        help.contains("✗ REJECTED") && help.contains("q Esc   quit"),
        "{help}"
    );
}
