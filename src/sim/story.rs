//! A run told in time order: each beat's true caption, the events, and a question with its
//! answer after the write it asks about (so the caption never gives the answer away). The
//! transcript, the handout and the lesson page are all told from this.

use super::event::Event;
use super::lesson::{Caption, Lesson, RunView, Source, Tone};
use super::time::Ms;

/// One line of the story.
#[derive(Clone, Debug, PartialEq)]
pub enum Line<'a> {
    /// A beat's caption (the script's, when it holds; else why the beat did not happen).
    Caption(Caption),
    /// A beat's question, before the write it asks about.
    Question { beat: usize, text: String },
    /// Something that happened.
    Event(&'a Event),
    /// The answer, after the write.
    Answer { beat: usize, caption: Caption },
}

/// The story of `run` up to `until`, as (time, line) in order.
pub fn tell<'a>(lesson: &Lesson, run: RunView<'a>, until: Ms) -> Vec<(Ms, Line<'a>)> {
    let events: Vec<&'a Event> = run
        .history
        .events()
        .iter()
        .take_while(|e| e.t <= until)
        .collect();
    let mut next = 0;
    let mut lines = Vec::new();
    let beats = &run.setup.scenario.beats;
    for (index, beat) in beats.iter().enumerate().take_while(|(_, b)| b.at <= until) {
        while next < events.len() && events[next].t < beat.at {
            lines.push((events[next].t, Line::Event(events[next])));
            next += 1;
        }
        let caption = lesson.caption(run, beat.at);
        let caption = match caption.source {
            Source::Script { .. } => Some(caption),
            _ => lesson.beat_note(run, index, beat.at).map(|text| Caption {
                text,
                tone: Tone::Plain,
                source: caption.source,
            }),
        };
        let asks = beat.ask.as_ref().filter(|_| lesson.has_answer(run, index));
        match asks {
            Some(_) => {
                lines.push((
                    beat.at,
                    Line::Question {
                        beat: index,
                        text: lesson.question(index).text,
                    },
                ));
                while next < events.len() && events[next].t == beat.at {
                    lines.push((events[next].t, Line::Event(events[next])));
                    next += 1;
                }
                lines.push((
                    beat.at,
                    Line::Answer {
                        beat: index,
                        caption: lesson.answer(run, index),
                    },
                ));
                lines.extend(caption.map(|c| (beat.at, Line::Caption(c))));
            }
            None => lines.extend(caption.map(|c| (beat.at, Line::Caption(c)))),
        }
    }
    lines.extend(events[next..].iter().map(|e| (e.t, Line::Event(e))));
    lines
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::sim::{ClientId, EventKind, Input, InputKind, Scenario, Session, Setup};

    fn gc_pause() -> Session {
        let scenario = Arc::new(Scenario::built_in("gc-pause").expect("built in"));
        let end = scenario.end;
        Session::played_to(Setup::new(scenario), end)
    }

    fn kind(line: &Line) -> &'static str {
        match line {
            Line::Caption(_) => "caption",
            Line::Question { .. } => "question",
            Line::Event(e) if matches!(e.kind, EventKind::Write { .. }) => "write",
            Line::Event(_) => "event",
            Line::Answer { .. } => "answer",
        }
    }

    #[test]
    fn the_story_tells_every_event_once_in_time_order_with_every_beats_caption() {
        let session = gc_pause();
        let lesson = Lesson::of(&session);
        let story = tell(&lesson, RunView::of(&session), session.now());
        assert!(story.windows(2).all(|w| w[0].0 <= w[1].0), "time order");
        let told: Vec<*const Event> = story
            .iter()
            .filter_map(|(_, l)| match l {
                Line::Event(e) => Some(*e as *const Event),
                _ => None,
            })
            .collect();
        let events: Vec<*const Event> = session
            .world()
            .events()
            .iter()
            .map(|e| e as *const Event)
            .collect();
        assert_eq!(told, events, "every event, once, in order");
        let beats = &session.setup().scenario.beats;
        let captions: Vec<Ms> = story
            .iter()
            .filter(|(_, l)| matches!(l, Line::Caption(_)))
            .map(|(t, _)| *t)
            .collect();
        assert_eq!(captions, beats.iter().map(|b| b.at).collect::<Vec<_>>());
    }

    /// At a beat that asks, the question comes before the write it asks about and the answer
    /// after it; at any other beat the caption comes before what happens at its instant.
    #[test]
    fn the_question_comes_before_its_write_and_the_answer_after() {
        let session = gc_pause();
        let lesson = Lesson::of(&session);
        let story = tell(&lesson, RunView::of(&session), session.now());
        let at = |t: Ms| -> Vec<&'static str> {
            story
                .iter()
                .filter(|(at, _)| *at == t)
                .map(|(_, l)| kind(l))
                .collect()
        };
        assert_eq!(at(16_500), ["question", "write", "answer", "caption"]);
        assert_eq!(at(12_000), ["caption", "write"]);
        let question = story
            .iter()
            .find_map(|(_, l)| match l {
                Line::Question { beat, text } => Some((*beat, text.clone())),
                _ => None,
            })
            .expect("gc-pause asks");
        assert_eq!(
            question,
            (
                7,
                "Will the storage accept client 1's write with token 1?".to_owned()
            )
        );
    }

    /// A beat whose action the lecturer's pause put off is told as what became of it, where
    /// the script's caption would be false.
    #[test]
    fn a_beat_that_did_not_happen_as_written_is_told_as_what_became_of_it() {
        let scenario = Arc::new(Scenario::built_in("gc-pause").expect("built in"));
        let pause = Input {
            at: 3_000,
            kind: InputKind::Pause {
                client: ClientId::ALL[2],
            },
        };
        let session = Session::played_to_with(Setup::new(scenario), vec![pause], 4_000);
        let lesson = Lesson::of(&session);
        let story = tell(&lesson, RunView::of(&session), session.now());
        let captions: Vec<(Ms, &str)> = story
            .iter()
            .filter_map(|(t, l)| match l {
                Line::Caption(c) => Some((*t, c.text.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(
            captions.last(),
            Some(&(
                4_000,
                "Client 3 is frozen in a GC pause you injected: its acquire of file-lock waits \
                 until it wakes at 18.0 s."
            )),
            "the script's \"Client 3 asks for the lock: refused\" did not happen"
        );
        assert_eq!(captions.len(), 3, "one caption for each beat up to 4.0 s");
    }

    #[test]
    fn the_story_stops_at_its_moment_and_tells_what_happened_at_it() {
        let session = gc_pause();
        let lesson = Lesson::of(&session);
        let story = tell(&lesson, RunView::of(&session), 16_500);
        assert_eq!(story.last().map(|(t, _)| *t), Some(16_500));
        assert!(story.iter().any(|(_, l)| kind(l) == "answer"));
        let before = tell(&lesson, RunView::of(&session), 16_499);
        assert!(before.iter().all(|(t, _)| *t <= 16_000));
        assert!(!before.iter().any(|(_, l)| kind(l) == "question"));
        assert_eq!(
            before.len() + 4,
            story.len(),
            "the question, the write, the answer and the caption at 16.5 s"
        );
    }
}
