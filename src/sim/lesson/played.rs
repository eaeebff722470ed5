//! Whether another run of the lesson (the live one, on a real etcd) played its beats as the
//! reference did, so that the script's caption and question may be told of it.
//!
//! Such a run keeps its own clock and its own numbers: events come a few milliseconds after the
//! script's instants, a lease ends when etcd notices, and tokens are etcd's revisions. So a beat
//! is compared by what happened in its window (from its instant to the next beat's), not when
//! to the millisecond, and under the renumbering of the reference's grants to the run's. A
//! caption is told only if every window up to its beat's is the reference's, with the run's
//! numbers in it, and, if it names a time, only if its beat's events came on time.

use super::alike::{alike, shape, Placed};
use super::numbers::{names_a_time, Renumbering};
use super::premise::{first_write_at, is_asked_kind, signature, tone_of, window_end};
use super::{names_another_setting, Caption, Lesson, Source, Tone};
use crate::sim::event::{Event, EventKind};
use crate::sim::scenario::Variant;
use crate::sim::time::Ms;

/// How far from the script's instant a beat's events may come for a caption that names a time
/// to be told ("at exactly 12 s"): a live run's own lateness is a few milliseconds.
pub const ON_TIME: Ms = 100;

/// Why a beat's scripted caption is not told of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Untold {
    /// The script has no sentence for this beat under this setting that would be true of it.
    NoSentence,
    /// The run played this beat, or one before it, otherwise than the script.
    PlayedOtherwise,
    /// The sentence names a time, and the beat's events came this many ms from the script's
    /// instants, more than [`ON_TIME`].
    Late(Ms),
    /// The sentence names a token the run has not had.
    UnknownToken,
}

impl Lesson {
    /// Beat `index`'s scripted caption, told of `run` (a run of this lesson under `variant`,
    /// known up to `upto`, at or past the end of the beat's window), if `run` played every beat
    /// up to it as the caption's reference did: its token numbers are the run's.
    pub fn caption_played(
        &self,
        run: &[Event],
        variant: Variant,
        index: usize,
        upto: Ms,
    ) -> Result<Caption, Untold> {
        let beat = self.scenario.beats.get(index).ok_or(Untold::NoSentence)?;
        let (renumbering, drift) = self
            .played_alike(&Placed::new(run), variant, index, upto)
            .ok_or(Untold::PlayedOtherwise)?;
        let text = match beat.captions.written_for(variant) {
            Some(text) => text,
            None => self
                .fenced_caption_stands(variant, index)
                .ok_or(Untold::NoSentence)?,
        };
        if drift > ON_TIME && names_a_time(text) {
            return Err(Untold::Late(drift));
        }
        let text = renumbering.apply_all(text).ok_or(Untold::UnknownToken)?;
        let text = self.vocab.say_script(&text);
        Ok(Caption {
            tone: tone_of(&text),
            text,
            source: Source::Script {
                beat: index,
                variant,
            },
        })
    }

    /// Beat `index`'s sentence written for the seed's rule, if the lesson would tell it of its
    /// own scripted run under `variant`, which has no sentence of its own there: it names no
    /// other setting, and the two scripted runs are alike where the sentence looks.
    fn fenced_caption_stands(&self, variant: Variant, index: usize) -> Option<&str> {
        let beats = &self.scenario.beats;
        let text = beats[index].captions.written_for(Variant::Fenced)?;
        let window_end = window_end(beats, index);
        let premise = |v: Variant| signature(self.reference(v), &beats[index], window_end);
        (!names_another_setting(text, variant) && premise(variant) == premise(Variant::Fenced))
            .then_some(text)
    }

