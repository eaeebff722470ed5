//! Model-based test: random operation sequences against a small reference model of the rules.

use std::collections::HashMap;

use fencing_lab::{FencedStorage, LeaseError, LockService, ManualClock};
use proptest::prelude::*;

const NAMES: [&str; 2] = ["file", "db"];
const CLIENTS: [&str; 3] = ["client-1", "client-2", "client-3"];
const KEYS: [&str; 2] = ["x", "y"];
// Quarter seconds are exact in binary floating point, so the model can use integers.
const LEASE_QUARTERS: i64 = 6;

#[derive(Clone, Debug)]
enum Op {
    Acquire(usize, usize),
    Renew(usize, usize, u64),
    Release(usize, usize, u64),
    Holder(usize),
    Write(usize, u64),
    Advance(i64),
    StepBack(i64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..2usize, 0..3usize).prop_map(|(n, c)| Op::Acquire(n, c)),
        2 => (0..2usize, 0..3usize, 1..8u64).prop_map(|(n, c, t)| Op::Renew(n, c, t)),
        2 => (0..2usize, 0..3usize, 1..8u64).prop_map(|(n, c, t)| Op::Release(n, c, t)),
        1 => (0..2usize).prop_map(Op::Holder),
        3 => (0..2usize, 0..8u64).prop_map(|(k, t)| Op::Write(k, t)),
        3 => (0..8i64).prop_map(Op::Advance),
        1 => (1..4i64).prop_map(Op::StepBack),
    ]
}

/// The rules, written as plainly as possible, over integer quarter seconds.
#[derive(Default)]
struct Model {
    clock: i64,
    high_water: i64,
    next_token: u64,
    /// name -> (client, token, expires_at, released)
    grants: HashMap<&'static str, (usize, u64, i64, bool)>,
    /// key -> (value, highest)
    storage: HashMap<&'static str, (String, u64)>,
}

impl Model {
    fn now(&mut self) -> i64 {
        self.high_water = self.high_water.max(self.clock);
        self.high_water
    }

    fn live(&self, name: &str, now: i64) -> Option<(usize, u64, i64)> {
        match self.grants.get(name) {
            Some(&(c, t, exp, false)) if now < exp => Some((c, t, exp)),
            _ => None,
        }
    }

    fn acquire(&mut self, name: &'static str, client: usize) -> Option<u64> {
        let now = self.now();
        if self.live(name, now).is_some() {
            return None;
        }
        let token = self.next_token;
        self.next_token += 1;
        self.grants
            .insert(name, (client, token, now + LEASE_QUARTERS, false));
        Some(token)
    }

    /// Ok, or the error code the service must give.
    fn check(&mut self, name: &str, client: usize, token: u64) -> Result<(), &'static str> {
        let now = self.now();
        let Some(&(c, t, exp, released)) = self.grants.get(name) else {
            return Err("not_held");
        };
        if released {
            return Err("not_held");
        }
        if c != client {
            return Err(if now < exp {
                "held_by_other"
            } else {
                "not_held"
            });
        }
        if t != token {
            return Err("wrong_token");
        }
        if now >= exp {
            return Err("expired");
        }
        Ok(())
    }

    fn renew(
        &mut self,
        name: &'static str,
        client: usize,
        token: u64,
    ) -> Result<i64, &'static str> {
        self.check(name, client, token)?;
        let exp = self.high_water + LEASE_QUARTERS;
        self.grants.get_mut(name).unwrap().2 = exp;
        Ok(exp)
    }

    fn release(
        &mut self,
        name: &'static str,
        client: usize,
        token: u64,
    ) -> Result<(), &'static str> {
        self.check(name, client, token)?;
        self.grants.get_mut(name).unwrap().3 = true;
        Ok(())
    }

    fn write(&mut self, key: &'static str, value: String, token: u64) -> bool {
        match self.storage.get(key) {
            Some(&(_, highest)) if token < highest => false,
            _ => {
                self.storage.insert(key, (value, token));
                true
            }
        }
    }
}

fn seconds(quarters: i64) -> f64 {
    quarters as f64 / 4.0
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn service_and_storage_follow_the_model(ops in prop::collection::vec(op(), 1..120)) {
        let clock = ManualClock::new(0.0);
        let mut locks = LockService::new(clock.clone(), seconds(LEASE_QUARTERS), 1).unwrap();
        let mut storage = FencedStorage::new();
        let mut model = Model { next_token: 1, high_water: i64::MIN, ..Model::default() };

        for (i, op) in ops.iter().enumerate() {
            match *op {
                Op::Acquire(n, c) => {
                    let got = locks.acquire(NAMES[n], CLIENTS[c]);
                    let want = model.acquire(NAMES[n], c);
                    prop_assert_eq!(got.as_ref().map(|l| l.token), want, "op {}: {:?}", i, op);
                    if let Some(lease) = got {
                        prop_assert_eq!(lease.expires_at, seconds(model.high_water + LEASE_QUARTERS));
                    }
                }
                Op::Renew(n, c, t) => {
                    let got = locks.renew(NAMES[n], CLIENTS[c], t);
                    let want = model.renew(NAMES[n], c, t);
                    match (&got, want) {
                        (Ok(lease), Ok(exp)) => prop_assert_eq!(lease.expires_at, seconds(exp)),
                        (Err(e), Err(code)) => prop_assert_eq!(e.code(), code, "op {}", i),
                        _ => prop_assert!(false, "op {} {:?}: got {:?}, model {:?}", i, op, got, want),
                    }
                }
                Op::Release(n, c, t) => {
                    let got = locks.release(NAMES[n], CLIENTS[c], t).map_err(|e: LeaseError| e.code());
                    let want = model.release(NAMES[n], c, t);
                    prop_assert_eq!(got, want, "op {}: {:?}", i, op);
                }
                Op::Holder(n) => {
                    let now = model.now();
                    let want = model.live(NAMES[n], now).map(|(c, _, _)| CLIENTS[c]);
                    prop_assert_eq!(locks.holder(NAMES[n]), want, "op {}", i);
                }
                Op::Write(k, t) => {
                    let value = format!("v{i}");
                    let got = storage.write(KEYS[k], value.clone(), t).is_ok();
                    prop_assert_eq!(got, model.write(KEYS[k], value, t), "op {}: {:?}", i, op);
                }
                Op::Advance(q) => {
                    model.clock += q;
                    clock.set(seconds(model.clock));
                }
                Op::StepBack(q) => {
                    model.clock -= q;
                    clock.set(seconds(model.clock));
                }
            }
            for key in KEYS {
                let want = model.storage.get(key);
                prop_assert_eq!(storage.read(key), want.map(|(v, _)| v.as_str()));
                prop_assert_eq!(storage.highest_token(key), want.map(|&(_, h)| h));
            }
            prop_assert_eq!(locks.next_token(), Some(model.next_token));
        }
    }
}
