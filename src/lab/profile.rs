//! Experiments run before the checks, whose answers tell the judge which rule a later difference
//! is charged to: does the program's time follow the clock it is given, does it honour the
//! lease length and first token given to its constructor, does its storage refuse an equal token
//! on its own, and does an accepted write keep its key's highest token.

use std::time::Duration;

use super::judge::Profile;
use super::script::{Played, Subject};
use super::wire::ProtocolError;
use super::wire::{LeaseReply, Reply, Request};

mod clock;

/// What an experiment showed that one call cannot: the calls, the sentence, and the lease and
/// first token they were made with.
#[derive(Clone, Debug, PartialEq)]
pub struct Evidence {
    pub calls: Vec<Played>,
    pub sentence: String,
    pub lease_seconds: f64,
    pub first_token: u64,
}

/// The clock the experiment moves, far enough that no lease length hides it.
const CLOCK_STEP: f64 = 5000.0;
/// When the experiment renews its first lease, and renews it again.
const RENEW_AT: f64 = 4.0;
const RENEW_AGAIN_AT: f64 = 6.0;

fn renew_probe() -> Request {
    Request::Renew {
        name: "file".into(),
        client_id: "client-1".into(),
        token: FIRST_TOKEN,
    }
}
/// The key the storage experiment writes twice with one token, then with a higher one.
const PROBE_KEY: &str = "ledger";
const PROBE_TOKEN: u64 = 3;

fn write_probe(value: &str, token: u64) -> Request {
    Request::Write {
        key: PROBE_KEY.into(),
        value: value.into(),
        token,
    }
}

/// The lease the experiment asks for, which no default gives.
const LEASE: f64 = 5.0;
/// The first token the experiment asks for, which no default gives.
const FIRST_TOKEN: u64 = 7;

/// What the experiments found, and the calls that showed it.
#[derive(Clone, Debug, PartialEq)]
pub struct Findings {
    pub profile: Profile,
    /// What showed the clock ignored (`None` when nothing did).
    pub clock: Option<Evidence>,
    /// A grant whose expiry is not a number of seconds, told once, under lease-live: every
    /// lease is then judged as one that says no expiry.
    pub expiry: Option<Evidence>,
}

fn acquire(name: &str, client: &str) -> Request {
    Request::Acquire {
        name: name.into(),
        client_id: client.into(),
    }
}

/// Plays `requests` in one go and returns each with its reply.
fn exchange(
    student: &mut dyn Subject,
    requests: &[(f64, Request)],
) -> Result<Vec<Played>, ProtocolError> {
    for (_, request) in requests {
        student.send(request)?;
    }
    let mut played = Vec::new();
    for (now, request) in requests {
        let got = student.receive()?;
        played.push(Played {
            now: *now,
            request: request.clone(),
            got,
        });
    }
    Ok(played)
}

fn lease(played: &Played) -> Option<&LeaseReply> {
    match &played.got {
        Reply::Lease(Some(l)) => Some(l),
        _ => None,
    }
}

/// Which calls besides a grant the program's counter moves for.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct TokensUsed {
    refused_acquire: bool,
    renew: bool,
    release: bool,
}

/// Grants on locks of their own, one call of each kind between two of them: a gap of two tokens
/// shows the call between used one up. Where a step cannot be taken (a grant refused, no token
/// to renew with) nothing is concluded.
fn tokens_used(student: &mut dyn Subject) -> Result<TokensUsed, ProtocolError> {
    let at = CLOCK_STEP;
    let token = |p: &Played| lease(p).map(|l| l.token);
    let gap = |a: Option<u64>, b: Option<u64>| matches!((a, b), (Some(a), Some(b)) if b == a + 2);
    let first = exchange(
        student,
        &[
            (at, acquire("queue", "client-1")),
            (at, acquire("queue", "client-2")),
            (at, acquire("jobs", "client-1")),
        ],
    )?;
    let (c, d) = (token(&first[0]), token(&first[2]));
    let mut used = TokensUsed {
        refused_acquire: first[1].got.is_refusal() && gap(c, d),
        ..TokensUsed::default()
    };
    let Some(d) = d else { return Ok(used) };
    let renewed = exchange(
        student,
        &[
            (
                at,
                Request::Renew {
                    name: "jobs".into(),
                    client_id: "client-1".into(),
                    token: d,
                },
            ),
            (at, acquire("cache", "client-1")),
        ],
    )?;
    let e = token(&renewed[1]);
    used.renew = lease(&renewed[0]).is_some() && gap(Some(d), e);
    let Some(e) = e else { return Ok(used) };
    let released = exchange(
        student,
        &[
            (
                at,
                Request::Release {
                    name: "cache".into(),
                    client_id: "client-1".into(),
                    token: e,
                },
            ),
            (at, acquire("index", "client-1")),
        ],
    )?;
    used.release = !released[0].got.is_refusal() && gap(Some(e), token(&released[1]));
    Ok(used)
}

