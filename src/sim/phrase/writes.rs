//! Writes and their verdicts: a write judged, the corruption a stale one caused, the storage's
//! switches (fencing, check), and the seed's verdict on a student's call (`Differs`).

use super::{only_main, write_reason, Labels, Tone};
use crate::sim::event::{Event, EventKind};
use crate::sim::text::printable;
use crate::sim::time::fmt_seconds;
use crate::sim::vocab::Vocab;
use crate::Outcome;

pub(super) fn line(event: &Event, vocab: &Vocab) -> String {
    let word = vocab.token;
    match &event.kind {
        EventKind::Write {
            client,
            key,
            value,
            verdict,
            sent_at,
            ..
        } => {
            let sent = match sent_at {
                Some(at) => format!(" (sent at {} s)", fmt_seconds(*at)),
                None => String::new(),
            };
            format!(
                "{client} writes \"{value}\" to {key} with {word} {}{sent}: {}, {}",
                verdict.token,
                outcome_word(verdict.outcome()),
                write_reason(verdict, key, vocab)
            )
        }
        EventKind::Corruption {
            client,
            key,
            token,
            highest,
            overwrote_token,
        } => match overwrote_token {
            Some(replaced) if replaced == highest => format!(
                "CORRUPTED DATA! {client}'s stale {word} {token} overwrote {key}'s data from {word} {highest}"
            ),
            _ => format!(
                "CORRUPTED DATA! {client}'s stale {word} {token} landed on {key}, which had accepted {word} {highest}"
            ),
        },
        EventKind::Fencing { on: true } => {
            "fencing turned ON: the storage checks tokens again".to_owned()
        }
        EventKind::Fencing { on: false } => {
            "fencing turned OFF: the storage accepts every write, last writer wins".to_owned()
        }
        EventKind::Check { check } => {
            format!("the storage's check is now {} ({})", check.name(), check.rule())
        }
        EventKind::Differs {
            call,
            got,
            seed,
            rule,
            ..
        } => format!(
            "your code: {} -> {}, but {} ({rule})",
            printable(call),
            printable(got),
            printable(seed)
        ),
        _ => unreachable!("not a write, a verdict or a storage switch"),
    }
}

/// The verdict as one word: accepted, REJECTED, CORRUPTED DATA!
fn outcome_word(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Accepted => "accepted",
        Outcome::Rejected => "REJECTED",
        Outcome::Corrupted => "CORRUPTED DATA!",
    }
}

/// `None` for a corruption: its write's caption already says it.
pub(super) fn caption(event: &Event, vocab: &Vocab) -> Option<(u8, String, Tone)> {
    let word = vocab.token;
    Some(match &event.kind {
        EventKind::Write {
            client,
            key,
            verdict,
            sent_at,
            lease_live,
            ..
        } => {
            let outcome = verdict.outcome();
            let who = match sent_at {
                Some(sent) => format!(
                    "{}'s write to {key}, sent at {} s with {word} {}, arrives",
                    client.title(),
                    fmt_seconds(*sent),
                    verdict.token
                ),
                None => format!(
                    "{} writes {key} with {word} {}",
                    client.title(),
                    verdict.token
                ),
            };
            let lapsed = if verdict.accepted && !verdict.is_stale() && !lease_live {
                " Its lease had run out, but no newer token had written."
            } else {
                ""
            };
            let (priority, tone) = match outcome {
                Outcome::Corrupted => (0, Tone::Corrupted),
                Outcome::Rejected => (1, Tone::Rejected),
                Outcome::Accepted => (2, Tone::Plain),
            };
            let tail = if outcome == Outcome::Corrupted {
                " CORRUPTED DATA!"
            } else {
                ""
            };
            let word = match outcome {
                Outcome::Corrupted => "accepted",
                other => outcome_word(other),
            };
            (
                priority,
                format!(
                    "{who}: {word}, {}.{tail}{lapsed}",
                    write_reason(verdict, key, vocab)
                ),
                tone,
            )
        }
        EventKind::Corruption { .. } => return None,
        EventKind::Fencing { on: true } => (
            3,
            "Fencing is ON from here: the storage checks tokens again.".into(),
            Tone::Plain,
        ),
        EventKind::Fencing { on: false } => (
            3,
            "Fencing is OFF from here: the storage accepts every write, last writer wins.".into(),
            Tone::Plain,
        ),
        EventKind::Check { check } => (
            3,
            format!(
                "The storage's check is now {}: {}.",
                check.name(),
                check.rule()
            ),
            Tone::Plain,
        ),
        EventKind::Differs {
            call,
            got,
            seed,
            rule,
            ..
        } => (
            0,
            format!(
                "Your code differs from the seed here: {} -> {}, but {} ({rule}).",
                printable(call),
                printable(got),
                printable(seed)
            ),
            Tone::Rejected,
        ),
        _ => unreachable!("not a write, a verdict or a storage switch"),
    })
}

