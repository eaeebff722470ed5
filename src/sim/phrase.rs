//! The words for each event, in one place: the transcript's line, the caption's sentence and the
//! diagram's labels, each through the vocabulary of the system in force (`--as`). A new event, or
//! a new way of saying one, is a change to this file alone; the views only place the words.

use super::event::{outcome_word, Event, EventKind, LockId, Refusal, Vocab};
use super::text::printable;
use super::time::{fmt_seconds, fmt_service_seconds, fmt_signed};
use crate::{LeaseError, Outcome, Verdict};

/// How a sentence should look: colour and weight follow what it says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tone {
    Plain,
    Rejected,
    Corrupted,
    Question,
}

/// Why a client cannot act just now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Away {
    /// Frozen in a GC pause.
    Frozen,
    /// Down after a crash.
    Down,
}

/// What the lesson knows around an event that its caption tells: whether the lecturer caused
/// it, and whether the client it names (or the holder a refusal names) is away.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Around {
    /// The lecturer injected it (a pause, a crash, a delay).
    pub injected: bool,
    /// The event's own client.
    pub client: Option<Away>,
    /// The holder a refused acquire names.
    pub holder: Option<Away>,
}

impl Event {
    /// The event as a line of the transcript and the event log (no time, no trailing period),
    /// in `vocab`'s words.
    pub fn describe(&self, vocab: &Vocab) -> String {
        vocab.say_owned(plain_line(self, vocab))
    }
}

fn plain_line(event: &Event, vocab: &Vocab) -> String {
    let word = vocab.token;
    match &event.kind {
        EventKind::Grant {
            client,
            lock,
            token,
            expires_at,
        } => format!(
            "{client} acquires {}: {word} {token}, lease until {} s",
            vocab.lock(*lock),
            fmt_service_seconds(*expires_at)
        ),
        EventKind::AcquireRefused {
            client,
            lock,
            holder,
        } => match holder {
            Some(holder) if holder == client => format!(
                "{client} asks for {}: refused, its own earlier lease is still live",
                vocab.lock(*lock)
            ),
            Some(holder) => format!(
                "{client} asks for {}: refused, {holder} holds it",
                vocab.lock(*lock)
            ),
            None => format!(
                "{client} asks for {}: refused, and no holder is named",
                vocab.lock(*lock)
            ),
        },
        EventKind::Renew {
            client,
            token,
            expires_at,
            ..
        } => format!(
            "{client} renews {word} {token}: lease until {} s",
            fmt_service_seconds(*expires_at)
        ),
        EventKind::RenewRefused {
            client,
            token,
            reason,
            ..
        } => format!("{client} cannot renew {word} {token}: {reason}"),
        EventKind::Release {
            client,
            lock,
            token,
        } => format!("{client} releases {} ({word} {token})", vocab.lock(*lock)),
        EventKind::ReleaseRefused {
            client,
            token,
            reason,
            ..
        } => format!("{client} cannot release {word} {token}: {reason}"),
        EventKind::Expire {
            client,
            lock,
            token,
        } => format!(
            "{client}'s lease with {word} {token} runs out; {} is free",
            vocab.lock(*lock)
        ),
        EventKind::Pause { client, until } => format!(
            "{client} freezes in a GC pause until {} s",
            fmt_seconds(*until)
        ),
        EventKind::Resume { client } => {
            format!("{client} wakes from its GC pause, unaware that time passed")
        }
        EventKind::Crash { client, restart_at } => format!(
            "{client} crashes and forgets its lease; it restarts at {} s",
            fmt_seconds(*restart_at)
        ),
        EventKind::Restart { client } => {
            format!("{client} restarts; it holds nothing and must acquire again")
        }
        EventKind::Send {
            client,
            key,
            token,
            deliver_at,
        } => format!(
            "{client} sends a write to {key} with {word} {token}; the network holds it until {} s",
            fmt_seconds(*deliver_at)
        ),
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
        EventKind::ClockJump { by, service_now } if *by < 0 => format!(
            "the lock service's clock steps back {} s; the service's time reads {} s, never \
             earlier than it has read before",
            fmt_signed(-*by),
            fmt_service_seconds(*service_now)
        ),
        EventKind::ClockJump { by, service_now } => format!(
            "the lock service's clock jumps ahead {} s and now reads {} s",
            fmt_signed(*by),
            fmt_service_seconds(*service_now)
        ),
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
    }
}

