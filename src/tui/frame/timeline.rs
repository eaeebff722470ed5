//! The timeline's data: each client's lane with its belief beside the lock service's truth, each
//! lock's lane with its holder, and the writes the network holds. With no token (`--as
//! redlock`) nothing here numbers a grant.

use crate::sim::lesson::{belief_and_truth, BeliefTruth, Believes, Truth};
use crate::sim::{ClientId, Event, EventKind, History, LockId, Marks, Ms, NextToken, World};
use crate::tui::app::App;

use super::text::duration;

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
    /// Whether it reached the storage (at `arrives`, it may still be about to).
    pub arrived: bool,
}

impl Flight {
    /// Whether the network holds it at `now`.
    pub fn in_flight_at(&self, now: Ms) -> bool {
        self.sent <= now && (self.arrives > now || (self.arrives == now && !self.arrived))
    }
}

/// The timeline's data.
pub struct TimelineData<'a> {
    pub now: Ms,
    pub end: Ms,
    pub chaos: bool,
    /// Whether grants carry a token to show (`t2`); not under a system with no token.
    /// How a lane writes a token (`t2`, `rev 2`), or that there are none to write.
    pub tokens: Marks,
    pub history: &'a History,
    pub clients: Vec<ClientRow>,
    pub locks: Vec<LockRow>,
    pub flights: Vec<Flight>,
}

pub(super) fn timeline<'a>(app: &App, world: &'a World) -> TimelineData<'a> {
    let scenario = world.scenario();
    let tokens = app.lesson().vocab().marks();
    TimelineData {
        now: world.now(),
        end: scenario.end,
        chaos: scenario.chaos.is_some(),
        tokens,
        history: world.history(),
        clients: world
            .clients()
            .iter()
            .map(|client| {
                let row = belief_and_truth(world, client);
                client_row(client.id, client.id == app.selected(), row, tokens)
            })
            .collect(),
        locks: lock_rows(app, world, tokens),
        flights: flights(world.events()),
    }
}

fn client_row(id: ClientId, selected: bool, row: BeliefTruth, tokens: Marks) -> ClientRow {
    let BeliefTruth {
        believes,
        truth,
        stale,
    } = row;
    let token = |token: u64| {
        if tokens.shown() {
            format!("{} ", tokens.of_token(token))
        } else {
            String::new()
        }
    };
    ClientRow {
        id,
        selected,
        believes: match believes {
            Believes::Down => "crashed".into(),
            Believes::Frozen => "frozen (GC)".into(),
            Believes::Wants => "wants lock".into(),
            Believes::Nothing => "no lock".into(),
            Believes::Holds { token: t, left } if left > 0 => {
                format!("{}{} left", token(t), duration(left))
            }
            Believes::Holds { token: t, .. } if tokens.shown() => {
                format!("{} ran out", tokens.of_token(t))
            }
            Believes::Holds { .. } => "lease ran out".into(),
        },
        truth: match truth {
            Truth::Nothing => String::new(),
            Truth::Live { left } => format!("live {}", duration(left)),
            Truth::Ended { ago } => format!("ended {} ago", duration(ago as i64)),
            Truth::NotItsLease => "not its lease".into(),
        },
        stale,
    }
}

/// Each lock's holder and token, or that it is free and which token comes next.
fn lock_rows(app: &App, world: &World, tokens: Marks) -> Vec<LockRow> {
    let numbered = app
        .session()
        .setup()
        .system
        .is_some_and(|s| s.numbering.is_some());
    let next = match world.next_token() {
        _ if !tokens.shown() => "free".to_owned(),
        // Where every change takes a number, the next grant's is not known: the store's now.
        NextToken::Is(t) if numbered => {
            format!("free · at {}", tokens.of_token(t.saturating_sub(1)))
        }
        NextToken::Is(t) => format!("free · next {}", tokens.of_token(t)),
        NextToken::NoneLeft => app.lesson().vocab().say("free · no tokens left"),
        NextToken::Unknown => "free".into(),
    };
    world
        .scenario()
        .locks
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let id = LockId(i as u8);
            LockRow {
                id,
                name: name.clone(),
                status: match world.lease(id) {
                    Some(lease) if tokens.shown() => {
                        format!("{} {}", lease.client, tokens.of_token(lease.token))
                    }
                    Some(lease) => lease.client.to_string(),
                    None => next.clone(),
                },
            }
        })
        .collect()
}

/// Every write sent into the network, for the network lane (the simulated world's or a live
/// run's events).
pub fn flights(events: &[Event]) -> Vec<Flight> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Send {
                client,
                key,
                token,
                deliver_at,
                ..
            } => Some(Flight {
                client: *client,
                token: *token,
                key: key.clone(),
                sent: e.t,
                arrives: *deliver_at,
                arrived: events.iter().any(|w| {
                    matches!(&w.kind, EventKind::Write { client: c, sent_at: Some(s), .. }
                        if c == client && *s == e.t)
                }),
            }),
            _ => None,
        })
        .collect()
}
