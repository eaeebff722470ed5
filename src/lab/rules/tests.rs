use super::*;
use crate::lab::judge::Profile;
use crate::lab::script::{plan, play, Scope};
use crate::lab::testing::{Mistake, Student};

#[test]
fn every_path_of_every_rule_passes_on_the_seeds_rules() {
    for rule in Rule::ALL {
        let aspects = aspects_of(rule);
        assert!(!aspects.is_empty(), "{rule}");
        for path in aspects.iter().flatten() {
            assert!(!path.steps.is_empty(), "{rule}");
            let found = play(
                path,
                Scope::All,
                &mut Student::new(Mistake::Correct),
                Profile::default(),
            );
            assert_eq!(found.unwrap(), None, "{rule}: {path:?}");
        }
    }
}

/// A path's every step makes a request: no step depends on a grant the seed did not make.
#[test]
fn every_step_of_every_path_makes_a_request() {
    for rule in Rule::ALL {
        for path in aspects_of(rule).iter().flatten() {
            let steps: Vec<usize> = plan(path).iter().filter_map(|c| c.step).collect();
            let passes = if path.repeat { 2 } else { 1 };
            assert_eq!(steps.len(), path.steps.len() * passes, "{rule}: {path:?}");
        }
    }
}

/// Each path keeps to its rule's edges, so that a lease a little longer or shorter does not show
/// in another rule's check: only the expiry boundary's paths stand at an expiry (or one step of
/// the grid before it), only the defaults' come within 0.5 s of one (that the default lease is
/// 10 s, not 9 or 11, is their point), and every other path keeps 0.5 s away.
#[test]
fn only_the_boundary_and_the_defaults_stand_near_an_expiry() {
    for rule in Rule::ALL {
        for path in aspects_of(rule).iter().flatten() {
            for call in plan(path) {
                let Some(g) = call.decision.lock.as_ref().and_then(|l| l.latest.clone()) else {
                    continue;
                };
                let away = (g.expires_at - call.decision.now).abs();
                let what = format!("{rule}: {} at {}", call.request.call(), call.decision.now);
                match rule {
                    Rule::ExpiryBoundary => assert!(away <= GRID, "{what}"),
                    Rule::Defaults => assert!((0.09..0.6).contains(&away) || away > 5.0, "{what}"),
                    _ => assert!(away >= 0.5, "{what}"),
                }
            }
        }
    }
}

#[test]
fn the_rules_run_new_starts_over_first_and_then_in_the_seeds_order() {
    let ids: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
    assert_eq!(
        ids,
        [
            "new-starts-over",
            "defaults",
            "lease-live",
            "expiry-boundary",
            "one-counter",
            "refused-acquire-no-token",
            "holder-acquire-none",
            "renew-keeps-token",
            "renew-extends-from-now",
            "expired-no-renew",
            "late-renew",
            "release-frees",
            "expired-no-release",
            "late-release",
            "holder",
            "write-accepts",
            "write-equal-token",
            "write-stale-rejected",
            "rejected-changes-nothing",
            "per-key",
            "never-written",
            "clock-only",
        ]
    );
    assert_eq!(steps_of(Rule::NewStartsOver), 18);
}