    /// The question to ask before `write` reaches the storage, if it is the write a beat's
    /// question is about: `run` (the events before it) played every earlier beat as the
    /// reference under `variant` did, and `write` has the reference write's client, key, value
    /// and token. Its numbers are the run's. Nothing of `write`'s verdict is looked at.
    pub fn question_played(
        &self,
        run: &[Event],
        variant: Variant,
        write: &Event,
    ) -> Option<Caption> {
        let index = self.scenario.beat_at(write.t)?;
        let beat = &self.scenario.beats[index];
        let asked = beat.ask.as_ref()?;
        let scenario = &self.scenario;
        let run = Placed::new(run);
        let so_far = run.window(scenario, Some(index), write.t);
        // Only the first such write of the beat's window is the one asked about.
        let first = so_far
            .iter()
            .copied()
            .chain([write])
            .find(|e| is_asked_kind(e, beat));
        if !first.is_some_and(|e| std::ptr::eq(e, write)) {
            return None;
        }
        let reference = self.reference(variant);
        let (renumbering, _) = self.played_alike(
            &run,
            variant,
            index.checked_sub(1),
            beat.at.saturating_sub(1),
        )?;
        let expected = first_write_at(reference, beat)?;
        // What came before the write in its own window must be the reference's too.
        let before = &reference[..reference.iter().position(|e| std::ptr::eq(e, expected))?];
        let before_theirs = Placed::new(before).window(scenario, Some(index), beat.at);
        alike(&before_theirs, &so_far, &renumbering)?;
        let expected = shape(&expected.kind, &|token| renumbering.of(token))?;
        if !same_writer(&expected, &shape(&write.kind, &Some)?) {
            return None;
        }
        Some(Caption {
            text: self.vocab.say_script(&renumbering.apply_all(&asked.text)?),
            tone: Tone::Question,
            source: Source::Question { beat: index },
        })
    }

    /// The renumbering of the reference's tokens to `run`'s, if `run` (known up to `upto`)
    /// played every window up to beat `through`'s (`None`: only what came before the first
    /// beat) as the reference under `variant` did; and how far from the script's instants the
    /// last window's events came.
    fn played_alike(
        &self,
        run: &Placed<'_>,
        variant: Variant,
        through: impl Into<Option<usize>>,
        upto: Ms,
    ) -> Option<(Renumbering, Ms)> {
        let reference = Placed::new(self.reference(variant));
        let renumbering = Renumbering::between(reference.events, run.events);
        let scenario = &self.scenario;
        let last = through.into().map_or(0, |i| i + 1);
        // Events before the first beat count as a window of their own.
        let windows = std::iter::once(None).chain((0..last).map(Some));
        let mut drift = 0;
        for window in windows {
            let theirs = reference.window(scenario, window, upto);
            let ours = run.window(scenario, window, upto);
            drift = alike(&theirs, &ours, &renumbering)?;
        }
        Some((renumbering, drift))
    }
}

