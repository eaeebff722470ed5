use super::reasons::refuse_in;
use super::*;
use crate::lab::reference::Reference;
use crate::lab::wire::LeaseReply;

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

/// A wrong token is charged by what the counter did since the last grant.
#[test]
fn a_grants_token_is_charged_to_the_counter_rule_it_breaks() {
    let at = |setup: &[Request], have: u64, lease: Option<f64>| {
        rule_of(charge(
            lease,
            setup,
            acquire("client-3"),
            lease_reply(have),
            None,
            PLAIN,
        ))
    };
    fn lease_reply(token: u64) -> Reply {
        Reply::Lease(Some(LeaseReply::new(token, None)))
    }
    // The first grant: the default first token, or the one given.
    assert_eq!(at(&[], 0, None), Some(Rule::Defaults));
    assert_eq!(at(&[], 2, Some(10.0)), Some(Rule::OneCounter));
    let not_honoured = Profile {
        first_token_honoured: false,
        ..PLAIN
    };
    assert_eq!(
        rule_of(charge(
            None,
            &[],
            acquire("c"),
            lease_reply(0),
            None,
            not_honoured
        )),
        Some(Rule::OneCounter),
        "a first token ignored when given is no default's fault"
    );
    // After a grant and a refused acquire, a token too high used one up.
    let refused_one = [acquire("client-1"), acquire("client-2"), clock(30.0)];
    assert_eq!(
        at(&refused_one, 3, Some(10.0)),
        Some(Rule::RefusedAcquireNoToken)
    );
    // After a renew, a token too high: the renew used one.
    let renewed = [acquire("client-1"), renew("client-1", 1), clock(30.0)];
    assert_eq!(at(&renewed, 3, Some(10.0)), Some(Rule::RenewKeepsToken));
    // A token handed out again, or a number skipped with nothing to explain it.
    let granted = [acquire("client-1"), clock(30.0)];
    assert_eq!(at(&granted, 1, Some(10.0)), Some(Rule::OneCounter));
    assert_eq!(at(&granted, 5, Some(10.0)), Some(Rule::OneCounter));
    assert_eq!(at(&refused_one, 1, Some(10.0)), Some(Rule::OneCounter));
    let d = charge(
        Some(10.0),
        &refused_one,
        acquire("client-3"),
        lease_reply(3),
        None,
        PLAIN,
    );
    assert_eq!(
        d.unwrap().expected,
        "the seed gives token 2: one counter for the whole service: the next integer after the \
         last grant (a refused acquire uses no token)"
    );
}

/// An expiry reported otherwise: the renew that set it, the default length, or the length.
#[test]
fn a_reported_expiry_is_charged_to_where_the_lease_end_comes_from() {
    let d = charge(
        Some(10.0),
        &[clock(2.0)],
        acquire("c"),
        lease(1, 13.0),
        None,
        PLAIN,
    )
    .unwrap();
    assert_eq!((d.rule, d.kind), (Rule::LeaseLive, Kind::Value));
    assert_eq!(
        d.expected,
        "the lease should expire at 12.0 (now 2.0 + 10.0 s)"
    );
    let d = charge(
        None,
        &[clock(2.0)],
        acquire("c"),
        lease(1, 32.0),
        None,
        PLAIN,
    )
    .unwrap();
    assert_eq!(d.rule, Rule::Defaults);
    assert_eq!(
        d.expected,
        "the lease should expire at 12.0 (now 2.0 + the default 10.0 s)"
    );
    let renewing = [acquire("client-1"), clock(4.0)];
    let d = charge(
        Some(10.0),
        &renewing,
        renew("client-1", 1),
        lease(1, 20.0),
        None,
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::RenewExtendsFromNow));
    let clockless = Profile {
        clock_ignored: true,
        ..PLAIN
    };
    let d = charge(
        Some(10.0),
        &[clock(2.0)],
        acquire("c"),
        lease(1, 10.0),
        None,
        clockless,
    );
    assert_eq!(rule_of(d), Some(Rule::ClockOnly));
    let unhonoured = Profile {
        lease_honoured: false,
        ..PLAIN
    };
    let d = charge(
        None,
        &[clock(2.0)],
        acquire("c"),
        lease(1, 13.0),
        None,
        unhonoured,
    );
    assert_eq!(rule_of(d), Some(Rule::LeaseLive));
}

