//! Every built-in scenario plays to its documented outcome, with fencing on and off, and under
//! every storage check.

mod common;

use std::sync::Arc;

use common::*;
use fencing_lab::sim::lesson::Lesson;
use fencing_lab::sim::{
    ClientId, EventKind, Input, InputKind, LaneState, LockId, Ms, Scenario, Session, Setup, Variant,
};
use fencing_lab::tui::{self, App, Theme};
use fencing_lab::FenceCheck;

#[test]
fn every_built_in_scenario_loads_and_is_listed_in_lesson_order() {
    let names: Vec<_> = Scenario::built_in_names().collect();
    assert_eq!(
        names,
        [
            "gc-pause",
            "late-release",
            "renew",
            "heartbeat",
            "per-key",
            "two-locks",
            "lapsed-write",
            "crash-restart",
            "network-delay",
            "clock-jump",
            "chaos"
        ]
    );
    for scenario in Scenario::all_built_in() {
        assert!(!scenario.title.is_empty());
        assert!(!scenario.beats.is_empty(), "{} has captions", scenario.name);
        for beat in &scenario.beats {
            let written = &beat.captions;
            let all: Vec<_> = written.all().collect();
            let optional = [&written.unfenced, &written.strict, &written.global];
            assert_eq!(
                all.len(),
                1 + optional.iter().filter(|c| c.is_some()).count(),
                "every caption a beat has is checked"
            );
            assert_eq!(all[0], (Variant::Fenced, written.fenced.as_str()));
            for (_, caption) in all {
                assert!(
                    wrapped_lines(caption, 78) <= 2,
                    "caption does not fit the two caption lines at 80x24: {caption}"
                );
            }
        }
    }
}

#[test]
fn gc_pause_with_fencing_rejects_the_late_write() {
    let s = play("gc-pause", true);
    assert_eq!(
        grants(&s),
        [(0, c(1), 1), (11_000, c(2), 2), (19_000, c(1), 3)]
    );
    assert!(at(&s, 10_000).contains(&&EventKind::Expire {
        client: c(1),
        lock: LockId::FIRST,
        token: 1
    }));
    assert!(matches!(
        at(&s, 4_000)[0],
        EventKind::AcquireRefused { holder: Some(h), .. } if *h == c(1)
    ));
    assert_eq!(write_at(&s, 16_500), (false, Some(2), 1));
    assert_eq!(corruption_at(&s, 16_500), None);
    assert_eq!(refusal_reason(&s, 17_500), "held_by_other");
    let world = s.world();
    let file = &world.storage_entries()[0];
    assert_eq!(file.0, "file");
    assert_eq!(
        (file.1.value.as_str(), file.1.highest),
        ("client 1's redone data", 3)
    );
    let stats = world.stats();
    assert_eq!(
        (stats.grants, stats.writes_accepted, stats.writes_rejected),
        (3, 2, 1)
    );
    assert_eq!(stats.corruptions, 0);
}

#[test]
fn gc_pause_without_fencing_corrupts_client_2s_data() {
    let s = play("gc-pause", false);
    assert_eq!(write_at(&s, 16_500), (true, Some(2), 1));
    assert_eq!(corruption_at(&s, 16_500), Some((1, 2)));
    assert_eq!(s.world().stats().corruptions, 1);
    // The clients and the lock behave the same; only the storage differs.
    assert_eq!(grants(&s), grants(&play("gc-pause", true)));
}

#[test]
fn late_release_frees_nothing() {
    for fencing in [true, false] {
        let s = play("late-release", fencing);
        assert_eq!(refusal_reason(&s, 7_500), "held_by_other");
        assert!(matches!(
            at(&s, 8_000)[0],
            EventKind::AcquireRefused { holder: Some(h), .. } if *h == c(2)
        ));
        assert_eq!(
            grants(&s),
            [(0, c(1), 1), (5_500, c(2), 2), (11_000, c(3), 3)]
        );
        assert!(at(&s, 10_000).contains(&&EventKind::Release {
            client: c(2),
            lock: LockId::FIRST,
            token: 2
        }));
    }
}

