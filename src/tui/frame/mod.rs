//! A frame's data, derived once from the app: every sentence, number and mark the screen shows.
//! The widgets in `view/` only lay this out; they decide nothing about what it means.

use super::app::{Action, App, Mode, Overlay};
use super::keys;
use super::theme::Role;
use crate::sim::lesson::{belief_and_truth, BeliefTruth, Believes, Source, Tone, Truth};
use crate::sim::text::counted;
use crate::sim::time::{fmt_seconds, fmt_service_seconds, fmt_signed};
use crate::sim::{
    ClientId, Event, EventKind, History, LiveLease, LockId, Ms, NextToken, Scenario, Vocab, World,
};
use crate::{FenceCheck, Judge, Outcome, Verdict};

/// One field of the header's first line; fields are dropped from the end when narrow.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub text: String,
    pub role: Option<Role>,
}

/// The header: fencing, rule and time always; then the rest, most important first.
#[derive(Clone, Debug, PartialEq)]
pub struct HeaderData {
    /// In priority order (see [`HEADER_PRIORITY`]).
    pub fields: Vec<Field>,
    pub name: String,
    pub title: String,
    pub short_title: String,
    pub progress: String,
}

/// The header's first-line fields in the order they give way: the last first. Fencing, the
/// storage's rule and the time always stay.
pub const HEADER_PRIORITY: [&str; 7] = [
    "fencing",
    "rule",
    "time",
    "service clock",
    "play state",
    "step",
    "speed",
];

/// How many header fields never give way.
pub const HEADER_KEPT: usize = 3;

/// One client's lane and status columns.
pub struct ClientRow {
    pub id: ClientId,
    pub selected: bool,
    pub believes: String,
    pub truth: String,
    pub stale: bool,
}

/// One lock's lane and status.
pub struct LockRow {
    pub id: LockId,
    pub name: String,
    pub status: String,
}

/// A write the network holds or held: for the network lane.
#[derive(Clone, Debug, PartialEq)]
pub struct Flight {
    pub client: ClientId,
    pub token: u64,
    pub key: String,
    pub sent: Ms,
    pub arrives: Ms,
}

/// The timeline's data.
pub struct TimelineData<'a> {
    pub now: Ms,
    pub end: Ms,
    pub chaos: bool,
    pub history: &'a History,
    pub clients: Vec<ClientRow>,
    pub locks: Vec<LockRow>,
    pub flights: Vec<Flight>,
}

/// One lock in the lock panel.
pub struct LockLines {
    pub name: String,
    pub holder: Option<String>,
    /// "granted 11.0 s  expires 21.0 s", or what became of the last lease.
    pub detail: String,
    /// The same, for a narrow panel: "lease 11.0 → 21.0 s".
    pub detail_short: String,
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
    pub highest: u64,
    /// Who wrote the current value, and with which token: long and short forms.
    pub by: Option<(String, String)>,
    /// The current value came from a stale accepted write: (its token, the key's highest).
    pub corrupted: Option<(u64, u64)>,
}

/// A write's verdict as a panel's last line shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct VerdictLine {
    pub mark: &'static str,
    pub word: &'static str,
    pub comparison: String,
    pub rest: String,
    pub role: Role,
    pub fresh: bool,
}

/// A storage panel's data (the clients' storage, or one of the compare view's).
pub struct StorageData {
    pub title: String,
    pub rows: Vec<KeyRow>,
    pub verdict: Option<VerdictLine>,
    pub counts: Option<String>,
}

/// The caption box.
pub struct CaptionData {
    pub title: &'static str,
    pub text: String,
    pub role: Option<Role>,
    /// A second line: how to answer, for a question.
    pub prompt: Option<String>,
}

/// One event line of the log.
pub struct EventLine {
    /// The time column.
    pub time: String,
    pub text: String,
    pub role: Option<Role>,
    pub fresh: bool,
}

/// The footer: a status note, or the mode's hints.
pub struct FooterData {
    pub status: Option<String>,
    pub lead: Option<&'static str>,
    pub hints: Vec<(String, &'static str, u8)>,
}

/// Everything one frame shows.
pub struct FrameData<'a> {
    pub mode: Mode,
    pub overlay: Overlay,
    pub header: HeaderData,
    pub timeline: TimelineData<'a>,
    pub lock_panel: LockPanelData,
    pub storage: StorageData,
    pub compare: Option<[StorageData; 2]>,
    pub caption: CaptionData,
    /// The latest events, oldest first.
    pub events: Vec<EventLine>,
    /// How many earlier events are not in `events`.
    pub events_before: usize,
    pub footer: FooterData,
}

/// The most events a frame describes: the log never has more rows than the tallest screen the
/// view draws (the view asserts it at compile time).
pub const EVENTS_DESCRIBED: usize = 200;

