//! The lesson's questions: whether one still applies in this run, its answer, and what the
//! reveal says of the class's prediction.

use super::premise::first_write_at;
use super::run_view::RunView;
use super::{Caption, Lesson, Source, Tone};
use crate::sim::client::Client;
use crate::sim::event::{Event, EventKind};
use crate::sim::phrase::write_reason;
use crate::sim::scenario::{BeatAction, ClientAction, Variant};
use crate::sim::time::Ms;
use crate::sim::world::World;
use crate::Outcome;

impl Lesson {
    /// Whether beat `index`'s question still makes sense in this world (at the moment before the
    /// beat): the write it asks about will be sent, by the client, with the token and to the key
    /// the question was written for.
    pub fn question_applies(&self, world: &World, index: usize) -> bool {
        let Some(beat) = self.scenario.beats.get(index) else {
            return false;
        };
        if beat.ask.is_none() {
            return false;
        }
        let variant = Variant::of(world.fencing(), world.fenced_check());
        let Some(expected) = first_write_at(self.reference(variant), beat) else {
            return false;
        };
        let EventKind::Write {
            client,
            key,
            verdict,
            ..
        } = &expected.kind
        else {
            return false;
        };
        match &beat.action {
            Some(BeatAction::Client {
                client: c,
                action:
                    ClientAction::Write {
                        lock,
                        key: k,
                        token,
                        delay: None,
                        ..
                    },
            }) => {
                let actor: &Client = world.client(*c);
                let token = token.or_else(|| actor.belief(*lock).map(|b| b.token));
                !actor.is_down()
                    && !actor.is_paused()
                    && !actor.next_write_delayed()
                    && c == client
                    && k == key
                    && token == Some(verdict.token)
            }
            Some(_) => false,
            None => world.in_flight().any(|(at, c, k, token)| {
                at == beat.at && c == *client && k == key && token == verdict.token
            }),
        }
    }

    /// The verdict on the write beat `index`'s question asks about, as the answer states it:
    /// "REJECTED, token 1 < 2, the highest token 'file' has accepted."
    pub fn answer(&self, run: RunView<'_>, index: usize) -> Caption {
        self.spoken(self.answer_of(run, index))
    }

    fn answer_of(&self, run: RunView<'_>, index: usize) -> Caption {
        let beat = &run.scenario().beats[index];
        let source = Source::Reveal { beat: index };
        let Some(write) = first_write_at(run.events(), beat) else {
            return Caption {
                text: "no write reached the storage at this moment in this run, so there is nothing to judge."
                    .into(),
                tone: Tone::Plain,
                source,
            };
        };
        self.verdict_of(write, index)
            .expect("first_write_at finds writes")
    }

    /// What the storage decided on `write`, as the answer to beat `index`'s question states
    /// it: "REJECTED, token 1 < 2, the highest token 'file' has accepted." (`None`: no write).
    pub fn verdict_of(&self, write: &Event, index: usize) -> Option<Caption> {
        let EventKind::Write { key, verdict, .. } = &write.kind else {
            return None;
        };
        let (word, tail, tone) = match verdict.outcome() {
            Outcome::Corrupted => ("ACCEPTED", " CORRUPTED DATA!", Tone::Corrupted),
            Outcome::Accepted => ("ACCEPTED", "", Tone::Plain),
            Outcome::Rejected => ("REJECTED", "", Tone::Rejected),
        };
        Some(Caption {
            text: format!("{word}, {}.{tail}", write_reason(verdict, key, &self.vocab)),
            tone,
            source: Source::Reveal { beat: index },
        })
    }

    /// What beat `index`'s question reveals: the answer, and whether the prediction
    /// (`Some(true)`: accepted) was right; `None` when the question was skipped.
    pub fn reveal(&self, run: RunView<'_>, index: usize, predicted: Option<bool>) -> Caption {
        let mut answer = self.answer(run, index);
        let accepted = first_write_at(run.events(), &run.scenario().beats[index])
            .and_then(|e| e.kind.verdict())
            .map(|v| v.accepted);
        let said = match (predicted, accepted) {
            (Some(p), Some(accepted)) => format!(
                "You said {}. {}: ",
                if p { "accepted" } else { "rejected" },
                if p == accepted { "Right" } else { "Not quite" }
            ),
            (Some(p), None) => {
                format!("You said {}, but ", if p { "accepted" } else { "rejected" })
            }
            (None, _) => "Skipped. The answer: ".into(),
        };
        answer.text = said + &answer.text;
        answer
    }

