use super::*;

fn new(lease_seconds: Option<f64>, first_token: Option<u64>) -> Request {
    Request::New {
        lease_seconds,
        first_token,
    }
}

fn acquire(client: &str) -> Request {
    Request::Acquire {
        name: "file".into(),
        client_id: client.into(),
    }
}

fn lease(token: u64, expires_at: f64) -> Reply {
    Reply::Lease(Some(LeaseReply::new(token, Some(expires_at))))
}

#[test]
fn the_reference_answers_as_the_library_decides() {
    let mut reference = Reference::default();
    assert_eq!(reference.answer(&new(Some(2.5), Some(7))), Reply::Done);
    assert_eq!(reference.answer(&acquire("client-1")), lease(7, 2.5));
    assert_eq!(reference.answer(&acquire("client-1")), Reply::Lease(None));
    assert_eq!(reference.answer(&Request::Clock { now: 1.0 }), Reply::Done);
    let renew = Request::Renew {
        name: "file".into(),
        client_id: "client-1".into(),
        token: 7,
    };
    assert_eq!(reference.answer(&renew), lease(7, 3.5));
    assert_eq!(
        reference.answer(&Request::Holder {
            name: "file".into()
        }),
        Reply::Holder(Some("client-1".into()))
    );
    let release = |client: &str| Request::Release {
        name: "file".into(),
        client_id: client.into(),
        token: 7,
    };
    assert!(matches!(
        reference.answer(&release("client-2")),
        Reply::Refused(_)
    ));
    assert_eq!(
        reference.answer(&release("client-1")),
        Reply::Succeeded { none: None }
    );
    let write = |value: &str, token| Request::Write {
        key: "k".into(),
        value: value.into(),
        token,
    };
    assert_eq!(
        reference.answer(&write("a", 5)),
        Reply::Succeeded { none: None }
    );
    assert_eq!(
        reference.answer(&write("b", 4)),
        Reply::Refused("token 4 is older than token 5, the highest key 'k' has accepted".into())
    );
    assert_eq!(
        reference.answer(&Request::Read { key: "k".into() }),
        Reply::Value(Some("a".into()))
    );
    assert_eq!(
        reference.answer(&Request::HighestToken { key: "k".into() }),
        Reply::Token(Some(5))
    );
    // `new` starts over: defaults, a fresh clock and an empty storage.
    assert_eq!(reference.answer(&new(None, None)), Reply::Done);
    assert_eq!(reference.answer(&acquire("client-1")), lease(1, 10.0));
    assert_eq!(
        reference.answer(&Request::Read { key: "k".into() }),
        Reply::Value(None)
    );
    assert!(matches!(
        reference.answer(&new(Some(0.0), None)),
        Reply::Refused(m) if m.contains("lease")
    ));
    assert_eq!(reference.answer(&Request::Hello), Reply::Done);
}