impl<'a> FrameData<'a> {
    /// The frame of `app` now.
    pub fn of(app: &'a App) -> FrameData<'a> {
        let session = app.session();
        let world = session.world();
        let scenario = world.scenario();
        let now = world.now();
        FrameData {
            mode: app.mode(),
            overlay: app.overlay(),
            header: header(app, world, scenario),
            timeline: timeline(app, world),
            lock_panel: lock_panel(world, app.lesson().vocab()),
            storage: storage(world, app.lesson().vocab()),
            compare: app.compare().then(|| compare(world)),
            caption: caption(app),
            // The log shows at most one event a row: only the latest that could fit are
            // described, so a frame costs the same after ten minutes as after ten seconds.
            events_before: world.events().len().saturating_sub(EVENTS_DESCRIBED),
            events: world.events()[world.events().len().saturating_sub(EVENTS_DESCRIBED)..]
                .iter()
                .map(|e| EventLine {
                    time: fmt_seconds(e.t),
                    text: e.describe(app.lesson().vocab()),
                    role: event_role(&e.kind),
                    fresh: e.t == now,
                })
                .collect(),
            footer: footer(app),
        }
    }
}

fn header(app: &App, world: &World, scenario: &Scenario) -> HeaderData {
    // On a student's storage whether the tokens fence anything is what their code decides:
    // the header does not claim fencing is on.
    let fencing = if world.judge() == Judge::External {
        Field {
            text: " YOUR CODE ".into(),
            role: Some(Role::Title),
        }
    } else if world.fencing() {
        Field {
            text: " FENCING ON ".into(),
            role: Some(Role::FencingOn),
        }
    } else {
        Field {
            text: " FENCING OFF ".into(),
            role: Some(Role::FencingOff),
        }
    };
    let vocab = app.lesson().vocab();
    let rule = match world.judge() {
        Judge::External => "your FencedStorage judges the tokens".to_owned(),
        Judge::Check(check) => vocab.say(check.rule()),
    };
    // With `--as`, the rule names the system; one with no token has nothing to check.
    let rule = match vocab.system {
        Some(system) if !system.has_token => format!("{}: no token to check", system.name),
        Some(system) => format!("{}: {rule}", system.name),
        None => rule,
    };
    let mut fields = vec![
        fencing,
        Field {
            text: rule,
            role: None,
        },
        Field {
            text: format!("t = {} s", fmt_seconds(world.now())),
            role: None,
        },
    ];
    if app.handout() {
        fields.truncate(HEADER_KEPT);
    }
    if world.service_offset() != 0 {
        fields.push(Field {
            text: format!("service clock {} s", fmt_signed(world.service_now())),
            role: Some(Role::Stale),
        });
    }
    if !app.handout() {
        fields.push(Field {
            text: if app.is_playing() {
                "▶ playing".into()
            } else {
                "❚❚ paused".into()
            },
            role: None,
        });
        fields.push(Field {
            text: format!("step {} s", fmt_seconds(app.step_ms())),
            role: None,
        });
        fields.push(Field {
            text: format!("speed {}x", app.speed()),
            role: None,
        });
    }
    let progress = match (scenario.chaos.is_some(), scenario.beat_at(world.now())) {
        (true, _) => format!("chaos, seed {}", app.session().seed()),
        (false, Some(i)) => format!("beat {} of {}", i + 1, scenario.beats.len()),
        (false, None) => counted(scenario.beats.len() as u64, "beat", "beats"),
    };
    let progress = if app.compare() {
        format!("COMPARE · {progress}")
    } else {
        progress
    };
    HeaderData {
        fields,
        name: scenario.name.clone(),
        title: vocab.say(&scenario.title),
        short_title: vocab.say(&scenario.short_title),
        progress,
    }
}

fn timeline<'a>(app: &App, world: &'a World) -> TimelineData<'a> {
    let scenario = world.scenario();
    let clients = world
        .clients()
        .iter()
        .map(|client| {
            let BeliefTruth {
                believes,
                truth,
                stale,
            } = belief_and_truth(world, client);
            ClientRow {
                id: client.id,
                selected: client.id == app.selected(),
                believes: match believes {
                    Believes::Down => "crashed".into(),
                    Believes::Frozen => "frozen (GC)".into(),
                    Believes::Wants => "wants lock".into(),
                    Believes::Nothing => "no lock".into(),
                    Believes::Holds { token, left } if left > 0 => {
                        format!("t{token} {} left", duration(left))
                    }
                    Believes::Holds { token, .. } => format!("t{token} ran out"),
                },
                truth: match truth {
                    Truth::Nothing => String::new(),
                    Truth::Live { left } => format!("live {}", duration(left)),
                    Truth::Ended { ago } => format!("ended {} ago", duration(ago as i64)),
                    Truth::NotItsLease => "not its lease".into(),
                },
                stale,
            }
        })
        .collect();
    let next = match world.next_token() {
        NextToken::Is(t) => format!("free · next t{t}"),
        NextToken::NoneLeft => app.lesson().vocab().say("free · no tokens left"),
        NextToken::Unknown => "free".into(),
    };
    let locks = scenario
        .locks
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let id = LockId(i as u8);
            LockRow {
                id,
                name: name.clone(),
                status: match world.lease(id) {
                    Some(lease) => format!("{} t{}", lease.client, lease.token),
                    None => next.clone(),
                },
            }
        })
        .collect();
    let mut flights: Vec<Flight> = Vec::new();
    for e in world.events() {
        if let EventKind::Send {
            client,
            key,
            token,
            deliver_at,
        } = &e.kind
        {
            flights.push(Flight {
                client: *client,
                token: *token,
                key: key.clone(),
                sent: e.t,
                arrives: *deliver_at,
            });
        }
    }
    TimelineData {
        now: world.now(),
        end: scenario.end,
        chaos: scenario.chaos.is_some(),
        history: world.history(),
        clients,
        locks,
        flights,
    }
}