/// Whether two writes (as [`shape`]s) are the same client's, of the same value to the same
/// key, with the same token: what a question names, whatever the storage then decided.
fn same_writer(a: &EventKind, b: &EventKind) -> bool {
    match (a, b) {
        (
            EventKind::Write {
                client: c1,
                key: k1,
                value: v1,
                verdict: d1,
                ..
            },
            EventKind::Write {
                client: c2,
                key: k2,
                value: v2,
                verdict: d2,
                ..
            },
        ) => c1 == c2 && k1 == k2 && v1 == v2 && d1.token == d2.token,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::sim::scenario::Scenario;
    use crate::sim::{ClientId, Vocab};

    fn lesson(name: &str) -> Lesson {
        let scenario = Arc::new(Scenario::built_in(name).expect("built in"));
        let vocab = Vocab::plain(&scenario.locks);
        Lesson::new(scenario, 1, vocab)
    }

    /// The reference on another clock and under other numbers, as a live run has it: each
    /// event a few ms late (never into the next beat's window), each token `3n + 4`, each
    /// lease's end somewhere else.
    fn as_live(lesson: &Lesson, reference: &[Event]) -> Vec<Event> {
        let scenario = lesson.scenario();
        let other = |n: u64| Some(3 * n + 4);
        reference
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let late = e.t + 1 + (i as Ms * 7) % 40;
                let t = if scenario.beat_at(late) == scenario.beat_at(e.t) {
                    late
                } else {
                    e.t
                };
                let late = t - e.t;
                let mut kind = shape(&e.kind, &other).expect("every token maps");
                // The times the shape left out, as late as the event.
                match (&mut kind, &e.kind) {
                    (
                        EventKind::Grant { expires_at, .. } | EventKind::Renew { expires_at, .. },
                        EventKind::Grant {
                            expires_at: was, ..
                        }
                        | EventKind::Renew {
                            expires_at: was, ..
                        },
                    ) => *expires_at = was + late as f64 / 1000.0,
                    (EventKind::Pause { until, .. }, EventKind::Pause { until: was, .. }) => {
                        *until = was + late
                    }
                    _ => {}
                }
                Event { t, kind }
            })
            .collect()
    }

    /// The end of beat `index`'s window.
    fn window_end(scenario: &Scenario, index: usize) -> Ms {
        scenario
            .beats
            .get(index + 1)
            .map_or(scenario.end.max(scenario.beats[index].at), |b| b.at - 1)
    }

    /// Every lesson under every setting, played as scripted on another clock and under other
    /// numbers: every beat's caption is told, in the run's numbers; every question is asked
    /// before its write and before no other.
    #[test]
    fn a_run_that_played_as_scripted_is_told_every_caption_in_its_own_numbers() {
        for name in Scenario::built_in_names() {
            let lesson = lesson(name);
            let scenario = lesson.scenario().clone();
            for variant in Variant::ALL {
                let reference = lesson.reference(variant).to_vec();
                let live = as_live(&lesson, &reference);
                for (index, beat) in scenario.beats.iter().enumerate() {
                    let upto = window_end(&scenario, index);
                    let caption = lesson.caption_played(&live, variant, index, upto);
                    let caption = caption.unwrap_or_else(|why| {
                        panic!("{name} {variant:?}: beat {index}'s caption is told: {why:?}")
                    });
                    let written = beat.captions.written_for(variant);
                    let expected = written.or(beat.captions.written_for(Variant::Fenced));
                    let renumbered = expected.map(|text| {
                        let plain = Renumbering::between(&reference, &live);
                        plain.apply(text)
                    });
                    assert_eq!(Some(caption.text.as_str()), renumbered.as_deref(), "{name}");
                    let plain_twos = caption.text.contains("token 1 ")
                        || caption.text.contains("token 2 ")
                        || caption.text.contains("token 2:");
                    assert!(!plain_twos, "{name}: {} is in plain numbers", caption.text);
                }
                for (i, write) in live.iter().enumerate() {
                    let asked = lesson.question_played(&live[..i], variant, write);
                    let index = scenario.beat_at(write.t);
                    let expected = index.filter(|&b| {
                        scenario.beats[b].ask.is_some()
                            && first_write_at(&reference, &scenario.beats[b])
                                .is_some_and(|w| std::ptr::eq(w, &reference[i]))
                    });
                    assert_eq!(
                        asked.map(|q| q.source),
                        expected.map(|beat| Source::Question { beat }),
                        "{name} {variant:?}: event {i} {write:?}"
                    );
                }
            }
        }
    }

    /// At every moment of every lesson under every setting, a run that differs there (an event
    /// missing, a verdict the other way, another client) is told the captions of the beats
    /// before, and none from that beat on: nothing after the difference is taken on trust.
    #[test]
    fn a_run_that_differs_at_a_moment_is_told_no_caption_from_that_beat_on() {
        for name in Scenario::built_in_names() {
            let lesson = lesson(name);
            let scenario = lesson.scenario().clone();
            for variant in Variant::ALL {
                let live = as_live(&lesson, lesson.reference(variant));
                for (at, event) in live.iter().enumerate() {
                    let Some(differs_from) = scenario.beat_at(event.t) else {
                        continue;
                    };
                    for changed in differences(&live, at) {
                        for index in 0..scenario.beats.len() {
                            let upto = window_end(&scenario, index);
                            let told = lesson.caption_played(&changed, variant, index, upto);
                            assert_eq!(
                                told.is_ok(),
                                index < differs_from,
                                "{name} {variant:?}: event {at} ({event:?}) changed; beat {index}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// Every beat of every lesson under every setting, its events 0.3 s late (where that keeps
    /// them in the beat's window): a caption naming a time is not told, any other is.
    #[test]
    fn a_caption_naming_a_time_is_told_only_of_a_beat_that_came_on_time() {
        let mut late_told = 0;
        for name in Scenario::built_in_names() {
            let lesson = lesson(name);
            let scenario = lesson.scenario().clone();
            for variant in Variant::ALL {
                let live = as_live(&lesson, lesson.reference(variant));
                for index in 0..scenario.beats.len() {
                    let upto = window_end(&scenario, index);
                    let late: Option<Vec<Event>> = live
                        .iter()
                        .map(|e| {
                            let mut e = e.clone();
                            if scenario.beat_at(e.t) == Some(index) {
                                e.t += 300;
                                if e.t > upto || scenario.beat_at(e.t) != Some(index) {
                                    return None;
                                }
                            }
                            Some(e)
                        })
                        .collect();
                    let Some(late) = late else { continue };
                    let Ok(on_time) = lesson.caption_played(&live, variant, index, upto) else {
                        panic!("{name} {variant:?} beat {index}: told on time");
                    };
                    let told = lesson.caption_played(&late, variant, index, upto);
                    let had_events = live.iter().any(|e| scenario.beat_at(e.t) == Some(index));
                    // Exactly ON_TIME late, even a caption naming a time is told.
                    let just_on_time: Vec<Event> = live
                        .iter()
                        .map(|e| {
                            let mut e = e.clone();
                            if scenario.beat_at(e.t) == Some(index) {
                                let drift = e.t.saturating_sub(scenario.beats[index].at);
                                e.t = e.t - drift + ON_TIME.min(upto - scenario.beats[index].at);
                            }
                            e
                        })
                        .collect();
                    let reference = lesson.reference(variant);
                    let exact = reference.iter().all(|e| {
                        scenario.beat_at(e.t) != Some(index) || e.t == scenario.beats[index].at
                    });
                    if exact && upto - scenario.beats[index].at >= ON_TIME {
                        assert_eq!(
                            lesson.caption_played(&just_on_time, variant, index, upto),
                            Ok(on_time.clone()),
                            "{name} {variant:?} beat {index}: {ON_TIME} ms late is on time"
                        );
                    }
                    if names_a_time(&on_time.text) && had_events {
                        assert!(
                            matches!(told, Err(Untold::Late(d)) if d >= 300),
                            "{name} {variant:?} beat {index}: {:?} told of a late beat",
                            on_time.text
                        );
                    } else {
                        assert_eq!(told, Ok(on_time), "{name} {variant:?} beat {index}");
                        late_told += 1;
                    }
                }
            }
        }
        assert!(
            late_told > 20,
            "captions naming no time are told late: {late_told}"
        );
    }

    /// The question is asked only of the write it names: the asked write of every lesson under
    /// every setting, with another value, key, token or client, is asked nothing.
    #[test]
    fn a_question_is_asked_only_of_the_write_it_names() {
        let mut tried = 0;
        for name in Scenario::built_in_names() {
            let lesson = lesson(name);
            let scenario = lesson.scenario().clone();
            for variant in Variant::ALL {
                let live = as_live(&lesson, lesson.reference(variant));
                let asked = live
                    .iter()
                    .enumerate()
                    .find(|(i, w)| lesson.question_played(&live[..*i], variant, w).is_some());
                let Some((i, write)) = asked else {
                    assert!(
                        scenario.beats.iter().all(|b| b.ask.is_none()),
                        "{name} {variant:?} asks nothing"
                    );
                    continue;
                };
                for change in 0..4 {
                    let mut other = write.clone();
                    let EventKind::Write {
                        client,
                        key,
                        value,
                        verdict,
                        ..
                    } = &mut other.kind
                    else {
                        unreachable!("a question is asked of a write")
                    };
                    match change {
                        0 => value.push('!'),
                        1 => key.push('!'),
                        2 => verdict.token += 1,
                        _ => *client = ClientId::ALL[(client.index() + 1) % 3],
                    }
                    let question = lesson.question_played(&live[..i], variant, &other);
                    assert_eq!(question, None, "{name} {variant:?}: {other:?}");
                    tried += 1;
                }
            }
        }
        assert!(tried >= 40, "{tried}");
    }

    /// The question is asked of its write even when other events come first in its window
    /// (here the writer's lease ends at that very instant).
    #[test]
    fn a_question_is_asked_of_its_write_after_other_events_of_its_window() {
        let text = r#"
title = "t"
lease = 2.0
lock = "l"
end = 4.0
[[beat]]
at = 0.0
client = 1
do = "acquire"
caption = "Client 1 takes the lock."
[[beat]]
at = 2.0
client = 1
do = "write"
key = "k"
value = "v"
ask = "Will the storage accept client 1's write with token 1?"
caption = "Client 1 writes as its lease ends."
"#;
        let scenario = Arc::new(Scenario::parse("t", "a test", text).unwrap());
        let lesson = Lesson::new(scenario.clone(), 1, Vocab::plain(&scenario.locks));
        let run = lesson.reference(Variant::Fenced).to_vec();
        let at = run
            .iter()
            .position(|e| matches!(e.kind, EventKind::Write { .. }))
            .unwrap();
        assert!(
            run[..at].iter().any(|e| e.t == 2_000),
            "something comes first at 2 s: {run:?}"
        );
        let asked = lesson.question_played(&run[..at], Variant::Fenced, &run[at]);
        assert_eq!(asked.map(|q| q.source), Some(Source::Question { beat: 1 }));
    }

    /// A sentence written only for the seed's rule is told of an unfenced run only where it
    /// names no setting and the two scripted runs agree: "fencing on" is never told of a run
    /// without it, nor a beat whose write the two settings decide otherwise.
    #[test]
    fn a_sentence_for_the_seeds_rule_stands_elsewhere_only_where_true() {
        let text = r#"
title = "t"
lease = 10.0
lock = "l"
end = 6.0
[[beat]]
at = 0.0
client = 1
do = "acquire"
caption = "With fencing on, client 1 takes the lock."
[[beat]]
at = 1.0
client = 2
do = "acquire"
caption = "Client 2 is refused."
[[beat]]
at = 2.0
client = 2
do = "write"
key = "k"
value = "v"
token = 1
caption = "Client 2 writes with client 1's token 1: accepted."
[[beat]]
at = 3.0
client = 1
do = "write"
key = "k"
value = "w"
caption = "Client 1 writes too."
"#;
        let scenario = Arc::new(Scenario::parse("t", "a test", text).unwrap());
        let lesson = Lesson::new(scenario.clone(), 1, Vocab::plain(&scenario.locks));
        let run = lesson.reference(Variant::Unfenced).to_vec();
        let told = |index| lesson.caption_played(&run, Variant::Unfenced, index, 5_999);
        assert_eq!(told(0), Err(Untold::NoSentence), "it names fencing");
        assert!(told(1).is_ok(), "{:?}", told(1));
        assert_eq!(told(2), Err(Untold::NoSentence), "no check judged it");
        let run = lesson.reference(Variant::Strict).to_vec();
        let strict = |index| lesson.caption_played(&run, Variant::Strict, index, 5_999);
        assert!(
            strict(2).is_ok(),
            "both checks accept token 1 first: {:?}",
            strict(2)
        );
        assert_eq!(
            strict(3),
            Err(Untold::NoSentence),
            "the strict check refuses 1 after 1"
        );
    }

    /// `live` with event `at` missing, and with it otherwise: a write decided the other way, or
    /// anything else done by another client.
    fn differences(live: &[Event], at: usize) -> Vec<Vec<Event>> {
        let mut missing = live.to_vec();
        missing.remove(at);
        let mut other = live.to_vec();
        let changed = match &mut other[at].kind {
            EventKind::Write { verdict, .. } => {
                verdict.accepted = !verdict.accepted;
                true
            }
            EventKind::Grant { client, .. }
            | EventKind::AcquireRefused { client, .. }
            | EventKind::Release { client, .. }
            | EventKind::Expire { client, .. }
            | EventKind::Pause { client, .. }
            | EventKind::Resume { client }
            | EventKind::Renew { client, .. }
            | EventKind::RenewRefused { client, .. }
            | EventKind::Crash { client, .. }
            | EventKind::Restart { client } => {
                *client = ClientId::ALL[(client.index() + 1) % 3];
                true
            }
            _ => false,
        };
        let mut all = vec![missing];
        if changed {
            all.push(other);
        }
        all
    }
}
