//! What happened: the event stream of SPEC.md section 4, as text and as JSON.

use std::fmt;

use serde_json::{json, Map, Value};

use super::{fmt_seconds, seconds, Ms};
use crate::LeaseError;

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
}

impl fmt::Display for ClientId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
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
        token: u64,
        expires_at: f64,
    },
    AcquireRefused {
        client: ClientId,
        holder: Option<ClientId>,
    },
    Renew {
        client: ClientId,
        token: u64,
        expires_at: f64,
    },
    RenewRefused {
        client: ClientId,
        token: u64,
        reason: LeaseError,
    },
    Release {
        client: ClientId,
        token: u64,
    },
    ReleaseRefused {
        client: ClientId,
        token: u64,
        reason: LeaseError,
    },
    /// The lease ran out while `client` still held it.
    Expire {
        client: ClientId,
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
    },
    Restart {
        client: ClientId,
    },
    Write {
        client: ClientId,
        key: String,
        value: String,
        token: u64,
        accepted: bool,
        /// The key's highest token before this write (`None`: never written).
        highest: Option<u64>,
    },
    /// Fencing off: a stale write replaced data written under a higher token.
    Corruption {
        client: ClientId,
        key: String,
        token: u64,
        overwrote_token: u64,
    },
    Fencing {
        on: bool,
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
            EventKind::Write { .. } => "write",
            EventKind::Corruption { .. } => "corruption",
            EventKind::Fencing { .. } => "fencing",
        }
    }

    /// A refused write whose token was not older than its key's highest: only a check stricter
    /// than the seed's rule refuses one, and that is what such a check breaks.
    pub fn is_honest_refusal(&self) -> bool {
        matches!(self, EventKind::Write { accepted: false, token, highest, .. }
            if highest.is_none_or(|h| *token >= h))
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
            | EventKind::Crash { client }
            | EventKind::Restart { client }
            | EventKind::Write { client, .. }
            | EventKind::Corruption { client, .. } => Some(client),
            EventKind::Fencing { .. } => None,
        }
    }
}

impl Event {
    /// The event as one JSON object of SPEC.md section 4 (`lock` names the scenario's lock).
    pub fn to_json(&self, lock: &str) -> Value {
        let mut obj = Map::new();
        obj.insert("t".into(), json!(seconds(self.t)));
        obj.insert("event".into(), json!(self.kind.name()));
        if let Some(client) = self.kind.client() {
            obj.insert("client".into(), json!(client.name()));
        }
        let mut put = |k: &str, v: Value| {
            obj.insert(k.into(), v);
        };
        match &self.kind {
            EventKind::Grant {
                token, expires_at, ..
            }
            | EventKind::Renew {
                token, expires_at, ..
            } => {
                put("lock", json!(lock));
                put("token", json!(token));
                put("expires_at", json!(expires_at));
            }
            EventKind::AcquireRefused { holder, .. } => {
                put("lock", json!(lock));
                put("holder", json!(holder.map(ClientId::name)));
            }
            EventKind::RenewRefused { token, reason, .. }
            | EventKind::ReleaseRefused { token, reason, .. } => {
                put("lock", json!(lock));
                put("token", json!(token));
                put("reason", json!(reason.code()));
            }
            EventKind::Release { token, .. } | EventKind::Expire { token, .. } => {
                put("lock", json!(lock));
                put("token", json!(token));
            }
            EventKind::Pause { until, .. } => put("until", json!(seconds(*until))),
            EventKind::Resume { .. } | EventKind::Crash { .. } | EventKind::Restart { .. } => {}
            EventKind::Write {
                key,
                value,
                token,
                accepted,
                highest,
                ..
            } => {
                put("key", json!(key));
                put("value", json!(value));
                put("token", json!(token));
                put("accepted", json!(accepted));
                put("highest", json!(highest));
            }
            EventKind::Corruption {
                key,
                token,
                overwrote_token,
                ..
            } => {
                put("key", json!(key));
                put("token", json!(token));
                put("overwrote_token", json!(overwrote_token));
            }
            EventKind::Fencing { on } => put("on", json!(on)),
        }
        Value::Object(obj)
    }