fn lock_panel(world: &World, vocab: &Vocab) -> LockPanelData {
    let scenario = world.scenario();
    let locks = scenario
        .locks
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let id = LockId(i as u8);
            match world.lease(id) {
                Some(
                    lease @ LiveLease {
                        client,
                        token,
                        granted_at,
                        expires_at,
                    },
                ) => {
                    let left_ms = world.lease_left(&lease);
                    LockLines {
                        name: name.clone(),
                        holder: Some(format!("{client}  {} {token}", vocab.token)),
                        detail: format!(
                            "granted {} s  expires {} s",
                            fmt_service_seconds(granted_at),
                            fmt_service_seconds(expires_at)
                        ),
                        detail_short: format!(
                            "lease   {} → {} s",
                            fmt_service_seconds(granted_at),
                            fmt_service_seconds(expires_at)
                        ),
                        left: Some((left_ms as f64 / scenario.lease_ms as f64, duration(left_ms))),
                    }
                }
                None => {
                    let detail = last_lease_end(world.events(), id);
                    LockLines {
                        name: name.clone(),
                        holder: None,
                        detail_short: detail.clone(),
                        detail,
                        left: None,
                    }
                }
            }
        })
        .collect();
    let next = match world.next_token() {
        NextToken::Is(t) => format!("next {} {t}", vocab.token),
        NextToken::NoneLeft => vocab.say("no tokens left"),
        // A student's service does not say which token it grants next.
        NextToken::Unknown => "your counter".into(),
    };
    LockPanelData {
        locks,
        footer: format!("{next}   lease {} s", fmt_seconds(scenario.lease_ms)),
    }
}

fn last_lease_end(events: &[Event], lock: LockId) -> String {
    events
        .iter()
        .rev()
        .find_map(|e| match e.kind {
            EventKind::Expire {
                client,
                lock: l,
                token,
            } if l == lock => Some(format!(
                "t{token} {client} expired at {} s",
                fmt_seconds(e.t)
            )),
            EventKind::Release {
                client,
                lock: l,
                token,
            } if l == lock => Some(format!(
                "t{token} {client} released at {} s",
                fmt_seconds(e.t)
            )),
            _ => None,
        })
        .unwrap_or_else(|| "never granted yet".into())
}

fn storage(world: &World, vocab: &Vocab) -> StorageData {
    let title = match (world.judge(), world.fencing()) {
        (Judge::External, _) => "Storage: your FencedStorage".to_owned(),
        (_, false) => "Storage: NO CHECK (fencing off)".to_owned(),
        (Judge::Check(check), true) => format!("Storage: {}", vocab.say(check.rule())),
    };
    let rows = world
        .storage_entries()
        .into_iter()
        .map(|(key, stored)| KeyRow {
            by: world.authors().get(&key).map(|client| {
                (
                    format!("{client} (t{})", stored.value_token),
                    format!("c{} (t{})", client.number(), stored.value_token),
                )
            }),
            corrupted: (stored.value_token < stored.highest)
                .then_some((stored.value_token, stored.highest)),
            highest: stored.highest,
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
        } => Some(verdict_line(verdict, *client, key, e.t, world.now())),
        _ => None,
    });
    StorageData {
        title,
        rows,
        verdict,
        counts: None,
    }
}

