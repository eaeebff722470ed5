//! Never tell the class something false. Generated over every built-in scenario, every check,
//! fencing on and off, at every event moment, every beat and on a 0.5 s grid: no screen,
//! transcript or JSON event states an inequality or verdict that the active check did not make,
//! every mark agrees with its verdict, and no caption states an outcome the events contradict,
//! also with random lecturer inputs (GC pauses, crashes, delays, fencing and check switches).

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use fencing_lab::sim::lesson::{
    belief_and_truth, BeliefTruth, Believes, Lesson, RunView, Source, Truth,
};
use fencing_lab::sim::{
    ClientId, Event, EventKind, Input, InputKind, Ms, Scenario, Session, Setup, Variant, Vocab,
};
use fencing_lab::tui::{self, App, Theme, Window};
use fencing_lab::{FenceCheck, Judge, Outcome, Verdict};
use proptest::prelude::*;

/// Fencing on with each check, and fencing off.
const SETTINGS: [(bool, FenceCheck); 4] = [
    (true, FenceCheck::PerKey),
    (true, FenceCheck::Strict),
    (true, FenceCheck::Global),
    (false, FenceCheck::PerKey),
];

fn setup_of(scenario: &Scenario, fencing: bool, check: FenceCheck) -> Setup {
    Setup::new(Arc::new(scenario.clone()))
        .fencing(fencing)
        .check(check)
}

/// Every moment worth looking at: events, beats, and a half-second grid.
fn moments(scenario: &Scenario, events: &[Event]) -> Vec<Ms> {
    let mut all: BTreeSet<Ms> = events.iter().map(|e| e.t).collect();
    all.extend(scenario.beats.iter().map(|b| b.at));
    all.extend((0..=scenario.end).step_by(500));
    all.into_iter().filter(|&t| t <= scenario.end).collect()
}

/// What the panel's comparison must say for `verdict`, derived here from the numbers alone.
fn expected_comparison(v: &Verdict) -> String {
    let t = v.token;
    match v.judge {
        Judge::Check(FenceCheck::Unchecked) => match v.key_highest {
            Some(h) if t < h => format!("no check, t{t} < t{h}"),
            _ => "no check".into(),
        },
        Judge::Check(FenceCheck::Strict) => match v.key_highest {
            None => "new key".into(),
            Some(h) if t > h => format!("t{t} > t{h}"),
            Some(h) => format!("t{t} is not > t{h}"),
        },
        Judge::Check(FenceCheck::Global) => match v.any_highest {
            None => "first write".into(),
            Some(h) if t >= h => format!("t{t} >= t{h} (any key)"),
            Some(h) => format!("t{t} < t{h} (any key)"),
        },
        Judge::Check(FenceCheck::PerKey) | Judge::External => match v.key_highest {
            None => "new key".into(),
            Some(h) if t >= h => format!("t{t} >= t{h}"),
            Some(h) => format!("t{t} < t{h}"),
        },
    }
}

/// Whether `check` let `token` through, decided here independently of the library.
fn admitted(v: &Verdict) -> bool {
    let t = v.token;
    match v.judge {
        Judge::Check(FenceCheck::Unchecked) => true,
        Judge::Check(FenceCheck::Strict) => v.key_highest.is_none_or(|h| t > h),
        Judge::Check(FenceCheck::Global) => v.any_highest.is_none_or(|h| t >= h),
        _ => v.key_highest.is_none_or(|h| t >= h),
    }
}

/// Every "a < b", "ta >= tb", "a is not > b" in `text`: each must hold for the numbers.
fn check_inequalities(text: &str, context: &str) {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')' || c == ':')
        .filter(|w| !w.is_empty())
        .collect();
    let number = |w: &str| {
        w.trim_start_matches('t')
            .trim_end_matches(['.', ';'])
            .parse::<u64>()
            .ok()
    };
    for i in 0..words.len() {
        let (Some(a), op) = (number(words[i]), words.get(i + 1).copied()) else {
            continue;
        };
        let (op, rhs) = match (op, words.get(i + 2), words.get(i + 3)) {
            (Some("is"), Some(&"not"), Some(&">")) => ("not>", words.get(i + 4)),
            (Some(op @ ("<" | ">" | ">=" | "=")), rhs, _) => (op, rhs),
            _ => continue,
        };
        let Some(b) = rhs.and_then(|w| number(w)) else {
            continue;
        };
        let holds = match op {
            "<" => a < b,
            ">" => a > b,
            ">=" => a >= b,
            "=" => a == b,
            _ => a <= b,
        };
        assert!(holds, "{context}: '{a} {op} {b}' is false in: {text}");
    }
}

