//! Scenario files at their limits: every limit docs/scenarios.md states is exact. The value on
//! the limit is accepted, one step past it is refused in a sentence naming the field (and the
//! line, where the fault has one), and every default is the documented one. tests/hostile.rs
//! throws garbage at the real binary; this file walks the edges in-process.

use std::io::Write;
use std::sync::Arc;

use fencing_lab::sim::files::read_text_file;
use fencing_lab::sim::scenario::MAX_EVENTS;
use fencing_lab::sim::{
    BeatAction, ChaosParams, ClientAction, ClientId, Keep, LockId, Scenario, ScenarioError, Setup,
    World,
};
use proptest::prelude::*;

const HEAD: &str = "title = \"edges\"\nlease = 10.0\n";

/// A narration beat at 0 s, so that a file with only settings is a valid scenario.
const NARRATION: &str = "[[beat]]\nat = 0.0\ncaption = \"c\"\n";

fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    Scenario::parse("edges", "edges.toml", text)
}

fn accepted(text: &str) -> Scenario {
    parse(text).unwrap_or_else(|e| panic!("refused: {e}\n{text}"))
}

/// Refused, with every one of `words` in the sentence.
fn refused(text: &str, words: &[&str]) -> ScenarioError {
    let error = match parse(text) {
        Ok(_) => panic!("accepted, but it should be refused:\n{text}"),
        Err(e) => e,
    };
    let sentence = error.to_string();
    for word in words {
        assert!(sentence.contains(word), "{sentence:?} lacks {word:?}");
    }
    error
}

/// A file with `settings` after the title and lease, and one beat of `beat` fields at 0 s.
fn with_beat(settings: &str, beat: &str) -> String {
    format!("{HEAD}{settings}\n[[beat]]\nat = 0.0\ncaption = \"c\"\n{beat}\n")
}

fn chaos(fields: &str) -> String {
    format!("{HEAD}[chaos]\n{fields}\n")
}

fn action(beat: &str) -> BeatAction {
    accepted(&with_beat("", beat)).beats[0]
        .action
        .clone()
        .expect("the beat has an action")
}

// ---------------------------------------------------------------- the settings

#[test]
fn the_lease_is_from_a_millisecond_to_a_day() {
    let lease = |value: &str| format!("title = \"t\"\nlease = {value}\n{NARRATION}");
    let shortest = accepted(&lease("0.001"));
    assert_eq!((shortest.lease_seconds, shortest.lease_ms), (0.001, 1));
    assert_eq!(accepted(&lease("86400")).lease_ms, 86_400_000);
    for bad in ["0.0009", "0", "-1", "86400.001", "nan", "inf"] {
        let error = refused(&lease(bad), &["field `lease`", "0.001 to 86400"]);
        assert_eq!(error.line, Some(2), "the lease is on line 2");
    }
    // A lease that is not a number names its field and the type it wants.
    let error = refused(&lease("\"ten\""), &["field `lease`", "expected a number"]);
    assert_eq!(error.line, Some(2));
}

#[test]
fn settings_left_out_take_their_documented_defaults() {
    let plain = accepted(&format!("{HEAD}{NARRATION}"));
    assert_eq!(plain.first_token, 1);
    assert_eq!(plain.seed, 1);
    assert!(plain.fencing);
    assert_eq!(plain.locks, ["lock"]);
    assert_eq!(plain.short_title, "edges", "the short title is the title");
    assert_eq!(plain.end, 3_000, "a story ends 3 s after its last beat");
    let set = accepted(&format!(
        "title = \"A long title\"\nshort = \"Short\"\nlease = 2.5\nfirst_token = 7\nseed = 9\n\
         fencing = false\nlock = \"orders\"\nend = 4.5\n{NARRATION}"
    ));
    assert_eq!(set.short_title, "Short");
    assert_eq!(set.title, "A long title");
    assert_eq!(
        (set.first_token, set.seed, set.fencing, set.end),
        (7, 9, false, 4_500)
    );
    assert_eq!(set.locks, ["orders"]);
    assert_eq!(set.lease_ms, 2_500);
}

