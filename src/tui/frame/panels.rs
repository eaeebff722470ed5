//! The panels' data: the lock panel (holder, token, lease, what comes next) and the storage
//! panels (each key with its value, highest token and author; the latest write's verdict), in
//! parts the view can shorten without ever cutting a client, a key or a token.

use crate::sim::time::{fmt_seconds, fmt_service_seconds};
use crate::sim::{
    ClientId, Event, EventKind, LiveLease, LockId, Marks, Ms, NextToken, Vocab, World,
};
use crate::tui::app::App;
use crate::tui::theme::Role;
use crate::{FenceCheck, Judge, Outcome, Verdict};

use super::text::duration;

/// Who holds a lock, in parts: the view shortens the client before it would cut the token.
#[derive(Clone, Debug, PartialEq)]
pub struct Holder {
    /// "client-2".
    pub client: String,
    /// "c2".
    pub short: String,
    /// "token 2" ("revision 2" under `--as etcd`); `None` under a system with no token.
    pub token: Option<String>,
}

/// One lock in the lock panel.
pub struct LockLines {
    pub name: String,
    pub holder: Option<Holder>,
    /// The lease's times ("granted 11.0 s  expires 21.0 s"), or what became of the last lease
    /// ("t1 client-1 expired at 10.0 s"), longest first: the view shows the first that fits.
    pub details: Vec<String>,
    /// Share of the lease left, and its label.
    pub left: Option<(f64, String)>,
}

/// The lock panel's data.
pub struct LockPanelData {
    pub locks: Vec<LockLines>,
    pub footer: String,
}

/// One key in a storage table.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyRow {
    pub key: String,
    pub value: String,
    /// The key's highest accepted token; `None` where there are no tokens to keep.
    pub highest: Option<u64>,
    /// Who wrote the current value, and with which token.
    pub by: Option<Author>,
    /// The current value came from a stale accepted write: (its token, the key's highest).
    pub corrupted: Option<(u64, u64)>,
}

/// Who wrote a key's value, with its token, in three widths: "client-1 (rev 3)", "c1 (rev 3)",
/// and the fewest characters: "c1" where the token is the key's highest (the highest column
/// shows it), else "c1 (r3)".
#[derive(Clone, Debug, PartialEq)]
pub struct Author {
    pub long: String,
    pub short: String,
    pub bare: String,
}

impl Author {
    /// `client`'s value, written with `token` in `marks` (`None`: no tokens here); `highest`:
    /// whether that token is the key's highest.
    pub fn new(client: ClientId, token: Option<(u64, Marks)>, highest: bool) -> Author {
        let short_name = format!("c{}", client.number());
        match token {
            Some((token, marks)) => {
                let shown = marks.of_token(token);
                Author {
                    long: format!("{client} ({shown})"),
                    short: format!("{short_name} ({shown})"),
                    bare: if highest {
                        short_name
                    } else {
                        format!("{short_name} ({})", marks.compact(token))
                    },
                }
            }
            None => Author {
                long: client.to_string(),
                short: short_name.clone(),
                bare: short_name,
            },
        }
    }
}

/// A write's verdict as a panel's last line shows it, in parts: "✗ REJECTED t1 < t2 ·
/// client-1 → file · 16.5 s". The view drops the time, then shortens the word, the check's
/// note and the client, and never cuts the client, the key or the tokens.
#[derive(Clone, Debug, PartialEq)]
pub struct VerdictLine {
    pub mark: &'static str,
    /// "CORRUPTED DATA!".
    pub word: &'static str,
    /// "CORRUPTED".
    pub short_word: &'static str,
    /// "no check" for an unchecked storage, else empty.
    pub note: String,
    /// The comparison the check made, tokens only: "t1 < t2", "t1 is not > t1", "new key".
    pub comparison: String,
    pub client: ClientId,
    pub key: String,
    pub t: Ms,
    pub role: Role,
    pub fresh: bool,
}