/// The mark the timeline must draw for a column holding these write outcomes.
fn write_glyph(outcomes: &[Outcome]) -> Option<char> {
    outcomes.iter().max().map(|o| match o {
        Outcome::Accepted => '✓',
        Outcome::Rejected => '✗',
        Outcome::Corrupted => '!',
    })
}

/// The screen of `app` at 80x24 agrees with the history: the verdict line, the marks, every
/// inequality and every CORRUPTED.
fn check_screen(app: &App, context: &str) {
    let world = app.session().world();
    let now = world.now();
    let events = world.events();
    let text = tui::render_text(app, 80, 24);

    // The header says what the storage does.
    let header = text.lines().next().unwrap();
    assert!(
        header.contains(if world.fencing() {
            "FENCING ON"
        } else {
            "FENCING OFF"
        }),
        "{context}: {header}"
    );
    let rule = match world.judge() {
        Judge::Check(check) => check.rule(),
        Judge::External => "your FencedStorage",
    };
    assert!(
        header.contains(rule),
        "{context}: the header lacks {rule}: {header}"
    );

    // The storage's last line is the latest write's verdict, as the check made it.
    let latest = events.iter().rev().find_map(|e| match &e.kind {
        EventKind::Write { verdict, .. } => Some(verdict),
        _ => None,
    });
    if let Some(v) = latest {
        assert_eq!(
            v.accepted,
            admitted(v),
            "{context}: the storage misjudged {v:?}"
        );
        let (mark, word) = match v.outcome() {
            Outcome::Accepted => ("✓", "accepted"),
            Outcome::Rejected => ("✗", "REJECTED"),
            Outcome::Corrupted => ("!", "CORRUPTED DATA!"),
        };
        let line = format!("{mark} {word} {}", expected_comparison(v));
        // A narrow panel may leave out the note "no check" (its title says NO CHECK), never
        // the tokens.
        let short = line
            .replacen("no check, ", "", 1)
            .replacen(" no check", "", 1);
        assert!(
            text.contains(&line) || text.contains(&short),
            "{context}: no '{line}' on screen:\n{text}"
        );
    }

    // Every inequality on screen holds.
    for line in text.lines() {
        check_inequalities(line, context);
    }

    // CORRUPTED appears only when a stale write was accepted, and always when the latest was.
    let corrupted = events.iter().any(|e| {
        e.kind
            .verdict()
            .is_some_and(|v| v.outcome() == Outcome::Corrupted)
    });
    if text.contains("CORRUPTED") {
        assert!(
            corrupted,
            "{context}: CORRUPTED on screen with no corruption:\n{text}"
        );
    }
    if latest.is_some_and(|v| v.outcome() == Outcome::Corrupted) {
        assert!(text.contains("CORRUPTED DATA!"), "{context}:\n{text}");
    }

    // Each client lane's write marks agree with the verdicts of the writes in their column.
    let (lane_x, lane_w) = tui::lane_span(78);
    let scenario = world.scenario();
    let window = Window::choose(lane_w, now, scenario.end, scenario.chaos.is_some());
    let lines: Vec<&str> = text.lines().collect();
    for client in ClientId::ALL {
        let row = lines
            .iter()
            .find(|l| l.contains(&format!("{}", client)) && l.starts_with('│'))
            .unwrap_or_else(|| panic!("{context}: no lane for {client}"));
        let cells: Vec<char> = row
            .chars()
            .skip(1 + lane_x as usize)
            .take(lane_w as usize)
            .collect();
        let mut by_column: std::collections::BTreeMap<u16, Vec<Outcome>> = Default::default();
        for e in events {
            if let EventKind::Write {
                client: c, verdict, ..
            } = &e.kind
            {
                if *c == client {
                    if let Some(col) = window.col_of(e.t) {
                        by_column.entry(col).or_default().push(verdict.outcome());
                    }
                }
            }
        }
        for (col, outcomes) in by_column {
            let drawn = cells.get(col as usize).copied();
            assert_eq!(
                drawn,
                write_glyph(&outcomes),
                "{context}: {client}'s column {col} shows {drawn:?} for {outcomes:?}:\n{text}"
            );
        }
        // And a write glyph never appears where no write of that verdict is.
        for (col, glyph) in cells.iter().enumerate() {
            if matches!(glyph, '✓' | '✗' | '!') {
                let t0 = window.start + col as u64 * window.scale;
                let has = events.iter().any(|e| {
                    e.t >= t0
                        && e.t < t0 + window.scale
                        && matches!(&e.kind, EventKind::Write { client: c, .. } if *c == client)
                });
                assert!(
                    has,
                    "{context}: {client} shows {glyph} at column {col} with no write:\n{text}"
                );
            }
        }
    }
}