/// Runs the experiments. `pause` waits real time (a test's double makes it instant).
pub fn measure(
    student: &mut dyn Subject,
    pause: &dyn Fn(Duration),
) -> Result<Findings, ProtocolError> {
    let played = exchange(student, &first_probes())?;
    let (first, second) = (lease(&played[1]), lease(&played[7]));
    let renews = (lease(&played[3]), lease(&played[5]));
    let accepted = |p: &Played| !p.got.is_refusal() && !p.got.is_unusable();
    let (first_write, higher_write) = (accepted(&played[8]), accepted(&played[10]));
    let mut profile = Profile {
        first_token_honoured: first.is_none_or(|l| l.token == FIRST_TOKEN),
        lease_honoured: first
            .and_then(|l| l.expires_at)
            .is_none_or(|e| (e - LEASE).abs() <= 1e-9),
        equal_refused_alone: first_write && !accepted(&played[9]),
        highest_not_kept: higher_write && played[11].got != Reply::Token(Some(PROBE_TOKEN + 2)),
        ..Profile::default()
    };
    // A lease thousands of seconds over: refused, the program never lets a lease end, and a
    // disagreement at an expiry's exact instant is not the boundary's.
    let long_over = exchange(student, &[(CLOCK_STEP, acquire("file", "client-2"))])?;
    profile.leases_never_end = first.is_some() && long_over[0].got.is_refusal();
    let used = tokens_used(student)?;
    profile.refused_acquire_uses_token = used.refused_acquire;
    profile.renew_uses_token = used.renew;
    profile.release_uses_token = used.release;
    let expiry = |l: Option<&LeaseReply>| l.and_then(|l| l.expires_at);
    let mut clock = match (expiry(first), expiry(second)) {
        (Some(a), Some(b)) => clock::by_expiries(&played, a, b, renews),
        _ => None,
    };
    // Expiries that follow the clock say nothing of the clock liveness is asked on: every
    // program's leases are timed in real time too.
    if clock.is_none() {
        clock = clock::by_real_time(student, pause)?;
    }
    if clock.is_none() {
        clock = clock::by_liveness(student, pause)?;
    }
    profile.clock_ignored = clock.is_some();
    let expiry = first.and_then(|l| expiry_not_seconds(&played[..2], l));
    Ok(Findings {
        profile,
        clock,
        expiry,
    })
}

/// The experiment's first grant (`granted`, its calls `calls`), if its expiry is not a number
/// of seconds.
fn expiry_not_seconds(calls: &[Played], granted: &LeaseReply) -> Option<Evidence> {
    let shown = granted.says.expiry_not_seconds.as_ref()?;
    Some(Evidence {
        calls: calls.to_vec(),
        sentence: format!(
            "a lease's expires_at is a number of seconds, not {}: the clock's reading when it \
             ends, here {} (granted at 0.0, for {} s)",
            super::wire::one_line(shown),
            super::wire::fmt_time(LEASE),
            super::wire::fmt_time(LEASE)
        ),
        lease_seconds: LEASE,
        first_token: FIRST_TOKEN,
    })
}