/// A verdict as a panel shows it: "✗ REJECTED t1 < t2 · client-1 → file · 16.5 s".
pub fn verdict_line(verdict: &Verdict, client: ClientId, key: &str, t: Ms, now: Ms) -> VerdictLine {
    let (mark, word, role) = match verdict.outcome() {
        Outcome::Accepted => ("✓", "accepted", Role::Accepted),
        Outcome::Rejected => ("✗", "REJECTED", Role::Rejected),
        Outcome::Corrupted => ("!", "CORRUPTED DATA!", Role::Corrupted),
    };
    VerdictLine {
        mark,
        word,
        comparison: verdict.comparison(),
        rest: format!("{client} → {key} · {} s", fmt_seconds(t)),
        role,
        fresh: t == now,
    }
}

fn compare(world: &World) -> [StorageData; 2] {
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
                highest: stored.highest,
                by: None,
                corrupted: (stored.value_token < stored.highest)
                    .then_some((stored.value_token, stored.highest)),
            })
            .collect();
        let verdict = world
            .mirror_last(check)
            .map(|(t, client, key, verdict)| verdict_line(verdict, client, key, t, world.now()));
        StorageData {
            title: format!("{name}: {}", check.rule()),
            rows,
            verdict,
            counts: Some(format!(
                "{} accepted, {} rejected, {} corrupted",
                stats.writes_accepted, stats.writes_rejected, stats.corruptions
            )),
        }
    })
}

fn caption(app: &App) -> CaptionData {
    let caption = app.caption();
    let chaos = app.session().scenario().chaos.is_some();
    let (title, prompt) = match caption.source {
        Source::Question { .. } => (
            " Question ",
            Some(format!(
                "Predict, then see: {} = accepted, {} = rejected, {} = skip the question.",
                keys::key_for(Mode::Question, Action::Answer(true)),
                keys::key_for(Mode::Question, Action::Answer(false)),
                keys::key_for(Mode::Question, Action::Skip),
            )),
        ),
        Source::Reveal { .. } => (" Answer ", None),
        _ if chaos => (" Chaos ", None),
        Source::BeforeStart => (
            " Lesson ",
            Some(format!(
                "Press {} to begin.",
                keys::key_for(Mode::Main, Action::NextMoment)
            )),
        ),
        _ => (" Lesson ", None),
    };
    CaptionData {
        title,
        role: match caption.tone {
            Tone::Plain => None,
            Tone::Rejected => Some(Role::Rejected),
            Tone::Corrupted => Some(Role::Corrupted),
            Tone::Question => Some(Role::Question),
        },
        text: caption.text,
        prompt,
    }
}

fn footer(app: &App) -> FooterData {
    if app.handout() {
        return FooterData {
            status: None,
            lead: None,
            hints: Vec::new(),
        };
    }
    let mode = app.mode();
    let mut hints = keys::hints(mode);
    if app.on_student_code() {
        // The student's storage has its own rule: the keys that switch ours are not offered.
        hints.retain(|hint| !matches!(hint.1, "fencing" | "check"));
    }
    let mut lead = None;
    if mode == Mode::Main && app.at_end() {
        // The lesson is over: what to do next comes first.
        lead = Some("lesson over:");
        for hint in &mut hints {
            if matches!(hint.1, "fencing" | "restart" | "lessons") {
                hint.2 = 0;
            }
        }
    }
    FooterData {
        status: app.status().map(str::to_owned),
        lead,
        hints,
    }
}

fn event_role(kind: &EventKind) -> Option<Role> {
    Some(match kind {
        EventKind::Write { verdict, .. } => match verdict.outcome() {
            Outcome::Rejected => Role::Rejected,
            Outcome::Corrupted => Role::Corrupted,
            Outcome::Accepted => Role::Holding,
        },
        EventKind::Corruption { .. } => Role::Corrupted,
        EventKind::Grant { .. } => Role::Holding,
        EventKind::Pause { .. } | EventKind::Resume { .. } => Role::Paused,
        EventKind::Expire { .. }
        | EventKind::RenewRefused { .. }
        | EventKind::ReleaseRefused { .. }
        | EventKind::ClockJump { .. } => Role::Stale,
        EventKind::Crash { .. } | EventKind::Restart { .. } => Role::Crashed,
        EventKind::Differs { .. } => Role::Corrupted,
        EventKind::Fencing { .. } | EventKind::Check { .. } => Role::Title,
        EventKind::Send { .. } => Role::Waiting,
        _ => return None,
    })
}

/// A duration in a narrow column: one decimal, never more time left than there is ("<0.1 s"
/// for a sliver).
pub fn duration(ms: i64) -> String {
    if ms > 0 && ms < 100 {
        return "<0.1 s".into();
    }
    let tenths = ms.max(0) / 100;
    format!("{}.{} s", tenths / 10, tenths % 10)
}