/// Whether a lease is live, as the student disagrees: the most specific fact first.
#[test]
fn a_disagreement_on_liveness_is_charged_to_its_most_specific_cause() {
    let granted = [acquire("client-1")];
    let at = |then: f64, got: Reply, reported: Option<f64>, profile: Profile| {
        let setup = [granted[0].clone(), clock(then)];
        rule_of(charge(
            Some(10.0),
            &setup,
            acquire("client-2"),
            got,
            reported,
            profile,
        ))
    };
    // The seed grants at exactly the expiry; the student still holds it.
    assert_eq!(
        at(10.0, Reply::Lease(None), Some(10.0), PLAIN),
        Some(Rule::ExpiryBoundary)
    );
    // After the boundary, with the student's expiry the seed's: acquire ignores expiry.
    assert_eq!(
        at(11.0, Reply::Lease(None), Some(10.0), PLAIN),
        Some(Rule::LeaseLive)
    );
    // The student said its lease ends later: its length, not the boundary.
    assert_eq!(
        at(10.0, Reply::Lease(None), Some(11.0), PLAIN),
        Some(Rule::LeaseLive)
    );
    // A clock not followed explains every disagreement on time.
    let clockless = Profile {
        clock_ignored: true,
        ..PLAIN
    };
    assert_eq!(
        at(10.0, Reply::Lease(None), Some(10.0), clockless),
        Some(Rule::ClockOnly)
    );
    // The seed refuses while live; the student grants: it thinks the lease ended.
    assert_eq!(
        at(5.0, lease(2, 15.0), Some(10.0), PLAIN),
        Some(Rule::LeaseLive)
    );
    // A renewed lease's end is the renew's, when the student said nothing of it.
    let renewed = [
        acquire("client-1"),
        clock(4.0),
        renew("client-1", 1),
        clock(15.0),
    ];
    let d = charge(
        Some(10.0),
        &renewed,
        acquire("client-2"),
        Reply::Lease(None),
        None,
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::RenewExtendsFromNow));
    // ... and the call's own rule when the student's account agreed.
    let d = charge(
        Some(10.0),
        &renewed,
        acquire("client-2"),
        Reply::Lease(None),
        Some(14.0),
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::LeaseLive));
    // Released: the release should have freed it.
    let released = [acquire("client-1"), release("client-1", 1)];
    let d = charge(
        Some(10.0),
        &released,
        acquire("client-2"),
        Reply::Lease(None),
        Some(10.0),
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::ReleaseFrees));
    // Someone else's release, refused by the seed, and the student finds the lock free.
    let late = [acquire("client-1"), release("client-3", 1)];
    let d = charge(
        Some(10.0),
        &late,
        acquire("client-2"),
        lease(2, 10.0),
        Some(10.0),
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::LateRelease));
    // The holder acquiring again is its own rule, unless a refused release explains it.
    let d = charge(
        Some(10.0),
        &granted,
        acquire("client-1"),
        lease(2, 10.0),
        Some(10.0),
        PLAIN,
    );
    let d = d.unwrap();
    assert_eq!(d.rule, Rule::HolderAcquireNone);
    assert_eq!(
        d.expected,
        "the seed returns none: client-1 itself holds the live lease token 1 until 10.0: to keep \
         it, renew"
    );
    let d = charge(
        Some(10.0),
        &late,
        acquire("client-1"),
        lease(2, 10.0),
        Some(10.0),
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::LateRelease));
}

#[test]
fn holder_answers_are_charged_to_holder_unless_a_lease_ends_elsewhere() {
    let granted = [acquire("client-1"), clock(11.0)];
    let named = Reply::Holder(Some("client-1".into()));
    let d = charge(
        Some(10.0),
        &granted,
        holder(),
        named.clone(),
        Some(10.0),
        PLAIN,
    )
    .unwrap();
    assert_eq!((d.rule, d.kind), (Rule::Holder, Kind::Observed));
    assert_eq!(
        d.expected,
        "the seed gives none: client-1's lease token 1 ran out at 10.0"
    );
    let released = [acquire("client-1"), release("client-1", 1)];
    let d = charge(Some(10.0), &released, holder(), named, Some(10.0), PLAIN);
    assert_eq!(rule_of(d), Some(Rule::ReleaseFrees));
    // The wrong client, or something that is no client at all.
    let live = [acquire("client-1")];
    let other = Reply::Holder(Some("client-2".into()));
    assert_eq!(
        rule_of(charge(
            Some(10.0),
            &live,
            holder(),
            other,
            Some(10.0),
            PLAIN
        )),
        Some(Rule::Holder)
    );
    let strange = Reply::Strange("42, not a string or none".into());
    assert_eq!(
        rule_of(charge(
            Some(10.0),
            &live,
            holder(),
            strange,
            Some(10.0),
            PLAIN
        )),
        Some(Rule::Holder)
    );
}

