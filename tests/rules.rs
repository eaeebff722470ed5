//! Every rule of the library (docs/library.md), one test each (or more), each able to fail.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use fencing_lab::{
    Clock, ConfigError, FencedStorage, LeaseError, LockService, ManualClock, SystemClock,
    DEFAULT_FIRST_TOKEN, DEFAULT_LEASE_SECONDS,
};

fn service(clock: &ManualClock) -> LockService<ManualClock> {
    LockService::with_defaults(clock.clone())
}

// ---------------------------------------------------------------- clocks

#[test]
fn manual_clock_clones_share_one_time() {
    let clock = ManualClock::new(3.0);
    let other = clock.clone();
    other.advance(1.5);
    assert_eq!(clock.now(), 4.5);
    clock.set(1.0);
    assert_eq!(other.now(), 1.0);
}

#[test]
fn manual_clock_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<ManualClock>();
    assert_send_sync::<SystemClock>();
}

#[test]
#[should_panic(expected = "finite")]
fn manual_clock_set_rejects_nan() {
    ManualClock::new(0.0).set(f64::NAN);
}

#[test]
#[should_panic(expected = "non-negative")]
fn manual_clock_advance_rejects_negative() {
    ManualClock::new(0.0).advance(-1.0);
}

#[test]
#[should_panic(expected = "finite")]
fn manual_clock_new_rejects_infinity() {
    ManualClock::new(f64::INFINITY);
}

#[test]
fn system_clock_is_monotonic() {
    let clock = SystemClock::new();
    let mut last = clock.now();
    for _ in 0..1000 {
        let now = clock.now();
        assert!(now >= last);
        last = now;
    }
}

#[test]
fn system_clock_measures_real_time_in_seconds() {
    let clock = SystemClock::new();
    let start = clock.now();
    std::thread::sleep(std::time::Duration::from_millis(30));
    let passed = clock.now() - start;
    // At least the sleep; far less than a second even on a loaded machine.
    assert!((0.03..1.0).contains(&passed), "{passed} s");
}

#[test]
fn a_lease_is_live_strictly_before_its_expiry() {
    let lease = fencing_lab::Lease {
        name: "file".into(),
        client_id: "client-1".into(),
        token: 1,
        granted_at: 0.0,
        expires_at: 10.0,
    };
    assert!(lease.is_live_at(0.0));
    assert!(lease.is_live_at(9.999));
    assert!(
        !lease.is_live_at(10.0),
        "at exactly t + lease it has expired"
    );
    assert!(!lease.is_live_at(10.5));
}

#[test]
fn lock_service_takes_every_kind_of_clock_handle() {
    let clock = ManualClock::new(0.0);
    assert!(LockService::with_defaults(&clock)
        .acquire("a", "c")
        .is_some());
    assert!(LockService::with_defaults(Arc::new(clock.clone()))
        .acquire("a", "c")
        .is_some());
    assert!(LockService::with_defaults(Rc::new(clock.clone()))
        .acquire("a", "c")
        .is_some());
    let boxed: Box<dyn Clock> = Box::new(clock.clone());
    assert!(LockService::with_defaults(boxed)
        .acquire("a", "c")
        .is_some());

    struct Fixed;
    impl Clock for Fixed {
        fn now(&self) -> f64 {
            42.0
        }
    }
    let lease = LockService::with_defaults(Fixed).acquire("a", "c").unwrap();
    assert_eq!(lease.granted_at, 42.0);
    assert_eq!(lease.expires_at, 52.0);
}

// ---------------------------------------------------------------- configuration

#[test]
fn defaults_are_the_lessons() {
    assert_eq!(DEFAULT_LEASE_SECONDS, 10.0);
    assert_eq!(DEFAULT_FIRST_TOKEN, 1);
    let clock = ManualClock::new(0.0);
    let lease = service(&clock).acquire("file", "client-1").unwrap();
    assert_eq!((lease.token, lease.expires_at), (1, 10.0));
}

#[test]
fn bad_lease_lengths_are_config_errors() {
    for bad in [0.0, -0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let result = LockService::new(ManualClock::new(0.0), bad, 1);
        match result {
            Err(ConfigError::LeaseSeconds(got)) => {
                assert!(
                    got.to_bits() == bad.to_bits(),
                    "reports the bad value {bad}"
                )
            }
            Ok(_) => panic!("lease {bad} must be refused"),
        }
    }
    let message = LockService::new(ManualClock::new(0.0), 0.0, 1)
        .err()
        .unwrap()
        .to_string();
    assert_eq!(
        message,
        "lease_seconds must be a finite number of seconds greater than 0, got 0"
    );
    assert!(LockService::new(ManualClock::new(0.0), 0.001, 0).is_ok());
}

