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
            Some(question) => {
                lines.push((
                    beat.at,
                    Line::Question {
                        beat: index,
                        text: lesson.vocab().say(&question.text),
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
