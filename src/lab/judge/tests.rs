use super::reasons::refuse_in;
use super::*;
use crate::lab::reference::Reference;
use crate::lab::wire::LeaseReply;

// The judge's tests by theme; the helpers here are shared.
mod leases;
mod replies;
mod tokens;

/// Plays `setup` on a fresh reference (after `new` with `lease` and first token 1), then decides
/// `request`.
fn decision(lease: Option<f64>, setup: &[Request], request: &Request) -> Decision {
    let mut reference = Reference::default();
    reference.decide(&Request::New {
        lease_seconds: lease,
        first_token: lease.map(|_| 1),
    });
    for r in setup {
        reference.decide(r);
    }
    reference.decide(request)
}

fn acquire(client: &str) -> Request {
    Request::Acquire {
        name: "file".into(),
        client_id: client.into(),
    }
}

fn clock(now: f64) -> Request {
    Request::Clock { now }
}

fn renew(client: &str, token: u64) -> Request {
    Request::Renew {
        name: "file".into(),
        client_id: client.into(),
        token,
    }
}

fn release(client: &str, token: u64) -> Request {
    Request::Release {
        name: "file".into(),
        client_id: client.into(),
        token,
    }
}

fn write(key: &str, token: u64) -> Request {
    Request::Write {
        key: key.into(),
        value: format!("v{token}"),
        token,
    }
}

fn holder() -> Request {
    Request::Holder {
        name: "file".into(),
    }
}

fn lease(token: u64, expires_at: f64) -> Reply {
    Reply::Lease(Some(LeaseReply::new(token, Some(expires_at))))
}

fn refused() -> Reply {
    Reply::Refused("no".into())
}

/// The divergence of `got` to `request` after `setup`, the student having reported `reported`
/// as the file lock's expiry.
fn charge(
    lease: Option<f64>,
    setup: &[Request],
    request: Request,
    got: Reply,
    reported: Option<f64>,
    profile: Profile,
) -> Option<Divergence> {
    let d = decision(lease, setup, &request);
    let mut seen = Seen::default();
    seen.expiry.insert("file".into(), reported);
    let cx = Context {
        profile,
        seen: &seen,
        language: "python 3.11",
    };
    judge(&request, &d, &got, &cx)
}

fn rule_of(d: Option<Divergence>) -> Option<Rule> {
    d.map(|d| d.rule)
}

const PLAIN: Profile = Profile {
    clock_ignored: false,
    lease_honoured: true,
    first_token_honoured: true,
    equal_refused_alone: false,
    highest_not_kept: false,
    refused_acquire_uses_token: false,
    renew_uses_token: false,
    release_uses_token: false,
    leases_never_end: false,
};

#[test]
fn the_seeds_own_answer_is_no_divergence() {
    let d = charge(
        Some(10.0),
        &[],
        acquire("client-1"),
        lease(1, 10.0),
        None,
        PLAIN,
    );
    assert_eq!(d, None);
    // A lease without an expiry of its own is not judged on its expiry.
    let no_expiry = Reply::Lease(Some(LeaseReply::new(1, None)));
    assert_eq!(
        charge(Some(10.0), &[], acquire("c"), no_expiry, None, PLAIN),
        None
    );
    // An expiry within a nanosecond is the same.
    assert_eq!(
        charge(
            Some(10.0),
            &[],
            acquire("c"),
            lease(1, 10.000_000_000_5),
            None,
            PLAIN
        ),
        None
    );
    // A refusal is a refusal, whatever its words or form.
    let taken = [acquire("client-1")];
    for got in [Reply::Lease(None), refused()] {
        assert_eq!(
            charge(
                Some(10.0),
                &taken,
                acquire("client-2"),
                got,
                Some(10.0),
                PLAIN
            ),
            None
        );
    }
}

#[test]
fn new_and_the_clock_must_simply_be_done() {
    let d = charge(Some(10.0), &[], clock(1.0), refused(), None, PLAIN).unwrap();
    assert_eq!(
        (d.rule, d.expected.as_str()),
        (Rule::ClockOnly, "it should simply be done")
    );
    let new = Request::New {
        lease_seconds: None,
        first_token: None,
    };
    assert_eq!(
        rule_of(charge(None, &[], new.clone(), refused(), None, PLAIN)),
        Some(Rule::Defaults)
    );
    assert_eq!(charge(None, &[], new, Reply::Done, None, PLAIN), None);
}