/// A renew that extends from now by the lease length the student's grant showed, a wrong one, is
/// the lease length's fault, not the renew's.
#[test]
fn a_renew_by_the_students_own_wrong_length_is_the_lease_lengths_fault() {
    let request = renew("client-1", 1);
    let d = decision(Some(10.0), &[acquire("client-1"), clock(4.0)], &request);
    let mut seen = Seen::default();
    seen.note(&acquire("client-1"), &lease(1, 11.0), 0.0);
    let cx = Context {
        profile: PLAIN,
        seen: &seen,
        language: "python 3",
    };
    assert_eq!(
        rule_of(judge(&request, &d, &lease(1, 15.0), &cx)),
        Some(Rule::LeaseLive)
    );
    // From the old expiry: the renew's own fault.
    assert_eq!(
        rule_of(judge(&request, &d, &lease(1, 21.0), &cx)),
        Some(Rule::RenewExtendsFromNow)
    );
}

/// A lease's other fields are judged where its object has them: its lock, its client and (a
/// grant) its grant time; a field it does not have is not asked for.
#[test]
fn what_a_lease_says_of_itself_is_judged_where_it_says_it() {
    let says = |name: Value, client: Value, granted_at: Value| {
        Reply::Lease(Some(LeaseReply {
            says: Box::new(crate::lab::wire::LeaseSays {
                name: Some(name),
                client_id: Some(client),
                granted_at: Some(granted_at),
            }),
            ..LeaseReply::new(1, Some(12.0))
        }))
    };
    use serde_json::{json, Value};
    let at_2 = [clock(2.0)];
    let right = says(json!("file"), json!("client-1"), json!(2.0));
    assert_eq!(
        charge(Some(10.0), &at_2, acquire("client-1"), right, None, PLAIN),
        None
    );
    let d = charge(
        Some(10.0),
        &at_2,
        acquire("client-1"),
        says(json!("file"), Value::Null, json!(2.0)),
        None,
        PLAIN,
    )
    .unwrap();
    assert_eq!((d.rule, d.kind), (Rule::LeaseLive, Kind::Value));
    assert_eq!(
        d.expected,
        "the lease names its client null; the seed's is the lease of 'file' granted to client-1 \
         at 2.0"
    );
    let d = charge(
        Some(10.0),
        &at_2,
        acquire("client-1"),
        says(json!("log"), json!("client-1"), json!(2.0)),
        None,
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::LeaseLive));
    let d = charge(
        Some(10.0),
        &at_2,
        acquire("client-1"),
        says(json!("file"), json!("client-1"), Value::Null),
        None,
        PLAIN,
    );
    assert_eq!(
        d.unwrap().expected.split(';').next(),
        Some("the lease says it was granted at null")
    );
    // A renew keeps the caller's lease; its grant time is not judged.
    let renewing = [acquire("client-1"), clock(4.0)];
    let renewed = |client: Value| {
        Reply::Lease(Some(LeaseReply {
            says: Box::new(crate::lab::wire::LeaseSays {
                name: Some(json!("file")),
                client_id: Some(client),
                granted_at: Some(json!(4.0)),
            }),
            ..LeaseReply::new(1, Some(14.0))
        }))
    };
    assert_eq!(
        charge(
            Some(10.0),
            &renewing,
            renew("client-1", 1),
            renewed(json!("client-1")),
            None,
            PLAIN
        ),
        None
    );
    let d = charge(
        Some(10.0),
        &renewing,
        renew("client-1", 1),
        renewed(json!("client-2")),
        None,
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::RenewKeepsToken));
}

