//! Whether the program's time is the clock it is given. Three experiments, each for one way
//! another clock shows: the expiries it reports move otherwise than the clock; a lease runs out
//! in real time while the clock stands still; or a lease just granted is live or not depending on
//! where the clock stands against another clock (liveness read from `time.time()` or
//! `Date.now()`, expiries from `clock.now()`). Each ends in the same calls answered two ways a
//! real pause apart, or in expiries no clock-based rule gives: what only another clock explains.

use std::time::Duration;

use super::{exchange, lease, Evidence, CLOCK_STEP, LEASE, RENEW_AGAIN_AT, RENEW_AT};
use crate::lab::script::{Played, Subject};
use crate::lab::wire::ProtocolError;
use crate::lab::wire::{fmt_time, LeaseReply, Reply, Request};

/// What every sentence of evidence ends with.
const ELSEWHERE: &str = "time comes from somewhere else than clock.now()";

/// How long the real-time experiments let real time pass at a stretch, and how many stretches
/// the liveness experiment waits at most for its answer to change.
const REAL_PAUSE: Duration = Duration::from_millis(60);
const MOST_PAUSES: u32 = 4;

/// Whether the expiries moved otherwise than the clock (`a` and `b` those of the grants before
/// and after the clock's step): the calls that showed it and the sentence, or `None`.
pub(super) fn by_expiries(
    played: &[Played],
    a: f64,
    b: f64,
    renews: (Option<&LeaseReply>, Option<&LeaseReply>),
) -> Option<Evidence> {
    let expiry = |l: Option<&LeaseReply>| l.and_then(|l| l.expires_at);
    // A new lease's expiry must move as the clock does. Of two renews 2 s apart, a renew
    // that follows any clock-based rule (right or wrong) moves its expiry with the clock
    // or keeps the grant's; one that stands still elsewhere reads another clock.
    let moved = b - a;
    // "Stands still" is up to a quarter of the clock's move: the real time between the two calls,
    // which on a loaded grading machine can be milliseconds, is far below it, and every
    // clock-based rule moves the expiry by the clock's 2 s, by a whole lease, or not at all.
    let still = (RENEW_AGAIN_AT - RENEW_AT) / 4.0;
    let stuck = match (expiry(renews.0), expiry(renews.1)) {
        (Some(r1), Some(r2)) => {
            ((r2 - r1).abs() < still && (r1 - a).abs() > 1e-9).then_some(r2 - r1)
        }
        _ => None,
    };
    let sentence = if (moved - CLOCK_STEP).abs() > 1e-6 {
        Some(format!(
            "a new lease's expiry moved {} s while the clock moved {} s",
            fmt_time(moved),
            fmt_time(CLOCK_STEP)
        ))
    } else {
        stuck.map(|m| {
            format!(
                "between two renews the lease's expiry moved {} s (and not to the \
                 grant's) while the clock moved {} s",
                fmt_time(m),
                fmt_time(RENEW_AGAIN_AT - RENEW_AT)
            )
        })
    };
    // The lock calls: the storage's experiment after them shows nothing of time.
    sentence.map(|sentence| Evidence {
        calls: played[..8].to_vec(),
        sentence: format!("{sentence}: {ELSEWHERE}"),
        lease_seconds: LEASE,
        first_token: super::FIRST_TOKEN,
    })
}