#[test]
fn first_token_is_configurable() {
    let clock = ManualClock::new(0.0);
    let mut locks = LockService::new(clock.clone(), 10.0, 33).unwrap();
    assert_eq!(locks.next_token(), Some(33));
    assert_eq!(locks.acquire("a", "c").unwrap().token, 33);
    assert_eq!(locks.acquire("b", "c").unwrap().token, 34);
}

// ---------------------------------------------------------------- expiry boundary

#[test]
fn lease_is_live_just_before_and_free_exactly_at_expiry() {
    let clock = ManualClock::new(100.0);
    let mut locks = service(&clock);
    locks.acquire("file", "client-1").unwrap();
    clock.set(110.0 - 1e-9);
    assert_eq!(locks.holder("file"), Some("client-1"));
    assert!(locks.acquire("file", "client-2").is_none());
    clock.set(110.0);
    assert_eq!(locks.holder("file"), None);
    let lease = locks.acquire("file", "client-2").unwrap();
    assert_eq!(lease.token, 2);
}

#[test]
fn fractional_lease_stepped_in_tenths_expires_on_the_exact_step() {
    let clock = ManualClock::new(0.0);
    let mut locks = LockService::new(clock.clone(), 0.1, 1).unwrap();
    // Acquire at every step: each lease must be free exactly one 0.1 s step later, never earlier.
    for expected_token in 1..=50 {
        let lease = locks.acquire("file", "client-1").unwrap();
        assert_eq!(lease.token, expected_token);
        clock.advance(0.05);
        assert!(
            locks.acquire("file", "client-2").is_none(),
            "live mid-lease"
        );
        clock.set(lease.granted_at);
        clock.advance(0.1);
        assert_eq!(locks.holder("file"), None, "free at exactly granted + 0.1");
    }
}

#[test]
fn fractional_lease_is_free_at_every_next_tenth() {
    let clock = ManualClock::new(0.0);
    let mut locks = LockService::new(clock.clone(), 0.1, 1).unwrap();
    for step in 0..100u64 {
        let lease = locks
            .acquire("file", "client-1")
            .unwrap_or_else(|| panic!("step {step}: the 0.1 s lease should have expired"));
        assert_eq!(lease.token, step + 1);
        clock.advance(0.1);
    }
}

#[test]
fn renew_and_release_fail_at_exactly_expiry() {
    let clock = ManualClock::new(0.0);
    let mut locks = service(&clock);
    let lease = locks.acquire("file", "client-1").unwrap();
    clock.set(10.0);
    assert!(matches!(
        locks.renew("file", "client-1", lease.token),
        Err(LeaseError::Expired { .. })
    ));
    assert!(matches!(
        locks.release("file", "client-1", lease.token),
        Err(LeaseError::Expired { .. })
    ));
}

// ---------------------------------------------------------------- tokens

#[test]
fn one_counter_across_lock_names() {
    let clock = ManualClock::new(0.0);
    let mut locks = service(&clock);
    assert_eq!(locks.acquire("a", "client-1").unwrap().token, 1);
    assert_eq!(locks.acquire("b", "client-2").unwrap().token, 2);
    assert_eq!(locks.acquire("c", "client-1").unwrap().token, 3);
    clock.advance(10.0);
    assert_eq!(locks.acquire("a", "client-3").unwrap().token, 4);
}

#[test]
fn refused_acquire_uses_no_token() {
    let clock = ManualClock::new(0.0);
    let mut locks = service(&clock);
    locks.acquire("file", "client-1").unwrap();
    for _ in 0..5 {
        assert!(locks.acquire("file", "client-2").is_none());
    }
    assert_eq!(locks.next_token(), Some(2));
    clock.advance(10.0);
    assert_eq!(locks.acquire("file", "client-2").unwrap().token, 2);
}

#[test]
fn holders_own_acquire_is_refused() {
    let clock = ManualClock::new(0.0);
    let mut locks = service(&clock);
    let lease = locks.acquire("file", "client-1").unwrap();
    assert!(locks.acquire("file", "client-1").is_none());
    assert_eq!(locks.lease("file"), Some(lease));
}

