//! The UI without a terminal: driven by actions, rendered to a buffer, checked as text
//! (snapshots) and by the styles of key cells.

mod common;

use std::sync::Arc;

use common::setup;
use fencing_lab::sim::lesson::Source;
use fencing_lab::sim::{ClientId, EventKind, InputKind, Scenario, Session};
use fencing_lab::tui::{self, Action, App, Mode, Overlay, Theme};
use fencing_lab::FenceCheck;
use ratatui::backend::TestBackend;
use ratatui::style::{Color, Modifier};
use ratatui::Terminal;

fn app(name: &str, fencing: bool) -> App {
    App::new(
        Session::new(setup(name, fencing, FenceCheck::PerKey)),
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

fn c(n: u64) -> ClientId {
    ClientId::from_number(n).unwrap()
}

/// Presses `n` until the lesson asks its question.
fn to_question(app: &mut App) -> Vec<u64> {
    let mut times = Vec::new();
    while app.mode() != Mode::Question {
        app.update(Action::NextMoment);
        times.push(app.session().now());
        assert!(times.len() < 30, "never reached the question");
    }
    times
}

// ------------------------------------------------------------------ the lesson, by keys

#[test]
fn pressing_n_walks_the_lesson_and_stops_before_the_question() {
    let mut app = app("gc-pause", true);
    let times = to_question(&mut app);
    // The seventh press asks instead of moving: the write at 16.5 s waits for a prediction.
    // The seventh stands at 16.5 s with the write still to come.
    assert_eq!(
        times,
        [1_000, 4_000, 10_000, 11_000, 12_000, 16_000, 16_500]
    );
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("Will the storage accept client 1's write with token 1?"),
        "{text}"
    );
    assert!(
        text.contains("a = accepted, b = rejected, n = skip"),
        "{text}"
    );
    // The question's footer is its own key table: the answers, skip, back, help, quit.
    let footer = text.lines().last().unwrap();
    assert!(
        footer.contains("a accepted") && footer.contains("b rejected"),
        "{footer}"
    );
    assert!(
        footer.contains("n skip") && !footer.contains("n next"),
        "{footer}"
    );
    insta::assert_snapshot!("gc_pause_question_80x24", text);
}

/// Every question, in every lesson, fencing, check and system, is asked on the screen of the
/// moment it is about: the header's time is the question's, and what happens then is still to come.
#[test]
fn every_question_is_asked_at_its_own_moment_before_it_plays() {
    use fencing_lab::sim::systems::SYSTEMS;
    use fencing_lab::sim::{fmt_seconds, Setup};
    let mut asked = 0;
    for scenario in Scenario::all_built_in() {
        for (beat, ask) in scenario
            .beats
            .iter()
            .enumerate()
            .filter(|(_, b)| b.ask.is_some())
        {
            for fencing in [true, false] {
                for check in FenceCheck::ALL {
                    for system in std::iter::once(None).chain(SYSTEMS.iter().map(Some)) {
                        let mut setup = Setup::new(Arc::new(scenario.clone()))
                            .fencing(fencing)
                            .check(check);
                        if let Some(system) = system {
                            setup = setup.as_system(system);
                        }
                        let what = format!(
                            "{} beat {beat} fencing={fencing} {} --as {}",
                            scenario.name,
                            check.name(),
                            system.map_or("-", |s| s.id)
                        );
                        let mut app = App::new(Session::new(setup), Theme::plain());
                        while app.mode() != Mode::Question && app.session().now() < ask.at {
                            app.update(Action::NextMoment);
                        }
                        if app.mode() != Mode::Question {
                            continue; // what it asks about does not happen in this run
                        }
                        asked += 1;
                        assert_eq!(app.prediction().unwrap().beat, beat, "{what}");
                        assert_eq!(app.session().now(), ask.at, "{what}");
                        let text = screen(&app, 80, 24);
                        let header = text.lines().next().unwrap();
                        assert!(
                            header.contains(&format!("t = {} s", fmt_seconds(ask.at))),
                            "{what}: {header}"
                        );
                        let played_then =
                            app.session().world().events().iter().any(|e| e.t == ask.at);
                        assert!(!played_then, "{what}: the moment already played\n{text}");
                        app.update(Action::Answer(true));
                        assert!(
                            app.session().world().events().iter().any(|e| e.t == ask.at),
                            "{what}: answering plays the moment"
                        );
                    }
                }
            }
        }
    }
    assert!(asked > 300, "only {asked} questions asked");
}

#[test]
fn stepping_past_the_question_records_no_answer() {
    for skip in [
        Action::NextMoment,
        Action::Skip,
        Action::StepForward,
        Action::TogglePlay,
    ] {
        let mut app = app("gc-pause", true);
        to_question(&mut app);
        app.update(skip);
        assert_eq!(app.session().now(), 16_500, "{skip:?} reveals the write");
        assert_eq!(app.prediction().unwrap().revealed, Some(None), "{skip:?}");
        let text = screen(&app, 80, 24);
        assert!(
            text.contains("Skipped. The answer: REJECTED, token 1 < 2"),
            "{skip:?}:\n{text}"
        );
        assert!(!text.contains("You said"), "{skip:?}");
    }
}

#[test]
fn the_answer_keys_record_a_prediction_and_judge_it_by_the_run() {
    let mut app = app("gc-pause", true);
    to_question(&mut app);
    app.update(Action::Answer(false));
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("You said rejected. Right: REJECTED"),
        "{text}"
    );
    assert!(text.contains("✗ REJECTED t1 < t2"));

    // Unfenced, the same question has the other answer.
    let mut app = app_at("gc-pause", false, 0);
    to_question(&mut app);
    app.update(Action::Answer(false));
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("You said rejected. Not quite: ACCEPTED"),
        "{text}"
    );
    assert!(text.contains("CORRUPTED DATA!"), "{text}");
}