/// Whether a short lease runs out in real time while the clock stands still: the calls that
/// showed it and the sentence, or `None`. Real time is let pass only when the lease was live
/// at once, so that its running out can be told from never having been live.
pub(super) fn by_real_time(
    student: &mut dyn Subject,
    pause: &dyn Fn(Duration),
) -> Result<Option<Evidence>, ProtocolError> {
    let lease_seconds = 0.02;
    let started = exchange(
        student,
        &[
            (0.0, new_service(lease_seconds)),
            (0.0, acquire("client-1")),
            (0.0, acquire("client-2")),
        ],
    )?;
    if lease(&started[1]).is_none() || !started[2].got.is_refusal() {
        return Ok(None);
    }
    pause(REAL_PAUSE);
    let later = exchange(student, &[(0.0, acquire("client-3"))])?;
    Ok(lease(&later[0]).is_some().then(|| Evidence {
        calls: started.into_iter().chain(later).collect(),
        sentence: format!(
            "with the clock standing at 0.0, a lease of {} s ran out after {} ms of real time: \
             {ELSEWHERE}",
            fmt_time(lease_seconds),
            REAL_PAUSE.as_millis()
        ),
        lease_seconds,
        first_token: 1,
    }))
}

/// The call made just after a grant, whose answer shows whether the lease is live.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Probe {
    /// Another client's acquire: refused while the lease is live.
    Acquire,
    /// `holder`: the grantee while it is live.
    Holder,
    /// The grantee's renew with its token: granted while it is live.
    Renew,
    /// The grantee's release with its token: done while it is live.
    Release,
}

impl Probe {
    const ALL: [Probe; 4] = [Probe::Acquire, Probe::Holder, Probe::Renew, Probe::Release];

    fn request(self, token: u64) -> Request {
        let (name, client_id) = (LOCK.to_owned(), "client-1".to_owned());
        match self {
            Probe::Acquire => acquire("client-2"),
            Probe::Holder => Request::Holder { name },
            Probe::Renew => Request::Renew {
                name,
                client_id,
                token,
            },
            Probe::Release => Request::Release {
                name,
                client_id,
                token,
            },
        }
    }

    /// Whether `got` treats the lease as live, as the seed would right after its grant.
    fn found_live(self, got: &Reply) -> bool {
        match self {
            Probe::Acquire => got.is_refusal(),
            Probe::Holder => *got == Reply::Holder(Some("client-1".into())),
            Probe::Renew => matches!(got, Reply::Lease(Some(_))),
            Probe::Release => !got.is_refusal() && !got.is_unusable(),
        }
    }
}

/// The lock every experiment here takes, named as the lessons name it.
const LOCK: &str = "file";

fn new_service(lease_seconds: f64) -> Request {
    Request::New {
        lease_seconds: Some(lease_seconds),
        first_token: Some(1),
    }
}

fn acquire(client: &str) -> Request {
    Request::Acquire {
        name: LOCK.into(),
        client_id: client.into(),
    }
}

/// A new service, the clock at `at`, a grant, and `probe` at once: the calls, and whether the
/// probe found the lease live (`None`: the grant was refused, or the probe's answer was of no
/// kind, so nothing was shown).
fn at_once(
    student: &mut dyn Subject,
    at: f64,
    probe: Probe,
) -> Result<(Vec<Played>, Option<bool>), ProtocolError> {
    let mut played = exchange(
        student,
        &[
            (0.0, new_service(LEASE)),
            (at, Request::Clock { now: at }),
            (at, acquire("client-1")),
        ],
    )?;
    let Some(token) = lease(&played[2]).map(|l| l.token) else {
        return Ok((played, None));
    };
    let answer = exchange(student, &[(at, probe.request(token))])?;
    played.extend(answer);
    // An answer of no kind, or none at all, shows nothing of liveness.
    let got = &played[3].got;
    let live = (!got.is_unusable()).then(|| probe.found_live(got));
    Ok((played, live))
}

/// Whether a lease just granted is live depending on where the clock stands against another
/// clock. Where, with the clock at 0, a probe finds a lease just granted over, the clock is
/// moved up until the probe finds it live: a program that compares the clock's expiry with
/// its own clock's reading sees its leases live only once the clock passes that reading. There
/// the same calls are made again after real time passes: a program on the clock answers them
/// the same, one on another clock finds the lease over.
pub(super) fn by_liveness(
    student: &mut dyn Subject,
    pause: &dyn Fn(Duration),
) -> Result<Option<Evidence>, ProtocolError> {
    for probe in Probe::ALL {
        if at_once(student, 0.0, probe)?.1 != Some(false) {
            continue;
        }
        let Some(live_at) = where_live(student, probe)? else {
            continue;
        };
        if let Some(evidence) = answered_otherwise_later(student, probe, live_at, pause)? {
            return Ok(Some(evidence));
        }
    }
    Ok(None)
}

