//! Experiments run before the checks, whose answers tell the judge which rule a later difference
//! is charged to: does the program's time follow the clock it is given, does it honour the
//! lease length and first token given to its constructor, does its storage refuse an equal token
//! on its own, and does an accepted write keep its key's highest token.

use std::time::Duration;

use super::judge::Profile;
use super::program::ProtocolError;
use super::script::{Played, Subject};
use super::wire::{LeaseReply, Reply, Request};

/// The clock the experiment moves, far enough that no lease length hides it.
const CLOCK_STEP: f64 = 5000.0;
/// When the experiment renews its first lease, and renews it again.
const RENEW_AT: f64 = 4.0;
const RENEW_AGAIN_AT: f64 = 6.0;

fn renew_probe() -> Request {
    Request::Renew {
        name: "probe-a".into(),
        client_id: "client-1".into(),
        token: FIRST_TOKEN,
    }
}
/// The key the storage experiment writes twice with one token, then with a higher one.
const PROBE_KEY: &str = "probe-key";
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
    /// The calls that showed the clock ignored, and what they showed (empty when it is not).
    pub clock_evidence: Vec<Played>,
    pub clock_sentence: String,
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
            (at, acquire("probe-c", "client-1")),
            (at, acquire("probe-c", "client-2")),
            (at, acquire("probe-d", "client-1")),
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
                    name: "probe-d".into(),
                    client_id: "client-1".into(),
                    token: d,
                },
            ),
            (at, acquire("probe-e", "client-1")),
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
                    name: "probe-e".into(),
                    client_id: "client-1".into(),
                    token: e,
                },
            ),
            (at, acquire("probe-f", "client-1")),
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
    let accepted = |p: &Played| !p.got.is_refusal() && !matches!(p.got, Reply::Strange(_));
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
    let long_over = exchange(student, &[(CLOCK_STEP, acquire("probe-a", "client-2"))])?;
    profile.leases_never_end = first.is_some() && long_over[0].got.is_refusal();
    let used = tokens_used(student)?;
    profile.refused_acquire_uses_token = used.refused_acquire;
    profile.renew_uses_token = used.renew;
    profile.release_uses_token = used.release;
    let mut findings = Findings {
        profile,
        clock_evidence: Vec::new(),
        clock_sentence: String::new(),
    };
    let expiry = |l: Option<&LeaseReply>| l.and_then(|l| l.expires_at);
    let ignored = match (expiry(first), expiry(second)) {
        (Some(a), Some(b)) => clock_by_expiries(&played, a, b, renews),
        // No expiries to compare: see whether a lease runs out in real time while the clock
        // stands still.
        _ if first.is_some() => clock_by_real_time(student, pause)?,
        _ => None,
    };
    if let Some((evidence, sentence)) = ignored {
        profile.clock_ignored = true;
        findings.clock_evidence = evidence;
        findings.clock_sentence = sentence;
    }
    findings.profile = profile;
    Ok(findings)
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
        (0.0, acquire("probe-a", "client-1")),
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
        (CLOCK_STEP, acquire("probe-b", "client-2")),
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

/// Whether the expiries moved otherwise than the clock (`a` and `b` those of the grants before
/// and after the clock's step): the calls that showed it and the sentence, or `None`.
fn clock_by_expiries(
    played: &[Played],
    a: f64,
    b: f64,
    renews: (Option<&LeaseReply>, Option<&LeaseReply>),
) -> Option<(Vec<Played>, String)> {
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
            super::wire::fmt_time(moved),
            super::wire::fmt_time(CLOCK_STEP)
        ))
    } else {
        stuck.map(|m| {
            format!(
                "between two renews the lease's expiry moved {} s (and not to the \
                 grant's) while the clock moved {} s",
                super::wire::fmt_time(m),
                super::wire::fmt_time(RENEW_AGAIN_AT - RENEW_AT)
            )
        })
    };
    // The lock calls: the storage's experiment after them shows nothing of time.
    sentence.map(|sentence| {
        (
            played[..8].to_vec(),
            format!("{sentence}: time comes from somewhere else than clock.now()"),
        )
    })
}