    /// The event as a sentence of the lesson transcript (no time, no trailing period).
    pub fn describe(&self, lock: &str) -> String {
        match &self.kind {
            EventKind::Grant {
                client,
                token,
                expires_at,
            } => format!(
                "{client} acquires {lock}: token {token}, lease until {expires_at:.1} s"
            ),
            EventKind::AcquireRefused { client, holder } => match holder {
                Some(holder) => format!("{client} asks for {lock}: refused, {holder} holds it"),
                None => format!("{client} asks for {lock}: refused, no token left to hand out"),
            },
            EventKind::Renew {
                client,
                token,
                expires_at,
            } => format!("{client} renews token {token}: lease until {expires_at:.1} s"),
            EventKind::RenewRefused {
                client,
                token,
                reason,
            } => format!("{client} cannot renew token {token}: {reason}"),
            EventKind::Release { client, token } => {
                format!("{client} releases {lock} (token {token})")
            }
            EventKind::ReleaseRefused {
                client,
                token,
                reason,
            } => format!("{client} cannot release token {token}: {reason}"),
            EventKind::Expire { client, token } => {
                format!("{client}'s lease with token {token} runs out; {lock} is free")
            }
            EventKind::Pause { client, until } => format!(
                "{client} freezes in a GC pause until {} s",
                fmt_seconds(*until)
            ),
            EventKind::Resume { client } => {
                format!("{client} wakes from its GC pause, unaware that time passed")
            }
            EventKind::Crash { client } => format!("{client} crashes and forgets its lease"),
            EventKind::Restart { client } => {
                format!("{client} restarts; it holds nothing and must acquire again")
            }
            EventKind::Write {
                client,
                key,
                value,
                token,
                accepted,
                highest,
            } => {
                let seen = match highest {
                    Some(h) => format!("{key} had seen token {h}"),
                    None => format!("{key} was never written"),
                };
                let verdict = if *accepted { "accepted" } else { "REJECTED" };
                format!("{client} writes {key} with token {token}: {verdict}, {seen} (value \"{value}\")")
            }
            EventKind::Corruption {
                client,
                key,
                token,
                overwrote_token,
            } => format!(
                "CORRUPTED DATA! {client}'s stale token {token} overwrote {key}'s data from token {overwrote_token}"
            ),
            EventKind::Fencing { on: true } => {
                "fencing turned ON: storage rejects writes with older tokens".to_owned()
            }
            EventKind::Fencing { on: false } => {
                "fencing turned OFF: storage accepts every write, last writer wins".to_owned()
            }
        }
    }
}

/// Why the storage answered a write as it did, in one sentence a student reads (`None` for
/// anything but a write). `check` is the rule the storage applied.
pub fn explain_write(kind: &EventKind, check: crate::FenceCheck) -> Option<String> {
    use crate::FenceCheck;
    let EventKind::Write {
        client,
        key,
        token,
        accepted,
        highest,
        ..
    } = kind
    else {
        return None;
    };
    let token = *token;
    Some(match (accepted, highest) {
        (false, Some(h)) if token < *h => format!(
            "REJECTED: {key} has accepted token {h} and {token} < {h}, so {client}'s stale write is fenced off"
        ),
        (false, Some(h)) if check == FenceCheck::Strict => format!(
            "REJECTED: the strict check wants a token above {h}, so even the holder's own second write fails; that is why the rule is >="
        ),
        (false, _) => format!(
            "REJECTED: another key has accepted a token above {token}; one global highest refuses honest writes, that is why fence_token is per key"
        ),
        (true, Some(h)) if token < *h => format!(
            "ACCEPTED: with no check, {client}'s stale token {token} overwrote token {h}'s data: CORRUPTED DATA!"
        ),
        (true, None) => format!(
            "ACCEPTED: {key} was never written, so any token is new enough"
        ),
        (true, Some(h)) => format!(
            "ACCEPTED: token {token} is not older than {h}, the highest {key} has accepted"
        ),
    })
}