pub(super) fn labels(event: &Event, vocab: &Vocab) -> Labels {
    match &event.kind {
        EventKind::Write { key, verdict, .. } => {
            let token = verdict.token;
            // Where a lesson writes several keys, every form names the key written.
            let (main, at) = if vocab.keyed {
                (
                    vec![
                        format!("write {key}, token {token}"),
                        format!("write {key}, t{token}"),
                        format!("{key}, t{token}"),
                    ],
                    format!(" {key}"),
                )
            } else {
                (
                    vec![
                        format!("write {key}, token {token}"),
                        format!("write t{token}"),
                    ],
                    String::new(),
                )
            };
            let compared = verdict.comparison();
            let verdict_forms = match verdict.outcome() {
                Outcome::Accepted => vec![format!("accepted{at}")],
                // A check stricter than the seed's refused a write sent inside a live lease.
                Outcome::Rejected if event.kind.honest_refusal() => vec![
                    format!("REJECTED{at} though its lease was live: {compared}"),
                    format!("REJECTED{at}, lease live: {compared}"),
                    format!("REJECTED{at}, lease live"),
                    format!("REJECTED{at}"),
                ],
                Outcome::Rejected if vocab.keyed => {
                    vec![format!("REJECTED{at}: {compared}"), format!("REJECTED{at}")]
                }
                Outcome::Rejected => {
                    vec![format!("REJECTED {compared}"), "REJECTED".into()]
                }
                // The corruption event that follows says it.
                Outcome::Corrupted => Vec::new(),
            };
            let rose = verdict.accepted && verdict.key_highest.is_none_or(|h| token > h);
            Labels {
                main,
                verdict: verdict_forms,
                highest: if rose {
                    vec![
                        format!("highest({key}) = {token}"),
                        format!("{key}: {token}"),
                    ]
                } else {
                    Vec::new()
                },
            }
        }
        EventKind::Corruption {
            key,
            token,
            highest,
            overwrote_token,
            ..
        } => {
            let words = match overwrote_token {
                Some(o) if o == highest => format!("token {token} overwrote token {o}"),
                _ => format!("token {token} < highest {highest}"),
            };
            let verdict = if vocab.keyed {
                vec![
                    format!("CORRUPTED DATA! {key}: {words}"),
                    format!("CORRUPTED DATA! {key}"),
                    format!("CORRUPTED {key}"),
                ]
            } else {
                vec![
                    format!("CORRUPTED DATA! {words}"),
                    "CORRUPTED DATA!".into(),
                    "CORRUPTED".into(),
                ]
            };
            Labels {
                verdict,
                ..Labels::default()
            }
        }
        EventKind::Fencing { on: true } => only_main(&["fencing ON from here".into()]),
        EventKind::Fencing { on: false } => only_main(&["fencing OFF from here".into()]),
        EventKind::Check { check } => {
            only_main(&[format!("check: {} ({})", check.name(), check.rule())])
        }
        EventKind::Differs { rule, .. } => only_main(&[format!("≠ {rule}"), "≠".into()]),
        _ => unreachable!("not a write, a verdict or a storage switch"),
    }
}