/// Why the storage answered a write as it did. Under a system that hands out no token the
/// storage never sees a number, so the reason names none: the grant numbers are the lesson's own.
pub(crate) fn write_reason(verdict: &Verdict, key: &str, vocab: &Vocab) -> String {
    match vocab.system {
        Some(system) if !system.has_token => {
            let nothing = format!(
                "no check: {} gives the storage no number to compare",
                system.name
            );
            match verdict.outcome() {
                Outcome::Corrupted => format!(
                    "{nothing}, so it let an old lease's write land on data written under a later one"
                ),
                _ => nothing,
            }
        }
        _ => verdict.reason(key),
    }
}

/// The event as a sentence of the caption, with its priority (lower: more important) and its
/// tone; `None` for an event the caption leaves to another (a corruption is its write's).
pub fn caption(event: &Event, vocab: &Vocab, around: Around) -> Option<(u8, String, Tone)> {
    plain_caption(event, vocab, around)
        .map(|(priority, text, tone)| (priority, vocab.say_owned(text), tone))
}

fn plain_caption(event: &Event, vocab: &Vocab, around: Around) -> Option<(u8, String, Tone)> {
    let word = vocab.token;
    let lock = |l: LockId| vocab.lock(l).to_owned();
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
                None => format!("{} writes {key} with {word} {}", client.title(), verdict.token),
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
                format!("{who}: {word}, {}.{tail}{lapsed}", write_reason(verdict, key, vocab)),
                tone,
            )
        }
        EventKind::Corruption { .. } => return None,
        EventKind::Send {
            client,
            key,
            token,
            deliver_at,
        } => (
            5,
            format!(
                "{} sends a write to {key} with {word} {token}; the network holds it until {} s{}.",
                client.title(),
                fmt_seconds(*deliver_at),
                if around.injected {
                    " (you delayed it)"
                } else {
                    ""
                }
            ),
            Tone::Plain,
        ),
        EventKind::Grant {
            client,
            lock: l,
            token,
            expires_at,
        } => (
            4,
            format!(
                "{} takes {} and gets {word} {token}, lease until {} s.",
                client.title(),
                lock(*l),
                fmt_service_seconds(*expires_at)
            ),
            Tone::Plain,
        ),
        EventKind::AcquireRefused {
            client,
            lock: l,
            holder,
        } => {
            let why = match holder {
                Some(h) if h == client => {
                    "its own earlier lease is still live (the lock service cannot tell it crashed)".into()
                }
                Some(h) if around.holder == Some(Away::Frozen) => {
                    format!("{h} holds it, even though it is frozen")
                }
                Some(h) if around.holder == Some(Away::Down) => {
                    format!("{h} holds it, even though it is down")
                }
                Some(h) => format!("{h} holds it"),
                None => "no holder was named".into(),
            };
            (
                6,
                format!("{} asks for {}: refused, {why}.", client.title(), lock(*l)),
                Tone::Plain,
            )
        }
        EventKind::Expire {
            client,
            lock: l,
            token,
        } => {
            let note = if around.client == Some(Away::Frozen) {
                format!(" {} is frozen and cannot know.", client.title())
            } else if around.client == Some(Away::Down) {
                format!(" {} is down.", client.title())
            } else {
                String::new()
            };
            (
                3,
                format!(
                    "{}'s lease with {word} {token} runs out: {} is free.{note}",
                    client.title(),
                    lock(*l)
                ),
                Tone::Plain,
            )
        }
        EventKind::Renew {
            client,
            token,
            expires_at,
            ..
        } => (
            8,
            format!(
                "{} renews: the same {word} {token}, lease until {} s.",
                client.title(),
                fmt_service_seconds(*expires_at)
            ),
            Tone::Plain,
        ),
        EventKind::RenewRefused {
            client,
            token,
            reason,
            ..
        } => (
            5,
            format!(
                "{} tries to renew {word} {token}: refused, {}. Only now does it learn its lease is gone.",
                client.title(),
                refusal_phrase(reason)
            ),
            Tone::Plain,
        ),
        EventKind::Release {
            client,
            lock: l,
            token,
        } => (
            8,
            format!("{} releases {} ({word} {token}).", client.title(), lock(*l)),
            Tone::Plain,
        ),
        EventKind::ReleaseRefused {
            client,
            token,
            reason,
            ..
        } => (
            5,
            format!(
                "{} tries to release with {word} {token}: refused, {}. The late release frees nothing.",
                client.title(),
                refusal_phrase(reason)
            ),
            Tone::Plain,
        ),
        EventKind::Pause { client, until } => (
            7,
            format!(
                "{} freezes in a GC pause{} until {} s.",
                client.title(),
                if around.injected {
                    " you injected"
                } else {
                    ""
                },
                fmt_seconds(*until)
            ),
            Tone::Plain,
        ),
        EventKind::Resume { client } => (
            7,
            format!(
                "{} wakes from its GC pause; to it, no time has passed.",
                client.title()
            ),
            Tone::Plain,
        ),
        EventKind::Crash { client, restart_at } => (
            6,
            format!(
                "{} crashes{}: it forgets its lease and restarts at {} s.",
                client.title(),
                if around.injected {
                    " (you crashed it)"
                } else {
                    ""
                },
                fmt_seconds(*restart_at)
            ),
            Tone::Plain,
        ),
        EventKind::Restart { client } => (
            8,
            format!(
                "{} restarts holding nothing: it must acquire again.",
                client.title()
            ),
            Tone::Plain,
        ),
        EventKind::Fencing { on: true } => (
            3,
            "Fencing is ON from here: the storage checks tokens again.".into(),
            Tone::Plain,
        ),
        EventKind::Fencing { on: false } => (
            3,
            "Fencing is OFF from here: the storage accepts every write, last writer wins."
                .into(),
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
        EventKind::ClockJump { by, service_now } => (
            4,
            format!(
                "The lock service's clock {} {} s (an NTP correction): it now reads {} s.",
                if *by > 0 { "jumps ahead" } else { "steps back" },
                fmt_seconds(by.unsigned_abs()),
                fmt_service_seconds(*service_now)
            ),
            Tone::Plain,
        ),
    })
}