#[test]
fn a_scenario_names_one_to_three_distinct_locks() {
    let locks = |list: &str| format!("{HEAD}locks = [{list}]\n{NARRATION}");
    assert_eq!(accepted(&locks("\"a\"")).locks, ["a"]);
    assert_eq!(
        accepted(&locks("\"a\", \"b\", \"c\"")).locks,
        ["a", "b", "c"]
    );
    refused(&locks(""), &["1 to 3 locks, got 0"]);
    refused(
        &locks("\"a\", \"b\", \"c\", \"d\""),
        &["1 to 3 locks, got 4"],
    );
    refused(&locks("\"a\", \"b\", \"a\""), &["names 'a' twice"]);
    refused(
        &format!("{HEAD}lock = \"a\"\nlocks = [\"b\"]\n{NARRATION}"),
        &["both `lock` and `locks`"],
    );
    let scenario = accepted(&locks("\"orders\", \"stock\""));
    assert_eq!(scenario.lock_id("stock"), Some(LockId(1)));
    assert_eq!(scenario.lock_id("orders"), Some(LockId(0)));
    assert_eq!(scenario.lock_id("file"), None);
}

#[test]
fn names_are_one_printable_line_of_at_most_sixty_characters() {
    let lock = |name: &str| format!("{HEAD}lock = \"{name}\"\n{NARRATION}");
    accepted(&lock(&"n".repeat(60)));
    refused(
        &lock(&"n".repeat(61)),
        &["a lock name", "longer than 60 characters"],
    );
    refused(&lock("   "), &["a lock name is empty"]);
    refused(&lock("bell\\u0007"), &["a lock name", "U+0007"]);
    // Characters, not bytes: sixty accented letters fit.
    accepted(&lock(&"é".repeat(60)));
}

#[test]
fn texts_are_one_line_of_at_most_four_hundred_characters() {
    let title = |text: &str| format!("title = \"{text}\"\nlease = 1\n{NARRATION}");
    accepted(&title(&"é".repeat(400)));
    refused(
        &title(&"t".repeat(401)),
        &["field `title`", "longer than 400"],
    );
    refused(&title("  "), &["field `title` is empty"]);
    refused(&title("a\\u001b[2Jb"), &["field `title`", "U+001B"]);
    // Line breaks and runs of spaces fold to one space.
    let folded = accepted(&format!(
        "title = \"\"\"two\n   lines\"\"\"\nlease = 1\n{NARRATION}"
    ));
    assert_eq!(folded.title, "two lines");
    refused(
        &format!("{HEAD}short = \"\"\n{NARRATION}"),
        &["field `short` is empty"],
    );
    let caption = |text: &str| format!("{HEAD}[[beat]]\nat = 0\ncaption = \"{text}\"\n");
    refused(
        &caption(&"c".repeat(401)),
        &["beat 1's `caption`", "longer than 400"],
    );
    refused(
        &format!("{HEAD}{NARRATION}caption_global = \"\"\n"),
        &["beat 1's `caption_global` is empty"],
    );
}

#[test]
fn times_are_from_zero_to_a_day_and_beats_keep_time_order() {
    let beat_at = |at: &str| format!("{HEAD}[[beat]]\nat = {at}\ncaption = \"c\"\n");
    assert_eq!(accepted(&beat_at("0")).beats[0].at, 0);
    assert_eq!(accepted(&beat_at("86400")).beats[0].at, 86_400_000);
    for bad in ["-0.5", "86400.5", "nan"] {
        let error = refused(&beat_at(bad), &["field `at`", "0 to 86400"]);
        assert_eq!(error.line, Some(4), "`at` is on line 4");
    }
    let two = |second: &str| {
        format!(
            "{HEAD}[[beat]]\nat = 2.0\ncaption = \"c\"\n[[beat]]\nat = {second}\ncaption = \"d\"\n"
        )
    };
    assert_eq!(
        accepted(&two("2.0")).beats.len(),
        2,
        "beats may share a time"
    );
    let error = refused(&two("1.999"), &["beat 2 has `at = 1.999`", "time order"]);
    assert_eq!(error.line, Some(7));
}