    /// The writes this run's questions ask about: for each beat that asks, the write it judges,
    /// if the run has one.
    pub fn asked_writes<'a>(&self, run: RunView<'a>) -> Vec<&'a Event> {
        run.scenario()
            .beats
            .iter()
            .filter(|beat| beat.ask.is_some())
            .filter_map(|beat| first_write_at(run.events(), beat))
            .collect()
    }

    /// Whether beat `index`'s question has a write to judge in this run.
    pub fn has_answer(&self, run: RunView<'_>, index: usize) -> bool {
        first_write_at(run.events(), &run.scenario().beats[index]).is_some()
    }

    /// Why beat `index`'s action did not happen as written by `t`, if it did not.
    pub fn beat_note(&self, run: RunView<'_>, index: usize, t: Ms) -> Option<String> {
        self.fate_note(run, index, t)
            .map(|note| self.vocab.say(&note))
    }

    /// The question of beat `index`, as the caption box asks it.
    pub fn question(&self, index: usize) -> Caption {
        let text = self.scenario.beats[index]
            .ask
            .as_ref()
            .map_or(String::new(), |q| q.text.clone());
        self.spoken(Caption {
            text,
            tone: Tone::Question,
            source: Source::Question { beat: index },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::event::ClientId;
    use crate::sim::lesson::tests::played;
    use crate::sim::Scenario;

    /// The write each lesson's question is about, written out by hand: client 1's with token 1,
    /// at the moment the question is asked (network-delay's is sent at 2 s and delivered at
    /// 14 s; two-locks' goes to orders while token 2 exists on the other lock). A lesson
    /// without a question asks about none.
    #[test]
    fn a_lessons_question_is_about_the_write_it_names() {
        // Every lesson but chaos asks one: (lesson, when, which client, its token, the value).
        let asking = [
            ("gc-pause", 16_500, 1, 1, "client 1's data"),
            ("clock-jump", 6_000, 1, 1, "client 1's data"),
            ("network-delay", 14_000, 1, 1, "client 1's data"),
            ("two-locks", 4_000, 1, 1, "order #2"),
            ("per-key", 9_500, 2, 2, "order #2"),
            ("lapsed-write", 8_500, 1, 1, "client 1's report"),
            ("renew", 10_000, 1, 1, "client 1's second write"),
            ("heartbeat", 15_000, 2, 2, "client 2's data"),
            ("late-release", 9_000, 2, 2, "client 2's data"),
            ("crash-restart", 10_000, 2, 3, "client 2's redone data"),
        ];
        let lessons: Vec<&str> = Scenario::built_in_names().collect();
        for lesson in &lessons {
            let asks = asking.iter().any(|(n, ..)| n == lesson);
            assert_eq!(
                asks,
                *lesson != "chaos",
                "{lesson}: a question in every lesson but chaos"
            );
        }
        for name in Scenario::built_in_names() {
            let session = played(name, &[]);
            let run = RunView::of(&session);
            let asked: Vec<(Ms, ClientId, u64, String)> = Lesson::of(&session)
                .asked_writes(run)
                .iter()
                .map(|e| match &e.kind {
                    EventKind::Write {
                        client,
                        value,
                        verdict,
                        ..
                    } => (e.t, *client, verdict.token, value.clone()),
                    other => panic!("{name}: asks about {other:?}"),
                })
                .collect();
            let expected: Vec<(Ms, ClientId, u64, String)> = asking
                .iter()
                .filter(|(n, ..)| *n == name)
                .map(|&(_, t, client, token, value)| {
                    (t, ClientId::ALL[client - 1], token, value.to_owned())
                })
                .collect();
            assert_eq!(asked, expected, "{name}");
        }
    }
}