#[test]
fn token_space_ends_at_u64_max_without_wrapping() {
    let clock = ManualClock::new(0.0);
    let mut locks = LockService::new(clock.clone(), 1.0, u64::MAX - 1).unwrap();
    assert_eq!(locks.acquire("a", "c").unwrap().token, u64::MAX - 1);
    assert_eq!(locks.acquire("b", "c").unwrap().token, u64::MAX);
    assert_eq!(locks.next_token(), None);
    assert!(locks.acquire("c", "c").is_none());
    clock.advance(5.0);
    assert!(locks.acquire("a", "c").is_none(), "never wraps to 0");
}

// ---------------------------------------------------------------- renew

#[test]
fn renew_keeps_the_token_and_extends_from_now() {
    let clock = ManualClock::new(0.0);
    let mut locks = service(&clock);
    let lease = locks.acquire("file", "client-1").unwrap();
    clock.set(7.5);
    let renewed = locks.renew("file", "client-1", lease.token).unwrap();
    assert_eq!(renewed.token, lease.token);
    assert_eq!(renewed.granted_at, 0.0);
    assert_eq!(renewed.expires_at, 17.5);
    clock.set(17.5 - 1e-9);
    assert_eq!(locks.holder("file"), Some("client-1"));
    clock.set(17.5);
    assert_eq!(locks.holder("file"), None);
    assert_eq!(locks.next_token(), Some(2), "renew makes no token");
}

#[test]
fn renew_needs_the_holders_id_and_token() {
    let clock = ManualClock::new(0.0);
    let mut locks = service(&clock);
    let lease = locks.acquire("file", "client-1").unwrap();
    assert_eq!(
        locks.renew("file", "client-2", lease.token),
        Err(LeaseError::HeldByOther {
            lock: "file".into(),
            client_id: "client-2".into(),
            holder: "client-1".into()
        })
    );
    assert_eq!(
        locks.renew("file", "client-1", 7),
        Err(LeaseError::WrongToken {
            lock: "file".into(),
            client_id: "client-1".into(),
            token: 7,
            current: 1
        })
    );
    assert!(matches!(
        locks.renew("other", "client-1", 1),
        Err(LeaseError::NotHeld { .. })
    ));
    assert_eq!(locks.lease("file").unwrap().expires_at, 10.0, "unchanged");
}

#[test]
fn expired_lease_cannot_be_renewed_or_released_even_if_nobody_took_it() {
    let clock = ManualClock::new(0.0);
    let mut locks = service(&clock);
    let lease = locks.acquire("file", "client-1").unwrap();
    clock.set(12.0);
    let refused = locks.renew("file", "client-1", lease.token).unwrap_err();
    assert_eq!(
        refused,
        LeaseError::Expired {
            lock: "file".into(),
            client_id: "client-1".into(),
            token: 1,
            expired_at: 10.0
        }
    );
    assert!(refused.to_string().contains("must acquire the lock again"));
    assert!(locks.release("file", "client-1", lease.token).is_err());
    let again = locks.acquire("file", "client-1").unwrap();
    assert_eq!(again.token, 2, "a new grant, a new token");
}

// ---------------------------------------------------------------- release

#[test]
fn release_frees_the_lock_and_only_once() {
    let clock = ManualClock::new(0.0);
    let mut locks = service(&clock);
    let lease = locks.acquire("file", "client-1").unwrap();
    locks.release("file", "client-1", lease.token).unwrap();
    assert_eq!(locks.holder("file"), None);
    assert!(matches!(
        locks.release("file", "client-1", lease.token),
        Err(LeaseError::NotHeld { .. })
    ));
    assert!(matches!(
        locks.renew("file", "client-1", lease.token),
        Err(LeaseError::NotHeld { .. })
    ));
    assert_eq!(locks.acquire("file", "client-2").unwrap().token, 2);
}

#[test]
fn late_release_never_frees_someone_elses_lock() {
    let clock = ManualClock::new(0.0);
    let mut locks = service(&clock);
    let old = locks.acquire("file", "client-1").unwrap();
    clock.set(11.0);
    locks.acquire("file", "client-2").unwrap();
    let refused = locks.release("file", "client-1", old.token).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "lock 'file' is held by client-2, not by client-1"
    );
    assert_eq!(locks.holder("file"), Some("client-2"));
}