#[test]
fn renews_and_releases_the_seed_refuses_are_charged_by_why_it_refused() {
    let late = [acquire("client-1"), clock(30.0)];
    let d = charge(
        Some(10.0),
        &late,
        renew("client-1", 1),
        lease(1, 40.0),
        Some(10.0),
        PLAIN,
    );
    let d = d.unwrap();
    assert_eq!(d.rule, Rule::ExpiredNoRenew);
    assert!(
        d.expected.starts_with("the seed refuses it: "),
        "{}",
        d.expected
    );
    let other = [acquire("client-1")];
    let d = charge(
        Some(10.0),
        &other,
        renew("client-2", 1),
        lease(1, 10.0),
        Some(10.0),
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::LateRenew));
    let newer = [acquire("client-1"), clock(30.0), acquire("client-1")];
    let d = charge(
        Some(10.0),
        &newer,
        renew("client-1", 1),
        lease(1, 40.0),
        Some(40.0),
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::LateRenew));
    // An expired lease released: the one refused release whose reply is judged.
    let got = Reply::Succeeded { none: None };
    let d = charge(
        Some(10.0),
        &late,
        release("client-1", 1),
        got.clone(),
        Some(10.0),
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::ExpiredNoRelease));
    // Someone else's release: only its effect is judged, by the next call.
    assert_eq!(
        charge(
            Some(10.0),
            &other,
            release("client-2", 1),
            got.clone(),
            Some(10.0),
            PLAIN
        ),
        None
    );
    // The holder's own release refused.
    let d = charge(
        Some(10.0),
        &other,
        release("client-1", 1),
        refused(),
        Some(10.0),
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::ReleaseFrees));
    // The holder's renew refused.
    let d = charge(
        Some(10.0),
        &other,
        renew("client-1", 1),
        refused(),
        Some(10.0),
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::RenewExtendsFromNow));
    let d = charge(
        Some(10.0),
        &other,
        renew("client-1", 1),
        lease(2, 10.0),
        Some(10.0),
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::RenewKeepsToken));
}

#[test]
fn writes_are_charged_to_the_storage_rule_they_break() {
    let at = |setup: &[Request], token: u64, got: Reply| {
        charge(Some(10.0), setup, write("file", token), got, None, PLAIN)
    };
    let ok = Reply::Succeeded { none: None };
    let d = at(&[], 1, refused()).unwrap();
    assert_eq!((d.rule, d.kind), (Rule::WriteAccepts, Kind::State));
    assert_eq!(d.expected, "the seed accepts it: 'file' was never written");
    let d = at(&[write("file", 2)], 2, refused()).unwrap();
    assert_eq!(d.rule, Rule::WriteEqualToken);
    assert_eq!(
        d.expected,
        "the seed accepts it: token 2 >= 2, the highest 'file' has accepted"
    );
    assert_eq!(
        rule_of(at(&[write("file", 2)], 3, refused())),
        Some(Rule::WriteAccepts)
    );
    // Refused because another key's highest is higher.
    assert_eq!(
        rule_of(at(&[write("log", 5)], 2, refused())),
        Some(Rule::PerKey)
    );
    assert_eq!(
        rule_of(at(&[write("log", 5), write("file", 1)], 2, refused())),
        Some(Rule::PerKey)
    );
    let d = at(&[write("file", 2)], 1, ok.clone()).unwrap();
    assert_eq!(d.rule, Rule::WriteStaleRejected);
    assert_eq!(
        d.expected,
        "the seed refuses it: token 1 < 2, the highest 'file' has accepted"
    );
    assert_eq!(d.hint, None);
    // After a rejection, a write the student lets through.
    let rejected = [write("file", 5), write("file", 3)];
    assert_eq!(
        rule_of(at(&rejected, 4, ok)),
        Some(Rule::RejectedChangesNothing)
    );
}

/// A none from write or release counts as success; where the seed refused, the student is told
/// so in their language's words.
#[test]
fn a_none_taken_as_success_is_explained_in_the_students_language() {
    let got = Reply::Succeeded {
        none: Some("None".into()),
    };
    let d = charge(
        Some(10.0),
        &[write("file", 2)],
        write("file", 1),
        got.clone(),
        None,
        PLAIN,
    );
    assert_eq!(
        d.unwrap().hint.as_deref(),
        Some(
            "write returned None, which counts as accepted; to refuse, raise an exception or \
             return False"
        )
    );
    // Where the seed accepts too, a none is simply success.
    assert_eq!(
        charge(Some(10.0), &[], write("file", 1), got, None, PLAIN),
        None
    );
    assert_eq!(refuse_in("node 20.20.2"), "throw an error or return false");
    assert_eq!(refuse_in("java 17.0.15"), "throw an exception");
    assert_eq!(refuse_in("rust 1.88"), "return Err(..)");
    assert_eq!(refuse_in("go 1.22"), "return an error");
    assert_eq!(
        refuse_in("python 3.11.7"),
        "raise an exception or return False"
    );
    assert_eq!(refuse_in("javascript"), "throw an error or return false");
}