#[test]
fn the_end_comes_no_sooner_than_the_last_beat() {
    let end = |value: &str| format!("{HEAD}end = {value}\n[[beat]]\nat = 5.0\ncaption = \"c\"\n");
    assert_eq!(accepted(&end("5.0")).end, 5_000);
    refused(&end("4.999"), &["field `end` comes before the last beat"]);
    refused(&end("86401"), &["field `end`", "0 to 86400"]);
    // Without an end, a story ends 3 s after its last beat, never past a day.
    let late = accepted(&format!("{HEAD}[[beat]]\nat = 86399.0\ncaption = \"c\"\n"));
    assert_eq!(late.end, 86_400_000);
    // A chaos run lasts its seconds, or to its last beat if that is later.
    assert_eq!(accepted(&chaos("seconds = 7.5")).end, 7_500);
    let beat_after = accepted(&format!(
        "{HEAD}[[beat]]\nat = 9.0\ncaption = \"c\"\n[chaos]\nseconds = 7.5\n"
    ));
    assert_eq!(beat_after.end, 9_000);
}

#[test]
fn a_scenario_with_nothing_to_do_is_refused() {
    refused(HEAD, &["no `[[beat]]` and no `[chaos]`"]);
    refused(&format!("{HEAD}colour = \"red\"\n{NARRATION}"), &["colour"]);
}

// ---------------------------------------------------------------- beats and their actions

#[test]
fn each_action_takes_its_documented_fields() {
    assert_eq!(
        action("client = 2\ndo = \"acquire\"\nretry = 0.001"),
        BeatAction::Client {
            client: ClientId::ALL[1],
            action: ClientAction::Acquire {
                lock: LockId::FIRST,
                retry: Some(1)
            }
        }
    );
    assert_eq!(
        action("client = 3\ndo = \"renew\"\ntoken = 4"),
        BeatAction::Client {
            client: ClientId::ALL[2],
            action: ClientAction::Renew {
                lock: LockId::FIRST,
                token: Some(4)
            }
        }
    );
    assert_eq!(
        action("client = 1\ndo = \"release\""),
        BeatAction::Client {
            client: ClientId::ALL[0],
            action: ClientAction::Release {
                lock: LockId::FIRST,
                token: None
            }
        }
    );
    assert_eq!(
        action("client = 1\ndo = \"write\"\nkey = \"k\"\nvalue = \"v\"\ndelay = 2.5"),
        BeatAction::Client {
            client: ClientId::ALL[0],
            action: ClientAction::Write {
                lock: LockId::FIRST,
                key: "k".into(),
                value: "v".into(),
                token: None,
                delay: Some(2_500)
            }
        }
    );
    assert_eq!(
        action("client = 1\ndo = \"pause\"\nseconds = 15"),
        BeatAction::Client {
            client: ClientId::ALL[0],
            action: ClientAction::Pause { ms: 15_000 }
        }
    );
    assert_eq!(
        action("client = 1\ndo = \"crash\""),
        BeatAction::Client {
            client: ClientId::ALL[0],
            action: ClientAction::Crash { down: 3_000 }
        },
        "a crash keeps a client down 3 s unless told"
    );
    assert_eq!(
        action("client = 1\ndo = \"crash\"\nseconds = 0.5"),
        BeatAction::Client {
            client: ClientId::ALL[0],
            action: ClientAction::Crash { down: 500 }
        }
    );
    assert_eq!(
        action("do = \"fencing\"\non = false"),
        BeatAction::Fencing { on: false }
    );
    assert_eq!(
        action("do = \"clock-jump\"\nseconds = -86400"),
        BeatAction::ClockJump { by: -86_400_000 }
    );
    assert_eq!(
        action("do = \"clock-jump\"\nseconds = 86400"),
        BeatAction::ClockJump { by: 86_400_000 }
    );
    // A beat names a lock by name.
    let second = accepted(&with_beat(
        "locks = [\"a\", \"b\"]",
        "client = 1\ndo = \"acquire\"\nlock = \"b\"",
    ));
    assert_eq!(
        second.beats[0].action,
        Some(BeatAction::Client {
            client: ClientId::ALL[0],
            action: ClientAction::Acquire {
                lock: LockId(1),
                retry: None
            }
        })
    );
    assert_eq!(second.beats[0].client(), Some(ClientId::ALL[0]));
}

