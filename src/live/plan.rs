//! A lesson's beats as the live run plays them: which beats it can play on a real etcd, the
//! lease asked of etcd (whole seconds), and each client action as an order to a process.

use super::orders::Order;
use crate::sim::{BeatAction, ClientAction, Ms, Scenario};

/// The TTL asked of etcd for a lease of `seconds`: etcd grants whole seconds, so the lesson's
/// lease is rounded up (never shorter than the lesson says), and at least 1.
pub fn ttl_of(seconds: f64) -> i64 {
    (seconds.ceil() as i64).max(1)
}

/// Why `scenario` cannot be played on a real etcd, if it cannot.
pub fn refusal(scenario: &Scenario) -> Option<String> {
    for (i, beat) in scenario.beats.iter().enumerate() {
        match &beat.action {
            Some(BeatAction::ClockJump { .. }) => {
                return Some(format!(
                    "{} steps the lock service's clock (beat {}), which fencing-lab cannot do to a \
                     real etcd; play it with `fencing-lab run {}`",
                    scenario.name,
                    i + 1,
                    scenario.origin
                ))
            }
            Some(BeatAction::Client { action, .. }) if named_token(action) => {
                return Some(format!(
                    "{}'s beat {} names its own token, and a token on etcd is the revision etcd \
                     gives, which no script can know in advance",
                    scenario.name,
                    i + 1
                ))
            }
            _ => {}
        }
    }
    if scenario.chaos.is_some() && scenario.locks.len() > 1 {
        return Some(format!(
            "{}'s chaos clients share one lock; this scenario names {}",
            scenario.name,
            scenario.locks.len()
        ));
    }
    None
}

fn named_token(action: &ClientAction) -> bool {
    match action {
        ClientAction::Renew { token, .. }
        | ClientAction::Release { token, .. }
        | ClientAction::Write { token, .. } => token.is_some(),
        _ => false,
    }
}

/// The order a client action becomes (`None` for a pause or a crash, which the conductor
/// does to the process itself).
pub fn order_of(scenario: &Scenario, action: &ClientAction, fenced: bool) -> Option<Order> {
    let lock = |id: crate::sim::LockId| scenario.locks[id.index()].clone();
    Some(match action {
        ClientAction::Acquire { lock: id, .. } => Order::Acquire {
            lock: lock(*id),
            ttl: ttl_of(scenario.lease_seconds),
        },
        ClientAction::Renew { lock: id, .. } => Order::Renew { lock: lock(*id) },
        ClientAction::Release { lock: id, .. } => Order::Release { lock: lock(*id) },
        ClientAction::Write {
            lock: id,
            key,
            value,
            delay,
            ..
        } => Order::Write {
            lock: lock(*id),
            key: key.clone(),
            value: value.clone(),
            fenced,
            delay_ms: *delay,
        },
        ClientAction::Pause { .. } | ClientAction::Crash { .. } => return None,
    })
}

/// When the lesson ends: `--until`, else the scenario's end.
pub fn end_of(scenario: &Scenario, until: Option<Ms>) -> Ms {
    until.unwrap_or(scenario.end)
}

/// The seed client `number` (1 to 3) draws its chaos jobs from: each its own generator, since
/// three processes cannot share one in a fixed order.
pub fn chaos_seed(seed: u64, number: u8) -> u64 {
    seed ^ 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(u64::from(number))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_is_asked_in_whole_seconds_never_shorter() {
        assert_eq!(ttl_of(10.0), 10);
        assert_eq!(ttl_of(2.5), 3);
        assert_eq!(ttl_of(0.2), 1);
        assert_eq!(ttl_of(3.0), 3);
    }

    #[test]
    fn every_built_in_lesson_plays_live_but_the_clock_jump() {
        for scenario in Scenario::all_built_in() {
            let refused = refusal(scenario);
            assert_eq!(
                refused.is_some(),
                scenario.name == "clock-jump",
                "{}: {refused:?}",
                scenario.name
            );
        }
        let jump = Scenario::built_in("clock-jump").unwrap();
        assert!(refusal(&jump)
            .unwrap()
            .contains("fencing-lab run clock-jump"));
    }

    #[test]
    fn a_write_becomes_an_order_with_the_fencing_in_force() {
        let scenario = Scenario::built_in("network-delay").unwrap();
        let beat = &scenario.beats[1];
        let Some(BeatAction::Client { action, .. }) = &beat.action else {
            panic!("beat 2 is client 1's delayed write");
        };
        assert_eq!(
            order_of(&scenario, action, false),
            Some(Order::Write {
                lock: "file-lock".into(),
                key: "file".into(),
                value: "client 1's data".into(),
                fenced: false,
                delay_ms: Some(12_000),
            })
        );
        assert_ne!(chaos_seed(1, 1), chaos_seed(1, 2));
        assert_eq!(end_of(&scenario, None), 18_000);
        assert_eq!(end_of(&scenario, Some(5_000)), 5_000);
    }
}