/// The first experiment's calls: a grant on the lease and first token given, two renews 2 s
/// apart, the clock far on and another grant, then the storage's writes and its highest token.
fn first_probes() -> [(f64, Request); 12] {
    [
        (
            0.0,
            Request::New {
                lease_seconds: Some(LEASE),
                first_token: Some(FIRST_TOKEN),
            },
        ),
        (0.0, acquire("file", "client-1")),
        (RENEW_AT, Request::Clock { now: RENEW_AT }),
        (RENEW_AT, renew_probe()),
        (
            RENEW_AGAIN_AT,
            Request::Clock {
                now: RENEW_AGAIN_AT,
            },
        ),
        (RENEW_AGAIN_AT, renew_probe()),
        (CLOCK_STEP, Request::Clock { now: CLOCK_STEP }),
        (CLOCK_STEP, acquire("log", "client-2")),
        (CLOCK_STEP, write_probe("a", PROBE_TOKEN)),
        (CLOCK_STEP, write_probe("b", PROBE_TOKEN)),
        (CLOCK_STEP, write_probe("c", PROBE_TOKEN + 2)),
        (
            CLOCK_STEP,
            Request::HighestToken {
                key: PROBE_KEY.into(),
            },
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::testing::{Mistake, Student};

    fn findings(mistake: Mistake) -> Findings {
        measure(&mut Student::new(mistake), &|_| {}).unwrap()
    }

    #[test]
    fn a_correct_program_follows_the_clock_and_honours_its_settings() {
        let found = findings(Mistake::Correct);
        assert_eq!(found.profile, Profile::default());
        assert_eq!((found.clock, found.expiry), (None, None));
    }

    /// The storage's two experiments, each seen only where it should be: a strict storage
    /// refuses an equal token alone; one whose accepted writes keep the old value (and token)
    /// keeps no highest to compare a stale write with.
    #[test]
    fn the_storage_experiments_tell_equal_tokens_and_kept_highests_apart() {
        let strict = findings(Mistake::WriteStrict).profile;
        assert!(strict.equal_refused_alone && !strict.highest_not_kept);
        let global = findings(Mistake::GlobalHighest).profile;
        assert!(!global.equal_refused_alone && !global.highest_not_kept);
        let kept_old = findings(Mistake::WriteKeepsOldValue).profile;
        assert!(!kept_old.equal_refused_alone && !kept_old.highest_not_kept);
        let never_rises = findings(Mistake::HighestNeverRises).profile;
        assert!(!never_rises.equal_refused_alone && never_rises.highest_not_kept);
        let unchecked = findings(Mistake::WriteUnchecked).profile;
        assert_eq!(unchecked, Profile::default());
    }

    /// A program whose leases never end is found out, and only it.
    #[test]
    fn a_program_whose_leases_never_end_is_found_out() {
        assert!(
            findings(Mistake::AcquireIgnoresExpiry)
                .profile
                .leases_never_end
        );
        assert!(!findings(Mistake::Correct).profile.leases_never_end);
        assert!(!findings(Mistake::ExpiryInclusive).profile.leases_never_end);
    }

    /// The counter's experiment names the call that uses a token up, and only that one.
    #[test]
    fn the_token_experiment_sees_which_calls_use_a_token() {
        let correct = findings(Mistake::Correct).profile;
        assert!(!correct.refused_acquire_uses_token);
        assert!(!correct.renew_uses_token && !correct.release_uses_token);
        let refused = findings(Mistake::RefusedAcquireBumps).profile;
        assert!(refused.refused_acquire_uses_token && !refused.renew_uses_token);
        let renew = findings(Mistake::RenewBumpsCounter).profile;
        assert!(renew.renew_uses_token && !renew.refused_acquire_uses_token);
        assert!(!renew.release_uses_token);
        let release = findings(Mistake::ReleaseBumpsCounter).profile;
        assert!(release.release_uses_token && !release.renew_uses_token);
        assert!(!release.refused_acquire_uses_token);
    }

    #[test]
    fn a_program_whose_time_stands_still_is_found_out() {
        let found = findings(Mistake::OwnClock);
        assert!(found.profile.clock_ignored);
        let evidence = found.clock.expect("the clock's evidence");
        assert_eq!(
            evidence.sentence,
            "a new lease's expiry moved 0.0 s while the clock moved 5000.0 s: time comes from \
             somewhere else than clock.now()"
        );
        let calls: Vec<String> = evidence.calls.iter().map(|p| p.request.call()).collect();
        assert_eq!(
            calls,
            [
                "new LockService(clock, 5.0, 7)",
                "acquire(file, client-1)",
                "clock = 4.0",
                "renew(file, client-1, 7)",
                "clock = 6.0",
                "renew(file, client-1, 7)",
                "clock = 5000.0",
                "acquire(log, client-2)"
            ]
        );
    }

    /// A program whose leases give their expiry as text: told once, by the first grant.
    #[test]
    fn an_expiry_that_is_not_a_number_of_seconds_is_one_finding() {
        struct AsText(Student);
        impl Subject for AsText {
            fn send(&mut self, request: &Request) -> Result<(), ProtocolError> {
                self.0.send(request)
            }
            fn receive(&mut self) -> Result<Reply, ProtocolError> {
                Ok(match self.0.receive()? {
                    Reply::Lease(Some(mut l)) => {
                        let shown = format!("\"{}\"", l.expires_at.unwrap());
                        (l.expires_at, l.says.expiry_not_seconds) = (None, Some(shown));
                        Reply::Lease(Some(l))
                    }
                    other => other,
                })
            }
            fn in_flight(&self) -> usize {
                self.0.in_flight()
            }
            fn language(&self) -> &str {
                "a test double"
            }
            fn answered(&self) -> u64 {
                0
            }
        }
        let found = measure(&mut AsText(Student::new(Mistake::Correct)), &|_| {}).unwrap();
        assert_eq!(found.profile, Profile::default());
        assert_eq!(found.clock, None);
        let evidence = found.expiry.expect("the expiry's finding");
        assert_eq!(
            evidence.sentence,
            "a lease's expires_at is a number of seconds, not \"5\": the clock's reading when \
             it ends, here 5.0 (granted at 0.0, for 5.0 s)"
        );
        let calls: Vec<String> = evidence.calls.iter().map(|p| p.request.call()).collect();
        assert_eq!(
            calls,
            ["new LockService(clock, 5.0, 7)", "acquire(file, client-1)"]
        );
        assert!(findings(Mistake::Correct).expiry.is_none());
    }

    #[test]
    fn settings_not_honoured_are_noted() {
        let longer = findings(Mistake::LeaseOneSecondLonger).profile;
        assert!(!longer.lease_honoured && longer.first_token_honoured && !longer.clock_ignored);
        let first_ignored = findings(Mistake::FirstTokenIgnored).profile;
        assert_eq!(
            first_ignored,
            Profile {
                first_token_honoured: false,
                ..Profile::default()
            }
        );
        // A wrong default is not a wrong setting.
        assert_eq!(
            findings(Mistake::DefaultLease30).profile,
            Profile::default()
        );
        assert_eq!(
            findings(Mistake::DefaultFirstToken0).profile,
            Profile::default()
        );
    }
}