#[test]
fn an_action_refuses_what_it_cannot_use_and_names_what_it_lacks() {
    let beat = |fields: &str| with_beat("", fields);
    refused(
        &beat("do = \"write\"\nclient = 1\nvalue = \"v\""),
        &["needs the field `key`"],
    );
    refused(
        &beat("do = \"write\"\nclient = 1\nkey = \"k\""),
        &["needs the field `value`"],
    );
    refused(&beat("do = \"acquire\""), &["needs the field `client`"]);
    refused(
        &beat("do = \"pause\"\nclient = 1"),
        &["needs the field `seconds`"],
    );
    refused(&beat("do = \"fencing\""), &["needs the field `on`"]);
    refused(&beat("do = \"clock-jump\""), &["needs the field `seconds`"]);
    refused(
        &beat("do = \"acquire\"\nclient = 1\ntoken = 2"),
        &["does not take the field `token`", "client, lock, retry"],
    );
    refused(
        &beat("do = \"fencing\"\non = true\nclient = 1"),
        &["does not take the field `client`"],
    );
    // Each action's own list: a field another action takes is still refused here.
    for (fields, extra, takes) in [
        (
            "do = \"renew\"\nclient = 1\nkey = \"k\"",
            "key",
            "client, lock, token",
        ),
        (
            "do = \"release\"\nclient = 1\nretry = 1",
            "retry",
            "client, lock, token",
        ),
        (
            "do = \"write\"\nclient = 1\nkey = \"k\"\nvalue = \"v\"\nseconds = 1",
            "seconds",
            "client, lock, key, value, token, delay",
        ),
        (
            "do = \"pause\"\nclient = 1\nseconds = 1\nlock = \"lock\"",
            "lock",
            "client, seconds",
        ),
        (
            "do = \"crash\"\nclient = 1\ntoken = 1",
            "token",
            "client, seconds",
        ),
        (
            "do = \"clock-jump\"\nseconds = 1\nclient = 1",
            "client",
            "seconds",
        ),
    ] {
        refused(
            &beat(fields),
            &[&format!(
                "does not take the field `{extra}`; it takes {takes}"
            )],
        );
    }
    refused(
        &beat("client = 1\nkey = \"k\""),
        &["sets `client` but has no `do`"],
    );
    refused(&beat("on = true"), &["sets `on` but has no `do`"]);
    refused(
        &beat("do = \"dance\"\nclient = 1"),
        &["`do = \"dance\"`", "not an action"],
    );
    for client in ["0", "4", "-1"] {
        refused(
            &beat(&format!("do = \"acquire\"\nclient = {client}")),
            &[&format!("names client {client}"), "1, 2 and 3"],
        );
    }
    refused(
        &beat("do = \"acquire\"\nclient = 1\nlock = \"vault\""),
        &["names lock 'vault'", "locks are lock"],
    );
    refused(
        &beat("do = \"write\"\nclient = 1\nkey = \"\"\nvalue = \"v\""),
        &["beat 1's `key` is empty"],
    );
    refused(
        &beat("do = \"write\"\nclient = 1\nkey = \"k\"\nvalue = \"\\u0000\""),
        &["beat 1's `value`", "U+0000"],
    );
}

#[test]
fn durations_are_at_least_a_millisecond_and_a_clock_jump_at_most_a_day() {
    let beat = |fields: &str| with_beat("", fields);
    for fields in [
        "do = \"acquire\"\nclient = 1\nretry = 0",
        "do = \"pause\"\nclient = 1\nseconds = 0.0004",
        "do = \"crash\"\nclient = 1\nseconds = 0",
        "do = \"write\"\nclient = 1\nkey = \"k\"\nvalue = \"v\"\ndelay = 0",
    ] {
        refused(&beat(fields), &["at least 0.001 seconds"]);
    }
    assert_eq!(
        action("do = \"pause\"\nclient = 1\nseconds = 0.001"),
        BeatAction::Client {
            client: ClientId::ALL[0],
            action: ClientAction::Pause { ms: 1 }
        }
    );
    for seconds in ["0", "86400.001", "-86400.001", "nan"] {
        refused(
            &beat(&format!("do = \"clock-jump\"\nseconds = {seconds}")),
            &["clock jump", "non-zero number of seconds within a day"],
        );
    }
}