#[test]
fn observers_are_charged_to_the_rule_their_answer_breaks() {
    let read = |key: &str| Request::Read { key: key.into() };
    let highest = |key: &str| Request::HighestToken { key: key.into() };
    let at = |setup: &[Request], request: Request, got: Reply| {
        rule_of(charge(Some(10.0), setup, request, got, None, PLAIN))
    };
    let five = [write("file", 5)];
    assert_eq!(
        at(&five, highest("log"), Reply::Token(Some(0))),
        Some(Rule::NeverWritten)
    );
    assert_eq!(
        at(&five, read("log"), Reply::Value(Some(String::new()))),
        Some(Rule::NeverWritten)
    );
    assert_eq!(
        at(&five, highest("log"), Reply::Token(Some(5))),
        Some(Rule::PerKey)
    );
    assert_eq!(
        at(&five, read("log"), Reply::Value(Some("v5".into()))),
        Some(Rule::PerKey)
    );
    assert_eq!(
        at(&five, highest("log"), Reply::Token(Some(9))),
        Some(Rule::NeverWritten)
    );
    let both = [write("file", 5), write("log", 1)];
    assert_eq!(
        at(&both, highest("log"), Reply::Token(Some(5))),
        Some(Rule::PerKey)
    );
    assert_eq!(
        at(&both, read("log"), Reply::Value(Some("x".into()))),
        Some(Rule::WriteAccepts)
    );
    let rejected = [write("file", 5), write("file", 3)];
    assert_eq!(
        at(&rejected, read("file"), Reply::Value(Some("v3".into()))),
        Some(Rule::RejectedChangesNothing)
    );
    assert_eq!(
        at(&five, read("file"), Reply::Value(Some("v5".into()))),
        None
    );
    let d = charge(
        Some(10.0),
        &five,
        highest("log"),
        Reply::Token(Some(0)),
        None,
        PLAIN,
    )
    .unwrap();
    assert_eq!(d.kind, Kind::Observed);
    assert_eq!(d.expected, "the seed gives none: 'log' was never written");
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

/// A lock the student finds free after a release the seed refused: the sentence names the
/// release, not acquire's advice.
#[test]
fn a_late_release_is_named_where_its_effect_shows() {
    let late = [acquire("client-1"), release("client-3", 1)];
    let d = charge(
        Some(10.0),
        &late,
        acquire("client-1"),
        lease(2, 10.0),
        Some(10.0),
        PLAIN,
    )
    .unwrap();
    assert_eq!(d.rule, Rule::LateRelease);
    assert_eq!(
        d.expected,
        "the seed returns none: client-1 holds the live lease token 1 until 10.0, and a release \
         with a token the releasing client did not hold then must not have freed it"
    );
}

/// Where `now - granted_at < lease_seconds` and `now < expires_at` give different answers (the
/// last bit of a float, at the very end of a lease), a student's answer either way is not
/// charged: the difference is unclear.
#[test]
fn a_difference_rounding_decides_is_unclear_not_charged() {
    // 0.501 + 0.5 is 1.001 in binary, but 1.001 - 0.501 is just under 0.5.
    let setup = [clock(0.501), acquire("client-1"), clock(1.001)];
    let d = charge(
        Some(0.5),
        &setup,
        acquire("client-2"),
        Reply::Lease(None),
        Some(1.001),
        PLAIN,
    )
    .unwrap();
    assert_eq!(d.kind, Kind::Unclear);
    // On the scripts' grid of 1/8 s both ways agree: the same bug is charged.
    let setup = [clock(0.5), acquire("client-1"), clock(1.0)];
    let d = charge(
        Some(0.5),
        &setup,
        acquire("client-2"),
        Reply::Lease(None),
        Some(1.0),
        PLAIN,
    )
    .unwrap();
    assert_eq!((d.rule, d.kind), (Rule::ExpiryBoundary, Kind::State));
}