/// Whether a short lease runs out in real time while the clock stands still: the calls that
/// showed it and the sentence, or `None`.
fn clock_by_real_time(
    student: &mut dyn Subject,
    pause: &dyn Fn(Duration),
) -> Result<Option<(Vec<Played>, String)>, ProtocolError> {
    let lease_seconds = 0.02;
    let started = exchange(
        student,
        &[
            (
                0.0,
                Request::New {
                    lease_seconds: Some(lease_seconds),
                    first_token: Some(1),
                },
            ),
            (0.0, acquire("probe", "client-1")),
            (0.0, acquire("probe", "client-2")),
        ],
    )?;
    pause(Duration::from_millis(60));
    let later = exchange(student, &[(0.0, acquire("probe", "client-3"))])?;
    let control_refused = started[2].got.is_refusal();
    let ran_out = lease(&started[1]).is_some() && control_refused && lease(&later[0]).is_some();
    Ok(ran_out.then(|| {
        (
            started.into_iter().chain(later).collect(),
            format!(
                "with the clock standing at 0.0, a lease of {} s ran out after 60 ms of real \
                 time: time comes from somewhere else than clock.now()",
                super::wire::fmt_time(lease_seconds)
            ),
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::testing::{Mistake, Student};
    use std::cell::Cell;
    use std::collections::VecDeque;
    use std::rc::Rc;

    fn findings(mistake: Mistake) -> Findings {
        measure(&mut Student::new(mistake), &|_| {}).unwrap()
    }

    /// A program whose leases say nothing of when they end, so only real time can show which
    /// clock it reads: time passes for it only as the experiment's pause says.
    struct Silent {
        /// Whether its leases end by real time, not by the clock.
        real_time: bool,
        /// Whether it grants anything at all.
        grants: bool,
        real_now: Rc<Cell<f64>>,
        clock_now: f64,
        lease: f64,
        held_until: Option<f64>,
        next: u64,
        pending: VecDeque<Reply>,
    }

    impl Silent {
        fn new(real_time: bool, grants: bool, real_now: Rc<Cell<f64>>) -> Silent {
            Silent {
                real_time,
                grants,
                real_now,
                clock_now: 0.0,
                lease: 10.0,
                held_until: None,
                next: 1,
                pending: VecDeque::new(),
            }
        }

        fn now(&self) -> f64 {
            if self.real_time {
                self.real_now.get()
            } else {
                self.clock_now
            }
        }

        fn answer(&mut self, request: &Request) -> Reply {
            match request {
                Request::New { lease_seconds, .. } => {
                    self.lease = lease_seconds.unwrap_or(10.0);
                    self.held_until = None;
                    Reply::Done
                }
                Request::Clock { now } => {
                    self.clock_now = *now;
                    Reply::Done
                }
                Request::Acquire { .. } => {
                    if !self.grants || self.held_until.is_some_and(|end| self.now() < end) {
                        return Reply::Lease(None);
                    }
                    self.held_until = Some(self.now() + self.lease);
                    self.next += 1;
                    Reply::Lease(Some(LeaseReply::new(self.next - 1, None)))
                }
                Request::Renew { token, .. } => Reply::Lease(Some(LeaseReply::new(*token, None))),
                Request::HighestToken { .. } => Reply::Token(None),
                _ => Reply::Done,
            }
        }
    }

    impl Subject for Silent {
        fn send(&mut self, request: &Request) -> Result<(), ProtocolError> {
            let reply = self.answer(request);
            self.pending.push_back(reply);
            Ok(())
        }

        fn receive(&mut self) -> Result<Reply, ProtocolError> {
            Ok(self.pending.pop_front().expect("a request sent"))
        }

        fn in_flight(&self) -> usize {
            self.pending.len()
        }

        fn language(&self) -> &str {
            "a test double"
        }

        fn answered(&self) -> u64 {
            0
        }
    }

    /// Measures `program`, its pause moving `real_now` on; also says how long it paused.
    fn measure_silent(real_time: bool, grants: bool) -> (Findings, f64) {
        let real_now = Rc::new(Cell::new(0.0));
        let mut program = Silent::new(real_time, grants, real_now.clone());
        let paused = Cell::new(0.0);
        let pause = |d: Duration| {
            real_now.set(real_now.get() + d.as_secs_f64());
            paused.set(paused.get() + d.as_secs_f64());
        };
        (measure(&mut program, &pause).unwrap(), paused.get())
    }

    /// Leases that report no expiry: a short lease that runs out in real time while the clock
    /// stands still shows another clock; one that follows the clock is not charged; and a
    /// program that grants nothing is not waited for.
    #[test]
    fn a_program_whose_leases_report_no_expiry_is_timed_in_real_time() {
        let (found, paused) = measure_silent(true, true);
        assert!(found.profile.clock_ignored);
        assert_eq!(
            found.clock_sentence,
            "with the clock standing at 0.0, a lease of 0.02 s ran out after 60 ms of real \
             time: time comes from somewhere else than clock.now()"
        );
        assert_eq!(found.clock_evidence.len(), 4);
        assert!((paused - 0.06).abs() < 1e-9);
        let (found, paused) = measure_silent(false, true);
        assert!(!found.profile.clock_ignored);
        assert!((paused - 0.06).abs() < 1e-9);
        let (found, paused) = measure_silent(true, false);
        assert!(!found.profile.clock_ignored);
        assert_eq!(paused, 0.0, "nothing granted, nothing to time");
    }

    /// A renew that reads another clock moves its expiry by the real time between two calls:
    /// nothing on an idle machine, milliseconds on a loaded one. Either way it is not the clock.
    #[test]
    fn a_renew_on_another_clock_is_seen_however_slowly_the_machine_answers() {
        let played = exchange(&mut Student::new(Mistake::Correct), &first_probes()).unwrap();
        let renew = |expires_at: f64| LeaseReply {
            token: FIRST_TOKEN,
            expires_at: Some(expires_at),
            says: Box::default(),
        };
        let (a, b) = (LEASE, CLOCK_STEP + LEASE);
        for real_gap in [0.0, 0.012, 0.3, 0.45] {
            let (r1, r2) = (renew(17_574.7), renew(17_574.7 + real_gap));
            assert!(
                clock_by_expiries(&played, a, b, (Some(&r1), Some(&r2))).is_some(),
                "a gap of {real_gap} s of real time"
            );
        }
        let (r1, r2) = (renew(17_574.5), renew(17_574.75));
        let (_, sentence) = clock_by_expiries(&played, a, b, (Some(&r1), Some(&r2))).unwrap();
        assert_eq!(
            sentence,
            "between two renews the lease's expiry moved 0.25 s (and not to the grant's) while \
             the clock moved 2.0 s: time comes from somewhere else than clock.now()"
        );
        // Every clock-based rule, right or wrong, is not charged to another clock: now + lease
        // (2 s apart), the grant's expiry kept, the old expiry + lease.
        for (r1, r2) in [
            (RENEW_AT + LEASE, RENEW_AGAIN_AT + LEASE),
            (a, a),
            (a + LEASE, a + 2.0 * LEASE),
        ] {
            let found = clock_by_expiries(&played, a, b, (Some(&renew(r1)), Some(&renew(r2))));
            assert!(found.is_none(), "renews to {r1} and {r2}");
        }
        // Standing still is a move of less than a quarter of the clock's 2 s.
        for moved in [0.5, 1.0] {
            let (r1, r2) = (renew(17_574.5), renew(17_574.5 + moved));
            let found = clock_by_expiries(&played, a, b, (Some(&r1), Some(&r2)));
            assert!(found.is_none(), "a move of {moved} s");
        }
    }

    #[test]
    fn a_correct_program_follows_the_clock_and_honours_its_settings() {
        let found = findings(Mistake::Correct);
        assert_eq!(found.profile, Profile::default());
        assert!(found.clock_evidence.is_empty());
        assert_eq!(found.clock_sentence, "");
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
        assert_eq!(
            found.clock_sentence,
            "a new lease's expiry moved 0.0 s while the clock moved 5000.0 s: time comes from \
             somewhere else than clock.now()"
        );
        let calls: Vec<String> = found
            .clock_evidence
            .iter()
            .map(|p| p.request.call())
            .collect();
        assert_eq!(
            calls,
            [
                "new LockService(clock, 5.0, 7)",
                "acquire(probe-a, client-1)",
                "clock = 4.0",
                "renew(probe-a, client-1, 7)",
                "clock = 6.0",
                "renew(probe-a, client-1, 7)",
                "clock = 5000.0",
                "acquire(probe-b, client-2)"
            ]
        );
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