#[test]
fn late_release_never_frees_a_newer_grant_to_the_same_client() {
    let clock = ManualClock::new(0.0);
    let mut locks = service(&clock);
    let old = locks.acquire("file", "client-1").unwrap();
    clock.set(11.0);
    let new = locks.acquire("file", "client-1").unwrap();
    assert!(matches!(
        locks.release("file", "client-1", old.token),
        Err(LeaseError::WrongToken {
            token: 1,
            current: 2,
            ..
        })
    ));
    assert!(matches!(
        locks.renew("file", "client-1", old.token),
        Err(LeaseError::WrongToken { .. })
    ));
    assert_eq!(locks.lease("file").unwrap(), new);
}

// ---------------------------------------------------------------- the clock misbehaving

#[test]
fn clock_stepping_back_neither_revives_nor_stretches_a_lease() {
    let clock = ManualClock::new(0.0);
    let mut locks = service(&clock);
    let lease = locks.acquire("file", "client-1").unwrap();
    clock.set(10.0);
    assert_eq!(locks.holder("file"), None);
    assert!(locks.renew("file", "client-1", lease.token).is_err());
    clock.set(5.0); // steps back: the lease stays expired
    assert_eq!(locks.holder("file"), None);
    assert!(locks.renew("file", "client-1", lease.token).is_err());

    // A grant made while the clock reads behind uses the highest reading, so it is not longer.
    let second = locks.acquire("file", "client-2").unwrap();
    assert_eq!(second.granted_at, 10.0);
    assert_eq!(second.expires_at, 20.0);
    clock.set(20.0);
    assert_eq!(locks.holder("file"), None);
}

#[test]
fn clock_stepping_back_does_not_stretch_a_live_lease() {
    let clock = ManualClock::new(0.0);
    let mut locks = service(&clock);
    let lease = locks.acquire("file", "client-1").unwrap();
    clock.set(8.0);
    locks.renew("file", "client-1", lease.token).unwrap(); // expires at 18
    clock.set(2.0);
    let renewed = locks.renew("file", "client-1", lease.token).unwrap();
    assert_eq!(
        renewed.expires_at, 18.0,
        "renewed from the highest reading, 8"
    );
}

struct ScriptedClock(Cell<f64>);
impl Clock for ScriptedClock {
    fn now(&self) -> f64 {
        self.0.get()
    }
}

#[test]
fn non_finite_clock_reading_changes_nothing() {
    let clock = Rc::new(ScriptedClock(Cell::new(0.0)));
    let mut locks = LockService::with_defaults(clock.clone());
    let lease = locks.acquire("file", "client-1").unwrap();
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        clock.0.set(bad);
        assert!(locks.acquire("other", "client-2").is_none());
        let err = locks.renew("file", "client-1", lease.token).unwrap_err();
        assert!(matches!(err, LeaseError::ClockNotFinite { .. }));
        assert!(err.to_string().contains("not a finite time"));
        assert!(locks.release("file", "client-1", lease.token).is_err());
        assert_eq!(locks.holder("file"), None, "liveness cannot be judged");
    }
    clock.0.set(1.0);
    assert_eq!(locks.holder("file"), Some("client-1"), "still held");
    assert_eq!(locks.lease("file").unwrap().expires_at, 10.0, "not renewed");
    assert_eq!(locks.next_token(), Some(2), "no token used");
    // An infinite reading did not become the high-water mark.
    assert!(locks.acquire("other", "client-2").is_some());
}

// ---------------------------------------------------------------- storage

#[test]
fn first_write_to_a_new_key_is_accepted_with_any_token() {
    let mut storage = FencedStorage::new();
    assert_eq!(storage.highest_token("file"), None);
    assert_eq!(storage.read("file"), None);
    storage.write("file", "v", 0).unwrap();
    assert_eq!(storage.highest_token("file"), Some(0));
    assert_eq!(storage.read("file"), Some("v"));
}

#[test]
fn equal_token_is_accepted_so_the_holder_can_write_again() {
    let mut storage = FencedStorage::default();
    storage.write("file", "first", 3).unwrap();
    storage.write("file", "second", 3).unwrap();
    assert_eq!(storage.read("file"), Some("second"));
    assert_eq!(storage.highest_token("file"), Some(3));
}

