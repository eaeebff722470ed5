//! The settings line every document heads with: transcripts, handouts, diagrams and pages say the
//! same words for the same setup.

use crate::sim::text::printable;
use crate::sim::time::fmt_seconds;
use crate::sim::Setup;

/// "lease 10.0 s, first token 1, fencing ON (token >= highest(key))[, seed N]"
pub fn settings_line(setup: &Setup) -> String {
    let seed = setup
        .scenario
        .chaos
        .as_ref()
        .map(|_| format!(", seed {}", setup.seed))
        .unwrap_or_default();
    format!("{}{seed}", settings_without_seed(setup))
}

/// "lease 10.0 s, first token 1, fencing ON (token >= highest(key))", for many seeds at once.
pub fn settings_without_seed(setup: &Setup) -> String {
    let scenario = &setup.scenario;
    if let Some(who) = &setup.implemented_by {
        return format!(
            "lease {} s, first token {}, writes judged by your FencedStorage ({})",
            fmt_seconds(scenario.lease_ms),
            scenario.first_token,
            printable(who)
        );
    }
    let fencing = if setup.fencing {
        format!("ON ({})", setup.check.rule())
    } else {
        "OFF (no check)".to_owned()
    };
    let line = format!(
        "lease {} s, first token {}, fencing {fencing}",
        fmt_seconds(scenario.lease_ms),
        setup.first_token()
    );
    // With `--as`, in the system's words, and naming it.
    match setup.system {
        Some(system) => {
            let vocab = crate::sim::Vocab::of(&scenario.locks, Some(system));
            let nothing = if system.has_token {
                ""
            } else {
                ": it has no token, so the storage has nothing to check"
            };
            format!("{}, as {}{nothing}", vocab.say(&line), system.name)
        }
        None => line,
    }
}