/// A refusal's reason as a short phrase for a caption.
fn refusal_phrase(reason: &Refusal) -> String {
    match reason {
        Refusal::Lease(LeaseError::Expired { expired_at, .. }) => format!(
            "its lease expired at {} s, even though nobody else took the lock",
            fmt_service_seconds(*expired_at)
        ),
        Refusal::Lease(LeaseError::HeldByOther { holder, .. }) => {
            format!("{holder} holds the lock")
        }
        Refusal::Lease(LeaseError::WrongToken { current, .. }) => {
            format!("the live lease has token {current}")
        }
        Refusal::Lease(LeaseError::NotHeld { .. }) => "it holds no lease on the lock".into(),
        Refusal::Lease(LeaseError::ClockNotFinite { .. }) => {
            "the lock service's clock was not readable".into()
        }
        Refusal::Said(message) => format!("the implementation said \"{message}\""),
    }
}

/// The diagram's words for an event, each a list of forms from the longest to the shortest
/// (the diagram shows the longest that fits).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Labels {
    /// At the event's own place: beside the client, the lock or the switch.
    pub main: Vec<String>,
    /// A write's verdict, above the storage.
    pub verdict: Vec<String>,
    /// A rise of the key's highest token, below the storage.
    pub highest: Vec<String>,
}

/// The diagram's labels of an event.
pub fn labels(event: &Event, vocab: &Vocab) -> Labels {
    let mut labels = plain_labels(event, vocab);
    // A system with no token gives the storage nothing to keep a highest of.
    if vocab.system.is_some_and(|s| !s.has_token) {
        labels.highest.clear();
    }
    for list in [&mut labels.main, &mut labels.verdict, &mut labels.highest] {
        for text in list.iter_mut() {
            *text = vocab.say(text);
        }
    }
    labels
}

