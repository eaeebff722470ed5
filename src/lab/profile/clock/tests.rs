use std::cell::Cell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

use super::*;
use crate::lab::profile::{first_probes, measure, Findings};
use crate::lab::testing::{Mistake, Student};

/// The operations whose liveness a [`TwoClocks`] program may ask of another clock.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Acquire,
    Holder,
    Renew,
    Release,
}

const EVERY_OP: &[Op] = &[Op::Acquire, Op::Holder, Op::Renew, Op::Release];

/// Another clock, as students reach for it: where it reads at the start, and how many of its
/// units pass in a real second.
#[derive(Clone, Copy, Debug)]
struct Other {
    at: f64,
    per_second: f64,
}

/// `time.time()`, `Date.now()`, `time.monotonic()` on a machine up for an hour and a half,
/// `performance.now()` early in a program's life, and `System.nanoTime()`.
const OTHER_CLOCKS: [Other; 5] = [
    Other {
        at: 1_796_622_451.479,
        per_second: 1.0,
    },
    Other {
        at: 1_796_622_451_479.0,
        per_second: 1000.0,
    },
    Other {
        at: 5_321.25,
        per_second: 1.0,
    },
    Other {
        at: 152.0,
        per_second: 1000.0,
    },
    Other {
        at: 91_232_187_554_113.0,
        per_second: 1e9,
    },
];

/// A program with a clock of its own beside the one it is given: its grants' expiries come from
/// one of them (`expiry_other`), and the operations in `live_other` ask whether a lease is live
/// against the other clock's reading. Real time passes for it as the experiment's pause says,
/// and by 20 µs for each call it answers.
struct TwoClocks {
    expiry_other: bool,
    live_other: &'static [Op],
    reports_expiry: bool,
    /// The expiry it reports is the clock's, whatever it keeps for itself.
    reports_clock_expiry: bool,
    grants: bool,
    other: Other,
    real: Rc<Cell<f64>>,
    clock: f64,
    lease: f64,
    next: u64,
    leases: BTreeMap<String, (String, u64, f64)>,
    pending: VecDeque<Reply>,
}

impl TwoClocks {
    fn new(other: Other, real: Rc<Cell<f64>>) -> TwoClocks {
        TwoClocks {
            expiry_other: false,
            live_other: &[],
            reports_expiry: true,
            reports_clock_expiry: false,
            grants: true,
            other,
            real,
            clock: 0.0,
            lease: 10.0,
            next: 1,
            leases: BTreeMap::new(),
            pending: VecDeque::new(),
        }
    }

    fn other_now(&self) -> f64 {
        self.other.at + self.real.get() * self.other.per_second
    }

    /// The live lease of `name`, as `op` asks.
    fn live(&self, name: &str, op: Op) -> Option<&(String, u64, f64)> {
        let now = if self.live_other.contains(&op) {
            self.other_now()
        } else {
            self.clock
        };
        self.leases.get(name).filter(|l| now < l.2)
    }

    fn reply(&self, token: u64, expires: f64) -> Reply {
        let reported = if self.reports_clock_expiry {
            self.clock + self.lease
        } else {
            expires
        };
        let expires_at = self.reports_expiry.then_some(reported);
        Reply::Lease(Some(LeaseReply::new(token, expires_at)))
    }