#[test]
fn renew_keeps_the_token_until_the_lease_lapses() {
    let s = play("renew", true);
    assert!(matches!(
        at(&s, 3_000)[0],
        EventKind::Renew { token: 1, expires_at, .. } if *expires_at == 8.0
    ));
    assert_eq!(
        write_at(&s, 10_000),
        (true, Some(1), 1),
        ">= lets the holder write again"
    );
    assert!(at(&s, 12_000).contains(&&EventKind::Expire {
        client: c(1),
        lock: LockId::FIRST,
        token: 1
    }));
    assert_eq!(refusal_reason(&s, 13_000), "expired");
    assert_eq!(grants(&s), [(0, c(1), 1), (14_000, c(1), 2)]);
}

#[test]
fn heartbeat_keeps_the_lock_until_a_gc_pause_stops_it() {
    let s = play("heartbeat", true);
    let renews = s
        .world()
        .events()
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Renew { client, .. } if client == c(1)))
        .count();
    assert_eq!(renews, 3);
    // Client 2's retry lands on the exact expiry tick.
    assert_eq!(grants(&s), [(0, c(1), 1), (14_000, c(2), 2)]);
    assert_eq!(refusal_reason(&s, 18_000), "held_by_other");
    let c1_writes = s
        .world()
        .events()
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Write { client, .. } if client == c(1)))
        .count();
    assert_eq!(
        c1_writes, 0,
        "the refused heartbeat told client 1 before it wrote"
    );
}

#[test]
fn per_key_tokens_are_independent() {
    let s = play("per-key", true);
    assert_eq!(
        write_at(&s, 9_500),
        (true, Some(1), 2),
        "orders has only seen 1"
    );
    assert_eq!(
        write_at(&s, 10_000),
        (false, Some(3), 2),
        "inventory has seen 3"
    );
    let highest: Vec<(String, u64)> = s
        .world()
        .storage_entries()
        .into_iter()
        .map(|(k, v)| (k, v.highest))
        .collect();
    assert_eq!(
        highest,
        [("inventory".to_owned(), 3), ("orders".to_owned(), 2)]
    );
    let off = play("per-key", false);
    assert_eq!(corruption_at(&off, 10_000), Some((2, 3)));
}

#[test]
fn lapsed_write_lands_until_a_newer_token_writes() {
    let s = play("lapsed-write", true);
    assert_eq!(write_at(&s, 8_500), (true, None, 1));
    assert_eq!(write_at(&s, 11_000), (false, Some(2), 1));
    assert_eq!(
        corruption_at(&play("lapsed-write", false), 11_000),
        Some((1, 2))
    );
}

#[test]
fn crash_restart_must_acquire_again() {
    let s = play("crash-restart", true);
    assert!(at(&s, 2_000).contains(&&EventKind::Crash {
        client: c(2),
        restart_at: 6_000
    }));
    assert!(at(&s, 6_000).contains(&&EventKind::Restart { client: c(2) }));
    assert_eq!(
        grants(&s),
        [(0, c(2), 1), (5_000, c(1), 2), (8_500, c(2), 3)]
    );
    assert_eq!(write_at(&s, 10_000), (true, Some(2), 3));
}