/// The words of a caption that claim an outcome must match what happened in its stretch:
/// `events` are those from the beat (or the generated instant) up to now, `all` up to now.
fn check_caption_claims(text: &str, stretch: &[&Event], all: &[Event], context: &str) {
    check_inequalities(text, context);
    let writes = |o: Outcome| {
        stretch
            .iter()
            .any(|e| e.kind.verdict().is_some_and(|v| v.outcome() == o))
    };
    if text.contains("REJECTED") {
        assert!(
            writes(Outcome::Rejected),
            "{context}: says REJECTED: {text}"
        );
    }
    if text.contains("CORRUPTED") {
        let any = all.iter().any(|e| {
            e.kind
                .verdict()
                .is_some_and(|v| v.outcome() == Outcome::Corrupted)
        });
        assert!(any, "{context}: says CORRUPTED: {text}");
    }
    if text.contains("refused") && !text.contains("refused, even") {
        let refusal = stretch.iter().any(|e| {
            matches!(
                e.kind,
                EventKind::AcquireRefused { .. }
                    | EventKind::RenewRefused { .. }
                    | EventKind::ReleaseRefused { .. }
            ) || e.kind.verdict().is_some_and(|v| !v.accepted)
        });
        assert!(refusal, "{context}: says refused: {text}");
    }
    for pattern in [
        "gets token ",
        "takes the lock with token ",
        "and gets token ",
    ] {
        if let Some(rest) = text.split(pattern).nth(1) {
            let token: u64 = rest
                .trim_start_matches(|c: char| !c.is_ascii_digit())
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|d| d.parse().ok())
                .unwrap();
            let granted = stretch
                .iter()
                .any(|e| matches!(e.kind, EventKind::Grant { token: t, .. } if t == token));
            assert!(granted, "{context}: says token {token} was granted: {text}");
        }
    }
}

/// The caption of `session` now, checked against its events.
fn check_caption(lesson: &Lesson, session: &Session, context: &str) {
    let now = session.now();
    let caption = lesson.caption(RunView::of(session), now);
    let events = session.world().events();
    let from = match caption.source {
        Source::Script { beat, .. } => session.scenario().beats[beat].at,
        Source::Generated { at } => at,
        _ => return,
    };
    let upto = match caption.source {
        Source::Generated { at } => at,
        _ => now,
    };
    let stretch: Vec<&Event> = events
        .iter()
        .filter(|e| e.t >= from && e.t <= upto)
        .collect();
    check_caption_claims(&caption.text, &stretch, events, context);
}

#[test]
fn every_screen_states_only_what_the_check_did() {
    let mut checked = 0;
    for scenario in Scenario::all_built_in() {
        for (fencing, check) in SETTINGS {
            let setup = setup_of(scenario, fencing, check);
            let full = Session::played_to(setup.clone(), scenario.end);
            let mut app = App::new(Session::new(setup), Theme::plain());
            for t in moments(scenario, full.world().events()) {
                app.seek(t);
                let context = format!(
                    "{} fencing={fencing} {} at {t} ms",
                    scenario.name,
                    check.name()
                );
                check_screen(&app, &context);
                check_caption(app.lesson(), app.session(), &context);
                checked += 1;
            }
        }
    }
    assert!(checked > 2_000, "only {checked} moments checked");
}