/// The handshake, and a `new` whose settings the seed itself refuses, leave the program free:
/// the seed says nothing of what it should answer, so no answer is charged.
#[test]
fn hello_and_a_new_the_seed_refuses_are_never_charged() {
    let bad = Request::New {
        lease_seconds: Some(-1.0),
        first_token: Some(1),
    };
    for request in [Request::Hello, bad] {
        for got in [Reply::Done, refused(), Reply::Strange("?".into())] {
            let d = decision(Some(10.0), &[], &request);
            let cx = Context {
                profile: PLAIN,
                seen: &Seen::default(),
                language: "python 3.11",
            };
            assert_eq!(judge(&request, &d, &got, &cx), None, "{request:?} {got:?}");
        }
    }
}

/// A method not written yet is charged to the rule a refusal there would break, and says so.
#[test]
fn a_method_not_written_yet_says_to_write_it() {
    let got = Reply::NotImplemented("FencedStorage.write".into());
    let d = charge(Some(10.0), &[], write("file", 1), got, None, PLAIN).unwrap();
    assert_eq!(d.rule, Rule::WriteAccepts);
    assert_eq!(d.not_implemented.as_deref(), Some("FencedStorage.write"));
    assert_eq!(d.expected, "the seed's rules need it: write it next");
    // Where the seed refuses, the rule its refusal rests on.
    let got = Reply::NotImplemented("LockService.acquire".into());
    let d = charge(
        Some(10.0),
        &[acquire("client-1")],
        acquire("client-1"),
        got,
        None,
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::HolderAcquireNone));
}

#[test]
fn seen_keeps_the_expiry_the_student_reported_for_each_lock() {
    let mut seen = Seen::default();
    seen.note(&acquire("client-1"), &lease(3, 12.5), 2.5);
    seen.note(&holder(), &Reply::Holder(None), 3.0);
    assert_eq!(seen.expiry.get("file"), Some(&Some(12.5)));
    assert_eq!(seen.length.get("file"), Some(&10.0));
    let no_expiry = Reply::Lease(Some(LeaseReply::new(3, None)));
    seen.note(&renew("client-1", 3), &no_expiry, 4.0);
    assert_eq!(seen.expiry.get("file"), Some(&None));
    seen.note(&acquire("client-2"), &Reply::Lease(None), 4.0);
    assert_eq!(seen.expiry.get("file"), Some(&None));
    // The length is the grant's: a renew does not change it.
    assert_eq!(seen.length.get("file"), Some(&10.0));
    seen.clear();
    assert!(seen.expiry.is_empty() && seen.length.is_empty());
}

/// A call that got no answer is never the seed's answer: charged to the rule the opposite of
/// the seed's answer breaks, with the seed's reason (a stale write that hangs did not refuse).
#[test]
fn a_call_with_no_answer_is_charged_as_the_opposite_of_the_seeds_answer() {
    let stopped = || Reply::Stopped("did not answer within 2.0 s".into());
    let d = charge(
        Some(10.0),
        &[write("file", 5)],
        write("file", 3),
        stopped(),
        None,
        PLAIN,
    )
    .expect("a difference");
    assert_eq!((d.rule, d.kind), (Rule::WriteStaleRejected, Kind::State));
    assert!(
        d.expected.starts_with("the seed refuses it: token 3 < 5"),
        "{}",
        d.expected
    );
    let d =
        charge(Some(10.0), &[], acquire("client-1"), stopped(), None, PLAIN).expect("a difference");
    assert_eq!(d.rule, Rule::LeaseLive);
    assert!(
        d.expected.starts_with("the seed grants lease token 1"),
        "{}",
        d.expected
    );
    let held = [acquire("client-1")];
    let d = charge(
        Some(10.0),
        &held,
        acquire("client-2"),
        stopped(),
        None,
        PLAIN,
    )
    .expect("a difference");
    assert_eq!(d.rule, Rule::LeaseLive);
    let d = charge(Some(10.0), &held, holder(), stopped(), None, PLAIN).expect("a difference");
    assert_eq!(d.rule, Rule::Holder);
}
