//! How the chaos check words what it covered and what it found.

use super::*;
use crate::lab::chaos::{Found, Writes};

/// The first difference of a storage that checks no token: a write deep in seed 1's calls.
fn unchecked_difference() -> (u64, Mismatch) {
    let found = chaos::check(
        &mut Student::new(Mistake::WriteUnchecked),
        1..=1,
        Profile::default(),
    )
    .unwrap();
    found
        .difference
        .expect("an unchecked storage differs in seed 1")
}

fn found(calls: u64, unclear: u64) -> Found {
    Found {
        calls,
        writes: Writes::default(),
        difference: None,
        unclear,
        cut_short: false,
        played: 20,
    }
}

#[test]
fn the_scope_names_seeds_judged_only_up_to_float_rounding_and_only_those() {
    assert_eq!(
        chaos_scope(20, &found(5_250, 0)),
        "20 seeds of 60.0 s, 5,250 calls"
    );
    assert_eq!(
        chaos_scope(1, &found(1, 1)),
        "1 seed of 60.0 s, 1 call; 1 seed judged up to where float rounding decided a lease's end"
    );
    assert!(chaos_scope(2_000, &found(9, 3))
        .ends_with("; 3 seeds judged up to where float rounding decided a lease's end"));
}

#[test]
fn the_storage_is_described_only_where_some_write_had_its_answer() {
    let (_, m) = unchecked_difference();
    // Every write answered "not implemented": the storage's code never ran.
    let unwritten = Writes {
        seed_accepts: 4,
        seed_rejects: 1,
        ..Writes::default()
    };
    assert_eq!(storage_note(20, &unwritten, &m), None);
    for (accepted, rejected) in [(3, 0), (0, 3), (2, 1)] {
        let w = Writes {
            seed_accepts: 2,
            seed_rejects: 1,
            student_accepts: accepted,
            student_rejects: rejected,
        };
        assert_eq!(
            storage_note(20, &w, &m),
            Some(format!(
                "over 20 chaos runs, the seed's rule accepts 2 writes and rejects 1; your storage \
                 accepted {accepted} and rejected {rejected}"
            ))
        );
    }
    assert!(storage_note(
        1,
        &Writes {
            student_accepts: 1,
            ..unwritten
        },
        &m
    )
    .unwrap()
    .starts_with("over 1 chaos run, "));
}

/// The chaos failure's note counts the writes of every seed it played, those after the seed
/// that differs too, and says so.
#[test]
fn the_chaos_notes_counts_are_those_of_every_seed_played() {
    let plan = Plan {
        chaos_seeds: 3,
        ..plan()
    };
    let (outcomes, _, error) = check_with(
        Box::new(Student::new(Mistake::WriteUnchecked)),
        &mut || Box::new(Student::new(Mistake::WriteUnchecked)),
        &plan,
    );
    assert_eq!(error, None);
    let Verdict::Failed(f) = verdict_of(&outcomes, CheckId::Chaos) else {
        panic!("an unchecked storage fails the chaos check");
    };
    let scenario = std::sync::Arc::new(crate::sim::Scenario::built_in("chaos").unwrap());
    let (mut accepts, mut rejects) = (0, 0);
    for seed in 1..=3 {
        for call in chaos::recorded_calls(&scenario, seed) {
            if let crate::lab::reference::Seed::Wrote { verdict, .. } = call.decision.seed {
                *(if verdict.accepted {
                    &mut accepts
                } else {
                    &mut rejects
                }) += 1;
            }
        }
    }
    let note = f.note.as_deref().unwrap();
    assert!(
        note.starts_with(&format!(
            "over 3 chaos runs, the seed's rule accepts {accepts} writes and rejects {rejects}; \
             your storage accepted {} and rejected 0",
            accepts + rejects
        )),
        "{note}"
    );
}

#[test]
fn a_case_that_is_not_a_script_shows_its_last_eight_calls_after_a_count_of_the_rest() {
    let (_, m) = unchecked_difference();
    let lines = m.lines();
    assert!(lines.len() > 9, "{}", lines.len());
    let f = last_calls(&m, 3.0, 1);
    let before = lines.len() - 8;
    assert_eq!(f.transcript[0], format!("… ({before} calls before)"));
    assert_eq!(f.transcript[1..], lines[before..]);
    assert_eq!(
        (f.lease_seconds, f.first_token, f.played.len()),
        (3.0, 1, 0)
    );
    // The last calls of the difference, as many as make `lines` lines (clock moves make none).
    let ending = |lines: usize| {
        (1..=m.transcript.len())
            .map(|k| Mismatch {
                transcript: m.transcript[m.transcript.len() - k..].to_vec(),
                ..m.clone()
            })
            .find(|short| short.lines().len() == lines)
            .expect("each call but a clock move is a line")
    };
    // Eight calls or fewer are all shown, with no mark.
    for lines in [8, 3] {
        let short = ending(lines);
        assert_eq!(last_calls(&short, 3.0, 1).transcript, short.lines());
    }
    assert_eq!(
        last_calls(&ending(9), 3.0, 1).transcript[0],
        "… (1 call before)"
    );
}
