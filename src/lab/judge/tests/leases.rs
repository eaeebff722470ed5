//! Whether a lease is live and when it ends, as the student disagrees: the most specific fact
//! first (the clock, the boundary, a renew, the default length, a release), and where rounding
//! alone decides, nothing charged.

use super::*;

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
    // A program whose leases never end is charged the call's own rule, at the boundary too.
    let endless = Profile {
        leases_never_end: true,
        ..PLAIN
    };
    assert_eq!(
        at(10.0, Reply::Lease(None), Some(10.0), endless),
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
    // Live only because of the renew, which the student reported right, yet granted to
    // another: it did not keep the renew.
    let by_renew = [
        acquire("client-1"),
        clock(4.0),
        renew("client-1", 1),
        clock(12.0),
    ];
    let d = charge(
        Some(10.0),
        &by_renew,
        acquire("client-2"),
        lease(2, 22.0),
        Some(14.0),
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::RenewExtendsFromNow));
}

/// Whether a lease is live after a release, as the student disagrees: the release first.
#[test]
fn a_disagreement_on_liveness_after_a_release_is_charged_to_the_release() {
    let granted = [acquire("client-1")];
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
    let d = d.unwrap();
    assert_eq!(d.rule, Rule::ReleaseFrees);
    assert!(
        d.expected.ends_with(": client-1 released token 1"),
        "{}",
        d.expected
    );
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
    // Later, the lock that lease still holds in the student's account: the length's fault too.
    let mut seen = Seen::default();
    seen.note(&acquire("client-1"), &lease(1, 11.0), 0.0);
    seen.note(&request, &lease(1, 15.0), 4.0);
    let cx = Context { seen: &seen, ..cx };
    let setup = [acquire("client-1"), clock(4.0), request, clock(14.5)];
    let d = decision(Some(10.0), &setup, &acquire("client-2"));
    assert_eq!(
        rule_of(judge(&acquire("client-2"), &d, &Reply::Lease(None), &cx)),
        Some(Rule::LeaseLive)
    );
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
/// charged: the difference is unclear. A difference in anything else at that instant is.
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
    // At that instant both grant, but with another token: that is no question of rounding.
    let d = charge(
        Some(0.5),
        &setup,
        acquire("client-2"),
        lease(5, 1.501),
        Some(1.001),
        PLAIN,
    )
    .unwrap();
    assert_eq!((d.rule, d.kind), (Rule::OneCounter, Kind::State));
    // Asked who holds it then, the seed says no one; a holder named is as unclear.
    assert_eq!(
        decision(Some(0.5), &setup, &holder()).reply,
        Reply::Holder(None)
    );
    let named = Reply::Holder(Some("client-1".into()));
    let d = charge(Some(0.5), &setup, holder(), named, Some(1.001), PLAIN).unwrap();
    assert_eq!((d.rule, d.kind), (Rule::ExpiryBoundary, Kind::Unclear));
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