/// Each decision comes with the facts as they stood just before it.
#[test]
fn a_decision_carries_what_it_rested_on() {
    let mut reference = Reference::default();
    let d = reference.decide(&new(None, Some(3)));
    assert_eq!(d.seed, Seed::Setup);
    let d = reference.decide(&acquire("client-1"));
    assert_eq!(
        d.settings,
        Settings {
            lease_seconds: 10.0,
            lease_defaulted: true,
            first_token: 3,
            first_defaulted: false,
        }
    );
    let facts = d.lock.clone().unwrap();
    assert_eq!((facts.state, facts.latest), (LockState::Never, None));
    assert_eq!(d.tokens.next, Some(3));
    assert_eq!(d.tokens.grants, 0);
    // Refused acquires are counted until the next grant; renews too.
    reference.decide(&acquire("client-2"));
    reference.decide(&acquire("client-3"));
    let d = reference.decide(&Request::Holder {
        name: "file".into(),
    });
    assert_eq!((d.tokens.refused_acquires, d.tokens.grants), (2, 1));
    reference.decide(&Request::Renew {
        name: "file".into(),
        client_id: "client-1".into(),
        token: 3,
    });
    reference.decide(&Request::Clock { now: 10.0 });
    let d = reference.decide(&acquire("client-2"));
    assert_eq!((d.tokens.refused_acquires, d.tokens.renews), (2, 1));
    let facts = d.lock.unwrap();
    // Renewed at 0, so it ends at 10: exactly now.
    assert_eq!(facts.state, LockState::Expired { at_boundary: true });
    let latest = facts.latest.unwrap();
    assert_eq!(
        (latest.client.as_str(), latest.token, latest.renewed),
        ("client-1", 3, true)
    );
    let d = reference.decide(&acquire("client-3"));
    assert_eq!(
        (d.tokens.refused_acquires, d.tokens.renews, d.tokens.grants),
        (0, 0, 2)
    );
    assert_eq!(d.lock.unwrap().state, LockState::Live);
    // A refused release of a live lease is remembered until the next grant.
    reference.decide(&Request::Release {
        name: "file".into(),
        client_id: "client-1".into(),
        token: 4,
    });
    let d = reference.decide(&acquire("client-1"));
    assert!(d.lock.unwrap().refused_release);
    reference.decide(&Request::Release {
        name: "file".into(),
        client_id: "client-2".into(),
        token: 4,
    });
    let d = reference.decide(&acquire("client-1"));
    let facts = d.lock.unwrap();
    assert_eq!(facts.state, LockState::Released);
}

#[test]
fn a_keys_facts_say_what_it_holds_and_what_the_other_keys_hold() {
    let mut reference = Reference::default();
    let write = |key: &str, token| Request::Write {
        key: key.into(),
        value: format!("{key}{token}"),
        token,
    };
    let d = reference.decide(&write("file", 5));
    let facts = d.key.unwrap();
    assert_eq!(
        (facts.highest, facts.value, facts.others.len()),
        (None, None, 0)
    );
    reference.decide(&write("file", 3));
    let d = reference.decide(&write("log", 1));
    let facts = d.key.unwrap();
    assert_eq!(facts.others, [("file".to_owned(), "file5".to_owned(), 5)]);
    assert_eq!(facts.others_highest(), Some(5));
    let d = reference.decide(&Request::Read { key: "file".into() });
    let facts = d.key.unwrap();
    assert!(facts.rejected_since_accept);
    assert_eq!(
        (facts.highest, facts.value.as_deref()),
        (Some(5), Some("file5"))
    );
    reference.decide(&write("file", 6));
    let d = reference.decide(&Request::Read { key: "file".into() });
    assert!(!d.key.unwrap().rejected_since_accept);
    assert!(matches!(d.seed, Seed::Value(Some(ref v)) if v == "file6"));
}

/// A clock that steps back moves nothing: the reference's time is the highest reading a lock
/// call has seen, as the service's is. A reading no call saw is not seen.
#[test]
fn the_reference_keeps_the_highest_clock_reading_a_call_saw() {
    let mut reference = Reference::default();
    reference.decide(&acquire("client-1"));
    reference.decide(&Request::Clock { now: 12.0 });
    reference.decide(&Request::Holder {
        name: "file".into(),
    });
    reference.decide(&Request::Clock { now: 5.0 });
    let d = reference.decide(&acquire("client-2"));
    assert_eq!(d.now, 12.0);
    assert!(matches!(d.seed, Seed::Granted(ref l) if l.expires_at == 22.0));
    // Unseen: set to 30 and back to 25 with no call between.
    reference.decide(&Request::Clock { now: 30.0 });
    reference.decide(&Request::Clock { now: 25.0 });
    let d = reference.decide(&acquire("client-3"));
    assert_eq!(d.now, 25.0);
    assert!(matches!(d.seed, Seed::Granted(ref l) if l.expires_at == 35.0));
    // A storage call reads no clock; it is shown at the clock's reading.
    reference.decide(&Request::Clock { now: f64::NAN });
    assert_eq!(
        reference.decide(&Request::Read { key: "k".into() }).now,
        25.0
    );
}