#[test]
fn only_a_write_or_a_narration_beat_asks() {
    let ask = |fields: &str| with_beat("", &format!("ask = \"Accepted?\"\n{fields}"));
    assert!(
        accepted(&ask("")).beats[0].ask.is_some(),
        "a narration beat"
    );
    assert!(accepted(&ask(
        "do = \"write\"\nclient = 1\nkey = \"k\"\nvalue = \"v\""
    ))
    .beats[0]
        .ask
        .is_some());
    for fields in [
        "do = \"acquire\"\nclient = 1",
        "do = \"fencing\"\non = true",
        "do = \"clock-jump\"\nseconds = 1",
    ] {
        refused(&ask(fields), &["has `ask`, but only a `write` beat"]);
    }
}

// ---------------------------------------------------------------- chaos

#[test]
fn chaos_ranges_are_a_low_and_a_high_within_a_day() {
    let defaults = accepted(&chaos(""));
    assert_eq!(defaults.chaos, Some(ChaosParams::default()));
    let set = accepted(&chaos(
        "seconds = 0.001\nthink = [0.001, 86400]\nretry = [1, 1]\nwork = [0.5, 2]\n\
         stall = [3, 4]\ndown = [5, 6]\nstall_chance = 1.0\ncrash = false\nwrites = [1, 100]\n\
         keys = [\"a\", \"b\", \"c\", \"d\", \"e\", \"f\", \"g\", \"h\"]",
    ))
    .chaos
    .unwrap();
    assert_eq!(set.seconds, 1);
    assert_eq!(set.think, (1, 86_400_000));
    assert_eq!(set.retry, (1_000, 1_000));
    assert_eq!(set.work, (500, 2_000));
    assert_eq!(set.stall, (3_000, 4_000));
    assert_eq!(set.down, (5_000, 6_000));
    assert_eq!((set.stall_chance, set.crash), (1.0, false));
    assert_eq!(set.writes, (1, 100));
    assert_eq!(set.keys.len(), 8);
    assert_eq!(
        accepted(&chaos("stall_chance = 0.0"))
            .chaos
            .unwrap()
            .stall_chance,
        0.0
    );
    for field in ["think", "retry", "work", "stall", "down"] {
        for bad in [
            "[0.0009, 1]",
            "[2, 1]",
            "[1, 86400.001]",
            "[nan, 1]",
            "[1, inf]",
        ] {
            refused(
                &chaos(&format!("{field} = {bad}")),
                &[
                    &format!("`[chaos]` field `{field}`"),
                    "0.001 <= low <= high <= 86400",
                ],
            );
        }
    }
    for bad in ["0", "86400.001", "nan"] {
        refused(
            &chaos(&format!("seconds = {bad}")),
            &["field `seconds`", "0.001 and 86400"],
        );
    }
    for bad in ["-0.01", "1.01"] {
        refused(
            &chaos(&format!("stall_chance = {bad}")),
            &["`stall_chance`", "between 0 and 1"],
        );
    }
    for bad in ["[0, 1]", "[3, 2]", "[1, 101]"] {
        refused(
            &chaos(&format!("writes = {bad}")),
            &["`writes`", "1 <= low <= high <= 100"],
        );
    }
    refused(&chaos("keys = []"), &["1 to 8 keys"]);
    refused(
        &chaos("keys = [\"a\", \"b\", \"c\", \"d\", \"e\", \"f\", \"g\", \"h\", \"i\"]"),
        &["1 to 8 keys"],
    );
    refused(
        &chaos("keys = [\"tab\\there\"]"),
        &["`[chaos]` field `keys`", "U+0009"],
    );
    // The error points at the [chaos] table.
    assert_eq!(refused(&chaos("keys = []"), &[]).line, Some(3));
}