#[test]
fn higher_token_is_accepted_and_raises_the_highest() {
    let mut storage = FencedStorage::new();
    storage.write("file", "a", 1).unwrap();
    storage.write("file", "b", 5).unwrap();
    assert_eq!(storage.highest_token("file"), Some(5));
    assert_eq!(storage.read("file"), Some("b"));
}

#[test]
fn lower_token_is_rejected_and_changes_nothing() {
    let mut storage = FencedStorage::new();
    storage.write("file", "client 2's data", 2).unwrap();
    let refused = storage.write("file", "client 1's data", 1).unwrap_err();
    assert_eq!(
        (refused.key.as_str(), refused.token, refused.highest),
        ("file", 1, 2)
    );
    assert_eq!(
        refused.to_string(),
        "token 1 is older than token 2, the highest key 'file' has accepted"
    );
    assert_eq!(storage.read("file"), Some("client 2's data"));
    assert_eq!(storage.highest_token("file"), Some(2));
}

#[test]
fn each_key_keeps_its_own_highest_token() {
    let mut storage = FencedStorage::new();
    storage.write("a", "x", 9).unwrap();
    storage.write("b", "y", 2).unwrap(); // lower than a's highest, but b is its own column
    assert_eq!(storage.highest_token("a"), Some(9));
    assert_eq!(storage.highest_token("b"), Some(2));
    assert!(storage.write("b", "z", 1).is_err());
    storage.write("a", "w", 9).unwrap();
}

// ---------------------------------------------------------------- the lesson, end to end

#[test]
fn gc_pause_story_the_late_write_is_rejected() {
    let clock = ManualClock::new(0.0);
    let mut locks = service(&clock);
    let mut storage = FencedStorage::new();

    let lease_1 = locks.acquire("file", "client-1").unwrap();
    assert_eq!(lease_1.token, 1);
    clock.advance(1.0);
    // Client 1 freezes for 15 s; the lock service sees its lease run out.
    clock.advance(9.0);
    assert_eq!(locks.holder("file"), None);
    clock.advance(1.0);
    let lease_2 = locks.acquire("file", "client-2").unwrap();
    assert_eq!(lease_2.token, 2);
    storage
        .write("file", "client 2's data", lease_2.token)
        .unwrap();
    clock.advance(5.0);
    // Client 1 wakes, believes it holds the lock, writes with token 1.
    let refused = storage
        .write("file", "CORRUPTED DATA!", lease_1.token)
        .unwrap_err();
    assert_eq!((refused.token, refused.highest), (1, 2));
    assert_eq!(storage.read("file"), Some("client 2's data"));
    assert!(locks.renew("file", "client-1", lease_1.token).is_err());
    assert!(locks.release("file", "client-1", lease_1.token).is_err());
    assert_eq!(locks.holder("file"), Some("client-2"));
    locks.release("file", "client-2", lease_2.token).unwrap();
    let lease_3 = locks.acquire("file", "client-1").unwrap();
    assert_eq!(lease_3.token, 3);
    storage
        .write("file", "client 1's data", lease_3.token)
        .unwrap();
}

#[test]
fn a_holder_query_counts_as_a_reading_so_stepping_back_cannot_revive() {
    let clock = ManualClock::new(0.0);
    let mut locks = service(&clock);
    let lease = locks.acquire("file", "client-1").unwrap();
    clock.set(10.0);
    assert_eq!(locks.holder("file"), None, "expired at 10");
    clock.set(9.0);
    assert!(matches!(
        locks.renew("file", "client-1", lease.token),
        Err(LeaseError::Expired { .. })
    ));
    assert_eq!(locks.holder("file"), None);
}

// ---------------------------------------------------------------- accessors

#[test]
fn the_service_reports_its_lease_length_and_its_clock() {
    let clock = ManualClock::new(2.5);
    let locks = LockService::new(clock.clone(), 7.25, 3).unwrap();
    assert_eq!(locks.lease_seconds(), 7.25);
    assert_eq!(locks.now(), Some(2.5));
    clock.advance(1.5);
    assert_eq!(locks.now(), Some(4.0));
    // The service's now never goes back with its clock.
    clock.set(1.0);
    assert_eq!(locks.now(), Some(4.0));
    let scripted = Rc::new(ScriptedClock(Cell::new(f64::NAN)));
    let blind = LockService::with_defaults(scripted.clone());
    assert_eq!(
        blind.now(),
        None,
        "a clock that is not a number gives no now"
    );
    scripted.0.set(-1.0);
    assert_eq!(blind.now(), Some(-1.0));
    assert_eq!(
        service(&ManualClock::new(0.0)).lease_seconds(),
        DEFAULT_LEASE_SECONDS
    );
}

