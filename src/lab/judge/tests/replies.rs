//! What a reply says against the seed's: a lease's own fields, refused renews and releases,
//! writes, a none taken as success, and the observers' answers.

use super::*;

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
                expiry_not_seconds: None,
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
    let d = charge(
        Some(10.0),
        &at_2,
        acquire("client-1"),
        says(json!("file"), json!("client-1"), json!(3.0)),
        None,
        PLAIN,
    );
    assert_eq!(
        d.unwrap().expected.split(';').next(),
        Some("the lease says it was granted at 3.0")
    );
    // A renew keeps the caller's lease; its grant time is not judged.
    let renewing = [acquire("client-1"), clock(4.0)];
    let renewed = |client: Value| {
        Reply::Lease(Some(LeaseReply {
            says: Box::new(crate::lab::wire::LeaseSays {
                name: Some(json!("file")),
                client_id: Some(client),
                granted_at: Some(json!(4.0)),
                expiry_not_seconds: None,
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
    // A renew after the holder's own release, let through: the release freed nothing.
    let released = [acquire("client-1"), release("client-1", 1)];
    let d = charge(
        Some(10.0),
        &released,
        renew("client-1", 1),
        lease(1, 10.0),
        Some(10.0),
        PLAIN,
    );
    assert_eq!(rule_of(d), Some(Rule::ReleaseFrees));
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
    // An equal token refused while another key holds a higher one: per key, unless the
    // experiment saw this storage refuse equal tokens on their own.
    let equal = [write("log", 5), write("file", 2)];
    assert_eq!(rule_of(at(&equal, 2, refused())), Some(Rule::PerKey));
    let strict = Profile {
        equal_refused_alone: true,
        ..PLAIN
    };
    let d = charge(
        Some(10.0),
        &equal,
        write("file", 2),
        refused(),
        None,
        strict,
    );
    assert_eq!(rule_of(d), Some(Rule::WriteEqualToken));
    // A new key refused at a token no lower than any other key's: nothing says per key.
    assert_eq!(
        rule_of(at(&[write("log", 2)], 2, refused())),
        Some(Rule::WriteAccepts)
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
    // A zero is the never-written answer, even where another key's highest is 0 too.
    assert_eq!(
        at(&[write("file", 0)], highest("log"), Reply::Token(Some(0))),
        Some(Rule::NeverWritten)
    );
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