#[test]
fn every_transcript_and_json_line_states_only_what_the_check_did() {
    for scenario in Scenario::all_built_in() {
        for (fencing, check) in SETTINGS {
            let setup = setup_of(scenario, fencing, check);
            let session = Session::played_to(setup, scenario.end);
            let vocab = Vocab::plain(&scenario.locks);
            let context = format!("{} fencing={fencing} {}", scenario.name, check.name());
            let events = session.world().events();
            for (i, e) in events.iter().enumerate() {
                let line = e.describe(&vocab);
                check_inequalities(&line, &context);
                let json = e.to_json(&vocab);
                if let EventKind::Write { verdict, .. } = &e.kind {
                    assert_eq!(verdict.accepted, admitted(verdict), "{context}: {line}");
                    assert_eq!(json["compared"], expected_comparison(verdict), "{context}");
                    let outcome = match verdict.outcome() {
                        Outcome::Accepted => "accepted",
                        Outcome::Rejected => "rejected",
                        Outcome::Corrupted => "corrupted",
                    };
                    assert_eq!(json["outcome"], outcome, "{context}");
                    assert_eq!(json["accepted"], verdict.accepted);
                    // The sentence names the rule that decided.
                    let rule_words = match verdict.judge {
                        Judge::Check(FenceCheck::Global) if verdict.any_highest.is_some() => {
                            "of any key"
                        }
                        Judge::Check(FenceCheck::Unchecked) => "no check",
                        _ => "",
                    };
                    assert!(line.contains(rule_words), "{context}: {line}");
                    if matches!(verdict.judge, Judge::Check(FenceCheck::Strict)) {
                        assert!(
                            !line.contains(" < ") || verdict.is_stale(),
                            "{context}: {line}"
                        );
                    }
                    // A corruption event follows exactly the corrupted writes.
                    let next_is_corruption = matches!(
                        events.get(i + 1).map(|e| &e.kind),
                        Some(EventKind::Corruption { .. })
                    );
                    assert_eq!(
                        next_is_corruption,
                        verdict.outcome() == Outcome::Corrupted,
                        "{context}: {line}"
                    );
                }
            }
            let mut out = Vec::new();
            fencing_lab::cli::report::transcript(&mut out, &session).unwrap();
            let transcript = String::from_utf8(out).unwrap();
            for line in transcript.lines() {
                check_inequalities(line, &context);
            }
            // The counts are the events'.
            let corrupted = events
                .iter()
                .filter(|e| matches!(e.kind, EventKind::Corruption { .. }))
                .count() as u64;
            assert_eq!(session.world().stats().corruptions, corrupted, "{context}");
            // The summary names the rule the last write was judged by, as the write lines do.
            let summary = fencing_lab::cli::report::summary_json(session.world(), session.now());
            let last_write = events.iter().rev().find_map(|e| e.kind.verdict());
            if let Some(verdict) = last_write {
                assert_eq!(
                    summary["check"],
                    fencing_lab::sim::event::judge_name(verdict.judge),
                    "{context}: {summary}"
                );
            }
            assert_eq!(summary["fencing"], fencing, "{context}");
            assert_eq!(summary["corruptions"], corrupted, "{context}");
        }
    }
}

#[test]
fn every_scripted_caption_is_shown_in_its_reference_run_and_claims_only_what_happened() {
    // With no lecturer, each setting's run is its own reference: every beat shows the script.
    for scenario in Scenario::all_built_in() {
        for (fencing, check) in SETTINGS {
            let setup = setup_of(scenario, fencing, check);
            let session = Session::played_to(setup, scenario.end);
            let lesson = Lesson::of(&session);
            for (i, beat) in scenario.beats.iter().enumerate() {
                let caption = lesson.caption(RunView::of(&session), beat.at);
                assert!(
                    matches!(caption.source, Source::Script { beat, .. } if beat == i),
                    "{} fencing={fencing} {}: beat {i} at {} shows {:?}",
                    scenario.name,
                    check.name(),
                    beat.at,
                    caption
                );
            }
        }
    }
}

fn input() -> impl Strategy<Value = (Ms, InputKind)> {
    let client = (0..3usize).prop_map(|i| ClientId::ALL[i]);
    (
        (0..50u64).prop_map(|k| k * 500),
        prop_oneof![
            3 => client.clone().prop_map(|client| InputKind::Pause { client }),
            2 => client.clone().prop_map(|client| InputKind::Crash { client }),
            1 => client.prop_map(|client| InputKind::Delay { client }),
            1 => any::<bool>().prop_map(|on| InputKind::Fencing { on }),
            1 => prop::sample::select(vec![FenceCheck::PerKey, FenceCheck::Strict, FenceCheck::Global])
                .prop_map(InputKind::Check),
        ],
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn with_random_lecturer_inputs_no_caption_contradicts_the_events(
        index in 0..8usize,
        setting in 0..4usize,
        inputs in prop::collection::vec(input(), 1..6),
    ) {
        let scripted: Vec<&Scenario> = Scenario::all_built_in().iter().filter(|s| s.chaos.is_none()).collect();
        let scenario = scripted[index % scripted.len()];
        let (fencing, check) = SETTINGS[setting];
        let inputs: Vec<Input> = inputs.into_iter().map(|(at, kind)| Input { at, kind }).collect();
        let setup = setup_of(scenario, fencing, check);
        let full = Session::played_to_with(setup.clone(), inputs.clone(), scenario.end);
        let mut app = App::new(Session::with_inputs(setup, inputs), Theme::plain());
        for t in moments(scenario, full.world().events()) {
            app.seek(t);
            let context = format!("{} fencing={fencing} {} at {t} ms, inputs {:?}", scenario.name, check.name(), app.session().inputs());
            check_caption(app.lesson(), app.session(), &context);
            check_screen(&app, &context);
        }
    }
}

#[test]
fn two_locks_the_global_check_refuses_the_honest_write_and_per_key_accepts_it() {
    let json = |check: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_fencing-lab"))
            .args(["run", "two-locks", "--format", "json", "--check", check])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|v| v["event"] == "write" && v["t"] == 4.0)
            .unwrap()
    };
    let global = json("global");
    assert_eq!(global["accepted"], false);
    assert_eq!(
        global["lease_live"], true,
        "an honest write: its lease is live"
    );
    assert_eq!(global["highest"], 1, "orders has only seen token 1");
    assert_eq!(
        global["compared"], "t1 < t2 (any key)",
        "refused against stock's token"
    );
    let per_key = json("per-key");
    assert_eq!(per_key["accepted"], true);
    assert_eq!(per_key["compared"], "t1 >= t1");
}