#[test]
fn answer_keys_without_a_question_say_so() {
    let mut app = app("gc-pause", true);
    app.update(Action::Answer(true));
    assert!(app.status().unwrap().contains("No question is waiting"));
    assert_eq!(app.session().now(), 0);
}

#[test]
fn keys_that_cannot_act_say_why() {
    let mut app = self::app("gc-pause", true);
    app.update(Action::StepBack);
    assert!(app.status().unwrap().contains("Already at t = 0.0 s"));
    press(&mut app, &[Action::SmallerStep, Action::SmallerStep]);
    assert!(app
        .status()
        .unwrap()
        .contains("already the smallest, 0.1 s"));
    for _ in 0..5 {
        app.update(Action::LargerStep);
    }
    assert!(app.status().unwrap().contains("already the largest, 5.0 s"));
    for _ in 0..6 {
        app.update(Action::Faster);
    }
    assert!(app.status().unwrap().contains("already the fastest"));
    app.update(Action::Unbound('z'));
    assert!(app
        .status()
        .unwrap()
        .contains("The key 'z' does nothing here"));
    // Keys the question does not take say what it does take.
    let mut asking = self::app("gc-pause", true);
    to_question(&mut asking);
    asking.update(Action::InjectPause);
    assert!(asking.status().unwrap().contains("a accepted, b rejected"));
    assert_eq!(asking.session().inputs(), &[]);
    // At the end of the lesson, → says so.
    let mut ended = app_at("gc-pause", true, 23_000);
    ended.update(Action::StepForward);
    assert!(ended
        .status()
        .unwrap()
        .contains("The lesson ended at 23.0 s"));
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
    to_question(&mut app);
    app.update(Action::Answer(true));
    let text = screen(&app, 80, 24);
    assert!(text.contains("CORRUPTED DATA!"), "{text}");
    assert!(
        text.contains("You said accepted. Right: ACCEPTED"),
        "{text}"
    );
}

#[test]
fn stepping_back_is_time_travel_and_loses_nothing() {
    let mut app = app_at("chaos", true, 12_000);
    press(&mut app, &[Action::Select(c(2)), Action::InjectPause]);
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
                client: c(2),
                until: 16_500
            }));
}

#[test]
fn g_pauses_x_crashes_and_a_down_client_is_told_the_truth() {
    let mut app = app_at("chaos", true, 8_000);
    press(&mut app, &[Action::Select(c(3)), Action::InjectPause]);
    assert!(app.session().world().client(c(3)).is_paused());
    assert_eq!(
        app.session().inputs()[0].kind,
        InputKind::Pause { client: c(3) }
    );
    // A second g at the same moment would change nothing: no second pause, and it says so.
    app.update(Action::InjectPause);
    assert_eq!(app.session().inputs().len(), 1);
    assert_eq!(
        app.status(),
        Some("client-3 is already frozen until 12.5 s.")
    );
    press(&mut app, &[Action::Select(c(1)), Action::Crash]);
    assert!(app.status().unwrap().contains("restarts at 11.0 s"));
    let text = screen(&app, 80, 24);
    assert!(text.contains("crashed"), "{text}");
    // A second x on the down client changes nothing, and says so.
    let inputs = app.session().inputs().len();
    app.update(Action::Crash);
    assert!(app
        .status()
        .unwrap()
        .contains("client-1 is already down; it restarts at 11.0 s"));
    assert_eq!(app.session().inputs().len(), inputs);
    app.update(Action::InjectPause);
    assert!(app.status().unwrap().contains("cannot pause"));
    assert_eq!(app.session().inputs().len(), inputs);
    app.seek(11_500);
    assert!(app
        .session()
        .world()
        .events()
        .iter()
        .any(|e| e.kind == EventKind::Restart { client: c(1) }));
}

#[test]
fn d_delays_the_selected_clients_next_write_in_the_network() {
    let mut app = app_at("gc-pause", true, 11_500);
    press(&mut app, &[Action::Select(c(2)), Action::DelayWrite]);
    assert!(app
        .status()
        .unwrap()
        .contains("hold client-2's next write for 15.0 s"));
    app.seek(12_000);
    let sent = app.session().world().events().iter().any(|e| {
        matches!(&e.kind, EventKind::Send { client, deliver_at, .. } if *client == c(2) && *deliver_at == 27_000)
    });
    assert!(sent, "the write is sent at 12 s and arrives at 27 s");
    let text = screen(&app, 80, 24);
    assert!(text.contains("network"), "a network lane appears:\n{text}");
    assert!(text.contains("c2 t2 → file at 27.0 s"), "{text}");
}