fn plain_labels(event: &Event, vocab: &Vocab) -> Labels {
    let main = |forms: &[String]| Labels {
        main: forms.to_vec(),
        ..Labels::default()
    };
    match &event.kind {
        // Where the system's word is "grant" itself, "grant 2", not "grant, grant 2".
        EventKind::Grant { lock, token, .. } if vocab.token == "grant" => {
            let mut forms = Vec::new();
            if vocab.locks.len() > 1 {
                forms.push(format!("{}: grant {token}", vocab.lock(*lock)));
            }
            forms.extend([format!("grant {token}"), format!("t{token}")]);
            main(&forms)
        }
        EventKind::Grant { lock, token, .. } => {
            let mut forms = Vec::new();
            // With several locks, which one was granted matters.
            if vocab.locks.len() > 1 {
                forms.push(format!("grant {}, token {token}", vocab.lock(*lock)));
            }
            forms.extend([
                format!("grant, token {token}"),
                format!("grant t{token}"),
                format!("token {token}"),
                format!("t{token}"),
            ]);
            main(&forms)
        }
        EventKind::AcquireRefused { .. } => main(&["acquire: refused".into(), "refused".into()]),
        EventKind::Renew { token, .. } => main(&[
            format!("renew token {token}: ok"),
            format!("renew t{token}"),
            "+".into(),
        ]),
        EventKind::RenewRefused { token, .. } => main(&[
            format!("renew token {token}: refused"),
            format!("renew t{token}: refused"),
            "refused".into(),
        ]),
        EventKind::Release { token, .. } => {
            main(&[format!("release token {token}"), "release".into()])
        }
        EventKind::ReleaseRefused { token, .. } => {
            main(&[format!("release token {token}: refused"), "refused".into()])
        }
        EventKind::Expire { token, .. } => {
            main(&[format!("token {token} expires"), format!("t{token} ends")])
        }
        EventKind::Differs { rule, .. } => main(&[format!("≠ {rule}"), "≠".into()]),
        // The service keeps the highest time it has read, so a step back changes nothing.
        EventKind::ClockJump { by, .. } if *by < 0 => main(&[
            format!(
                "clock steps back {} s: the service refuses to go back",
                fmt_signed(-*by)
            ),
            format!("clock back {} s: refused", fmt_signed(-*by)),
            "clock: not back".into(),
        ]),
        EventKind::ClockJump { by, .. } => main(&[
            format!("clock jumps ahead {} s", fmt_signed(*by)),
            format!("clock +{} s", fmt_signed(*by)),
            "clock".into(),
        ]),
        EventKind::Pause { .. } | EventKind::Crash { .. } => Labels::default(),
        EventKind::Resume { .. } => main(&["wakes".into()]),
        EventKind::Restart { .. } => main(&["restarts".into()]),
        EventKind::Send { token, .. } => main(&[
            format!("write token {token}, held by the network"),
            format!("write t{token}, delayed"),
        ]),
        EventKind::Write { key, verdict, .. } => Labels {
            main: vec![
                format!("write {key}, token {}", verdict.token),
                format!("write t{}", verdict.token),
            ],
            verdict: match verdict.outcome() {
                Outcome::Accepted => vec!["accepted".into()],
                // A check stricter than the seed's refused a write sent inside a live lease.
                Outcome::Rejected if event.kind.honest_refusal() => vec![
                    format!(
                        "REJECTED though its lease was live: {}",
                        verdict.comparison()
                    ),
                    format!("REJECTED, lease live: {}", verdict.comparison()),
                    "REJECTED, lease live".into(),
                ],
                Outcome::Rejected => vec![
                    format!("REJECTED {}", verdict.comparison()),
                    "REJECTED".into(),
                ],
                // The corruption event that follows says it.
                Outcome::Corrupted => Vec::new(),
            },
            highest: if verdict.accepted && verdict.key_highest.is_none_or(|h| verdict.token > h) {
                vec![
                    format!("highest({key}) = {}", verdict.token),
                    format!("{key}: {}", verdict.token),
                ]
            } else {
                Vec::new()
            },
        },
        EventKind::Corruption {
            token,
            highest,
            overwrote_token,
            ..
        } => {
            let words = match overwrote_token {
                Some(o) if o == highest => format!("token {token} overwrote token {o}"),
                _ => format!("token {token} < highest {highest}"),
            };
            Labels {
                verdict: vec![
                    format!("CORRUPTED DATA! {words}"),
                    "CORRUPTED DATA!".into(),
                    "CORRUPTED".into(),
                ],
                ..Labels::default()
            }
        }
        EventKind::Fencing { on: true } => main(&["fencing ON from here".into()]),
        EventKind::Fencing { on: false } => main(&["fencing OFF from here".into()]),
        EventKind::Check { check } => {
            main(&[format!("check: {} ({})", check.name(), check.rule())])
        }
    }
}