/// A question asks about its beat's own write. Here the network delivers client 2's old write
/// (token 1, REJECTED) at the very instant client 1 writes again with token 2 (accepted): the
/// answer, the reveal and the question's premise must all be about client 1's write.
#[test]
fn the_answer_judges_the_asked_write_when_another_arrives_at_the_same_instant() {
    let text = r#"
title = "two writes meet"
lease = 10.0
[[beat]]
at = 0.0
caption = "Client 2 takes the lock."
client = 2
do = "acquire"
[[beat]]
at = 1.0
caption = "Client 2 writes; the network holds the write."
client = 2
do = "write"
key = "file"
value = "old"
delay = 4.0
[[beat]]
at = 2.0
caption = "Client 2 releases."
client = 2
do = "release"
[[beat]]
at = 3.0
caption = "Client 1 takes the lock."
client = 1
do = "acquire"
[[beat]]
at = 4.0
caption = "Client 1 writes with token 2."
client = 1
do = "write"
key = "file"
value = "first"
[[beat]]
at = 5.0
caption = "Client 1 writes again with token 2."
ask = "Will client 1's second write be accepted?"
client = 1
do = "write"
key = "file"
value = "second"
"#;
    let scenario = Arc::new(Scenario::parse("meet", "meet.toml", text).unwrap());
    let setup = Setup::new(scenario.clone());
    let lesson = Lesson::of(&Session::new(setup.clone()));
    let before = Session::played_to(setup.clone(), 4_999);
    assert!(
        lesson.question_applies(before.world(), 5),
        "client 1 will write as the question says"
    );
    let session = Session::played_to(setup, 5_000);
    let writes: Vec<(ClientId, u64, bool)> = session
        .world()
        .events()
        .iter()
        .filter(|e| e.t == 5_000)
        .filter_map(|e| match &e.kind {
            EventKind::Write {
                client, verdict, ..
            } => Some((*client, verdict.token, verdict.accepted)),
            _ => None,
        })
        .collect();
    assert_eq!(
        writes,
        [(ClientId::ALL[1], 1, false), (ClientId::ALL[0], 2, true)],
        "the delayed write arrives first, then client 1 writes"
    );
    let run = RunView::of(&session);
    assert!(lesson.has_answer(run, 5));
    assert_eq!(
        lesson.answer(run, 5).text,
        "ACCEPTED, token 2 >= 2, the highest token 'file' has accepted."
    );
    assert_eq!(
        lesson.reveal(run, 5, Some(false)).text,
        "You said rejected. Not quite: ACCEPTED, token 2 >= 2, the highest token 'file' has \
         accepted."
    );
}

/// A one-lock scenario with a `lease`-second lease, made of `beats` (see [`beat`]).
fn custom(lease: f64, beats: &str) -> Arc<Scenario> {
    let text =
        format!("title = \"custom\"\nlease = {lease:?}\nlock = \"file-lock\"\nend = 6.0\n{beats}");
    Arc::new(Scenario::parse("custom", "custom.toml", &text).unwrap())
}

/// A beat of a custom scenario: `client` does `action` at `at` seconds.
fn beat(at: f64, client: u8, action: &str) -> String {
    format!("[[beat]]\nat = {at:?}\ncaption = \"A beat.\"\nclient = {client}\n{action}\n")
}

/// The caption at `t` of a custom scenario, with lecturer inputs.
fn custom_caption_at(lease: f64, beats: &str, inputs: Vec<Input>, t: Ms) -> String {
    let setup = Setup::new(custom(lease, beats));
    let lesson = Lesson::of(&Session::new(setup.clone()));
    let session = Session::played_to_with(setup, inputs, t);
    lesson.caption(RunView::of(&session), t).text
}

