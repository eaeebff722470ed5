//! What happened: the event stream (see `docs/events.md`), as sentences and as JSON.

use std::fmt;

use serde_json::{json, Map, Value};

use super::time::{seconds, Ms};
pub use super::vocab::LockId;
use super::vocab::Vocab;
use crate::{Judge, LeaseError, Outcome, Verdict};

/// One of the three simulated clients (0-based inside, "client-1".. outside).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClientId(u8);

impl ClientId {
    /// The clients in order.
    pub const ALL: [ClientId; 3] = [ClientId(0), ClientId(1), ClientId(2)];

    /// The client numbered `n` (1, 2 or 3), as lessons and users count.
    pub fn from_number(n: u64) -> Option<ClientId> {
        (1..=3).contains(&n).then(|| ClientId(n as u8 - 1))
    }

    /// The client whose id the lock service knows as `name`.
    pub fn from_name(name: &str) -> Option<ClientId> {
        ClientId::ALL.into_iter().find(|c| c.name() == name)
    }

    /// 0, 1 or 2.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// 1, 2 or 3.
    pub fn number(self) -> u8 {
        self.0 + 1
    }

    /// The id the lock service knows: "client-1".
    pub fn name(self) -> &'static str {
        ["client-1", "client-2", "client-3"][self.index()]
    }

    /// "Client 1", to begin a sentence.
    pub fn title(self) -> &'static str {
        ["Client 1", "Client 2", "Client 3"][self.index()]
    }
}

impl fmt::Display for ClientId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a renew or release was refused: the library's reason, or what another implementation said.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
    /// This project's lock service, with its reason.
    Lease(LeaseError),
    /// Another implementation (a student's), with its message.
    Said(String),
}

impl Refusal {
    /// A short, stable code for machine-readable output (the JSON `reason` field).
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::Lease(e) => e.code(),
            Refusal::Said(_) => "refused",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Lease(e) => e.fmt(f),
            Refusal::Said(message) => write!(f, "the implementation said: {message}"),
        }
    }
}

/// One thing that happened at time `t`.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// When, in simulated milliseconds.
    pub t: Ms,
    /// What.
    pub kind: EventKind,
}

/// The kinds of event, one for each line kind of the JSON stream.
#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    Grant {
        client: ClientId,
        lock: LockId,
        token: u64,
        /// On the lock service's clock.
        expires_at: f64,
    },
    AcquireRefused {
        client: ClientId,
        lock: LockId,
        /// Who holds it (`None`: the service gave no holder, e.g. no token is left).
        holder: Option<ClientId>,
    },
    Renew {
        client: ClientId,
        lock: LockId,
        token: u64,
        expires_at: f64,
    },
    RenewRefused {
        client: ClientId,
        lock: LockId,
        token: u64,
        reason: Refusal,
    },
    Release {
        client: ClientId,
        lock: LockId,
        token: u64,
    },
    ReleaseRefused {
        client: ClientId,
        lock: LockId,
        token: u64,
        reason: Refusal,
    },
    /// The lease ran out while `client` still held it.
    Expire {
        client: ClientId,
        lock: LockId,
        token: u64,
    },
    Pause {
        client: ClientId,
        until: Ms,
    },
    Resume {
        client: ClientId,
    },
    Crash {
        client: ClientId,
        /// When it comes back.
        restart_at: Ms,
    },
    Restart {
        client: ClientId,
    },
    /// A write left the client but the network holds it until `deliver_at`.
    Send {
        client: ClientId,
        key: String,
        token: u64,
        deliver_at: Ms,
        /// The lecturer's delay holds it (pressed at any time before this write), not the
        /// script's.
        injected: bool,
    },
    /// A write reached the storage, and the storage's verdict on it.
    Write {
        client: ClientId,
        key: String,
        value: String,
        /// The verdict, with the token, the comparison and the rule that decided.
        verdict: Verdict,
        /// When the write was sent, if the network held it (`None`: sent at `t`).
        sent_at: Option<Ms>,
        /// Whether the writer's lease was live, by the lock service, when it sent the write.
        lease_live: bool,
    },
    /// An accepted write whose token is older than one the key had accepted: CORRUPTED DATA!
    Corruption {
        client: ClientId,
        key: String,
        token: u64,
        /// The key's highest accepted token, newer than `token`.
        highest: u64,
        /// The token of the value this write replaced.
        overwrote_token: Option<u64>,
    },
    Fencing {
        on: bool,
    },
    /// The storage's check (while fencing is on) changed.
    Check {
        check: crate::FenceCheck,
    },
    /// The lock service's clock stepped by `by` ms (an NTP correction), now reading `service_now`.
    ClockJump {
        by: i64,
        service_now: f64,
    },
    /// The implementation answered a call otherwise than the seed's rules do (a student's,
    /// judged by the lab): the call, what it returned, what the seed gives and why, and the id
    /// of the rule it breaks.
    Differs {
        client: Option<ClientId>,
        call: String,
        got: String,
        seed: String,
        rule: &'static str,
    },
}