#[test]
fn step_and_speed_keys_stay_in_their_ranges() {
    let mut app = app("gc-pause", true);
    assert_eq!(app.step_ms(), 500);
    press(&mut app, &[Action::SmallerStep, Action::SmallerStep]);
    assert_eq!(app.step_ms(), 100);
    assert!(screen(&app, 100, 30).contains("step 0.1 s"));
    for _ in 0..9 {
        app.update(Action::LargerStep);
    }
    assert_eq!(app.step_ms(), 5_000);
    assert_eq!(app.speed(), 1.0);
    // The speed is said when it changes: an 80-column header has no room for it.
    app.update(Action::Faster);
    assert_eq!(
        app.status(),
        Some("Playback speed 2x: space plays and pauses.")
    );
    assert!(screen(&app, 80, 24).contains("Playback speed 2x"));
    app.update(Action::Slower);
    assert_eq!(
        app.status(),
        Some("Playback speed 1x: space plays and pauses.")
    );
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
    // The lesson's question stops the play before client 2's write at 9 s; skipped, it plays on.
    assert_eq!(app.mode(), Mode::Question, "at {}", app.session().now());
    assert!(!app.is_playing());
    press(&mut app, &[Action::Skip, Action::TogglePlay]);
    for _ in 0..20 {
        app.update(Action::Tick(100));
    }
    assert_eq!(app.session().now(), 13_000, "stops at the end");
    assert!(!app.is_playing());
    app.update(Action::TogglePlay);
    assert!(!app.is_playing());
    assert!(app.status().unwrap().contains("The lesson ended"));
}

#[test]
fn playing_stops_before_a_question() {
    let mut app = app_at("gc-pause", true, 14_000);
    press(&mut app, &[Action::TogglePlay]);
    for _ in 0..40 {
        app.update(Action::Tick(100));
    }
    assert!(!app.is_playing());
    assert_eq!(app.mode(), Mode::Question);
    assert_eq!(
        app.session().now(),
        16_500,
        "at the write's moment, the write still to come"
    );
}

#[test]
fn no_question_when_what_it_asks_about_will_not_happen() {
    // Client 1 is crashed before the write the question asks about: no question; the caption
    // says what happens instead.
    let mut app = app_at("gc-pause", true, 16_100);
    press(&mut app, &[Action::Select(c(1)), Action::Crash]);
    for _ in 0..3 {
        app.update(Action::NextMoment);
        assert_ne!(app.mode(), Mode::Question);
    }
    let caption = app.caption();
    assert!(!caption.text.contains("REJECTED"), "{}", caption.text);
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
fn the_picker_shows_every_title_whole() {
    let mut app = app("gc-pause", true);
    for cursor in 0..Scenario::all_built_in().len() {
        app.update(Action::OpenPicker);
        for _ in 0..cursor {
            app.update(Action::PickerDown);
        }
        let scenario = &Scenario::all_built_in()[cursor];
        let text = screen(&app, 80, 24);
        let flat = text
            .lines()
            .map(|l| l.trim_matches(|c: char| " │┌┐└┘├┤─".contains(c)))
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            flat.contains(&scenario.title),
            "{}'s title is not whole:\n{text}",
            scenario.name
        );
        app.update(Action::CloseOverlay);
    }
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
        text.contains("✗ REJECTED t1 is not > t1"),
        "strict refuses the holder's second write, and says how:\n{text}"
    );
    press(&mut app, &[Action::CycleCheck, Action::CycleCheck]);
    assert_eq!(app.session().world().fenced_check(), FenceCheck::PerKey);
}

#[test]
fn quit_from_anywhere() {
    for setup in [
        &[][..],
        &[Action::ToggleHelp],
        &[Action::OpenPicker],
        &[Action::NextMoment; 7],
    ] {
        let mut app = app("gc-pause", true);
        press(&mut app, setup);
        app.update(Action::Quit);
        assert!(app.should_quit(), "{setup:?}");
    }
}

// ------------------------------------------------------------------ captions follow the run

#[test]
fn a_caption_never_states_what_the_lecturers_pause_prevented() {
    // Launch, 2 g, n x4: client 2 is frozen at 11 s, so it takes no lock and writes nothing.
    let mut app = app("gc-pause", true);
    press(&mut app, &[Action::Select(c(2)), Action::InjectPause]);
    for _ in 0..4 {
        app.update(Action::NextMoment);
    }
    assert_eq!(app.session().now(), 11_000);
    let caption = app.caption();
    assert!(
        matches!(caption.source, Source::Generated { .. }),
        "{caption:?}"
    );
    assert!(
        caption.text.contains("Client 2 is frozen in a GC pause you injected: its acquire of file-lock waits until it wakes at 15.0 s."),
        "{}",
        caption.text
    );
    app.update(Action::NextMoment);
    assert_eq!(app.session().now(), 12_000);
    let caption = app.caption();
    assert!(
        !caption.text.contains("Client 2 writes with token 2"),
        "{}",
        caption.text
    );
    assert!(
        caption.text.contains("its write to file waits"),
        "{}",
        caption.text
    );
}