    fn answer(&mut self, request: &Request) -> Reply {
        self.real.set(self.real.get() + 20e-6);
        let owned = |l: Option<&(String, u64, f64)>, client: &str, token: u64| {
            l.is_some_and(|l| l.0 == client && l.1 == token)
        };
        let length = |me: &TwoClocks| {
            if me.expiry_other {
                me.lease * me.other.per_second
            } else {
                me.lease
            }
        };
        let start = |me: &TwoClocks| {
            if me.expiry_other {
                me.other_now()
            } else {
                me.clock
            }
        };
        match request {
            Request::New { lease_seconds, .. } => {
                (self.clock, self.next) = (0.0, 1);
                self.lease = lease_seconds.unwrap_or(10.0);
                self.leases.clear();
                Reply::Done
            }
            Request::Clock { now } => {
                self.clock = *now;
                Reply::Done
            }
            Request::Acquire { name, client_id } => {
                if !self.grants || self.live(name, Op::Acquire).is_some() {
                    return Reply::Lease(None);
                }
                let expires = start(self) + length(self);
                self.leases
                    .insert(name.clone(), (client_id.clone(), self.next, expires));
                self.next += 1;
                self.reply(self.next - 1, expires)
            }
            Request::Renew {
                name,
                client_id,
                token,
            } => {
                if !owned(self.live(name, Op::Renew), client_id, *token) {
                    return Reply::Refused("not yours".into());
                }
                let expires = start(self) + length(self);
                self.leases.get_mut(name).expect("live").2 = expires;
                self.reply(*token, expires)
            }
            Request::Release {
                name,
                client_id,
                token,
            } => {
                if !owned(self.live(name, Op::Release), client_id, *token) {
                    return Reply::Refused("not yours".into());
                }
                self.leases.remove(name);
                Reply::Succeeded { none: None }
            }
            Request::Holder { name } => {
                Reply::Holder(self.live(name, Op::Holder).map(|l| l.0.clone()))
            }
            Request::HighestToken { .. } => Reply::Token(None),
            _ => Reply::Succeeded { none: None },
        }
    }
}