impl EventKind {
    /// The JSON `event` name.
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::Grant { .. } => "grant",
            EventKind::AcquireRefused { .. } => "acquire_refused",
            EventKind::Renew { .. } => "renew",
            EventKind::RenewRefused { .. } => "renew_refused",
            EventKind::Release { .. } => "release",
            EventKind::ReleaseRefused { .. } => "release_refused",
            EventKind::Expire { .. } => "expire",
            EventKind::Pause { .. } => "pause",
            EventKind::Resume { .. } => "resume",
            EventKind::Crash { .. } => "crash",
            EventKind::Restart { .. } => "restart",
            EventKind::Send { .. } => "send",
            EventKind::Write { .. } => "write",
            EventKind::Corruption { .. } => "corruption",
            EventKind::Fencing { .. } => "fencing",
            EventKind::Check { .. } => "check",
            EventKind::ClockJump { .. } => "clock_jump",
            EventKind::Differs { .. } => "differs",
        }
    }

    /// The client the event is about, if any.
    pub fn client(&self) -> Option<ClientId> {
        match *self {
            EventKind::Grant { client, .. }
            | EventKind::AcquireRefused { client, .. }
            | EventKind::Renew { client, .. }
            | EventKind::RenewRefused { client, .. }
            | EventKind::Release { client, .. }
            | EventKind::ReleaseRefused { client, .. }
            | EventKind::Expire { client, .. }
            | EventKind::Pause { client, .. }
            | EventKind::Resume { client }
            | EventKind::Crash { client, .. }
            | EventKind::Restart { client }
            | EventKind::Send { client, .. }
            | EventKind::Write { client, .. }
            | EventKind::Corruption { client, .. } => Some(client),
            EventKind::Differs { client, .. } => client,
            EventKind::Fencing { .. } | EventKind::Check { .. } | EventKind::ClockJump { .. } => {
                None
            }
        }
    }

    /// Every client the event concerns: its own, and a refused acquire's holder.
    pub fn clients(&self) -> impl Iterator<Item = ClientId> {
        let holder = match *self {
            EventKind::AcquireRefused { holder, .. } => holder,
            _ => None,
        };
        self.client().into_iter().chain(holder)
    }

    /// The lock the event is about, if any.
    pub fn lock(&self) -> Option<LockId> {
        match *self {
            EventKind::Grant { lock, .. }
            | EventKind::AcquireRefused { lock, .. }
            | EventKind::Renew { lock, .. }
            | EventKind::RenewRefused { lock, .. }
            | EventKind::Release { lock, .. }
            | EventKind::ReleaseRefused { lock, .. }
            | EventKind::Expire { lock, .. } => Some(lock),
            _ => None,
        }
    }

    /// The verdict, for a write.
    pub fn verdict(&self) -> Option<&Verdict> {
        match self {
            EventKind::Write { verdict, .. } => Some(verdict),
            _ => None,
        }
    }

    /// For a write: refused although its writer's lease was live when it sent it and its token
    /// is not below the key's highest: an honest write a check stricter than the seed's kept
    /// out. (A write the network held past its lease, refused as stale, is not one.)
    pub fn honest_refusal(&self) -> bool {
        matches!(self, EventKind::Write { verdict, lease_live: true, .. }
            if !verdict.accepted && !verdict.is_stale())
    }
}

/// The name of the rule that judged a write, as JSON says it.
pub fn judge_name(judge: Judge) -> &'static str {
    match judge {
        Judge::Check(check) => check.name(),
        Judge::External => "external",
    }
}