#[test]
fn after_the_script_the_caption_follows_the_events() {
    // late-release, n x10: the script ends at 11 s; the lease's expiry at 16 s is told as it is.
    let mut app = app("late-release", true);
    for _ in 0..10 {
        app.update(Action::NextMoment);
    }
    app.seek(16_000);
    let caption = app.caption();
    assert!(
        caption
            .text
            .contains("Client 3's lease with token 3 runs out"),
        "{}",
        caption.text
    );
    assert!(!caption.text.contains("Now client 3 gets the lock"));
}

#[test]
fn with_fencing_off_the_lesson_never_claims_fencing_helped() {
    let app = app_at("gc-pause", false, 20_000);
    let text = app.caption().text;
    assert!(!text.contains("tokens order the writes"), "{text}");
    assert!(text.contains("Without fencing"), "{text}");
}

// ------------------------------------------------------------------ what is on screen

#[test]
fn help_lists_every_key_of_every_mode_and_explains_every_mark() {
    for (mode, open) in [
        (Mode::Main, &[][..]),
        (Mode::Question, &[Action::NextMoment; 7][..]),
    ] {
        let mut app = app("gc-pause", true);
        press(&mut app, open);
        assert_eq!(app.mode(), mode);
        app.update(Action::ToggleHelp);
        let text = screen(&app, 80, 24);
        for (keys, label) in tui::help_rows(mode) {
            assert!(
                text.contains(label),
                "{mode:?} help lacks {label:?}:\n{text}"
            );
            assert!(text.contains(&keys), "{mode:?} help lacks {keys:?}");
        }
        let pages = tui::help_pages(mode);
        assert_eq!(pages.len(), tui::HELP_PAGES, "the app cycles every page");
        let explained: Vec<String> = pages
            .iter()
            .flat_map(|(_, rows)| rows.iter().map(|(k, _)| k.clone()))
            .collect();
        for (glyph, _, _) in tui::LEGEND {
            assert!(
                explained.contains(&glyph.to_string()),
                "{glyph} unexplained"
            );
        }
        for needle in [
            "▸",
            "c2 t2",
            "GC, down",
            "╵5",
            "believes",
            "lock service",
            "highest",
        ] {
            assert!(
                explained.iter().any(|k| k == needle),
                "{needle} unexplained"
            );
        }
        // Every page, at the smallest screen and larger, shows every row whole.
        for (width, height) in [(70, 20), (80, 24), (120, 40)] {
            for (number, (title, rows)) in pages.iter().enumerate() {
                let text = screen(&app, width, height);
                assert!(
                    text.contains(&format!("Help {}/{}: {title}", number + 1, pages.len())),
                    "page {number} at {width}x{height}:\n{text}"
                );
                assert!(
                    !text.contains("more lines"),
                    "{width}x{height} cut:\n{text}"
                );
                let flat: String = text
                    .lines()
                    .map(|l| l.trim_matches(|c: char| " │┌┐└┘├┤─".contains(c)))
                    .collect::<Vec<_>>()
                    .join(" ")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                for (key, meaning) in rows {
                    let row = format!("{key} {meaning}");
                    let row = row.split_whitespace().collect::<Vec<_>>().join(" ");
                    assert!(
                        flat.contains(&row),
                        "{width}x{height} page {number} lacks {row:?}:\n{text}"
                    );
                }
                app.update(Action::HelpNext);
            }
            let text = screen(&app, width, height);
            assert!(
                text.contains(&format!("Help 1/{}", pages.len())),
                "wraps around"
            );
        }
        app.update(Action::Unbound('z'));
        assert_eq!(app.overlay(), Overlay::None, "any other key closes help");
    }
}

#[test]
fn belief_and_truth_disagree_at_the_key_moment() {
    let text = screen(&app_at("gc-pause", true, 16_500), 80, 24);
    let lane = text.lines().find(|l| l.contains("▸client-1")).unwrap();
    assert!(
        lane.contains("t1 8.5 s left") && lane.contains("ended 6.5 s ago"),
        "{lane}"
    );
    // Frozen, the belief stands still while the truth runs on.
    for (t, belief, truth) in [
        (9_000, "t1 9.0 s left", "live 1.0 s"),
        (14_000, "t1 9.0 s left", "ended 4.0 s ago"),
    ] {
        let text = screen(&app_at("gc-pause", true, t), 80, 24);
        let lane = text.lines().find(|l| l.contains("▸client-1")).unwrap();
        assert!(lane.contains(belief) && lane.contains(truth), "{t}: {lane}");
    }
}

#[test]
fn too_small_says_so_and_tiny_areas_do_not_panic() {
    let app = app_at("gc-pause", true, 16_500);
    let text = screen(&app, 60, 15);
    assert!(text.contains("Terminal too small: 60x15"));
    assert!(text.contains("at least 70x20"));
    insta::assert_snapshot!("too_small_60x15", text);
    for (w, h) in [
        (1, 1),
        (0, 0),
        (2, 40),
        (200, 3),
        (80, 0),
        (0, 24),
        (69, 20),
        (70, 19),
    ] {
        let text = screen(&app, w, h);
        if w >= 20 && h >= 3 {
            assert!(text.contains("Terminal too small"), "{w}x{h}:\n{text}");
        }
    }
    let mut help = app_at("gc-pause", true, 3_000);
    help.update(Action::ToggleHelp);
    for (w, h) in [(70, 20), (1, 1), (75, 22)] {
        let _ = screen(&help, w, h);
    }
}