/// A caption says a client is frozen or down only of that client, and another client's crash,
/// wake or restart does not change what is true of it.
#[test]
fn frozen_and_down_are_said_only_of_the_client_they_are_true_of() {
    let caption_at = |beats: &str, t: Ms| custom_caption_at(2.0, beats, Vec::new(), t);
    // Client 1 frozen, client 3 down: client 2's lease just runs out.
    let others = [
        beat(0.0, 3, "do = \"crash\"\nseconds = 20.0"),
        beat(0.5, 1, "do = \"pause\"\nseconds = 20.0"),
        beat(1.0, 2, "do = \"acquire\""),
    ]
    .concat();
    assert_eq!(
        caption_at(&others, 3_000),
        "Client 2's lease with token 1 runs out: file-lock is free."
    );
    // Client 1 frozen, then client 3 crashes: client 1 is still frozen.
    let frozen = [
        beat(0.0, 1, "do = \"acquire\""),
        beat(0.5, 1, "do = \"pause\"\nseconds = 20.0"),
        beat(1.0, 3, "do = \"crash\"\nseconds = 20.0"),
    ]
    .concat();
    assert_eq!(
        caption_at(&frozen, 2_000),
        "Client 1's lease with token 1 runs out: file-lock is free. Client 1 is frozen and \
         cannot know."
    );
    // Client 1 down, then client 3 crashes and restarts: client 1 is still down.
    let down = [
        beat(0.0, 1, "do = \"acquire\""),
        beat(0.5, 1, "do = \"crash\"\nseconds = 20.0"),
        beat(0.6, 3, "do = \"crash\"\nseconds = 0.5"),
    ]
    .concat();
    assert_eq!(
        caption_at(&down, 2_000),
        "Client 1's lease with token 1 runs out: file-lock is free. Client 1 is down."
    );
}

/// Each variant's captions are checked against its own reference run, whatever order the
/// variants are asked for: in gc-pause, only without fencing does client 1's late write land.
#[test]
fn each_variant_has_its_own_reference_run() {
    use fencing_lab::sim::Variant;
    let scenario = Arc::new(Scenario::built_in("gc-pause").unwrap());
    let lesson = Lesson::of(&Session::new(Setup::new(scenario)));
    for variant in [
        Variant::Unfenced,
        Variant::Strict,
        Variant::Global,
        Variant::Fenced,
    ] {
        let late_write = lesson
            .reference(variant)
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::Write {
                    client, verdict, ..
                } if e.t == 16_500 && *client == ClientId::ALL[0] => Some(verdict.accepted),
                _ => None,
            })
            .expect("client 1 writes at 16.5 s");
        assert_eq!(late_write, variant == Variant::Unfenced, "{variant:?}");
    }
}

/// A client that crashed while it held the lock comes back without it, asks again and is
/// refused by its own lease: the caption says so, not that some other holder has it.
#[test]
fn a_refusal_by_the_clients_own_earlier_lease_says_so() {
    let beats = [
        beat(0.0, 1, "do = \"acquire\""),
        beat(1.0, 1, "do = \"crash\"\nseconds = 1.0"),
        beat(2.5, 1, "do = \"pause\"\nseconds = 1.0"),
        // Deferred to 3.5 s, after the last beat, where captions follow the events.
        beat(3.0, 1, "do = \"acquire\""),
    ]
    .concat();
    let caption = custom_caption_at(10.0, &beats, Vec::new(), 3_500);
    assert_eq!(
        caption,
        "Client 1 wakes from its GC pause; to it, no time has passed. Client 1 asks for \
         file-lock: refused, its own earlier lease is still live (the lock service cannot tell \
         it crashed)."
    );
}

/// When more happens at one instant than a caption can tell, it tells the two most important
/// things and counts the rest.
#[test]
fn a_crowded_instant_tells_two_things_and_counts_the_rest() {
    let beats = beat(0.0, 1, "do = \"acquire\"");
    let at = |kind| Input { at: 2_000, kind };
    let inputs = vec![
        at(InputKind::Pause {
            client: ClientId::ALL[0],
        }),
        at(InputKind::Pause {
            client: ClientId::ALL[1],
        }),
        at(InputKind::Crash {
            client: ClientId::ALL[2],
        }),
        at(InputKind::Check(FenceCheck::Strict)),
        at(InputKind::Fencing { on: false }),
    ];
    let caption = custom_caption_at(10.0, &beats, inputs, 2_000);
    assert_eq!(
        caption,
        "The storage's check is now strict: token > highest(key). Fencing is OFF from here: the \
         storage accepts every write, last writer wins. (3 more events in the event log.)",
        "five things happen at 2.0 s: the two switches are told, the pauses and the crash counted"
    );
}

