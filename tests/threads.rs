//! Three real threads contend for one lock over a real clock and write to one shared storage.

use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use fencing_lab::{Clock, FencedStorage, LockService, SystemClock};

/// A system clock running 1000x fast: a 10 s lease lasts 10 ms of real time.
struct ScaledClock(SystemClock);
impl Clock for ScaledClock {
    fn now(&self) -> f64 {
        self.0.now() * 1000.0
    }
}

#[test]
fn no_stale_write_is_ever_accepted_under_real_contention() {
    let locks = Arc::new(Mutex::new(LockService::with_defaults(ScaledClock(
        SystemClock::new(),
    ))));
    let storage = Arc::new(Mutex::new(FencedStorage::new()));
    // Every write attempt in the order storage saw it: (token, accepted).
    let log = Arc::new(Mutex::new(Vec::<(u64, bool)>::new()));

    let workers: Vec<_> = (1..=3)
        .map(|n| {
            let (locks, storage, log) = (locks.clone(), storage.clone(), log.clone());
            thread::spawn(move || {
                let me = format!("client-{n}");
                let mut jobs = 0;
                while jobs < 40 {
                    let lease = locks.lock().unwrap().acquire("file", &me);
                    let Some(lease) = lease else {
                        thread::sleep(Duration::from_micros(300));
                        continue;
                    };
                    jobs += 1;
                    // Work; every fourth job stalls past the 10 ms lease, like a GC pause.
                    let stall = if jobs % 4 == n { 14_000 } else { 500 };
                    thread::sleep(Duration::from_micros(stall));
                    {
                        let mut storage = storage.lock().unwrap();
                        let accepted = storage.write("file", me.clone(), lease.token).is_ok();
                        log.lock().unwrap().push((lease.token, accepted));
                    }
                    let _ = locks.lock().unwrap().release("file", &me, lease.token);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }

    let log = log.lock().unwrap();
    assert_eq!(log.len(), 120);
    let mut highest_accepted = 0;
    for &(token, accepted) in log.iter() {
        if accepted {
            assert!(
                token >= highest_accepted,
                "stale token {token} accepted after {highest_accepted}"
            );
            highest_accepted = token;
        } else {
            assert!(
                token < highest_accepted,
                "token {token} refused though none newer was accepted"
            );
        }
    }
    assert_eq!(
        storage.lock().unwrap().highest_token("file"),
        Some(highest_accepted)
    );
}