/// The write delivered at `t`: (sent at, lease live when sent).
fn delivery_at(session: &Session, t: Ms) -> (Option<Ms>, bool) {
    at(session, t)
        .into_iter()
        .find_map(|k| match k {
            EventKind::Write {
                sent_at,
                lease_live,
                ..
            } => Some((*sent_at, *lease_live)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no write at {t} ms"))
}

#[test]
fn network_delay_sends_in_time_and_arrives_too_late() {
    let s = play("network-delay", true);
    // Sent at 2 s while its lease was live; delivered at 14 s, after client 2's write.
    assert!(at(&s, 2_000)
        .iter()
        .any(|k| matches!(k, EventKind::Send { client, .. } if *client == c(1))));
    assert_eq!(delivery_at(&s, 14_000), (Some(2_000), true));
    assert_eq!(write_at(&s, 12_000), (true, None, 2));
    assert_eq!(write_at(&s, 14_000), (false, Some(2), 1));
    assert_eq!(grants(&s), [(0, c(1), 1), (11_000, c(2), 2)]);
    let file = &s.world().storage_entries()[0];
    assert_eq!(
        (file.1.value.as_str(), file.1.highest),
        ("client 2's data", 2)
    );
    let off = play("network-delay", false);
    assert_eq!(write_at(&off, 14_000), (true, Some(2), 1));
    assert_eq!(corruption_at(&off, 14_000), Some((1, 2)));
    assert_eq!(off.world().storage_entries()[0].1.value, "client 1's data");
    assert_eq!(grants(&off), grants(&s), "only the storage differs");
}

#[test]
fn clock_jump_ends_the_lease_early_and_never_revives_it() {
    let s = play("clock-jump", true);
    // The service's clock jumps 8 s at 3 s: by it, client 1's 10 s lease ended at 3 s.
    assert!(at(&s, 3_000).contains(&&EventKind::Expire {
        client: c(1),
        lock: LockId::FIRST,
        token: 1
    }));
    assert_eq!(grants(&s), [(0, c(1), 1), (4_000, c(2), 2)]);
    assert_eq!(write_at(&s, 5_000), (true, None, 2));
    // Client 1 still believes it holds the lock, and writes: rejected.
    assert_eq!(delivery_at(&s, 6_000), (None, false));
    assert_eq!(write_at(&s, 6_000), (false, Some(2), 1));
    assert_eq!(refusal_reason(&s, 8_000), "held_by_other");
    // After the clock steps back 8 s, the lock is still client 2's, never client 1's again.
    let mut back = Session::new(setup("clock-jump", true, FenceCheck::PerKey));
    for t in [6_500, 7_000, 7_500, 9_999] {
        back.seek(t);
        let lease = back
            .world()
            .lease(LockId::FIRST)
            .expect("client 2 holds it");
        assert_eq!((lease.client, lease.token), (c(2), 2), "at {t} ms");
        assert!(!back.world().lease_is_live(LockId::FIRST, c(1), 1));
    }
    let off = play("clock-jump", false);
    assert_eq!(corruption_at(&off, 6_000), Some((1, 2)));
}

#[test]
fn chaos_scenario_is_fenced_with_fencing_and_corrupted_without() {
    let on = play("chaos", true);
    assert!(on.world().stats().writes_rejected > 0);
    assert_eq!(on.world().stats().corruptions, 0);
    let off = play("chaos", false);
    assert!(off.world().stats().corruptions > 0);
}

/// (corruptions, honest writes refused) of each check, in FenceCheck::ALL order: per-key, none,
/// strict, global. Honest: refused although sent while the writer's lease was live.
fn variant_outcomes(name: &str) -> [(u64, u64); 4] {
    let s = play(name, true);
    FenceCheck::ALL.map(|check| {
        let (_, stats) = s.world().mirror(check);
        (stats.corruptions, stats.honest_writes_refused)
    })
}

#[test]
fn each_check_variant_breaks_what_the_lesson_says() {
    // gc-pause: no check lets the stale write corrupt; the others all stop it.
    assert_eq!(
        variant_outcomes("gc-pause"),
        [(0, 0), (1, 0), (0, 0), (0, 0)]
    );
    // renew: strict refuses the holder's own second write: why the rule is >=.
    assert_eq!(variant_outcomes("renew"), [(0, 0), (0, 0), (0, 1), (0, 0)]);
    // two-locks: one global highest refuses the live holder's write to orders: why per key.
    assert_eq!(
        variant_outcomes("two-locks"),
        [(0, 0), (0, 0), (0, 1), (0, 1)]
    );
    // per-key and lapsed-write: only no check lets the stale write through; the global check's
    // refusal in per-key is of a write whose lease had lapsed, so it refuses nothing honest.
    for name in ["per-key", "lapsed-write"] {
        assert_eq!(
            variant_outcomes(name),
            [(0, 0), (1, 0), (0, 0), (0, 0)],
            "{name}"
        );
    }
    for name in ["late-release", "heartbeat", "crash-restart"] {
        assert_eq!(variant_outcomes(name), [(0, 0); 4], "{name}");
    }
    // network-delay: the late write was sent while its lease was live, so every check that
    // stops it refuses a write that was honest when sent; only no check lets it corrupt.
    assert_eq!(
        variant_outcomes("network-delay"),
        [(0, 1), (1, 0), (0, 1), (0, 1)]
    );
    // clock-jump: the service had ended client 1's lease before it wrote: not honest.
    assert_eq!(
        variant_outcomes("clock-jump"),
        [(0, 0), (1, 0), (0, 0), (0, 0)]
    );
}

#[test]
fn the_chosen_check_is_the_one_the_storage_applies() {
    let s = play_with("per-key", true, FenceCheck::Global);
    assert_eq!(write_at(&s, 9_500), (false, Some(1), 2));
    let s = play_with("renew", true, FenceCheck::Strict);
    assert_eq!(write_at(&s, 10_000), (false, Some(1), 1));
}

#[test]
fn time_travel_back_and_forth_gives_the_same_history() {
    let setup = setup("gc-pause", true, FenceCheck::PerKey);
    let straight = Session::played_to(setup.clone(), 23_000);
    let mut wandering = Session::new(setup);
    for t in [5_000, 17_000, 2_000, 16_500, 0, 23_000] {
        wandering.seek(t);
        assert_eq!(wandering.now(), t);
        assert!(wandering.world().events().iter().all(|e| e.t <= t));
    }
    assert_eq!(events(&wandering), events(&straight));
}

#[test]
fn a_waking_client_that_acquires_on_the_expiry_tick_still_sees_the_expiry_first() {
    // Client 2 freezes, and its acquire comes due while it is frozen; it wakes on exactly the
    // tick client 1's lease expires and acquires at once.
    let text = r#"
title = "wake on the expiry tick"
lease = 5.0
[[beat]]
at = 0.0
client = 1
do = "acquire"
caption = "c1"
[[beat]]
at = 1.0
client = 2
do = "pause"
seconds = 4.0
caption = "c2 freezes until 5 s"
[[beat]]
at = 2.0
client = 2
do = "acquire"
caption = "deferred until c2 wakes at 5 s, the expiry tick"
"#;
    let scenario = Arc::new(Scenario::parse("wake", "wake.toml", text).unwrap());
    let session = Session::played_to(Setup::new(scenario), 8_000);
    let at_5: Vec<_> = at(&session, 5_000).into_iter().map(|k| k.name()).collect();
    assert_eq!(
        at_5,
        ["expire", "resume", "grant"],
        "the old lease ends before the new grant"
    );
}

// ---------------------------------------------------------------- the world's clocks and network

/// Seeking to a moment plays everything due at it: at every moment of every lesson, the world
/// played to that moment has exactly the events of the whole run up to it.
#[test]
fn seeking_to_a_moment_plays_everything_due_at_it() {
    for scenario in Scenario::all_built_in() {
        let setup = Setup::new(Arc::new(scenario.clone()));
        let whole = Session::played_to(setup.clone(), scenario.end.min(30_000));
        let events = whole.world().events();
        let moments: std::collections::BTreeSet<Ms> = events.iter().map(|e| e.t).collect();
        for t in moments {
            let played = Session::played_to(setup.clone(), t);
            let upto = events.iter().filter(|e| e.t <= t).count();
            assert_eq!(
                played.world().events(),
                &events[..upto],
                "{} played to {t} ms",
                scenario.name
            );
        }
    }
}

const JUMP_AHEAD: &str = r#"
title = "a clock jumps ahead"
lease = 10.0
end = 17.0
[[beat]]
at = 0.0
caption = "Client 1 takes the lock."
client = 1
do = "acquire"
[[beat]]
at = 1.0
caption = "The lock service's clock jumps 5 s ahead."
do = "clock-jump"
seconds = 5.0
[[beat]]
at = 6.0
caption = "Client 2 takes the lock."
client = 2
do = "acquire"
"#;

/// After the service's clock jumps ahead, leases end when the service's clock says so, placed
/// on the world's timeline; the client, by its own clock, still counts its lease until 10 s,
/// and its lane says so exactly until then. The header shows the service's clock only while it
/// differs from the world's.
#[test]
fn after_a_clock_jump_leases_end_on_the_services_clock() {
    let scenario = Arc::new(Scenario::parse("jump", "jump.toml", JUMP_AHEAD).unwrap());
    let setup = Setup::new(scenario.clone());
    let session = Session::played_to(setup.clone(), scenario.end);
    let kinds: Vec<(Ms, &EventKind)> = session
        .world()
        .events()
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Grant { .. } | EventKind::Expire { .. }))
        .map(|e| (e.t, &e.kind))
        .collect();
    let lock = LockId::FIRST;
    assert_eq!(
        kinds,
        [
            (
                0,
                &EventKind::Grant {
                    client: c(1),
                    lock,
                    token: 1,
                    expires_at: 10.0
                }
            ),
            (
                5_000,
                &EventKind::Expire {
                    client: c(1),
                    lock,
                    token: 1
                }
            ),
            (
                6_000,
                &EventKind::Grant {
                    client: c(2),
                    lock,
                    token: 2,
                    expires_at: 21.0
                }
            ),
            (
                16_000,
                &EventKind::Expire {
                    client: c(2),
                    lock,
                    token: 2
                }
            ),
        ]
    );
    let states: Vec<(Ms, LaneState)> = session
        .world()
        .history()
        .lane(0)
        .iter()
        .map(|s| (s.start, s.state))
        .collect();
    assert_eq!(
        states,
        [
            (0, LaneState::Holding),
            (5_000, LaneState::Stale),
            (10_000, LaneState::Idle)
        ],
        "stale while its own clock counts time left, not a moment longer"
    );
    let at_2 = Session::played_to(setup.clone(), 2_000);
    assert_eq!(
        (at_2.world().service_now(), at_2.world().service_offset()),
        (7_000, 5_000)
    );
    let header = |t: Ms| {
        let app = App::new(Session::played_to(setup.clone(), t), Theme::plain());
        tui::render_text(&app, 120, 40)
            .lines()
            .next()
            .unwrap()
            .to_owned()
    };
    assert!(
        header(2_000).contains("service clock 7.0 s"),
        "{}",
        header(2_000)
    );
    assert!(!header(500).contains("service clock"), "{}", header(500));
}

/// The network holds a delayed write and says when it arrives; the question about it is asked
/// while it is on its way.
#[test]
fn the_network_holds_a_delayed_write_until_it_arrives() {
    let setup = setup("network-delay", true, FenceCheck::PerKey);
    let at = |t: Ms| Session::played_to(setup.clone(), t);
    let on_the_way = at(13_999);
    let held: Vec<(Ms, ClientId, &str, u64)> = on_the_way.world().in_flight().collect();
    assert_eq!(held, [(14_000, c(1), "file", 1)]);
    let lesson = Lesson::of(&on_the_way);
    let ask = on_the_way
        .scenario()
        .beats
        .iter()
        .position(|b| b.ask.is_some())
        .unwrap();
    assert!(lesson.question_applies(on_the_way.world(), ask));
    assert_eq!(at(1_999).world().in_flight().count(), 0, "not yet sent");
    let arrived = at(14_000);
    assert_eq!(arrived.world().in_flight().count(), 0, "delivered");
    assert!(
        !lesson.question_applies(arrived.world(), ask),
        "nothing on its way"
    );
}

/// The question about a delayed write is about the write that arrives at its moment: when the
/// lecturer's pause makes that same write (same client, key and token) arrive later, it does
/// not apply while the write is on its way.
#[test]
fn a_write_that_will_arrive_at_another_moment_is_not_the_one_asked_about() {
    let text = r#"
title = "a delayed write"
lease = 10.0
[[beat]]
at = 0.0
caption = "Client 1 takes the lock."
client = 1
do = "acquire"
[[beat]]
at = 1.0
caption = "Client 1 writes; the network holds the write."
client = 1
do = "write"
key = "file"
value = "late"
delay = 4.0
[[beat]]
at = 5.0
caption = "The write arrives."
ask = "Will the storage accept client 1's write with token 1?"
"#;
    let scenario = Arc::new(Scenario::parse("delayed", "delayed.toml", text).unwrap());
    let setup = Setup::new(scenario);
    let lesson = Lesson::of(&Session::new(setup.clone()));
    let on_time = Session::played_to(setup.clone(), 4_999);
    let held: Vec<(Ms, ClientId, &str, u64)> = on_time.world().in_flight().collect();
    assert_eq!(held, [(5_000, c(1), "file", 1)]);
    assert!(lesson.question_applies(on_time.world(), 2));
    // Frozen at 0.5 s for 15 s, client 1 sends the same write when it wakes at 15.5 s.
    let pause = Input {
        at: 500,
        kind: InputKind::Pause { client: c(1) },
    };
    let late = Session::played_to_with(setup, vec![pause], 15_500);
    let held: Vec<(Ms, ClientId, &str, u64)> = late.world().in_flight().collect();
    assert_eq!(held, [(19_500, c(1), "file", 1)]);
    assert!(
        !lesson.question_applies(late.world(), 2),
        "the write on its way arrives at 19.5 s, not at the question's 5.0 s"
    );
}

/// A write with a token the client no longer holds was not sent under a live lease, even by
/// the client that holds the lock now.
#[test]
fn a_write_with_an_old_token_is_not_under_a_live_lease() {
    let text = r#"
title = "an old token"
lease = 10.0
[[beat]]
at = 0.0
caption = "Client 1 takes the lock."
client = 1
do = "acquire"
[[beat]]
at = 1.0
caption = "Client 1 releases."
client = 1
do = "release"
[[beat]]
at = 2.0
caption = "Client 1 takes the lock again."
client = 1
do = "acquire"
[[beat]]
at = 3.0
caption = "Client 1 writes with its old token."
client = 1
do = "write"
key = "file"
value = "old"
token = 1
[[beat]]
at = 4.0
caption = "Client 1 writes with its token."
client = 1
do = "write"
key = "file"
value = "new"
"#;
    let scenario = Arc::new(Scenario::parse("old", "old.toml", text).unwrap());
    let session = Session::played_to(Setup::new(scenario.clone()), scenario.end);
    let writes: Vec<(u64, bool)> = session
        .world()
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Write {
                verdict,
                lease_live,
                ..
            } => Some((verdict.token, *lease_live)),
            _ => None,
        })
        .collect();
    assert_eq!(writes, [(1, false), (2, true)]);
}