/// A client that lost its lease in a crash has no write to send: the caption names the lock it
/// has no lease on, the second of two, not the first.
#[test]
fn a_write_without_a_lease_names_the_lock_it_has_no_lease_on() {
    let text = "title = \"two locks\"\nlease = 10.0\nlocks = [\"a-lock\", \"b-lock\"]\nend = 5.0\n\
                [[beat]]\nat = 0.0\ncaption = \"Client 2 takes b-lock.\"\nclient = 2\n\
                do = \"acquire\"\nlock = \"b-lock\"\n\
                [[beat]]\nat = 4.0\ncaption = \"Client 2 writes b.\"\nclient = 2\n\
                do = \"write\"\nlock = \"b-lock\"\nkey = \"b\"\nvalue = \"x\"\n";
    let scenario = Arc::new(Scenario::parse("two", "two.toml", text).unwrap());
    let setup = Setup::new(scenario);
    let lesson = Lesson::of(&Session::new(setup.clone()));
    // Crashed at 0.5 s, client 2 is back at 3.5 s without the lease it had.
    let crash = Input {
        at: 500,
        kind: InputKind::Crash {
            client: ClientId::ALL[1],
        },
    };
    let session = Session::played_to_with(setup, vec![crash], 4_000);
    assert_eq!(
        lesson.caption(RunView::of(&session), 4_000).text,
        "Client 2 believes it holds no lease on b-lock, so there is no write to b."
    );
}

/// What the lock panel says of a client's lease at `t` in a custom scenario with a 2 s lease.
fn belief_at(beats: &str, setup_with: impl Fn(Setup) -> Setup, client: u8, t: Ms) -> BeliefTruth {
    let session = Session::played_to(setup_with(Setup::new(custom(2.0, beats))), t);
    let world = session.world();
    belief_and_truth(world, world.client(ClientId::ALL[usize::from(client) - 1]))
}

/// The panel marks a belief stale exactly while its client still counts time on a lease that
/// has ended: not while the lease is live, and not once the client's own clock says it ran out.
#[test]
fn a_belief_is_stale_only_while_it_counts_time_on_an_ended_lease() {
    let frozen = [
        beat(0.0, 1, "do = \"acquire\""),
        beat(0.5, 1, "do = \"pause\"\nseconds = 3.0"),
    ]
    .concat();
    let at = |beats: &str, t| belief_at(beats, |s| s, 1, t);
    assert_eq!(
        at(&frozen, 1_000),
        BeliefTruth {
            believes: Believes::Holds {
                token: 1,
                left: 1_500
            },
            truth: Truth::Live { left: 1_000 },
            stale: false
        },
        "frozen, its clock stands still, but the lease is still live"
    );
    assert_eq!(
        at(&frozen, 3_000),
        BeliefTruth {
            believes: Believes::Holds {
                token: 1,
                left: 1_500
            },
            truth: Truth::Ended { ago: 1_000 },
            stale: true
        },
        "frozen past its lease's end, it still counts 1.5 s"
    );
    let running = beat(0.0, 1, "do = \"acquire\"");
    assert_eq!(
        at(&running, 2_000),
        BeliefTruth {
            believes: Believes::Holds { token: 1, left: 0 },
            truth: Truth::Ended { ago: 0 },
            stale: false
        },
        "its own clock says the lease ran out at the very moment it did"
    );
}

/// A crashed client believes nothing, but the lock service still holds its lease until it runs
/// out: the panel shows that lease as live.
#[test]
fn a_crashed_clients_lease_is_live_until_it_runs_out() {
    let beats = [
        beat(0.0, 1, "do = \"acquire\""),
        beat(0.5, 1, "do = \"crash\"\nseconds = 5.0"),
    ]
    .concat();
    assert_eq!(
        belief_at(&beats, |s| s, 1, 1_500),
        BeliefTruth {
            believes: Believes::Down,
            truth: Truth::Live { left: 500 },
            stale: false
        }
    );
}

