//! The budgets (README, Performance): `acquire`+`release` and a `write` each cost at most 2x a bare
//! `HashMap<String, _>` doing the same lookups and inserts, measured in the same run.

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use fencing_lab::{FencedStorage, LockService, ManualClock};

const NAMES: usize = 1_000;

fn names() -> Vec<String> {
    (0..NAMES).map(|i| format!("lock-{i}")).collect()
}

/// The baseline: what a lock service must at least do, on a bare map.
#[derive(Default)]
struct BareLocks {
    leases: HashMap<String, (String, u64, f64, f64)>,
    next: u64,
}

impl BareLocks {
    fn acquire(&mut self, name: &str, client: &str, now: f64) -> Option<u64> {
        if self.leases.get(name).is_some_and(|l| now < l.3) {
            return None;
        }
        self.next += 1;
        self.leases.insert(
            name.to_owned(),
            (client.to_owned(), self.next, now, now + 10.0),
        );
        Some(self.next)
    }

    fn release(&mut self, name: &str, client: &str, token: u64, now: f64) -> bool {
        match self.leases.get(name) {
            Some(l) if l.0 == client && l.1 == token && now < l.3 => {
                self.leases.remove(name);
                true
            }
            _ => false,
        }
    }
}

fn acquire_release(c: &mut Criterion) {
    let names = names();
    let mut group = c.benchmark_group("acquire+release (1000 lock names)");
    group.bench_function("baseline HashMap<String, _>", |b| {
        let mut locks = BareLocks::default();
        b.iter(|| {
            for name in &names {
                let token = locks.acquire(name, "client-1", 1.0).unwrap();
                black_box(locks.release(name, "client-1", token, 1.0));
            }
        })
    });
    group.bench_function("LockService", |b| {
        let mut locks = LockService::with_defaults(ManualClock::new(1.0));
        b.iter(|| {
            for name in &names {
                let lease = locks.acquire(name, "client-1").unwrap();
                black_box(locks.release(name, "client-1", lease.token).is_ok());
            }
        })
    });
    group.finish();
}

fn write(c: &mut Criterion) {
    let keys = names();
    let mut group = c.benchmark_group("write (1000 keys)");
    group.bench_function("baseline HashMap<String, _>", |b| {
        let mut map: HashMap<String, (String, u64)> = HashMap::new();
        let mut token = 0;
        b.iter(|| {
            token += 1;
            for key in &keys {
                match map.get_mut(key.as_str()) {
                    Some(entry) if token < entry.1 => {}
                    Some(entry) => *entry = ("value".to_owned(), token),
                    None => {
                        map.insert(key.clone(), ("value".to_owned(), token));
                    }
                }
            }
            black_box(&map);
        })
    });
    group.bench_function("FencedStorage", |b| {
        let mut storage = FencedStorage::new();
        let mut token = 0;
        b.iter(|| {
            token += 1;
            for key in &keys {
                black_box(storage.write(key, "value", token).is_ok());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, acquire_release, write);
criterion_main!(benches);