/// A frozen client does nothing, not even a retry that comes due the instant it freezes: its
/// own clock stands still, so it asks again only when it wakes, as if no time had passed.
#[test]
fn a_frozen_clients_retry_waits_until_it_wakes() {
    let text = r#"
title = "a retry and a pause"
lease = 10.0
end = 11.0
[[beat]]
at = 0.0
caption = "Client 1 takes the lock."
client = 1
do = "acquire"
[[beat]]
at = 1.0
caption = "Client 2 asks, and will ask again every second."
client = 2
do = "acquire"
retry = 1.0
[[beat]]
at = 2.0
caption = "Client 2 freezes just as it would ask again."
client = 2
do = "pause"
seconds = 5.0
"#;
    let scenario = Arc::new(Scenario::parse("retry", "retry.toml", text).unwrap());
    let session = Session::played_to(Setup::new(scenario.clone()), scenario.end);
    let asks: Vec<(Ms, &'static str)> = session
        .world()
        .events()
        .iter()
        .filter(|e| e.kind.client() == Some(c(2)))
        .map(|e| (e.t, e.kind.name()))
        .collect();
    assert_eq!(
        asks,
        [
            (1_000, "acquire_refused"),
            (2_000, "pause"),
            (7_000, "resume"),
            (7_000, "acquire_refused"),
            (8_000, "acquire_refused"),
            (9_000, "acquire_refused"),
            (10_000, "grant"),
        ]
    );
}

/// Parses a scenario written for one test and plays it to its end.
fn played(text: &str) -> Session {
    let scenario = Arc::new(Scenario::parse("test", "test.toml", text).unwrap());
    Session::played_to(Setup::new(scenario.clone()), scenario.end)
}

/// (time, event name, client number or 0) of every event: a run's shape at a glance.
fn shape(session: &Session) -> Vec<(Ms, &'static str, u8)> {
    session
        .world()
        .events()
        .iter()
        .map(|e| {
            (
                e.t,
                e.kind.name(),
                e.kind.client().map_or(0, |c| c.number()),
            )
        })
        .collect()
}

/// A clock jump and an acquire at one instant: the jump ends the lease, and its expiry is
/// told before the grant that follows it.
#[test]
fn a_lease_a_clock_jump_ends_is_told_before_the_grant_at_that_instant() {
    let session = played(
        r#"
title = "jump, then take"
lease = 10.0
end = 3.0
[[beat]]
at = 0.0
caption = "Client 1 takes the lock."
client = 1
do = "acquire"
[[beat]]
at = 2.0
caption = "The service's clock jumps 10 s ahead."
do = "clock-jump"
seconds = 10.0
[[beat]]
at = 2.0
caption = "Client 2 takes the lock at once."
client = 2
do = "acquire"
"#,
    );
    assert_eq!(
        shape(&session),
        [
            (0, "grant", 1),
            (2_000, "clock_jump", 0),
            (2_000, "expire", 1),
            (2_000, "grant", 2),
        ]
    );
    let jump = &session.world().events()[1].kind;
    assert_eq!(
        jump,
        &EventKind::ClockJump {
            by: 10_000,
            service_now: 12.0
        }
    );
}

/// A scripted acquire that is granted ends the client's retries for that lock.
#[test]
fn a_grant_ends_the_retries_for_its_lock() {
    let session = played(
        r#"
title = "granted while retrying"
lease = 1.0
end = 8.0
[[beat]]
at = 0.0
caption = "Client 1 takes the lock."
client = 1
do = "acquire"
[[beat]]
at = 0.5
caption = "Client 2 asks, and will ask again in 5 s."
client = 2
do = "acquire"
retry = 5.0
[[beat]]
at = 3.0
caption = "Client 2 asks again by hand and gets it."
client = 2
do = "acquire"
"#,
    );
    assert_eq!(
        shape(&session),
        [
            (0, "grant", 1),
            (500, "acquire_refused", 2),
            (1_000, "expire", 1),
            (3_000, "grant", 2),
            (4_000, "expire", 2),
        ],
        "no retry at 5.5 s"
    );
}

/// Writes the network holds arrive in the order of their delivery times, not of sending.
#[test]
fn delayed_writes_arrive_in_delivery_order() {
    let setup = Setup::new(Arc::new(
        Scenario::parse(
            "delays",
            "delays.toml",
            r#"
title = "two delays"
lease = 20.0
end = 12.0
[[beat]]
at = 0.0
caption = "Client 1 takes the lock."
client = 1
do = "acquire"
[[beat]]
at = 1.0
caption = "A slow write."
client = 1
do = "write"
key = "file"
value = "slow"
delay = 10.0
[[beat]]
at = 2.0
caption = "A fast write."
client = 1
do = "write"
key = "log"
value = "fast"
delay = 2.0
[[beat]]
at = 3.0
caption = "A faster one."
client = 1
do = "write"
key = "log"
value = "faster"
delay = 0.5
"#,
        )
        .unwrap(),
    ));
    let at_3 = Session::played_to(setup.clone(), 3_000);
    let held: Vec<Ms> = at_3.world().in_flight().map(|f| f.0).collect();
    assert_eq!(held, [3_500, 4_000, 11_000], "soonest first");
    let session = Session::played_to(setup, 12_000);
    let arrivals: Vec<(Ms, &str)> = session
        .world()
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Write { value, .. } => Some((e.t, value.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        arrivals,
        [(3_500, "faster"), (4_000, "fast"), (11_000, "slow")]
    );
}

/// A pause that hits a frozen client extends the freeze only if it would last longer.
#[test]
fn a_second_pause_extends_a_freeze_only_past_its_end() {
    let session = played(
        r#"
title = "pauses"
lease = 10.0
end = 16.0
[[beat]]
at = 0.0
caption = "Client 1 freezes for 10 s."
client = 1
do = "pause"
seconds = 10.0
[[beat]]
at = 2.0
caption = "A shorter pause changes nothing."
client = 1
do = "pause"
seconds = 3.0
[[beat]]
at = 8.0
caption = "A longer one extends it to 13 s."
client = 1
do = "pause"
seconds = 5.0
"#,
    );
    let pauses: Vec<(Ms, &EventKind)> = session
        .world()
        .events()
        .iter()
        .map(|e| (e.t, &e.kind))
        .collect();
    assert_eq!(
        pauses,
        [
            (
                0,
                &EventKind::Pause {
                    client: c(1),
                    until: 10_000
                }
            ),
            (
                2_000,
                &EventKind::Pause {
                    client: c(1),
                    until: 10_000
                }
            ),
            (
                8_000,
                &EventKind::Pause {
                    client: c(1),
                    until: 13_000
                }
            ),
            (13_000, &EventKind::Resume { client: c(1) }),
        ]
    );
    assert_eq!(session.world().client(c(1)).lag(), 13_000);
}

/// "Check none" is fencing off, never a check: an input naming it, or the check already in
/// force, changes nothing and says nothing.
#[test]
fn only_a_real_change_of_check_is_an_event() {
    use fencing_lab::sim::{Input, InputKind};
    let inputs = vec![
        Input {
            at: 1_000,
            kind: InputKind::Check(FenceCheck::Unchecked),
        },
        Input {
            at: 2_000,
            kind: InputKind::Check(FenceCheck::PerKey),
        },
        Input {
            at: 3_000,
            kind: InputKind::Check(FenceCheck::Strict),
        },
        Input {
            at: 4_000,
            kind: InputKind::Check(FenceCheck::Strict),
        },
    ];
    let session =
        Session::played_to_with(setup("gc-pause", true, FenceCheck::PerKey), inputs, 5_000);
    let checks: Vec<(Ms, &EventKind)> = session
        .world()
        .events()
        .iter()
        .filter(|e| e.kind.name() == "check")
        .map(|e| (e.t, &e.kind))
        .collect();
    assert_eq!(
        checks,
        [(
            3_000,
            &EventKind::Check {
                check: FenceCheck::Strict
            }
        )]
    );
    assert_eq!(session.world().fenced_check(), FenceCheck::Strict);
    assert!(session.world().fencing());
}