impl Event {
    /// The event as one JSON object (see `docs/events.md`).
    pub fn to_json(&self, vocab: &Vocab) -> Value {
        let mut obj = Map::new();
        obj.insert("t".into(), json!(seconds(self.t)));
        obj.insert("event".into(), json!(self.kind.name()));
        if let Some(client) = self.kind.client() {
            obj.insert("client".into(), json!(client.name()));
        }
        if let Some(lock) = self.kind.lock() {
            obj.insert("lock".into(), json!(vocab.lock(lock)));
        }
        self.kind.put_fields(&mut |k: &str, v: Value| {
            obj.insert(k.into(), v);
        });
        Value::Object(obj)
    }
}

impl EventKind {
    /// The JSON fields of this kind of event, after the `t`, `event`, `client` and `lock` all share.
    fn put_fields(&self, put: &mut impl FnMut(&str, Value)) {
        match self {
            EventKind::Grant {
                token, expires_at, ..
            }
            | EventKind::Renew {
                token, expires_at, ..
            } => {
                put("token", json!(token));
                // To the millisecond: a live run's 11.004 + 10 is not 21.003999999999998.
                put("expires_at", json!((expires_at * 1000.0).round() / 1000.0));
            }
            EventKind::AcquireRefused { holder, .. } => {
                put("holder", json!(holder.map(ClientId::name)));
            }
            EventKind::RenewRefused { token, reason, .. }
            | EventKind::ReleaseRefused { token, reason, .. } => {
                put("token", json!(token));
                put("reason", json!(reason.code()));
            }
            EventKind::Release { token, .. } | EventKind::Expire { token, .. } => {
                put("token", json!(token));
            }
            EventKind::Pause { until, .. } => put("until", json!(seconds(*until))),
            EventKind::Crash { restart_at, .. } => put("restart_at", json!(seconds(*restart_at))),
            EventKind::Resume { .. } | EventKind::Restart { .. } => {}
            EventKind::Send {
                key,
                token,
                deliver_at,
                ..
            } => {
                put("key", json!(key));
                put("token", json!(token));
                put("deliver_at", json!(seconds(*deliver_at)));
            }
            EventKind::Write {
                key,
                value,
                verdict,
                sent_at,
                lease_live,
                ..
            } => {
                put("key", json!(key));
                put("value", json!(value));
                put_verdict(verdict, put);
                put("lease_live", json!(lease_live));
                if let Some(sent_at) = sent_at {
                    put("sent_at", json!(seconds(*sent_at)));
                }
            }
            EventKind::Corruption {
                key,
                token,
                highest,
                overwrote_token,
                ..
            } => {
                put("key", json!(key));
                put("token", json!(token));
                put("highest", json!(highest));
                put("overwrote_token", json!(overwrote_token));
            }
            EventKind::Fencing { on } => put("on", json!(on)),
            EventKind::Check { check } => {
                put("check", json!(check.name()));
                put("rule", json!(check.rule()));
            }
            EventKind::ClockJump { by, service_now } => {
                put("by", json!(*by as f64 / 1000.0));
                put("service_now", json!(service_now));
            }
            EventKind::Differs {
                call,
                got,
                seed,
                rule,
                ..
            } => {
                put("call", json!(call));
                put("got", json!(got));
                put("seed", json!(seed));
                put("rule", json!(rule));
            }
        }
    }
}