#[test]
fn a_huge_area_is_clamped_not_allocated() {
    let app = app_at("gc-pause", true, 16_500);
    let buf = tui::render_buffer(&app, u16::MAX, u16::MAX);
    assert_eq!(
        (buf.area.width, buf.area.height),
        (tui::MAX_WIDTH, tui::MAX_HEIGHT)
    );
    assert_eq!(tui::clamped((u16::MAX, 0)).height, 1);
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
    tui::render_buffer(app, w, h)
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
    let mut colored = App::new(
        Session::new(setup("gc-pause", true, FenceCheck::PerKey)),
        Theme::colored(),
    );
    colored.seek(16_500);
    let buf = buffer(&colored, 80, 24);
    let (x, y) = find(&buf, "FENCING ON");
    assert_eq!(buf[(x + 1, y)].bg, Color::Green);
    let (x, y) = find(&buf, "✗ REJECTED t1 < t2");
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
        // Nor faint text, which a projector loses: what is dim in colour is plain without.
        assert!(
            !cell.modifier.contains(Modifier::DIM),
            "NO_COLOR leaves {:?} dim",
            cell.symbol()
        );
    }
    // Without colour the state still shows: reversed header chip, reversed corruption.
    let (x, y) = find(&buf, "FENCING OFF");
    assert!(buf[(x + 1, y)].modifier.contains(Modifier::REVERSED));
    let (x, y) = find(&buf, "! CORRUPTED DATA! t1 < t2");
    assert!(buf[(x, y)].modifier.contains(Modifier::REVERSED));
}

// ------------------------------------------------------------------ snapshots

#[test]
fn snapshots_of_the_key_moments() {
    let at = |name, fencing, t| app_at(name, fencing, t);
    insta::assert_snapshot!(
        "gc_pause_fenced_80x24",
        screen(&at("gc-pause", true, 16_500), 80, 24)
    );
    insta::assert_snapshot!(
        "gc_pause_unfenced_80x24",
        screen(&at("gc-pause", false, 16_500), 80, 24)
    );
    insta::assert_snapshot!(
        "gc_pause_fenced_120x40",
        screen(&at("gc-pause", true, 16_500), 120, 40)
    );
    insta::assert_snapshot!(
        "gc_pause_unfenced_120x40",
        screen(&at("gc-pause", false, 16_500), 120, 40)
    );
    insta::assert_snapshot!(
        "gc_pause_frozen_belief_80x24",
        screen(&at("gc-pause", true, 14_000), 80, 24)
    );
    insta::assert_snapshot!("two_locks_global_80x24", {
        let mut app = App::new(
            Session::new(setup("two-locks", true, FenceCheck::Global)),
            Theme::plain(),
        );
        app.seek(4_000);
        screen(&app, 80, 24)
    });
    let mut compare = at("gc-pause", true, 16_500);
    compare.update(Action::ToggleCompare);
    insta::assert_snapshot!("gc_pause_compare_80x24", screen(&compare, 80, 24));
    let mut help = at("gc-pause", true, 0);
    help.update(Action::ToggleHelp);
    insta::assert_snapshot!("help_80x24", screen(&help, 80, 24));
    help.update(Action::HelpNext);
    insta::assert_snapshot!("help_marks_80x24", screen(&help, 80, 24));
    insta::assert_snapshot!("chaos_120x40", screen(&at("chaos", true, 30_000), 120, 40));
}

// ------------------------------------------------------------------ recordings

#[test]
fn a_recorded_session_replays_event_for_event() {
    use fencing_lab::sim::recording;
    let mut live = app_at("chaos", true, 5_000);
    press(
        &mut live,
        &[
            Action::Select(c(2)),
            Action::InjectPause,
            Action::DelayWrite,
        ],
    );
    live.seek(9_000);
    press(&mut live, &[Action::ToggleFencing, Action::CycleCheck]);
    live.seek(40_000);
    let json = recording::to_json(live.session());
    let loaded = recording::from_json(&json, "test.json").unwrap();
    assert_eq!(loaded.implementation, None, "made on this library");
    let replayed = Session::played_to_with(loaded.setup, loaded.inputs, 40_000);
    assert_eq!(replayed.world().events(), live.session().world().events());
    assert_eq!(replayed.inputs(), live.session().inputs());
}

