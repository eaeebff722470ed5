//! The live screen (`live --tui`) drawn from a board filled by hand: the lesson's screen in
//! etcd's words, and etcd's truth where it departs from the plan.

use fencing_lab::sim::board::{About, Board, StoredRow};
use fencing_lab::sim::{ClientId, Event, EventKind, LockId, Scenario, Setup};
use fencing_lab::{FenceCheck, Verdict};

/// The live screen drawn from a board of etcd's events at 80x24: the lesson's own panels.
#[test]
fn the_live_screen_is_the_lesson_s_screen() {
    let scenario = std::sync::Arc::new(Scenario::built_in("gc-pause").unwrap());
    let mut board = Board::new(Setup::new(scenario));
    let (c1, c2, lock) = (ClientId::ALL[0], ClientId::ALL[1], LockId::FIRST);
    let events = [
        (
            4,
            EventKind::Grant {
                client: c1,
                lock,
                token: 2,
                expires_at: 10.004,
            },
        ),
        (
            1_000,
            EventKind::Pause {
                client: c1,
                until: 16_000,
            },
        ),
        (
            10_300,
            EventKind::Expire {
                client: c1,
                lock,
                token: 2,
            },
        ),
        (
            11_007,
            EventKind::Grant {
                client: c2,
                lock,
                token: 4,
                expires_at: 21.007,
            },
        ),
    ];
    for (t, kind) in events {
        board.apply(Event { t, kind });
    }
    board.apply(Event {
        t: 12_003,
        kind: EventKind::Write {
            client: c2,
            key: "file".into(),
            value: "client 2's data".into(),
            verdict: Verdict::judge(FenceCheck::PerKey, 4, None, None),
            sent_at: None,
            lease_live: true,
        },
    });
    board.set_storage(vec![StoredRow {
        key: "file".into(),
        value: "client 2's data".into(),
        highest: Some(4),
        by: Some((c2, 4)),
    }]);
    board.tick(12_500);
    let screen = fencing_lab::tui::live_text(&board, 80, 24);
    for wanted in [
        "LIVE · FENCING ON",
        "t = 12.5 s real",
        "client-2  rev 4",
        "\"client 2's data\"",
        "c2 (rev 4)",
        "r2 ",
        "ended 2.2 s ago",
        "12.003 client-2 writes \"client 2's data\" to file with revision 4",
    ] {
        assert!(
            screen.contains(wanted),
            "{wanted:?} not on screen:\n{screen}"
        );
    }
    assert_eq!(screen.lines().count(), 24);
    assert!(screen.lines().all(|l| l.chars().count() <= 80));
}

/// A lease etcd's new leader renewed: the lock panel and the lock service's column show etcd's
/// end, not the plan's; a five-digit revision fits the lock lane as "c1 r10020"; after the end
/// the header names no etcd, which is stopped by then.
#[test]
fn the_live_screen_shows_etcd_s_truth_and_etcd_s_revisions() {
    let scenario = std::sync::Arc::new(Scenario::built_in("gc-pause").unwrap());
    let mut board = Board::new(Setup::new(scenario));
    board.ttl = Some(10_000);
    board.about = Some(About {
        long: "etcd at 127.0.0.1:23791 +2".into(),
        short: "etcd 127.0.0.1:23791".into(),
    });
    let (c1, lock) = (ClientId::ALL[0], LockId::FIRST);
    board.apply(Event {
        t: 4,
        kind: EventKind::Grant {
            client: c1,
            lock,
            token: 10_020,
            expires_at: 10.004,
        },
    });
    board.apply(Event {
        t: 1_000,
        kind: EventKind::Pause {
            client: c1,
            until: 16_000,
        },
    });
    board.lease_outlived(lock, 10_020, 7_700, 17.7);
    board.tick(11_500);
    let screen = fencing_lab::tui::live_text(&board, 80, 24);
    assert!(
        screen.contains("lock     c1 rev 10020=") || screen.contains("lock     c1 r10020="),
        "the five-digit revision's grant label:\n{screen}"
    );
    for wanted in [
        "granted 7.7 s  TTL to 17.7 s",
        "live 6.2 s",
        "TTL 10.0 s",
        // At 80 columns the endpoint's short form, so the title stays whole.
        "  etcd 127.0.0.1:23791",
    ] {
        assert!(
            screen.contains(wanted),
            "{wanted:?} not on screen:\n{screen}"
        );
    }
    assert!(!screen.contains("ended"), "the lease is live:\n{screen}");
    assert!(
        screen.contains("gc-pause: "),
        "the lesson's name is whole:\n{screen}"
    );
    board.ended = Some("The lesson is over at 23.0 s.".into());
    let over = fencing_lab::tui::live_text(&board, 80, 24);
    assert!(
        !over.contains("127.0.0.1"),
        "a stopped etcd's address:\n{over}"
    );
    assert!(
        over.lines().nth(1).unwrap().contains("lesson over"),
        "{over}"
    );
}

/// At 80 columns the live header cuts no lesson's title: on a three-node cluster the endpoint
/// gives way to its short form ("etcd 127.0.0.1:23791", without "at" and "+2") first.
#[test]
fn the_live_header_cuts_no_title_at_80_columns() {
    for scenario in Scenario::all_built_in() {
        if fencing_lab::live::plan::refusal(scenario).is_some() {
            continue;
        }
        let name = scenario.name.clone();
        let titles = [scenario.title.clone(), scenario.short_title.clone()];
        let mut board = Board::new(Setup::new(std::sync::Arc::new(scenario.clone())));
        board.about = Some(About {
            long: "etcd at 127.0.0.1:23791 +2".into(),
            short: "etcd 127.0.0.1:23791".into(),
        });
        board.tick(1_000);
        let screen = fencing_lab::tui::live_text(&board, 80, 24);
        let header = screen.lines().nth(1).unwrap();
        assert!(
            titles
                .iter()
                .any(|title| header.contains(&format!("{name}: {title}"))),
            "{name}'s title is not whole: {header}"
        );
        assert!(!header.contains('…'), "{name}'s title is cut: {header}");
        assert!(header.contains("127.0.0.1:23791"), "{name}: {header}");
    }
}
