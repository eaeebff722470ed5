//! A grant's token against the seed's: charged to the counter rule it breaks.

use super::*;

/// A wrong token is charged by what the counter did since the last grant.
#[test]
fn a_grants_token_is_charged_to_the_counter_rule_it_breaks() {
    // client-3's grant with token `have`, judged under `profile`.
    let charged = |profile: Profile, setup: &[Request], have: u64, lease: Option<f64>| {
        charge(
            lease,
            setup,
            acquire("client-3"),
            lease_reply(have),
            None,
            profile,
        )
    };
    let judged = |profile: Profile, setup: &[Request], have: u64, lease: Option<f64>| {
        rule_of(charged(profile, setup, have, lease))
    };
    let at = |setup: &[Request], have: u64, lease: Option<f64>| judged(PLAIN, setup, have, lease);
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
    // Tokens used up counted against each kind of call: two used, two renews and one refused
    // acquire since the last grant, so the renews (a difference, not a ratio, of the tokens).
    let both = [
        acquire("client-1"),
        clock(30.0),
        acquire("client-1"),
        acquire("client-2"),
        renew("client-1", 2),
        renew("client-1", 2),
        clock(60.0),
    ];
    assert_eq!(at(&both, 5, Some(10.0)), Some(Rule::RenewKeepsToken));
    // One used, where the experiment saw renews use tokens: the renews, whose count is not one.
    let one_each = [
        acquire("client-1"),
        acquire("client-2"),
        renew("client-1", 1),
        renew("client-1", 1),
        clock(30.0),
    ];
    assert_eq!(
        at(&one_each, 3, Some(10.0)),
        Some(Rule::RefusedAcquireNoToken)
    );
    let renews_use_tokens = Profile {
        renew_uses_token: true,
        ..PLAIN
    };
    assert_eq!(
        judged(renews_use_tokens, &one_each, 3, Some(10.0)),
        Some(Rule::RenewKeepsToken)
    );
    // ... but with no renew since the last grant, the refused acquire, as if nothing were seen.
    assert_eq!(
        judged(renews_use_tokens, &refused_one, 3, Some(10.0)),
        Some(Rule::RefusedAcquireNoToken)
    );
    // Nine used, two refused acquires and three renews: nine is a multiple of the renews' count
    // only.
    let mut nine = vec![
        acquire("client-1"),
        acquire("client-2"),
        acquire("client-3"),
    ];
    nine.extend([
        renew("client-1", 1),
        renew("client-1", 1),
        renew("client-1", 1),
    ]);
    nine.push(clock(30.0));
    assert_eq!(at(&nine, 11, Some(10.0)), Some(Rule::RenewKeepsToken));
    // Three used and two refused acquires: no count fits, so the first kind of call made.
    let two_refused = [
        acquire("client-1"),
        acquire("client-2"),
        acquire("client-3"),
        clock(30.0),
    ];
    assert_eq!(
        at(&two_refused, 5, Some(10.0)),
        Some(Rule::RefusedAcquireNoToken)
    );
    // The reason names what could have used a token: a refused acquire first, else a renew.
    let expected = |setup: &[Request]| charged(PLAIN, setup, 9, Some(10.0)).unwrap().expected;
    let counter = "the seed gives token 2: one counter for the whole service: the next integer \
                   after the last grant";
    assert_eq!(expected(&[acquire("client-1"), clock(30.0)]), counter);
    assert_eq!(
        expected(&renewed),
        format!("{counter} (a renew keeps its token and uses none)")
    );
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
