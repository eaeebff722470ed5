//! What the caption box says at every moment of every lesson, pinned word for word: under each
//! storage check, with fencing off, and after the lecturer pauses, crashes or delays a client or
//! switches fencing or the check just before the lesson's key beat. tests/truth.rs proves no
//! caption contradicts the events; these snapshots (`tests/snapshots/transcripts__*.snap`) let
//! a reader check each sentence a class could see, and fail on any change of one.
//!
//! Each run lists a caption when it changes (`»` from the script, `·` made from the events),
//! its tone when it is not plain, and each question with whether it is asked and its answer.
//! After an intended change of wording, read the new `.snap.new` files and accept them.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::sync::Arc;

use fencing_lab::sim::lesson::{Lesson, RunView, Source, Tone};
use fencing_lab::sim::time::fmt_seconds;
use fencing_lab::sim::{
    Beat, BeatAction, ClientId, EventKind, Input, InputKind, Ms, Scenario, Session, Setup,
};
use fencing_lab::FenceCheck;

/// The lines of one run: the setup, the lecturer's inputs, and what the lesson says.
fn narrate(setup: &Setup, inputs: &[Input], label: &str) -> String {
    let scenario = setup.scenario.clone();
    let whole = Session::played_to_with(setup.clone(), inputs.to_vec(), scenario.end);
    let mut moments: BTreeSet<Ms> = whole.world().events().iter().map(|e| e.t).collect();
    moments.extend(scenario.beats.iter().map(|b| b.at));
    moments.extend(inputs.iter().map(|i| i.at));
    moments.retain(|&t| t <= scenario.end);
    let lesson = Lesson::of(&whole);
    let mut session = Session::with_inputs(setup.clone(), inputs.to_vec());
    let mut out = format!("== {label}\n");
    let mut last = String::new();
    for t in moments {
        // The world just before the moment: where a question is asked, or not.
        if t > 0 {
            session.seek(t - 1);
        }
        let asked: Vec<(usize, bool)> = scenario
            .beats
            .iter()
            .enumerate()
            .filter(|(_, b)| b.at == t && b.ask.is_some())
            .map(|(i, _)| (i, lesson.question_applies(session.world(), i)))
            .collect();
        session.seek(t);
        let run = RunView::of(&session);
        for &(beat, applies) in &asked {
            let question = lesson.question(beat).text;
            let when = fmt_seconds(t);
            if applies {
                writeln!(out, "{when:>7}  ? {question}").unwrap();
            } else {
                writeln!(out, "{when:>7}  ? not asked: {question}").unwrap();
            }
            if lesson.has_answer(run, beat) {
                let answer = lesson.answer(run, beat);
                writeln!(out, "{:>7}  = {}{}", "", tone(answer.tone), answer.text).unwrap();
            }
        }
        let caption = lesson.caption(run, t);
        if caption.text != last {
            let mark = match caption.source {
                Source::Script { .. } => '»',
                _ => '·',
            };
            let when = fmt_seconds(t);
            writeln!(
                out,
                "{when:>7}  {mark} {}{}",
                tone(caption.tone),
                caption.text
            )
            .unwrap();
            last = caption.text;
        }
    }
    out
}

fn tone(tone: Tone) -> &'static str {
    match tone {
        Tone::Plain => "",
        Tone::Rejected => "[rejected] ",
        Tone::Corrupted => "[corrupted] ",
        Tone::Question => "[question] ",
    }
}

/// The beat the lesson turns on: its question, else its last write, else its last action.
fn key_beat(scenario: &Scenario) -> &Beat {
    let beats = &scenario.beats;
    let write = |b: &&Beat| {
        matches!(
            b.action,
            Some(BeatAction::Client {
                action: fencing_lab::sim::ClientAction::Write { .. },
                ..
            })
        )
    };
    beats
        .iter()
        .find(|b| b.ask.is_some())
        .or_else(|| beats.iter().rev().find(write))
        .or_else(|| beats.iter().rev().find(|b| b.action.is_some()))
        .expect("a lesson has beats")
}

/// The client the key beat is about: its own, or for a narration beat the client of the last
/// write before it.
fn key_client(scenario: &Scenario, key: &Beat) -> ClientId {
    key.client().unwrap_or_else(|| {
        scenario
            .beats
            .iter()
            .rev()
            .filter(|b| b.at <= key.at)
            .find_map(|b| match &b.action {
                Some(BeatAction::Client {
                    client,
                    action: fencing_lab::sim::ClientAction::Write { .. },
                }) => Some(*client),
                _ => None,
            })
            .expect("a narration question follows a write")
    })
}

fn transcript_of(name: &str) -> String {
    let scenario = Arc::new(Scenario::built_in(name).unwrap());
    let fenced = Setup::new(scenario.clone()).fencing(true);
    let mut out = format!("{name}: {}\n\n", scenario.title);
    for (label, setup) in [
        ("fenced, per-key: token >= highest(key)", fenced.clone()),
        (
            "fenced, strict: token > highest(key)",
            fenced.clone().check(FenceCheck::Strict),
        ),
        (
            "fenced, global: token >= highest(any key)",
            fenced.clone().check(FenceCheck::Global),
        ),
        ("fencing off", fenced.clone().fencing(false)),
    ] {
        out.push_str(&narrate(&setup, &[], label));
        out.push('\n');
    }
    let key = key_beat(&scenario);
    let who = key_client(&scenario, key);
    let before = key.at.saturating_sub(500);
    let mut runs: Vec<(String, InputKind, Ms)> = vec![
        (
            format!("{who} paused"),
            InputKind::Pause { client: who },
            before,
        ),
        (
            format!("{who} crashed"),
            InputKind::Crash { client: who },
            before,
        ),
        (
            format!("{who}'s next write delayed"),
            InputKind::Delay { client: who },
            before,
        ),
        (
            "fencing turned off".into(),
            InputKind::Fencing { on: false },
            before,
        ),
        (
            "the check switched to global".into(),
            InputKind::Check(FenceCheck::Global),
            before,
        ),
    ];
    // The holder of a refused acquire, paused or crashed just before the refusal.
    let scripted = Session::played_to(fenced.clone(), scenario.end);
    let refusal = scripted.world().events().iter().find_map(|e| match e.kind {
        EventKind::AcquireRefused {
            holder: Some(holder),
            client,
            ..
        } if holder != client => Some((e.t, holder)),
        _ => None,
    });
    if let Some((t, holder)) = refusal {
        let at = t.saturating_sub(500);
        runs.push((
            format!("{holder}, the holder, paused"),
            InputKind::Pause { client: holder },
            at,
        ));
        runs.push((
            format!("{holder}, the holder, crashed"),
            InputKind::Crash { client: holder },
            at,
        ));
    }
    for (what, kind, at) in runs {
        let label = format!("fenced; at {} s {what}", fmt_seconds(at));
        out.push_str(&narrate(&fenced, &[Input { at, kind }], &label));
        out.push('\n');
    }
    out
}

#[test]
fn every_lesson_says_what_it_says_in_every_setting_and_after_every_intervention() {
    let lessons: Vec<&str> = Scenario::built_in_names()
        .filter(|&name| name != "chaos")
        .collect();
    assert_eq!(lessons.len(), 10, "every lesson but the chaos run");
    for name in lessons {
        let snapshot = format!("transcript_{}", name.replace('-', "_"));
        insta::assert_snapshot!(snapshot, transcript_of(name));
    }
}