#[test]
fn a_checked_storage_says_whether_it_is_empty_and_what_each_key_holds() {
    use fencing_lab::{CheckedStorage, FenceCheck};
    let mut storage = CheckedStorage::new(FenceCheck::PerKey);
    assert!(storage.is_empty());
    assert_eq!(storage.entry("file"), None);
    storage.write("file", "client 2's data", 2);
    storage.write("file", "client 1's data", 1);
    assert!(!storage.is_empty());
    assert_eq!(storage.len(), 1);
    let file = storage.entry("file").expect("file was written");
    assert_eq!(
        (file.value.as_str(), file.value_token, file.highest),
        ("client 2's data", 2, 2),
        "the rejected write changed nothing"
    );
    assert_eq!(storage.entry("log"), None);
    storage.write("log", "one", 1);
    assert_eq!(storage.len(), 2, "each key written counts once");
    assert_eq!(CheckedStorage::new(FenceCheck::PerKey).len(), 0);
}

#[test]
fn a_checked_storage_keeps_the_highest_token_of_any_key() {
    use fencing_lab::{CheckedStorage, FenceCheck};
    let mut storage = CheckedStorage::new(FenceCheck::PerKey);
    assert_eq!(storage.any_highest(), None, "nothing accepted yet");
    storage.write("file", "a", 3);
    storage.write("log", "b", 2);
    assert_eq!(storage.any_highest(), Some(3), "the highest of both keys");
    storage.write("file", "c", 1);
    assert_eq!(
        storage.any_highest(),
        Some(3),
        "a refused write raises nothing"
    );
    storage.write("log", "d", 5);
    assert_eq!(storage.any_highest(), Some(5));
}

// ---------------------------------------------------------------- verdicts in words