#[test]
fn a_recording_names_the_students_implementation_it_ran_on() {
    use fencing_lab::sim::recording;
    let recorded = setup("gc-pause", true, FenceCheck::PerKey)
        .student(fencing_lab::sim::built_in(), "labs/ada");
    let mut app = App::new(Session::new(recorded), Theme::plain());
    press(&mut app, &[Action::InjectPause]);
    let json = recording::to_json(app.session());
    assert!(json.contains(r#""implementation": "labs/ada""#), "{json}");
    let loaded = recording::from_json(&json, "r.json").unwrap();
    assert_eq!(
        loaded.implementation,
        Some(std::path::PathBuf::from("labs/ada"))
    );
    assert_eq!(loaded.inputs, app.session().inputs());
    // The student's storage has its own rule: the footer does not offer to switch ours.
    let student = setup("gc-pause", true, FenceCheck::PerKey)
        .student(fencing_lab::sim::built_in(), "labs/ada");
    let mut app = App::new(Session::new(student), Theme::plain());
    for (width, at_end) in [(80, false), (200, false), (200, true)] {
        if at_end {
            app.seek(app.session().scenario().end);
        }
        let footer = screen(&app, width, 24).lines().last().unwrap().to_owned();
        assert!(
            !footer.contains("fencing") && !footer.contains("check"),
            "{footer}"
        );
        assert!(footer.contains("quit"), "{footer}");
    }
    press(&mut app, &[Action::ToggleFencing]);
    assert!(
        app.session().world().fencing(),
        "f does not switch a student's storage"
    );
    assert!(
        app.status().is_some_and(|s| s.contains("your")),
        "{:?}",
        app.status()
    );
}

#[test]
fn a_broken_recording_is_one_sentence_with_its_control_characters_escaped() {
    use fencing_lab::sim::recording;
    for (text, wanted) in [
        ("{", "not a fencing-lab recording"),
        (r#"{"format":2,"scenario":"gc-pause","seed":1,"fencing":true,"check":"per-key","inputs":[]}"#, "format 2"),
        (r#"{"format":1,"scenario":"nosuch\u001b[2J","seed":1,"fencing":true,"check":"per-key","inputs":[]}"#, "\\u{1b}[2J"),
        (r#"{"format":1,"scenario":"gc-pause","seed":1,"fencing":true,"check":"per-key","inputs":[{"at":1e300,"action":"pause","client":1}]}"#, "from 0 to 86400"),
        ("\u{feff}{\"format\":1,\"scenario\":\"gc-pause\",\"seed\":1,\"fencing\":true,\"check\":\"per-key\",\"inputs\":[]}", ""),
    ] {
        match recording::from_json(text, "r.json") {
            Ok(_) => assert!(wanted.is_empty(), "{text} was accepted"),
            Err(e) => {
                assert!(e.contains(wanted), "{e}");
                assert!(!e.chars().any(char::is_control), "{e:?}");
            }
        }
    }
}

#[test]
fn the_scenario_and_its_title_are_never_cut_in_the_header() {
    for scenario in Scenario::all_built_in() {
        let app = App::new(
            Session::new(fencing_lab::sim::Setup::new(Arc::new(scenario.clone()))),
            Theme::plain(),
        );
        for width in [80, 100, 120] {
            let text = screen(&app, width, 30);
            let line = text.lines().nth(1).unwrap();
            assert!(
                line.contains(&scenario.title) || line.contains(&scenario.short_title),
                "{} at {width}: {line}",
                scenario.name
            );
            assert!(!line.contains('…'), "{line}");
        }
    }
}

// ------------------------------------------------------------------ settings a run keeps

fn footer(app: &App, width: u16) -> String {
    screen(app, width, 24).lines().last().unwrap().to_owned()
}

#[test]
fn the_picker_keeps_the_seed_the_system_and_the_students_implementation() {
    use fencing_lab::sim::{recording, systems::find};
    let load = |app: &mut App, name: &str| {
        app.update(Action::OpenPicker);
        let names: Vec<&str> = Scenario::built_in_names().collect();
        let from = names
            .iter()
            .position(|n| *n == app.session().scenario().name)
            .unwrap();
        let to = names.iter().position(|n| *n == name).unwrap();
        for _ in 0..(to + names.len() - from) % names.len() {
            app.update(Action::PickerDown);
        }
        app.update(Action::PickerChoose);
        assert_eq!(app.session().scenario().name, name);
    };
    // --seed: chaos, another lesson, chaos again: the same seed.
    let mut seeded = App::new(
        Session::new(setup("chaos", true, FenceCheck::PerKey).seed(11)),
        Theme::plain(),
    );
    load(&mut seeded, "gc-pause");
    load(&mut seeded, "chaos");
    assert_eq!(seeded.session().seed(), 11);
    assert!(screen(&seeded, 80, 24).contains("chaos, seed 11"));

    // --as: the next lesson is told in the same system's words.
    let etcd = setup("gc-pause", true, FenceCheck::PerKey).as_system(find("etcd").unwrap());
    let mut app = App::new(Session::new(etcd), Theme::plain());
    load(&mut app, "renew");
    assert_eq!(app.session().setup().system.map(|s| s.id), Some("etcd"));
    assert!(screen(&app, 80, 24)
        .lines()
        .next()
        .unwrap()
        .contains("etcd:"));

    // --impl: the next lesson runs on the student's code, and its recording says so, so a
    // replay does not quietly run on the built-in library.
    let student = setup("gc-pause", true, FenceCheck::PerKey)
        .student(fencing_lab::sim::built_in(), "labs/ada");
    let mut app = App::new(Session::new(student), Theme::plain());
    load(&mut app, "late-release");
    assert_eq!(
        app.session().setup().implemented_by.as_deref(),
        Some("labs/ada")
    );
    app.update(Action::InjectPause);
    let json = recording::to_json(app.session());
    assert!(json.contains(r#""implementation": "labs/ada""#), "{json}");
    assert!(json.contains(r#""scenario": "late-release""#), "{json}");
    let footer = footer(&app, 200);
    assert!(
        !footer.contains("fencing") && !footer.contains("check"),
        "{footer}"
    );
}

#[test]
fn a_system_with_no_token_offers_no_fencing_no_check_and_no_highest_token() {
    use fencing_lab::sim::systems::find;
    for id in ["redlock", "kubernetes"] {
        let system = find(id).unwrap();
        let mut app = App::new(
            Session::new(setup("gc-pause", true, FenceCheck::PerKey).as_system(system)),
            Theme::plain(),
        );
        for (action, says) in [
            (
                Action::ToggleFencing,
                "nothing to check, so fencing stays off.",
            ),
            (Action::CycleCheck, "there is no check to switch."),
            (Action::ToggleCompare, "no fenced storage to compare."),
        ] {
            app.update(action);
            assert!(
                app.status()
                    .is_some_and(|s| s.starts_with(system.name) && s.ends_with(says)),
                "{id} {action:?}: {:?}",
                app.status()
            );
        }
        assert!(
            !app.session().world().fencing(),
            "{id}: f turned fencing on"
        );
        assert!(!app.compare(), "{id}: c compared a fenced storage");
        assert!(
            app.session().inputs().is_empty(),
            "{id}: {:?}",
            app.session().inputs()
        );
        for width in [80, 120, 200] {
            let footer = footer(&app, width);
            for hint in ["f fencing", "v check", "c compare"] {
                assert!(!footer.contains(hint), "{id} at {width}: {footer}");
            }
        }
    }
}

/// The help offers exactly the switches the run has: under a system with no token and on a
/// student's storage `f`, `v` (and with no token `c`) only refuse, so the help names them once,
/// with the reason, in place of their rows. Over every system, ours, and a student's storage.
#[test]
fn the_help_offers_only_the_switches_the_run_has_and_says_why_not_the_others() {
    use fencing_lab::sim::systems::SYSTEMS;
    let mut setups = vec![(
        "ours".to_owned(),
        setup("gc-pause", true, FenceCheck::PerKey),
    )];
    for system in SYSTEMS {
        let fenced = setup("gc-pause", true, FenceCheck::PerKey).as_system(system);
        setups.push((system.id.to_owned(), fenced));
    }
    setups.push((
        "student".to_owned(),
        setup("gc-pause", true, FenceCheck::PerKey).student(fencing_lab::sim::built_in(), "ada"),
    ));
    let switches = [
        (Action::ToggleFencing, "f", "fencing on / off from now on"),
        (Action::CycleCheck, "v", "storage check: per-key"),
        (
            Action::ToggleCompare,
            "c",
            "compare fenced and unfenced storage",
        ),
    ];
    let mut lacking = 0;
    for (name, setup) in setups {
        let mut app = App::new(Session::new(setup), Theme::plain());
        app.update(Action::ToggleHelp);
        let text = screen(&app, 80, 24);
        let absent: Vec<&str> = switches
            .iter()
            .filter(|(action, _, _)| !app.command(*action).available)
            .map(|(_, key, _)| *key)
            .collect();
        for (action, _, label) in switches {
            let offered = app.command(action).available;
            assert_eq!(text.contains(label), offered, "{name} {action:?}:\n{text}");
        }
        let row = text
            .lines()
            .find(|l| l.contains("not in this run"))
            .map(str::to_owned);
        match row {
            None => assert!(absent.is_empty(), "{name} lacks {absent:?} unsaid:\n{text}"),
            Some(row) => {
                lacking += 1;
                assert!(
                    row.contains(&format!("│{} ", absent.join(" "))),
                    "{name}: {row}"
                );
                // Said as it is, not in the system's words ("no grant" would be false).
                assert!(!text.contains("no grant"), "{name}:\n{text}");
            }
        }
        for label in ["quit", "GC-pause the selected client", "restart"] {
            assert!(text.contains(label), "{name} lost {label:?}:\n{text}");
        }
    }
    assert!(
        lacking >= 3,
        "no run lacked a switch: the test tested nothing"
    );
}

#[test]
fn the_end_of_a_lesson_offers_what_comes_next_not_a_step() {
    let mut app = app_at("gc-pause", true, 23_000);
    for width in [80, 120] {
        let footer = footer(&app, width);
        assert!(footer.contains("lesson over:"), "{footer}");
        for gone in ["n next", "→ step", "space play"] {
            assert!(!footer.contains(gone), "{width}: {footer}");
        }
        for kept in ["f fencing", "r restart", "s lessons"] {
            assert!(footer.contains(kept), "{width}: {footer}");
        }
    }
    for action in [Action::NextMoment, Action::StepForward, Action::TogglePlay] {
        app.update(action);
        assert!(
            app.status().unwrap().contains("The lesson ended at 23.0 s"),
            "{action:?}: {:?}",
            app.status()
        );
        assert_eq!(app.session().now(), 23_000);
    }
    assert!(!app.is_playing());
    // Before the end the same keys are offered.
    let footer = footer(&app_at("gc-pause", true, 22_000), 80);
    assert!(
        footer.contains("n next") && footer.contains("→ step"),
        "{footer}"
    );
}

#[test]
fn restart_says_which_check_the_run_starts_with() {
    let mut app = app_at("renew", true, 3_000);
    press(&mut app, &[Action::CycleCheck, Action::Restart]);
    assert_eq!(
        app.status(),
        Some("Restarted at t = 0.0 s: fencing on, check strict (token > highest(key)).")
    );
    press(&mut app, &[Action::ToggleFencing, Action::Restart]);
    assert_eq!(
        app.status(),
        Some("Restarted at t = 0.0 s: fencing off (check strict once it is on).")
    );
}

#[test]
fn going_back_before_the_question_asks_it_again() {
    let mut app = app("gc-pause", true);
    to_question(&mut app);
    app.update(Action::StepBack);
    assert_eq!(app.mode(), Mode::Main, "← leaves the question");
    let times = to_question(&mut app);
    assert_eq!(app.prediction().unwrap().revealed, None, "asked again");
    assert!(times.len() <= 3, "{times:?}");
    // Answered, back before its write and forward again: asked again, for the class to
    // predict once more (say, after f).
    app.update(Action::Answer(false));
    press(&mut app, &[Action::StepBack, Action::StepBack]);
    to_question(&mut app);
    // Past the write, ← and → again do not ask: the class saw the answer at this moment.
    app.update(Action::Skip);
    app.seek(18_000);
    press(&mut app, &[Action::StepBack, Action::StepForward]);
    assert_eq!(app.mode(), Mode::Main);
}

#[test]
fn the_network_lane_draws_no_write_that_arrived_before_the_window() {
    // A write delayed early in a chaos run arrives long before the window of 60 s.
    let mut app = app_at("chaos", true, 1_000);
    app.update(Action::DelayWrite);
    app.seek(60_000);
    let sends: Vec<(u64, u64)> = app
        .session()
        .world()
        .events()
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Send { deliver_at, .. } => Some((e.t, deliver_at)),
            _ => None,
        })
        .collect();
    assert!(
        !sends.is_empty() && sends.iter().all(|&(_, arrives)| arrives < 20_000),
        "{sends:?}"
    );
    for (w, h) in [(80, 24), (120, 40)] {
        let text = screen(&app, w, h);
        let lane = text.lines().find(|l| l.contains(" network")).unwrap();
        assert!(!lane.contains('›'), "{w}x{h}: {lane}\n{text}");
        assert!(lane.contains("nothing in flight"), "{lane}");
    }
}

#[test]
fn a_handout_on_a_students_code_shows_its_screen_once_and_claims_no_fencing_off() {
    use fencing_lab::sim::systems::find;
    let handout = |setup: fencing_lab::sim::Setup| {
        let end = setup.scenario.end;
        let mut out = Vec::new();
        fencing_lab::cli::report::handout(&mut out, &Session::played_to(setup, end)).unwrap();
        String::from_utf8(out).unwrap()
    };
    let student = setup("gc-pause", true, FenceCheck::PerKey)
        .student(fencing_lab::sim::built_in(), "labs/ada");
    let text = handout(student);
    assert_eq!(text.matches("### The screen at").count(), 1, "{text}");
    assert!(
        text.contains("### The screen at 16.5 s, on your code"),
        "{text}"
    );
    assert!(!text.contains("fencing off"), "{text}");
    // With no token, the one screen is the unfenced one the run is.
    let redlock = setup("gc-pause", true, FenceCheck::PerKey).as_system(find("redlock").unwrap());
    let text = handout(redlock);
    assert_eq!(text.matches("### The screen at").count(), 1, "{text}");
    assert!(!text.contains("FENCING ON"), "{text}");
    // The library's own handout still shows both.
    let text = handout(setup("gc-pause", true, FenceCheck::PerKey));
    assert!(text.contains("16.5 s, fencing on") && text.contains("16.5 s, fencing off"));
}

/// The help's last page names each real system's token as that system does, under every `--as`:
/// the system in force's word for a token must not rewrite the others' (ZooKeeper's zxid is not
/// etcd's revision), while the pages before it do speak the system's words.
#[test]
fn the_help_names_every_systems_token_as_it_is_under_every_system() {
    use fencing_lab::sim::systems::SYSTEMS;
    // The help's box, as it reads on page `page` (from 1) at 80x24: the rows from its title to
    // its bottom border, the columns inside it.
    let help_box = |setup: fencing_lab::sim::Setup, page: usize| -> Vec<String> {
        let mut app = App::new(Session::new(setup), Theme::plain());
        app.update(Action::ToggleHelp);
        for _ in 1..page {
            app.update(Action::HelpNext);
        }
        let text = screen(&app, 80, 24);
        let rows: Vec<String> = text
            .lines()
            .skip_while(|l| !l.contains(" Help "))
            .map(|l| l.chars().skip(1).take(78).collect())
            .collect();
        let end = rows
            .iter()
            .position(|l| l.contains('└'))
            .expect("the box ends");
        rows[..=end].to_vec()
    };
    let last = tui::HELP_PAGES;
    let ours = help_box(setup("gc-pause", true, FenceCheck::PerKey), last);
    assert!(ours[0].contains("Real systems"), "{ours:#?}");
    let mut worded = 0;
    for system in SYSTEMS {
        let fenced = || setup("gc-pause", true, FenceCheck::PerKey).as_system(system);
        assert_eq!(help_box(fenced(), last), ours, "--as {}", system.id);
        if (1..last).any(|page| {
            help_box(fenced(), page) != help_box(setup("gc-pause", true, FenceCheck::PerKey), page)
        }) {
            worded += 1;
        }
    }
    assert!(
        worded > 0,
        "no system's words reached the help: the test tested nothing"
    );
}