/// A write's verdict as JSON fields: who judged, what it compared, and how it came out.
fn put_verdict(verdict: &Verdict, put: &mut impl FnMut(&str, Value)) {
    put("token", json!(verdict.token));
    put("accepted", json!(verdict.accepted));
    put("highest", json!(verdict.key_highest));
    put("check", json!(judge_name(verdict.judge)));
    put("compared", json!(verdict.comparison()));
    put(
        "outcome",
        json!(match verdict.outcome() {
            Outcome::Accepted => "accepted",
            Outcome::Rejected => "rejected",
            Outcome::Corrupted => "corrupted",
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The write of `name` at `t` ms, played with `check`.
    fn write_at(name: &str, check: crate::FenceCheck, t: u64) -> EventKind {
        use crate::sim::{Scenario, Session, Setup};
        let scenario = std::sync::Arc::new(Scenario::built_in(name).expect("built in"));
        let end = scenario.end;
        let session = Session::played_to(Setup::new(scenario).check(check), end);
        let write = session
            .world()
            .events()
            .iter()
            .find(|e| e.t == t && matches!(e.kind, EventKind::Write { .. }));
        write.expect("a write then").kind.clone()
    }

    #[test]
    fn an_honest_refusal_is_a_live_leases_write_a_stricter_check_kept_out_not_a_stale_one() {
        use crate::FenceCheck;
        // two-locks, global: client 1's orders-lock is live, its token the key's highest.
        assert!(write_at("two-locks", FenceCheck::Global, 4_000).honest_refusal());
        assert!(!write_at("two-locks", FenceCheck::PerKey, 4_000).honest_refusal());
        // network-delay: sent while live, it arrives stale and the seed's check refuses it.
        assert!(!write_at("network-delay", FenceCheck::PerKey, 14_000).honest_refusal());
    }

    #[test]
    fn an_event_concerns_its_client_and_a_refused_acquires_holder() {
        let (c1, c2) = (ClientId::ALL[0], ClientId::ALL[1]);
        let refused = EventKind::AcquireRefused {
            client: c2,
            lock: LockId::FIRST,
            holder: Some(c1),
        };
        assert_eq!(refused.clients().collect::<Vec<_>>(), [c2, c1]);
        let unnamed = EventKind::AcquireRefused {
            client: c2,
            lock: LockId::FIRST,
            holder: None,
        };
        assert_eq!(unnamed.clients().collect::<Vec<_>>(), [c2]);
        let pause = EventKind::Pause {
            client: c1,
            until: 5,
        };
        assert_eq!(pause.clients().collect::<Vec<_>>(), [c1]);
        assert_eq!(EventKind::Fencing { on: true }.clients().count(), 0);
    }

    /// Every kind of event as the transcript says it: one sentence each, with the branches a
    /// run can take (a refusal by the holder itself, a corruption that overwrote the newest
    /// data or landed beside it, a clock jumping ahead or stepping back).
    #[test]
    fn every_event_kind_has_its_sentence() {
        use crate::{FenceCheck, Verdict};
        let (c1, c2) = (ClientId::ALL[0], ClientId::ALL[1]);
        let lock = LockId::FIRST;
        let vocab = Vocab::plain(&["file-lock".to_owned()]);
        let expired = Refusal::Lease(LeaseError::Expired {
            lock: "file-lock".into(),
            client_id: "client-1".into(),
            token: 1,
            expired_at: 10.0,
        });
        let cases: Vec<(EventKind, &str)> = vec![
            (
                EventKind::Grant {
                    client: c2,
                    lock,
                    token: 2,
                    expires_at: 21.0,
                },
                "client-2 acquires file-lock: token 2, lease until 21.0 s",
            ),
            (
                EventKind::AcquireRefused {
                    client: c2,
                    lock,
                    holder: Some(c2),
                },
                "client-2 asks for file-lock: refused, its own earlier lease is still live",
            ),
            (
                EventKind::AcquireRefused {
                    client: c2,
                    lock,
                    holder: Some(c1),
                },
                "client-2 asks for file-lock: refused, client-1 holds it",
            ),
            (
                EventKind::AcquireRefused {
                    client: c2,
                    lock,
                    holder: None,
                },
                "client-2 asks for file-lock: refused, and no holder is named",
            ),
            (
                EventKind::Renew {
                    client: c1,
                    lock,
                    token: 1,
                    expires_at: 14.5,
                },
                "client-1 renews token 1: lease until 14.5 s",
            ),
            (
                EventKind::RenewRefused {
                    client: c1,
                    lock,
                    token: 1,
                    reason: expired.clone(),
                },
                "client-1 cannot renew token 1: client-1's lease on 'file-lock' with token 1 \
                 expired at 10 s; it must acquire the lock again and will get a new token",
            ),
            (
                EventKind::Release {
                    client: c1,
                    lock,
                    token: 3,
                },
                "client-1 releases file-lock (token 3)",
            ),
            (
                EventKind::ReleaseRefused {
                    client: c1,
                    lock,
                    token: 1,
                    reason: Refusal::Said("nope".into()),
                },
                "client-1 cannot release token 1: the implementation said: nope",
            ),
            (
                EventKind::Expire {
                    client: c1,
                    lock,
                    token: 1,
                },
                "client-1's lease with token 1 runs out; file-lock is free",
            ),
            (
                EventKind::Pause {
                    client: c1,
                    until: 16_000,
                },
                "client-1 freezes in a GC pause until 16.0 s",
            ),
            (
                EventKind::Resume { client: c1 },
                "client-1 wakes from its GC pause, unaware that time passed",
            ),
            (
                EventKind::Crash {
                    client: c2,
                    restart_at: 7_250,
                },
                "client-2 crashes and forgets its lease; it restarts at 7.25 s",
            ),
            (
                EventKind::Restart { client: c2 },
                "client-2 restarts; it holds nothing and must acquire again",
            ),
            (
                EventKind::Send {
                    client: c1,
                    key: "file".into(),
                    token: 1,
                    deliver_at: 14_000,
                    injected: false,
                },
                "client-1 sends a write to file with token 1; the network holds it until 14.0 s",
            ),
            (
                EventKind::Write {
                    client: c1,
                    key: "file".into(),
                    value: "late".into(),
                    verdict: Verdict::judge(FenceCheck::PerKey, 1, Some(2), Some(2)),
                    sent_at: Some(2_000),
                    lease_live: true,
                },
                "client-1 writes \"late\" to file with token 1 (sent at 2.0 s): REJECTED, token \
                 1 < 2, the highest token 'file' has accepted",
            ),
            (
                EventKind::Corruption {
                    client: c1,
                    key: "file".into(),
                    token: 1,
                    highest: 2,
                    overwrote_token: Some(2),
                },
                "CORRUPTED DATA! client-1's stale token 1 overwrote file's data from token 2",
            ),
            (
                EventKind::Corruption {
                    client: c1,
                    key: "file".into(),
                    token: 1,
                    highest: 3,
                    overwrote_token: Some(2),
                },
                "CORRUPTED DATA! client-1's stale token 1 landed on file, which had accepted \
                 token 3",
            ),
            (
                EventKind::Fencing { on: true },
                "fencing turned ON: the storage checks tokens again",
            ),
            (
                EventKind::Fencing { on: false },
                "fencing turned OFF: the storage accepts every write, last writer wins",
            ),
            (
                EventKind::Check {
                    check: FenceCheck::Strict,
                },
                "the storage's check is now strict (token > highest(key))",
            ),
            (
                EventKind::ClockJump {
                    by: 8_000,
                    service_now: 11.0,
                },
                "the lock service's clock jumps ahead 8.0 s and now reads 11.0 s",
            ),
            (
                EventKind::ClockJump {
                    by: -8_000,
                    service_now: 15.0,
                },
                "the lock service's clock steps back 8.0 s; the service's time reads 15.0 s, \
                 never earlier than it has read before",
            ),
        ];
        for (kind, sentence) in cases {
            let event = Event { t: 0, kind };
            assert_eq!(event.describe(&vocab), sentence, "{}", event.kind.name());
        }
    }

    #[test]
    fn a_systems_word_replaces_whole_words_only() {
        let etcd = crate::sim::systems::find("etcd");
        let vocab = Vocab::of(&["file".to_owned()], etcd);
        assert_eq!(
            vocab.say("tokenized tokens: a token_id, my token; Token 2, the fencing token"),
            "tokenized revisions: a token_id, my revision; Revision 2, the revision"
        );
        assert_eq!(
            vocab.say("Fencing tokens only go up"),
            "Revisions only go up"
        );
        assert_eq!(vocab.say("no word here"), "no word here");
        assert_eq!(
            vocab.say_owned("xtoken token".to_owned()),
            "xtoken revision"
        );
        let plain = Vocab::plain(&["file".to_owned()]);
        assert_eq!(plain.say("the fencing token"), "the fencing token");
        assert_eq!(plain.say_owned("token 1".to_owned()), "token 1");
    }

    #[test]
    fn a_system_with_no_token_loses_only_the_claims_that_numbers_are_ordered() {
        let locks = ["file-lock".to_owned()];
        let redlock = Vocab::of(&locks, crate::sim::systems::find("redlock"));
        assert_eq!(
            redlock
                .say_script("Client 2 gets token 2: every grant gets a higher token. It writes."),
            "Client 2 gets grant 2. It writes."
        );
        assert_eq!(
            redlock
                .say_script("Per-key fence tokens: each key keeps its highest token (section 2.2)"),
            "Per-key fence grants (section 2.2)."
        );
        // A sentence that is all claim goes whole; one without the word stays.
        assert_eq!(
            redlock.say_script("Tokens only go up. The lease is higher up."),
            "The lease is higher up."
        );
        // Event lines are not scripts: a value may say "newer" and stays.
        assert_eq!(
            redlock.say("token 2 writes newer data"),
            "grant 2 writes newer data"
        );
        let etcd = Vocab::of(&locks, crate::sim::systems::find("etcd"));
        assert_eq!(etcd.say_script("a higher token"), "a higher revision");
    }
}
