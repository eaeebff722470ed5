//! The words for each event, in one place: the transcript's line, the caption's sentence and the
//! diagram's labels, each through the vocabulary of the system in force (`--as`). A new event, or
//! a new way of saying one, is a change to this folder alone; the views only place the words.
//!
//! Each family of events has its phrase table, a file holding the three readings side by side:
//! [`grants`] (grants, refused acquires, expiries), [`renewals`] (renewals and releases),
//! [`writes`] (writes, their verdicts and the storage's switches), [`faults`] (pauses, crashes,
//! a write the network holds) and [`clock`] (the service's clock). `Table::of` says which table
//! speaks for a kind; this file keeps the public face and what every table shares.

mod clock;
mod faults;
mod grants;
mod renewals;
mod writes;

use super::event::{Event, EventKind};
use super::vocab::Vocab;
use crate::{Outcome, Verdict};

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

/// The phrase table that speaks for an event kind: one arm a kind, so the compiler asks a new
/// kind for its table.
#[derive(Clone, Copy)]
enum Table {
    Grants,
    Renewals,
    Writes,
    Faults,
    Clock,
}

impl Table {
    fn of(kind: &EventKind) -> Table {
        match kind {
            EventKind::Grant { .. }
            | EventKind::AcquireRefused { .. }
            | EventKind::Expire { .. } => Table::Grants,
            EventKind::Renew { .. }
            | EventKind::RenewRefused { .. }
            | EventKind::Release { .. }
            | EventKind::ReleaseRefused { .. } => Table::Renewals,
            EventKind::Write { .. }
            | EventKind::Corruption { .. }
            | EventKind::Fencing { .. }
            | EventKind::Check { .. }
            | EventKind::Differs { .. } => Table::Writes,
            EventKind::Pause { .. }
            | EventKind::Resume { .. }
            | EventKind::Crash { .. }
            | EventKind::Restart { .. }
            | EventKind::Send { .. } => Table::Faults,
            EventKind::ClockJump { .. } => Table::Clock,
        }
    }
}

