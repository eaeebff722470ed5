//! A run's events as a beat's window compares them: at the instant they stand at in the script,
//! with their times left out and their tokens in the other run's numbers.

use super::numbers::Renumbering;
use crate::sim::event::{Event, EventKind, Refusal};
use crate::sim::scenario::Scenario;
use crate::sim::time::Ms;

/// How late after its planned end a lease's expiry may be seen and still be that end: etcd
/// ends a lease up to half a second after its TTL runs out, and the live run looks every 0.1 s.
pub const LATE_EXPIRY: Ms = 1_000;

/// The instant each event stands at in the script: its own time, but for a lease's expiry seen
/// late, the end its grant or last renewal planned.
pub(super) fn instants(events: &[Event]) -> Vec<Ms> {
    let mut planned: Vec<(u64, Ms)> = Vec::new();
    events
        .iter()
        .map(|e| match e.kind {
            EventKind::Grant { .. } | EventKind::Renew { .. } => {
                plan(&mut planned, &e.kind);
                e.t
            }
            EventKind::Expire { token, .. } => planned
                .iter()
                .find(|(t, _)| *t == token)
                .map(|&(_, end)| end)
                .filter(|&end| end <= e.t && e.t - end <= LATE_EXPIRY)
                .unwrap_or(e.t),
            _ => e.t,
        })
        .collect()
}

/// Notes the end a grant or a renewal plans for its lease (in ms), in place of the lease's
/// earlier one.
fn plan(planned: &mut Vec<(u64, Ms)>, kind: &EventKind) {
    if let EventKind::Grant {
        token, expires_at, ..
    }
    | EventKind::Renew {
        token, expires_at, ..
    } = *kind
    {
        planned.retain(|(t, _)| *t != token);
        planned.push((token, (expires_at * 1000.0).round() as Ms));
    }
}

/// Whether a lease planned to end by `upto` has not yet been seen to end, renew or go, and
/// `now` is still within [`LATE_EXPIRY`] of its end: its expiry is on its way.
pub fn awaits_expiry(events: &[Event], upto: Ms, now: Ms) -> bool {
    let mut live: Vec<(u64, Ms)> = Vec::new();
    for e in events {
        match e.kind {
            EventKind::Grant { .. } | EventKind::Renew { .. } => plan(&mut live, &e.kind),
            EventKind::Expire { token, .. }
            | EventKind::Release { token, .. }
            | EventKind::RenewRefused { token, .. } => live.retain(|(t, _)| *t != token),
            _ => {}
        }
    }
    live.iter()
        .any(|&(_, end)| end <= upto && now <= end + LATE_EXPIRY)
}

/// A run's events with the instants they stand at in the script, worked out once for every
/// window asked of it.
pub(super) struct Placed<'a> {
    pub(super) events: &'a [Event],
    instants: Vec<Ms>,
}

impl<'a> Placed<'a> {
    pub(super) fn new(events: &'a [Event]) -> Placed<'a> {
        Placed {
            events,
            instants: instants(events),
        }
    }

    /// The events of one beat's window (`None`: before the first beat) up to `upto`, by the
    /// instants they stand at.
    pub(super) fn window(
        &self,
        scenario: &Scenario,
        window: Option<usize>,
        upto: Ms,
    ) -> Vec<&'a Event> {
        self.events
            .iter()
            .zip(&self.instants)
            .filter(|(_, &at)| at <= upto && scenario.beat_at(at) == window)
            .map(|(e, _)| e)
            .collect()
    }
}

/// Whether `ours` holds the events `theirs` does, renumbered, in any order (things that happen
/// at one instant in the script may happen a millisecond apart, either way round, in another
/// run); if so, how far apart in time the furthest pair is.
pub(super) fn alike(theirs: &[&Event], ours: &[&Event], renumbering: &Renumbering) -> Option<Ms> {
    if theirs.len() != ours.len() {
        return None;
    }
    let mut unmatched: Vec<(Ms, EventKind)> = ours
        .iter()
        .map(|e| shape(&e.kind, &Some).map(|s| (e.t, s)))
        .collect::<Option<_>>()?;
    let mut drift = 0;
    for e in theirs {
        let expected = shape(&e.kind, &|token| renumbering.of(token))?;
        // Of events alike, the earliest left: the k-th renewal is paired with the k-th.
        let found = unmatched.iter().position(|(_, g)| *g == expected)?;
        let (t, _) = unmatched.remove(found);
        drift = drift.max(t.abs_diff(e.t));
    }
    Some(drift)
}