/// A storage panel's data (the clients' storage, or one of the compare view's).
pub struct StorageData {
    pub title: String,
    /// Whether the table has a highest-token column: not where no token reaches the storage.
    pub highest: bool,
    /// How its lines write a token (`t2`, `rev 2`).
    pub marks: Marks,
    pub rows: Vec<KeyRow>,
    pub verdict: Option<VerdictLine>,
    pub counts: Option<String>,
}

pub(super) fn lock_panel(app: &App, world: &World) -> LockPanelData {
    let vocab = app.lesson().vocab();
    let tokens = app.session().setup().has_token();
    let scenario = world.scenario();
    let locks = scenario
        .locks
        .iter()
        .enumerate()
        .map(|(i, name)| match world.lease(LockId(i as u8)) {
            Some(lease) => held(world, name, lease, vocab, tokens),
            None => LockLines {
                name: name.clone(),
                holder: None,
                details: last_lease_end(world.events(), LockId(i as u8), vocab.marks()),
                left: None,
            },
        })
        .collect();
    let lease = format!("lease {} s", fmt_seconds(scenario.lease_ms));
    let next = match world.next_token() {
        // With no token nothing is numbered: there is no next one to tell.
        _ if !tokens => None,
        // A system that numbers every change gives its next number to whatever changes next (a
        // release, a lease's end), not always to the next grant: say where the store stands.
        NextToken::Is(t) if vocab.system.is_some_and(|s| s.numbering.is_some()) => {
            Some(format!("at {} {}", vocab.token, t.saturating_sub(1)))
        }
        NextToken::Is(t) => Some(format!("next {} {t}", vocab.token)),
        NextToken::NoneLeft => Some(vocab.say("no tokens left")),
        // A student's service does not say which token it grants next.
        NextToken::Unknown => Some("your counter".into()),
    };
    LockPanelData {
        locks,
        footer: match next {
            Some(next) => format!("{next}   {lease}"),
            None => lease,
        },
    }
}

fn held(world: &World, name: &str, lease: LiveLease, vocab: &Vocab, tokens: bool) -> LockLines {
    let LiveLease {
        client,
        token,
        granted_at,
        expires_at,
    } = lease;
    let (granted, expires) = (
        fmt_service_seconds(granted_at),
        fmt_service_seconds(expires_at),
    );
    let left_ms = world.lease_left(&lease);
    LockLines {
        name: name.to_owned(),
        holder: Some(Holder {
            client: client.to_string(),
            short: format!("c{}", client.number()),
            token: tokens.then(|| format!("{} {token}", vocab.token)),
        }),
        details: vec![
            format!("granted {granted} s  expires {expires} s"),
            format!("lease   {granted} → {expires} s"),
        ],
        left: Some((
            left_ms as f64 / world.scenario().lease_ms as f64,
            duration(left_ms),
        )),
    }
}

/// What became of a free lock's last lease, longest first: "t1 client-1 expired at 10.0 s"
/// down to "t1 c1 expired"; the token always first.
fn last_lease_end(events: &[Event], lock: LockId, tokens: Marks) -> Vec<String> {
    let ended = events.iter().rev().find_map(|e| match e.kind {
        EventKind::Expire {
            client,
            lock: l,
            token,
        } if l == lock => Some((token, client, "expired", e.t)),
        EventKind::Release {
            client,
            lock: l,
            token,
        } if l == lock => Some((token, client, "released", e.t)),
        _ => None,
    });
    let Some((token, client, how, t)) = ended else {
        return vec!["never granted yet".into()];
    };
    let token = if tokens.shown() {
        format!("{} ", tokens.of_token(token))
    } else {
        String::new()
    };
    let (long, short, at) = (
        client.to_string(),
        format!("c{}", client.number()),
        fmt_seconds(t),
    );
    vec![
        format!("{token}{long} {how} at {at} s"),
        format!("{token}{long} {how} {at} s"),
        format!("{token}{short} {how} at {at} s"),
        format!("{token}{short} {how} {at} s"),
        format!("{token}{short} {how}"),
    ]
}

