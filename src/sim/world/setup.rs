//! What fixes a run apart from the lecturer's inputs.

use std::sync::Arc;

use crate::sim::backend::{built_in_numbered, BackendFactory};
use crate::sim::scenario::Scenario;
use crate::sim::systems::System;
use crate::FenceCheck;

/// Everything that fixes a run apart from the lecturer's inputs: replaying it with the same
/// inputs gives the same history.
#[derive(Clone)]
pub struct Setup {
    pub scenario: Arc<Scenario>,
    pub seed: u64,
    /// Whether fencing is on at t = 0.
    pub fencing: bool,
    /// The storage's check while fencing is on, at t = 0.
    pub check: FenceCheck,
    /// What implements the lock service and the storage.
    pub backend: BackendFactory,
    /// The student's implementation behind `backend`, by name; `None` for this library.
    pub implemented_by: Option<String>,
    /// The real system the lesson speaks as (`--as`): its word for the token.
    pub system: Option<&'static System>,
}

impl Setup {
    /// The built-in library, with the scenario's own seed and fencing setting.
    pub fn new(scenario: Arc<Scenario>) -> Setup {
        Setup {
            seed: scenario.seed,
            fencing: scenario.fencing,
            check: FenceCheck::PerKey,
            backend: crate::sim::backend::built_in(),
            implemented_by: None,
            system: None,
            scenario,
        }
    }

    /// The same, told in a real system's words (`--as`); a system with no token runs with
    /// fencing off, since its storage has nothing to check.
    pub fn as_system(mut self, system: &'static System) -> Setup {
        self.system = Some(system);
        if !system.has_token {
            self.fencing = false;
        }
        // On this library, the numbers run as the system's do; a student's are their own.
        if self.implemented_by.is_none() {
            self.backend = built_in_numbered(system.numbering.is_some());
        }
        self
    }

    /// The number the first grant carries on this library: the scenario's first token, or the
    /// one after it where the system numbers every change and its store made one first.
    pub fn first_token(&self) -> u64 {
        let numbered =
            self.implemented_by.is_none() && self.system.is_some_and(|s| s.numbering.is_some());
        self.scenario
            .first_token
            .saturating_add(u64::from(numbered))
    }

    /// The same settings on another scenario, as the UI's picker loads it: the seed, the
    /// implementation (this library or a student's, by name), the system (`--as`), fencing and
    /// the check all kept.
    pub fn with_scenario(&self, scenario: Arc<Scenario>) -> Setup {
        Setup {
            scenario,
            ..self.clone()
        }
    }

    /// Whether the lock service hands out a number the storage can check: not under a system
    /// with no token (`--as redlock`, `--as kubernetes`), whose runs are unfenced.
    pub fn has_token(&self) -> bool {
        self.system.is_none_or(|system| system.has_token)
    }

    /// The same, with this seed.
    pub fn seed(mut self, seed: u64) -> Setup {
        self.seed = seed;
        self
    }

    /// The same, with fencing on or off at t = 0.
    pub fn fencing(mut self, on: bool) -> Setup {
        self.fencing = on;
        self
    }

    /// The same, with this check.
    pub fn check(mut self, check: FenceCheck) -> Setup {
        self.check = check;
        self
    }

    /// The same, on another implementation.
    pub fn backend(mut self, backend: BackendFactory) -> Setup {
        self.backend = backend;
        self
    }

    /// The same, on a student's implementation, named as the reports name it (its folder).
    pub fn student(mut self, backend: BackendFactory, name: impl Into<String>) -> Setup {
        self.backend = backend;
        self.implemented_by = Some(name.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::systems::find;

    fn built_in(name: &str) -> Arc<Scenario> {
        Arc::new(Scenario::built_in(name).unwrap())
    }

    /// The first grant's number: the scenario's, or under a system that numbers every change
    /// the one after the number its store made first; a student's code numbers its own.
    #[test]
    fn the_first_token_is_the_scenarios_or_the_systems() {
        let mut scenario = Scenario::built_in("gc-pause").unwrap();
        scenario.first_token = 40;
        let setup = Setup::new(Arc::new(scenario));
        assert_eq!(setup.first_token(), 40);
        assert_eq!(
            setup.clone().as_system(find("etcd").unwrap()).first_token(),
            41
        );
        assert_eq!(
            setup
                .clone()
                .as_system(find("hazelcast").unwrap())
                .first_token(),
            40
        );
        let student = setup.student(crate::sim::backend::built_in(), "labs/ada");
        assert_eq!(student.first_token(), 40);
    }

    #[test]
    fn another_scenario_keeps_every_setting_of_the_run() {
        let setup = Setup::new(built_in("gc-pause"))
            .seed(11)
            .check(FenceCheck::Strict)
            .student(crate::sim::backend::built_in(), "labs/ada");
        let next = setup.with_scenario(built_in("chaos"));
        assert_eq!(next.scenario.name, "chaos");
        assert_eq!(
            (next.seed, next.fencing, next.check),
            (11, true, FenceCheck::Strict)
        );
        assert_eq!(next.implemented_by.as_deref(), Some("labs/ada"));

        let redlock = Setup::new(built_in("gc-pause")).as_system(find("redlock").unwrap());
        let next = redlock.with_scenario(built_in("renew"));
        assert_eq!(next.system.map(|s| s.id), Some("redlock"));
        assert!(!next.fencing && !next.has_token());
        let etcd = Setup::new(built_in("renew")).as_system(find("etcd").unwrap());
        assert!(etcd.has_token() && Setup::new(built_in("renew")).has_token());
    }
}