/// What an event says, with its times left out (every run keeps its own clock) and its token
/// numbers through `token` (`None` if one has no counterpart, so it matches nothing).
pub(super) fn shape(kind: &EventKind, token: &dyn Fn(u64) -> Option<u64>) -> Option<EventKind> {
    let maybe = |t: Option<u64>| t.map(token).map_or(Some(None), |n| n.map(Some));
    let mut kind = kind.clone();
    match &mut kind {
        EventKind::Grant {
            token: t,
            expires_at,
            ..
        }
        | EventKind::Renew {
            token: t,
            expires_at,
            ..
        } => {
            *t = token(*t)?;
            *expires_at = 0.0;
        }
        EventKind::RenewRefused {
            token: t, reason, ..
        }
        | EventKind::ReleaseRefused {
            token: t, reason, ..
        } => {
            *t = token(*t)?;
            // By its kind: its figures (when the lease ended, who holds the lock) are the
            // run's own, and follow from the events before.
            if let Refusal::Lease(why) = reason {
                *reason = Refusal::Said(why.code().to_owned());
            }
        }
        EventKind::Release { token: t, .. } | EventKind::Expire { token: t, .. } => *t = token(*t)?,
        EventKind::Pause { until, .. } => *until = 0,
        EventKind::Crash { restart_at, .. } => *restart_at = 0,
        EventKind::Send {
            token: t,
            deliver_at,
            ..
        } => {
            *t = token(*t)?;
            *deliver_at = 0;
        }
        EventKind::Write {
            verdict, sent_at, ..
        } => {
            verdict.token = token(verdict.token)?;
            verdict.key_highest = maybe(verdict.key_highest)?;
            // What every key has accepted and the value a write replaced follow from the
            // earlier writes, which are compared themselves; a live storage knows neither.
            verdict.any_highest = None;
            verdict.replaced_token = None;
            *sent_at = sent_at.map(|_| 0);
        }
        EventKind::Corruption {
            token: t,
            highest,
            overwrote_token,
            ..
        } => {
            *t = token(*t)?;
            *highest = token(*highest)?;
            *overwrote_token = maybe(*overwrote_token)?;
        }
        EventKind::ClockJump { service_now, .. } => *service_now = 0.0,
        EventKind::AcquireRefused { .. }
        | EventKind::Resume { .. }
        | EventKind::Restart { .. }
        | EventKind::Fencing { .. }
        | EventKind::Check { .. }
        | EventKind::Differs { .. } => {}
    }
    Some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::event::{ClientId, LockId};

    fn at(t: Ms, kind: EventKind) -> Event {
        Event { t, kind }
    }

    fn grant(t: Ms, token: u64, ends: f64) -> Event {
        let (client, lock) = (ClientId::ALL[0], LockId(0));
        at(
            t,
            EventKind::Grant {
                client,
                lock,
                token,
                expires_at: ends,
            },
        )
    }

    fn expire(t: Ms, token: u64) -> Event {
        let (client, lock) = (ClientId::ALL[0], LockId(0));
        at(
            t,
            EventKind::Expire {
                client,
                lock,
                token,
            },
        )
    }

    fn renew(t: Ms, token: u64, ends: f64) -> Event {
        let (client, lock) = (ClientId::ALL[0], LockId(0));
        at(
            t,
            EventKind::Renew {
                client,
                lock,
                token,
                expires_at: ends,
            },
        )
    }

    /// An expiry seen up to a second after the end its grant or last renewal planned stands at
    /// that end; one seen later, or before it, stands at its own time.
    #[test]
    fn a_late_expiry_stands_at_the_end_its_lease_planned() {
        let renew = renew(3_000, 5, 8.001);
        let cases = [
            (vec![grant(3, 5, 5.003), expire(5_502, 5)], 5_003),
            (vec![grant(3, 5, 5.003), expire(6_003, 5)], 5_003),
            (vec![grant(3, 5, 5.003), expire(6_004, 5)], 6_004),
            (vec![grant(3, 5, 5.003), expire(4_000, 5)], 4_000),
            (vec![grant(3, 5, 5.003), expire(5_502, 6)], 5_502),
            (vec![grant(3, 5, 5.003), renew, expire(8_400, 5)], 8_001),
        ];
        for (events, expected) in cases {
            assert_eq!(instants(&events).last(), Some(&expected), "{events:?}");
        }
    }

    /// A window waits for a lease planned to end in it, until its expiry, release or refused
    /// renewal is seen, or for a second after its end at most.
    #[test]
    fn a_window_waits_for_an_expiry_on_its_way_and_no_longer() {
        let granted = vec![grant(3, 5, 5.003)];
        assert!(awaits_expiry(&granted, 5_499, 5_500));
        assert!(awaits_expiry(&granted, 5_499, 6_003));
        assert!(!awaits_expiry(&granted, 5_499, 6_004));
        assert!(
            !awaits_expiry(&granted, 5_002, 5_500),
            "it ends in a later window"
        );
        // A renewal's end replaces the grant's; another lease's end is its own.
        let mut renewed = granted.clone();
        renewed.push(renew(3_000, 5, 8.001));
        assert!(!awaits_expiry(&renewed, 5_499, 5_500));
        renewed.push(grant(3_100, 6, 5.2));
        assert!(awaits_expiry(&renewed, 5_499, 5_500));
        let mut ended = granted.clone();
        ended.push(expire(5_502, 5));
        assert!(!awaits_expiry(&ended, 5_499, 5_502));
        let mut released = granted;
        released.push(at(
            4_000,
            EventKind::Release {
                client: ClientId::ALL[0],
                lock: LockId(0),
                token: 5,
            },
        ));
        assert!(!awaits_expiry(&released, 5_499, 5_500));
    }
}