/// On a student's lock service that hands out token 1 with every grant, a client whose lease
/// ran out while it was frozen is not shown as holding the new holder's lease, though the
/// tokens are equal: a lease is the client's only if it was granted to that client.
#[test]
fn another_clients_lease_with_the_same_token_is_not_this_clients() {
    use fencing_lab::sim::{built_in, Backend, LockApi, NextToken, Refusal};
    use fencing_lab::Lease;
    struct TokenOneForAll(Box<dyn LockApi>);
    impl LockApi for TokenOneForAll {
        fn set_time(&mut self, seconds: f64) {
            self.0.set_time(seconds)
        }
        fn acquire(&mut self, lock: &str, client: &str) -> Option<Lease> {
            let mut lease = self.0.acquire(lock, client)?;
            lease.token = 1;
            Some(lease)
        }
        fn renew(&mut self, lock: &str, client: &str, token: u64) -> Result<Lease, Refusal> {
            self.0.renew(lock, client, token)
        }
        fn release(&mut self, lock: &str, client: &str, token: u64) -> Result<(), Refusal> {
            self.0.release(lock, client, token)
        }
        fn holder(&mut self, lock: &str) -> Option<ClientId> {
            self.0.holder(lock)
        }
        fn next_token(&self) -> NextToken {
            NextToken::Unknown
        }
    }
    let token_one_for_all = |setup: Setup| {
        setup.backend(Arc::new(|scenario: &Scenario, check| {
            let backend = built_in()(scenario, check);
            Backend {
                locks: Box::new(TokenOneForAll(backend.locks)),
                ..backend
            }
        }))
    };
    let beats = [
        beat(0.0, 1, "do = \"acquire\""),
        beat(0.5, 1, "do = \"pause\"\nseconds = 4.0"),
        beat(3.0, 2, "do = \"acquire\""),
    ]
    .concat();
    let new_holder = belief_at(&beats, token_one_for_all, 2, 3_500);
    assert_eq!(new_holder.truth, Truth::Live { left: 1_500 });
    assert_eq!(
        belief_at(&beats, token_one_for_all, 1, 3_500),
        BeliefTruth {
            believes: Believes::Holds {
                token: 1,
                left: 1_500
            },
            truth: Truth::Ended { ago: 1_500 },
            stale: true
        },
        "client 2 holds the lock with token 1; client 1's own token 1 lease ended at 2.0 s"
    );
}

/// Words that are true of one storage setting only, and the settings they are true of.
const SETTING_WORDS: [(&str, &[Variant]); 6] = [
    (
        "fencing on",
        &[Variant::Fenced, Variant::Strict, Variant::Global],
    ),
    (
        "fencing is on",
        &[Variant::Fenced, Variant::Strict, Variant::Global],
    ),
    ("fencing off", &[Variant::Unfenced]),
    ("fencing is off", &[Variant::Unfenced]),
    ("strict check", &[Variant::Strict]),
    ("global highest", &[Variant::Global]),
];

#[test]
fn no_caption_names_a_setting_other_than_the_one_in_force() {
    // The lecturer switches fencing or the check at every beat of every scripted lesson; from
    // then on, no caption may speak of the setting that is no longer in force.
    let mut checked = 0;
    let scripted = Scenario::all_built_in()
        .iter()
        .filter(|s| s.chaos.is_none());
    for scenario in scripted {
        for (fencing, check) in SETTINGS {
            let switches = [
                InputKind::Fencing { on: !fencing },
                InputKind::Check(FenceCheck::Strict),
                InputKind::Check(FenceCheck::Global),
                InputKind::Check(FenceCheck::PerKey),
            ];
            for beat in &scenario.beats {
                for kind in switches {
                    let inputs = vec![Input { at: beat.at, kind }];
                    let setup = setup_of(scenario, fencing, check);
                    let session = Session::played_to_with(setup, inputs, scenario.end);
                    let lesson = Lesson::of(&session);
                    let view = RunView::of(&session);
                    for t in moments(scenario, session.world().events()) {
                        let caption = lesson.caption(RunView::of(&session), t);
                        let from = match caption.source {
                            Source::Script { beat, .. } => scenario.beats[beat].at,
                            Source::Generated { at } => at,
                            _ => t,
                        };
                        // A caption may tell of a write judged just before the switch at its
                        // own instant, so the setting in force before its stretch counts too.
                        let in_force =
                            [view.variant_at(from.saturating_sub(1)), view.variant_at(t)];
                        let now = in_force[1];
                        let text = caption.text.to_lowercase();
                        for (words, true_of) in SETTING_WORDS {
                            assert!(
                                !text.contains(words)
                                    || in_force.iter().any(|v| true_of.contains(v)),
                                "{} fencing={fencing} {}, {kind:?} at {} ms: at {t} ms the \
                                 setting is {now:?} but the caption says {words:?}: {text}",
                                scenario.name,
                                check.name(),
                                beat.at,
                            );
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 10_000, "only {checked} moments checked");
}