#[test]
fn the_event_bound_is_its_documented_formula() {
    // Per client: a job of at least think + work makes a grant, its writes, a release and a
    // stall's pause and resume; a refused client asks at most once a retry.
    let params = ChaosParams {
        think: (100, 900),
        work: (250, 2_000),
        writes: (1, 3),
        retry: (300, 600),
        ..ChaosParams::default()
    };
    let jobs = 7_000 / 350 + 1;
    let asks = 7_000 / 300 + 1;
    assert_eq!(
        params.worst_case_events(7_000),
        3 * (jobs * (3 + 5) + asks) + 8
    );
    // A scenario's bound: 16 events a beat, 8 more, and each retrying acquire's asks.
    let scenario = accepted(&format!(
        "{HEAD}end = 20.0\n[[beat]]\nat = 1.0\ncaption = \"c\"\n[[beat]]\nat = 2.0\n\
         caption = \"d\"\nclient = 2\ndo = \"acquire\"\nretry = 0.25\n"
    ));
    assert_eq!(
        scenario.worst_case_events(20_000),
        16 * 2 + 8 + (18_000 / 250 + 1)
    );
    assert_eq!(
        scenario.worst_case_events(1_000),
        16 * 2 + 8 + 1,
        "an acquire due later still counts its first ask"
    );
    // A chaos scenario adds its jobs' bound to the script's.
    let chaos_run = accepted(&chaos("seconds = 7.0"));
    let jobs = chaos_run.chaos.clone().unwrap();
    assert_eq!(
        chaos_run.worst_case_events(7_000),
        8 + jobs.worst_case_events(7_000)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The bound is a bound: however the knobs are set, a chaos run makes no more events than
    /// validation allowed for.
    #[test]
    fn no_chaos_run_makes_more_events_than_its_bound(
        seed in 0..1_000u64,
        think in (1..2_000u64, 0..2_000u64),
        work in (1..3_000u64, 0..3_000u64),
        retry in (1..1_000u64, 0..1_000u64),
        stall in (1..8_000u64, 0..8_000u64),
        writes in (1..4u64, 0..4u64),
        stall_chance in 0.0..=1.0f64,
        keys in 1..4usize,
    ) {
        let span = |(lo, extra): (u64, u64)| (lo, lo + extra);
        let mut scenario = Scenario::built_in("chaos").unwrap();
        let params = ChaosParams {
            seconds: 20_000,
            keys: ["a", "b", "c"][..keys].iter().map(|k| k.to_string()).collect(),
            writes: span(writes),
            think: span(think),
            retry: span(retry),
            work: span(work),
            stall_chance,
            stall: span(stall),
            ..ChaosParams::default()
        };
        scenario.end = params.seconds;
        scenario.chaos = Some(params);
        let scenario = Arc::new(scenario);
        let mut world = World::new(&Setup::new(scenario.clone()).seed(seed), &[], Keep::Stream);
        world.advance_to(scenario.end, &[]);
        let made = world.history().event_count() as u64;
        let bound = scenario.worst_case_events(scenario.end);
        prop_assert!(made <= bound, "{} events, bound {}", made, bound);
    }
}

/// The bound is exact at its limit: a scenario whose estimate is the limit is accepted, one
/// event more is refused, with the estimate in the sentence.
#[test]
fn a_scenario_may_make_at_most_the_event_limit() {
    // One retrying acquire every millisecond from 0 s: 16 + 8 + end / 1 ms + 1 events.
    let retries_until = |end_ms: u64| {
        format!(
            "{HEAD}end = {}\n[[beat]]\nat = 0.0\ncaption = \"c\"\nclient = 1\ndo = \"acquire\"\n\
             retry = 0.001\n",
            end_ms as f64 / 1000.0
        )
    };
    let at_limit = MAX_EVENTS - 25;
    let scenario = accepted(&retries_until(at_limit));
    assert_eq!(scenario.worst_case_events(scenario.end), MAX_EVENTS);
    refused(
        &retries_until(at_limit + 1),
        &[
            &format!("up to {} events", MAX_EVENTS + 1),
            "more than the 250000",
        ],
    );
}

// ---------------------------------------------------------------- files and names

#[test]
fn a_name_is_a_built_in_and_anything_else_a_path() {
    assert_eq!(Scenario::load("gc-pause").unwrap().name, "gc-pause");
    let unknown = Scenario::load("gc-pauses").unwrap_err().to_string();
    assert!(
        unknown.contains("no built-in scenario has this name"),
        "{unknown}"
    );
    assert!(unknown.contains("gc-pause, late-release"), "{unknown}");
    // Anything ending in .toml or holding a slash is a path, existing or not.
    for path in ["missing.toml", "no/such/file"] {
        let error = Scenario::load(path).unwrap_err().to_string();
        assert!(error.contains("cannot read it"), "{path}: {error}");
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mine.toml");
    std::fs::write(&file, format!("\u{feff}{HEAD}{NARRATION}")).unwrap();
    let loaded = Scenario::load(file.to_str().unwrap()).unwrap();
    assert_eq!(
        loaded.name, "mine",
        "a file's scenario is named after its stem"
    );
    assert_eq!(loaded.origin, file.display().to_string());
}

#[test]
fn a_text_file_is_read_only_whole_and_only_as_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.toml");
    std::fs::write(&path, "x".repeat(2048)).unwrap();
    assert_eq!(read_text_file(&path, 2048, "a file").unwrap().len(), 2048);
    assert_eq!(
        read_text_file(&path, 2047, "a file").unwrap_err(),
        "is more than the 1 KiB a file may have"
    );
    std::fs::write(&path, "x".repeat(2049)).unwrap();
    assert_eq!(
        read_text_file(&path, 2048, "a file").unwrap_err(),
        "is more than the 2 KiB a file may have"
    );
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(&vec![b'x'; 1024 * 1024 + 1]).unwrap();
    assert_eq!(
        read_text_file(&path, 1024 * 1024, "a scenario file").unwrap_err(),
        "is more than the 1 MiB a scenario file may have"
    );
    std::fs::write(&path, b"ok\xff").unwrap();
    assert_eq!(
        read_text_file(&path, 100, "a file").unwrap_err(),
        "is not UTF-8 text (byte 2 is not)"
    );
    std::fs::write(&path, "\u{feff}text").unwrap();
    assert_eq!(read_text_file(&path, 100, "a file").unwrap(), "text");
    assert_eq!(
        read_text_file(dir.path(), 100, "a file").unwrap_err(),
        "is a folder, not a file"
    );
}

#[test]
fn a_type_error_names_its_field_but_never_a_table_header() {
    let error = refused(
        &format!("{HEAD}seed = \"one\"\n{NARRATION}"),
        &["field `seed`: invalid type: string \"one\""],
    );
    assert_eq!(error.line, Some(3));
    // A table where a name belongs points at its header: no field is made up from it.
    let header = refused(
        &format!("title = \"t\"\nlease = 1\n{NARRATION}[lock] # name = x\nwhat = 1\n"),
        &["invalid type"],
    );
    assert!(!header.message.contains("field `["), "{header}");
}

#[test]
fn an_error_names_the_line_it_found() {
    let error = refused(
        &format!("{HEAD}\n\n[[beat]]\nat = 1\ncaption = \"c\"\nclient = 9\ndo = \"pause\"\n"),
        &["edges.toml, line 8", "names client 9"],
    );
    assert_eq!(error.line, Some(8));
    let whole = refused(&format!("{HEAD}locks = []\n{NARRATION}"), &[]);
    assert_eq!(whole.line, None, "a fault of the whole file has no line");
    assert_eq!(whole.to_string(), format!("edges.toml: {}", whole.message));
}

#[test]
fn the_ui_injects_what_the_lease_makes_meaningful() {
    let scenario = accepted(&format!("title = \"t\"\nlease = 3.0\n{NARRATION}"));
    assert_eq!(scenario.injected_pause_ms(), 4_500, "half again the lease");
    assert_eq!(scenario.injected_delay_ms(), 4_500);
    assert_eq!(scenario.injected_down_ms(), 3_000);
    let beats = accepted(&format!(
        "{HEAD}[[beat]]\nat = 1\ncaption = \"a\"\n[[beat]]\nat = 2\ncaption = \"b\"\n"
    ));
    assert_eq!(beats.beat_at(999), None);
    assert_eq!(beats.beat_at(1_000), Some(0));
    assert_eq!(beats.beat_at(1_999), Some(0));
    assert_eq!(beats.beat_at(2_000), Some(1));
    assert_eq!(beats.beat_at(u64::MAX), Some(1));
}