impl Subject for TwoClocks {
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

/// Measures a [`TwoClocks`] program made by `make`: what was found, and how long the
/// experiments let real time pass.
fn measure_two_clocks(other: Other, make: impl Fn(&mut TwoClocks)) -> (Findings, f64) {
    let real = Rc::new(Cell::new(0.0));
    let mut program = TwoClocks::new(other, real.clone());
    make(&mut program);
    let paused = Cell::new(0.0);
    let pause = |d: Duration| {
        real.set(real.get() + d.as_secs_f64());
        paused.set(paused.get() + d.as_secs_f64());
    };
    (measure(&mut program, &pause).unwrap(), paused.get())
}

/// A program on the clock alone is never charged, whichever other clock it could have read, and
/// waits one pause of real time; one that grants nothing is not waited for.
#[test]
fn a_program_on_the_clock_alone_is_never_charged_and_waits_once() {
    for other in OTHER_CLOCKS {
        for reports_expiry in [true, false] {
            let (found, paused) = measure_two_clocks(other, |p| p.reports_expiry = reports_expiry);
            assert_eq!(found.clock, None, "{other:?}");
            assert!((paused - 0.06).abs() < 1e-9, "{other:?} paused {paused}");
        }
    }
    let (found, paused) = measure_two_clocks(OTHER_CLOCKS[0], |p| p.grants = false);
    assert_eq!((found.clock, paused), (None, 0.0));
}

/// Leases timed on another clock throughout, whether or not they report their expiry (reported,
/// it follows the clock as the protocol asks): a short lease runs out in real time while the
/// clock stands still.
#[test]
fn a_lease_timed_on_another_clock_runs_out_in_real_time() {
    for reports_expiry in [false, true] {
        let (found, paused) = measure_two_clocks(OTHER_CLOCKS[2], |p| {
            p.reports_expiry = reports_expiry;
            p.reports_clock_expiry = true;
            p.expiry_other = true;
            p.live_other = EVERY_OP;
        });
        let evidence = found.clock.expect("another clock found");
        assert_eq!(
            evidence.sentence,
            "with the clock standing at 0.0, a lease of 0.02 s ran out after 60 ms of real \
             time: time comes from somewhere else than clock.now()"
        );
        assert_eq!(evidence.calls.len(), 4);
        assert_eq!((evidence.lease_seconds, evidence.first_token), (0.02, 1));
        assert!(found.profile.clock_ignored);
        assert!((paused - 0.06).abs() < 1e-9);
    }
}

/// Expiries on the clock, liveness asked against another clock (`time.time() < expires_at`):
/// every clock students reach for, and each operation alone, is found out, by the same calls
/// answered two ways a real pause apart.
#[test]
fn liveness_asked_of_another_clock_is_found_out_whichever_operation_asks() {
    for other in OTHER_CLOCKS {
        for ops in [
            EVERY_OP,
            &[Op::Acquire],
            &[Op::Holder],
            &[Op::Renew],
            &[Op::Release],
        ] {
            let (found, paused) = measure_two_clocks(other, |p| p.live_other = ops);
            let evidence = found
                .clock
                .unwrap_or_else(|| panic!("{other:?}, {ops:?}: not found"));
            assert!(found.profile.clock_ignored);
            let (first, later) = evidence.calls.split_at(evidence.calls.len() / 2);
            let requests = |calls: &[Played]| -> Vec<Request> {
                calls.iter().map(|p| p.request.clone()).collect()
            };
            assert_eq!(requests(first), requests(later), "{other:?}, {ops:?}");
            assert_ne!(first.last().unwrap().got, later.last().unwrap().got);
            assert!(paused >= 0.06 - 1e-9, "{other:?}, {ops:?} paused {paused}");
            assert!(
                evidence.sentence.ends_with(ELSEWHERE),
                "{}",
                evidence.sentence
            );
        }
    }
}

#[test]
fn the_liveness_evidence_says_what_the_calls_showed() {
    let (found, _) = measure_two_clocks(OTHER_CLOCKS[0], |p| p.live_other = EVERY_OP);
    let evidence = found.clock.unwrap();
    let at = match evidence.calls[1].request {
        Request::Clock { now } => now,
        ref other => panic!("{other:?}"),
    };
    // Live from where the clock passes the other clock's reading, less the lease.
    let threshold = OTHER_CLOCKS[0].at - LEASE;
    assert!(at > threshold && at < threshold + 0.01, "at {at}");
    assert_eq!(
        evidence.sentence,
        format!(
            "the same calls with the clock at {at} both times found a lease just granted live, \
             then 60 ms of real time later over (another client's acquire, with the clock at \
             0.0, found such a lease over at once): time comes from somewhere else than \
             clock.now()",
            at = fmt_time(at)
        )
    );
    let lines: Vec<String> = evidence.calls.iter().map(|p| p.request.call()).collect();
    let once = [
        "new LockService(clock, 5.0, 1)".to_owned(),
        format!("clock = {}", fmt_time(at)),
        "acquire(file, client-1)".into(),
        "acquire(file, client-2)".into(),
    ];
    assert_eq!(lines, [once.clone(), once].concat());
    assert_eq!(evidence.calls[3].got, Reply::Lease(None));
    assert!(matches!(evidence.calls[7].got, Reply::Lease(Some(_))));
}

/// A program whose leases are never live, on the clock alone (it forgets to keep them), is not
/// charged with another clock, and no real time is waited for it past the first experiment's.
#[test]
fn a_lease_never_live_on_the_clock_alone_is_not_another_clocks() {
    let (found, paused) = measure_two_clocks(OTHER_CLOCKS[0], |p| {
        p.expiry_other = true;
        p.reports_expiry = false;
        p.other.per_second = 0.0;
        p.other.at = -1.0;
    });
    assert_eq!(found.clock, None);
    assert_eq!(paused, 0.0);
}

/// A renew that reads another clock moves its expiry by the real time between two calls:
/// nothing on an idle machine, milliseconds on a loaded one. Either way it is not the clock.
#[test]
fn a_renew_on_another_clock_is_seen_however_slowly_the_machine_answers() {
    let played = exchange(&mut Student::new(Mistake::Correct), &first_probes()).unwrap();
    let renew = |expires_at: f64| LeaseReply {
        token: super::super::FIRST_TOKEN,
        expires_at: Some(expires_at),
        says: Box::default(),
    };
    let (a, b) = (LEASE, CLOCK_STEP + LEASE);
    for real_gap in [0.0, 0.012, 0.3, 0.45] {
        let (r1, r2) = (renew(17_574.7), renew(17_574.7 + real_gap));
        assert!(
            by_expiries(&played, a, b, (Some(&r1), Some(&r2))).is_some(),
            "a gap of {real_gap} s of real time"
        );
    }
    let (r1, r2) = (renew(17_574.5), renew(17_574.75));
    let evidence = by_expiries(&played, a, b, (Some(&r1), Some(&r2))).unwrap();
    assert_eq!(
        evidence.sentence,
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
        let found = by_expiries(&played, a, b, (Some(&renew(r1)), Some(&renew(r2))));
        assert!(found.is_none(), "renews to {r1} and {r2}");
    }
    // Standing still is a move of less than a quarter of the clock's 2 s.
    for moved in [0.5, 1.0] {
        let (r1, r2) = (renew(17_574.5), renew(17_574.5 + moved));
        let found = by_expiries(&played, a, b, (Some(&r1), Some(&r2)));
        assert!(found.is_none(), "a move of {moved} s");
    }
}