/// The clock's lowest reading found at which `probe` finds a lease just granted live, the clock
/// at 0 having found it over; `None` if no reading up to 2^64 s does.
fn where_live(student: &mut dyn Subject, probe: Probe) -> Result<Option<f64>, ProtocolError> {
    let live = |student: &mut dyn Subject, at: f64| -> Result<bool, ProtocolError> {
        Ok(at_once(student, at, probe)?.1 == Some(true))
    };
    // Readings of every clock students reach for: seconds or milliseconds since 1970 or since
    // boot, nanoseconds of `System.nanoTime()`.
    let (mut over, mut at) = (0.0, 1.0);
    while !live(student, at)? {
        over = at;
        at *= 4.0;
        if at > 2f64.powi(64) {
            return Ok(None);
        }
    }
    // Halved down to a millisecond (or the float's own step, at such readings): another clock
    // keeps moving meanwhile, so `at` is where the lease was live when last asked.
    let precision = |at: f64| (at * f64::EPSILON * 4.0).max(1e-3);
    for _ in 0..128 {
        if at - over <= precision(at) {
            break;
        }
        let mid = over + (at - over) / 2.0;
        if live(student, mid)? {
            at = mid;
        } else {
            over = mid;
        }
    }
    Ok(Some(at))
}

/// The same calls at a reading just past `live_at`, live at once, then again after real time:
/// the evidence if they were answered otherwise, or `None`.
fn answered_otherwise_later(
    student: &mut dyn Subject,
    probe: Probe,
    live_at: f64,
    pause: &dyn Fn(Duration),
) -> Result<Option<Evidence>, ProtocolError> {
    // Another clock moves on while the experiment runs, by a millisecond or a million
    // nanoseconds: a reading a step further, the steps growing tenfold, is live again.
    let mut first = None;
    for k in 0..19 {
        let at = ms_up(if k == 0 {
            live_at
        } else {
            live_at + 1e-3 * 10f64.powi(k - 1)
        });
        let (calls, live) = at_once(student, at, probe)?;
        if live == Some(true) {
            first = Some((at, calls));
            break;
        }
    }
    let Some((at, first)) = first else {
        return Ok(None);
    };
    for pauses in 1..=MOST_PAUSES {
        pause(REAL_PAUSE);
        let (later, live) = at_once(student, at, probe)?;
        if live == Some(false) {
            let waited = REAL_PAUSE.as_millis() * u128::from(pauses);
            return Ok(Some(Evidence {
                sentence: liveness_sentence(probe, at, waited),
                calls: first.into_iter().chain(later).collect(),
                lease_seconds: LEASE,
                first_token: 1,
            }));
        }
    }
    Ok(None)
}

/// `at` rounded up to a whole millisecond where a float holds one, so that a transcript shows
/// the reading as it was sent.
fn ms_up(at: f64) -> f64 {
    let up = (at * 1000.0).ceil() / 1000.0;
    if up >= at {
        up
    } else {
        at
    }
}

fn liveness_sentence(probe: Probe, at: f64, waited_ms: u128) -> String {
    let asked = match probe {
        Probe::Acquire => "another client's acquire",
        Probe::Holder => "holder(name)",
        Probe::Renew => "a renew by its holder",
        Probe::Release => "a release by its holder",
    };
    format!(
        "the same calls with the clock at {at} both times found a lease just granted live, then \
         {waited_ms} ms of real time later over ({asked}, with the clock at 0.0, found such a \
         lease over at once): {ELSEWHERE}",
        at = fmt_time(at),
    )
}

#[cfg(test)]
mod tests;