fn plain_line(event: &Event, vocab: &Vocab) -> String {
    match Table::of(&event.kind) {
        Table::Grants => grants::line(event, vocab),
        Table::Renewals => renewals::line(event, vocab),
        Table::Writes => writes::line(event, vocab),
        Table::Faults => faults::line(event, vocab),
        Table::Clock => clock::line(event),
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
    match Table::of(&event.kind) {
        Table::Grants => Some(grants::caption(event, vocab, around)),
        Table::Renewals => Some(renewals::caption(event, vocab)),
        Table::Writes => writes::caption(event, vocab),
        Table::Faults => Some(faults::caption(event, vocab, around)),
        Table::Clock => Some(clock::caption(event)),
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
    // The short forms write tokens in the system's marks; a verdict's comparison and a rise of
    // the highest are written in them too.
    labels.main = vocab.short_forms(labels.main);
    let marks = vocab.marks();
    for text in labels.verdict.iter_mut().chain(labels.highest.iter_mut()) {
        *text = marks.apply(text);
    }
    labels
}

fn plain_labels(event: &Event, vocab: &Vocab) -> Labels {
    match Table::of(&event.kind) {
        Table::Grants => grants::labels(event, vocab),
        Table::Renewals => renewals::labels(event),
        Table::Writes => writes::labels(event, vocab),
        Table::Faults => faults::labels(event, vocab),
        Table::Clock => clock::labels(event),
    }
}

/// Labels at the event's own place only, in these forms.
fn only_main(forms: &[String]) -> Labels {
    Labels {
        main: forms.to_vec(),
        ..Labels::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::event::{ClientId, LockId};

    /// Labels at an event's own place: a grant's, longest first, in the vocabulary's words.
    #[test]
    fn a_grant_is_labelled_at_its_place_longest_first() {
        let grant = Event {
            t: 0,
            kind: EventKind::Grant {
                client: ClientId::from_number(1).unwrap(),
                lock: LockId(0),
                token: 1,
                expires_at: 10.0,
            },
        };
        let words = labels(&grant, &Vocab::plain(&["file-lock".to_owned()]));
        assert_eq!(words.main, ["grant, token 1", "grant t1", "t1"]);
        assert!(words.verdict.is_empty() && words.highest.is_empty());
    }

    /// The faults' and the clock's labels, written out by hand: a jump says its way and its
    /// size, a step back that the service refuses says so, and a pause or a crash leaves its
    /// words to the bar it draws.
    #[test]
    fn faults_and_clock_jumps_are_labelled_with_what_happened() {
        let client = ClientId::from_number(1).unwrap();
        let vocab = Vocab::plain(&["file-lock".to_owned()]);
        let main = |kind: EventKind| labels(&Event { t: 3_000, kind }, &vocab).main;
        let ahead = main(EventKind::ClockJump {
            by: 8_000,
            service_now: 11.0,
        });
        assert_eq!(ahead, ["clock jumps ahead 8.0 s", "clock +8.0 s", "clock"]);
        let back = main(EventKind::ClockJump {
            by: -8_000,
            service_now: 11.0,
        });
        assert_eq!(
            back,
            [
                "clock steps back 8.0 s: the service refuses to go back",
                "clock back 8.0 s: refused",
                "clock: not back"
            ]
        );
        assert_eq!(main(EventKind::Resume { client }), ["wakes"]);
        assert_eq!(main(EventKind::Restart { client }), ["restarts"]);
        let send = main(EventKind::Send {
            client,
            key: "file".into(),
            token: 1,
            deliver_at: 14_000,
            injected: false,
        });
        assert_eq!(
            send,
            [
                "write file, token 1, held by the network",
                "write file, t1, delayed",
                "write t1, delayed"
            ]
        );
        let pause = main(EventKind::Pause {
            client,
            until: 18_000,
        });
        let crash = main(EventKind::Crash {
            client,
            restart_at: 9_000,
        });
        assert!(pause.is_empty() && crash.is_empty(), "{pause:?} {crash:?}");
    }

    /// A grant names its lock where the lesson has several, and where the system's word is
    /// "grant" itself it says "grant 2", never "grant, grant 2".
    #[test]
    fn a_grant_names_its_lock_among_several_and_its_number_once() {
        let grant = |lock: u8, token: u64| Event {
            t: 0,
            kind: EventKind::Grant {
                client: ClientId::from_number(1).unwrap(),
                lock: LockId(lock),
                token,
                expires_at: 10.0,
            },
        };
        let one = ["file-lock".to_owned()];
        let two = ["orders-lock".to_owned(), "stock-lock".to_owned()];
        let redlock = crate::sim::systems::find("redlock");
        let main = |event: Event, vocab: Vocab| labels(&event, &vocab).main;
        assert_eq!(
            main(grant(1, 2), Vocab::plain(&two)),
            [
                "grant stock-lock, token 2",
                "grant, token 2",
                "grant t2",
                "t2"
            ]
        );
        assert_eq!(main(grant(0, 1), Vocab::of(&one, redlock)), ["grant 1"]);
        assert_eq!(
            main(grant(0, 3), Vocab::of(&two, redlock)),
            ["orders-lock: grant 3", "grant 3"]
        );
    }

    /// Renewals', releases', writes' and corruptions' labels, written out by hand: each says
    /// its token, a verdict says its comparison, and only an accepted write that raises the
    /// key's highest says the new highest.
    #[test]
    fn calls_writes_and_corruptions_are_labelled_with_their_tokens_and_verdicts() {
        use crate::sim::event::Refusal;
        use crate::{FenceCheck, LeaseError, Verdict};
        let client = ClientId::from_number(1).unwrap();
        let lock = LockId(0);
        let vocab = Vocab::plain(&["file-lock".to_owned()]);
        let of = |kind: EventKind| labels(&Event { t: 1_000, kind }, &vocab);
        let refused = Refusal::Lease(LeaseError::NotHeld {
            lock: "file-lock".into(),
            client_id: "client-1".into(),
        });
        let renew = of(EventKind::Renew {
            client,
            lock,
            token: 2,
            expires_at: 12.0,
        });
        assert_eq!(renew.main, ["renew token 2: ok", "renew t2: ok", "+"]);
        let renew_refused = of(EventKind::RenewRefused {
            client,
            lock,
            token: 1,
            reason: refused.clone(),
        });
        assert_eq!(
            renew_refused.main,
            ["renew token 1: refused", "renew t1: refused", "refused"]
        );
        let release = of(EventKind::Release {
            client,
            lock,
            token: 3,
        });
        assert_eq!(release.main, ["release token 3", "release t3", "release"]);
        let release_refused = of(EventKind::ReleaseRefused {
            client,
            lock,
            token: 1,
            reason: refused,
        });
        assert_eq!(
            release_refused.main,
            ["release token 1: refused", "release t1: refused", "refused"]
        );
        let write = |verdict: Verdict, lease_live: bool| {
            of(EventKind::Write {
                client,
                key: "file".into(),
                value: "data".into(),
                verdict,
                sent_at: None,
                lease_live,
            })
        };
        let accepted = write(
            Verdict::judge(FenceCheck::PerKey, 2, Some(1), Some(1)),
            true,
        );
        assert_eq!(accepted.main, ["write file, token 2", "write t2"]);
        assert_eq!(accepted.verdict, ["accepted"]);
        assert_eq!(accepted.highest, ["highest(file) = 2", "file: 2"]);
        let again = write(
            Verdict::judge(FenceCheck::PerKey, 2, Some(2), Some(2)),
            true,
        );
        assert_eq!(again.verdict, ["accepted"]);
        assert!(again.highest.is_empty(), "{again:?}");
        let stale = write(
            Verdict::judge(FenceCheck::PerKey, 1, Some(2), Some(2)),
            false,
        );
        assert_eq!(stale.verdict, ["REJECTED t1 < t2", "REJECTED"]);
        assert!(stale.highest.is_empty(), "{stale:?}");
        let honest = write(
            Verdict::judge(FenceCheck::Strict, 2, Some(2), Some(2)),
            true,
        );
        assert_eq!(
            honest.verdict,
            [
                "REJECTED though its lease was live: t2 is not > t2",
                "REJECTED, lease live: t2 is not > t2",
                "REJECTED, lease live",
                "REJECTED"
            ]
        );
        let corruption = of(EventKind::Corruption {
            client,
            key: "file".into(),
            token: 1,
            highest: 2,
            overwrote_token: Some(2),
        });
        assert_eq!(
            corruption.verdict,
            [
                "CORRUPTED DATA! token 1 overwrote token 2",
                "CORRUPTED DATA!",
                "CORRUPTED"
            ]
        );
        assert!(corruption.main.is_empty() && corruption.highest.is_empty());
        // A stale write that lands on a newer one than its key's highest: it says the highest.
        let over_newer = of(EventKind::Corruption {
            client,
            key: "file".into(),
            token: 1,
            highest: 3,
            overwrote_token: Some(2),
        });
        assert_eq!(over_newer.verdict[0], "CORRUPTED DATA! token 1 < highest 3");
        // The lecturer's switches, at the switch's line.
        assert_eq!(
            of(EventKind::Fencing { on: true }).main,
            ["fencing ON from here"]
        );
        assert_eq!(
            of(EventKind::Fencing { on: false }).main,
            ["fencing OFF from here"]
        );
        assert_eq!(
            of(EventKind::Check {
                check: FenceCheck::Strict
            })
            .main,
            ["check: strict (token > highest(key))"]
        );
        // A student's code that differs from the seed: the rule it breaks.
        let differs = of(EventKind::Differs {
            client: Some(client),
            call: "write(file, \"data\", 1)".into(),
            got: "ok".into(),
            seed: "the seed refuses it".into(),
            rule: "write-stale-rejected",
        });
        assert_eq!(differs.main, ["≠ write-stale-rejected", "≠"]);
    }

    /// Where a lesson writes several keys every write and verdict names its key, and under a
    /// system with its own word every short token is that word's ("rev 2"), verdicts too.
    #[test]
    fn keyed_lessons_name_the_key_and_systems_write_their_own_short_tokens() {
        use crate::{FenceCheck, Verdict};
        let client = ClientId::from_number(1).unwrap();
        let locks = ["shop-lock".to_owned()];
        let write = |token, highest| Event {
            t: 1_000,
            kind: EventKind::Write {
                client,
                key: "orders".into(),
                value: "data".into(),
                verdict: Verdict::judge(FenceCheck::PerKey, token, highest, highest),
                sent_at: None,
                lease_live: false,
            },
        };
        let keyed = Vocab::plain(&locks).writing(&["orders", "inventory"]);
        let stale = labels(&write(2, Some(3)), &keyed);
        assert_eq!(
            stale.main,
            ["write orders, token 2", "write orders, t2", "orders, t2"]
        );
        assert_eq!(
            stale.verdict,
            ["REJECTED orders: t2 < t3", "REJECTED orders"]
        );
        assert_eq!(
            labels(&write(3, Some(2)), &keyed).verdict,
            ["accepted orders"]
        );
        let etcd = Vocab::of(&locks, crate::sim::systems::find("etcd"));
        let stale = labels(&write(2, Some(4)), &etcd);
        assert_eq!(stale.main, ["write orders, revision 2", "write rev 2"]);
        assert_eq!(stale.verdict, ["REJECTED rev 2 < rev 4", "REJECTED"]);
        let zookeeper = Vocab::of(&locks, crate::sim::systems::find("zookeeper"));
        let stale = labels(&write(2, Some(4)), &zookeeper);
        assert_eq!(stale.verdict, ["REJECTED zxid 2 < zxid 4", "REJECTED"]);
    }
}