/// Every check's reason for every kind of write, word for word: these clauses reach the
/// screen, the transcript and the captions, so each must say the comparison its check made.
#[test]
fn every_verdict_gives_the_reason_its_check_really_had() {
    use fencing_lab::{FenceCheck, Verdict};
    // (check, token, the key's highest, any key's highest, the reason)
    type Case = (FenceCheck, u64, Option<u64>, Option<u64>, &'static str);
    let cases: &[Case] = &[
        (FenceCheck::PerKey, 1, None, Some(4), "'file' was never written"),
        (FenceCheck::PerKey, 2, Some(2), Some(2), "token 2 >= 2, the highest token 'file' has accepted"),
        (FenceCheck::PerKey, 1, Some(2), Some(2), "token 1 < 2, the highest token 'file' has accepted"),
        (FenceCheck::Unchecked, 1, Some(2), Some(2),
         "no check, although token 1 < 2, the highest token 'file' had accepted"),
        (FenceCheck::Unchecked, 3, Some(2), Some(2),
         "no check (token 3 >= 2, the highest token 'file' has accepted)"),
        (FenceCheck::Unchecked, 3, None, None, "no check ('file' was never written)"),
        (FenceCheck::Strict, 1, None, None, "'file' was never written"),
        (FenceCheck::Strict, 3, Some(2), Some(2), "token 3 > 2, the highest token 'file' has accepted"),
        (FenceCheck::Strict, 2, Some(2), Some(2),
         "the strict check wants a token above 2, and 2 is not > 2: it refuses the holder's own \
          second write, which is why the seed's rule is >="),
        (FenceCheck::Strict, 1, Some(2), Some(2), "token 1 is not > 2, the highest token 'file' has accepted"),
        (FenceCheck::Global, 1, None, None, "nothing was written yet"),
        (FenceCheck::Global, 3, Some(1), Some(3), "token 3 >= 3, the highest token of any key"),
        (FenceCheck::Global, 2, None, Some(3),
         "token 2 < 3, the highest token of any key; 'file' itself has seen no token, so a \
          per-key check would accept it"),
        (FenceCheck::Global, 2, Some(1), Some(3),
         "token 2 < 3, the highest token of any key; 'file' itself has seen only token 1, so a \
          per-key check would accept it"),
        // The key itself is stale: never claim a per-key check would accept it.
        (FenceCheck::Global, 1, Some(2), Some(3), "token 1 < 3, the highest token of any key"),
    ];
    for &(check, token, key_highest, any_highest, want) in cases {
        let verdict = Verdict::judge(check, token, key_highest, any_highest);
        assert_eq!(
            verdict.reason("file"),
            want,
            "{check:?}, token {token}, key's highest {key_highest:?}, any key's {any_highest:?}"
        );
    }
}

/// A student's storage is judged by its answer; the reason adds what the seed's rule says of
/// the same write, whichever way the student answered, and whose rule decided where they part.
#[test]
fn an_observed_verdict_says_what_the_seeds_rule_would_do() {
    use fencing_lab::{Judge, Outcome, Verdict};
    let stale_accepted = Verdict::observed(1, Some(2), Some(2), true);
    assert_eq!(stale_accepted.judge, Judge::External);
    assert_eq!(stale_accepted.outcome(), Outcome::Corrupted);
    assert_eq!(
        stale_accepted.reason("file"),
        "your storage took it, though token 1 < 2, the highest token 'file' has accepted: the \
         seed's rule rejects it"
    );
    let fresh_refused = Verdict::observed(2, Some(2), Some(2), false);
    assert_eq!(fresh_refused.outcome(), Outcome::Rejected);
    assert_eq!(
        fresh_refused.reason("file"),
        "your storage refused it, though token 2 >= 2, the highest token 'file' has accepted: \
         the seed's rule accepts it"
    );
    // Answered as the seed's rule answers: the seed's reason, and that it agrees.
    assert_eq!(
        Verdict::observed(1, Some(2), Some(2), false).reason("file"),
        "token 1 < 2, the highest token 'file' has accepted; the seed's rule rejects it"
    );
    assert_eq!(
        Verdict::observed(1, Some(2), Some(2), false).comparison(),
        "t1 < t2"
    );
    assert_eq!(
        Verdict::observed(7, None, Some(9), true).reason("log"),
        "'log' was never written; the seed's rule accepts it"
    );
    // Where it answered otherwise, the comparison says whose rule decided, and the seed's.
    assert_eq!(
        stale_accepted.comparison(),
        "your rule, seed: t1 < t2 rejects"
    );
    assert_eq!(
        fresh_refused.comparison(),
        "your rule, seed: t2 >= t2 accepts"
    );
}

#[test]
fn a_clock_behind_a_reference_box_rc_or_arc_reads_the_same_time() {
    let clock = ManualClock::new(12.5);
    let boxed: Box<dyn Clock> = Box::new(clock.clone());
    let rc = Rc::new(clock.clone());
    let arc = Arc::new(clock.clone());
    for _ in 0..2 {
        let want = clock.now();
        assert_eq!(Clock::now(&&clock), want, "through the impl for &T");
        assert_eq!(boxed.now(), want);
        assert_eq!(rc.now(), want);
        assert_eq!(arc.now(), want);
        clock.advance(0.25);
    }
    // A service over a borrowed clock sees the clock move.
    let locks = LockService::with_defaults(&clock);
    assert_eq!(locks.now(), Some(clock.now()));
}

/// A service copied onto another clock keeps its leases, its counter and the highest time it
/// read, and from then on the copy and the original change apart.
#[test]
fn a_service_copied_onto_another_clock_goes_its_own_way() {
    let clock = ManualClock::new(0.0);
    let mut original = LockService::with_defaults(clock.clone());
    let lease = original.acquire("file", "client-1").unwrap();
    clock.set(4.0);
    assert_eq!(original.holder("file"), Some("client-1"));
    let other = ManualClock::new(4.0);
    let mut copy = original.with_clock(other.clone());
    assert_eq!(copy.holder("file"), Some("client-1"));
    // The copy's clock moves alone: its lease runs out there, not in the original.
    other.set(30.0);
    assert_eq!(copy.holder("file"), None);
    assert_eq!(original.holder("file"), Some("client-1"));
    // The counter goes on from where it stood, in each apart.
    assert_eq!(
        copy.acquire("file", "client-2").unwrap().token,
        lease.token + 1
    );
    assert_eq!(
        original.acquire("log", "client-3").unwrap().token,
        lease.token + 1
    );
    // The highest reading came along: the copy's clock stepping back revives nothing.
    other.set(1.0);
    assert_eq!(copy.holder("file"), Some("client-2"));
    assert!(copy.renew("file", "client-2", lease.token + 1).is_ok());
}