pub(super) fn storage(app: &App, world: &World) -> StorageData {
    let vocab = app.lesson().vocab();
    let marks = vocab.marks();
    let tokens = marks.shown();
    let title = match (world.judge(), world.fencing()) {
        (Judge::External, _) => "Storage: your FencedStorage".to_owned(),
        (_, false) if !tokens => "Storage: NO CHECK (no token)".to_owned(),
        (_, false) => "Storage: NO CHECK (fencing off)".to_owned(),
        (Judge::Check(check), true) => format!("Storage: {}", vocab.say(check.rule())),
    };
    let rows = world
        .storage_entries()
        .into_iter()
        .map(|(key, stored)| KeyRow {
            by: world.authors().get(&key).map(|&client| {
                let token = tokens.then_some((stored.value_token, marks));
                Author::new(client, token, stored.value_token == stored.highest)
            }),
            corrupted: (stored.value_token < stored.highest)
                .then_some((stored.value_token, stored.highest)),
            highest: tokens.then_some(stored.highest),
            value: stored.value,
            key,
        })
        .collect();
    let verdict = world.events().iter().rev().find_map(|e| match &e.kind {
        EventKind::Write {
            client,
            key,
            verdict,
            ..
        } => Some(verdict_line(verdict, *client, key, e.t, world.now(), marks)),
        _ => None,
    });
    StorageData {
        title,
        highest: tokens,
        marks,
        rows,
        verdict,
        counts: None,
    }
}

/// A verdict in parts, as a panel shows it: "✗ REJECTED t1 < t2 · client-1 → file · 16.5 s".
/// With no tokens, the comparison is left out: no token reached the storage.
pub fn verdict_line(
    verdict: &Verdict,
    client: ClientId,
    key: &str,
    t: Ms,
    now: Ms,
    tokens: Marks,
) -> VerdictLine {
    let (mark, word, short_word, role) = match verdict.outcome() {
        Outcome::Accepted => ("✓", "accepted", "accepted", Role::Accepted),
        Outcome::Rejected => ("✗", "REJECTED", "REJECTED", Role::Rejected),
        Outcome::Corrupted => ("!", "CORRUPTED DATA!", "CORRUPTED", Role::Corrupted),
    };
    // The library says "no check, t1 < t2": the note and the tokens, apart.
    let comparison = verdict.comparison();
    // And "your rule, seed: t1 >= t1 accepts": whose rule decided, and the seed's comparison.
    let split = ["no check", crate::storage::YOUR_RULE]
        .into_iter()
        .find_map(|note| Some((note, comparison.strip_prefix(note)?)));
    let (note, comparison) = match split {
        Some((note, rest)) => (note.to_owned(), rest.trim_start_matches(", ").to_owned()),
        None => (String::new(), comparison),
    };
    VerdictLine {
        mark,
        word,
        short_word,
        note,
        comparison: if tokens.shown() {
            tokens.apply(&comparison)
        } else {
            String::new()
        },
        client,
        key: key.to_owned(),
        t,
        role,
        fresh: t == now,
    }
}

pub(super) fn compare(app: &App, world: &World) -> [StorageData; 2] {
    let vocab = app.lesson().vocab();
    let fenced = match world.fenced_check() {
        FenceCheck::Unchecked => FenceCheck::PerKey,
        check => check,
    };
    [fenced, FenceCheck::Unchecked].map(|check| {
        let (storage, stats) = world.mirror(check);
        let name = if check == FenceCheck::Unchecked {
            "Unfenced"
        } else {
            "Fenced"
        };
        let rows = storage
            .entries()
            .into_iter()
            .map(|(key, stored)| KeyRow {
                key: key.to_owned(),
                value: stored.value.clone(),
                highest: Some(stored.highest),
                by: None,
                corrupted: (stored.value_token < stored.highest)
                    .then_some((stored.value_token, stored.highest)),
            })
            .collect();
        let verdict = world.mirror_last(check).map(|(t, client, key, verdict)| {
            verdict_line(verdict, client, key, t, world.now(), vocab.marks())
        });
        StorageData {
            title: format!("{name}: {}", vocab.say(check.rule())),
            highest: true,
            marks: vocab.marks(),
            rows,
            verdict,
            counts: Some(format!(
                "{} accepted, {} rejected, {} corrupted",
                stats.writes_accepted, stats.writes_rejected, stats.corruptions
            )),
        }
    })
}
