//! A run as the UI holds it: scenario, seed and every outside input, so any moment can be
//! rebuilt exactly. Travelling back replays from t = 0, which keeps one source of truth.

use std::sync::Arc;

use super::world::World;
use super::{ClientId, Ms, Scenario};
use crate::FenceCheck;

/// Something from outside the script, at a time: part of the run's history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Input {
    pub at: Ms,
    pub kind: InputKind,
}

/// What the user did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// Freeze a client in a GC pause.
    Pause { client: ClientId },
    /// Crash a client; it restarts later and must acquire again.
    Crash { client: ClientId },
    /// Turn fencing on or off from now on.
    Fencing { on: bool },
    /// Use this check while fencing is on.
    Check(FenceCheck),
}

/// A scenario being played, with its history of inputs.
pub struct Session {
    scenario: Arc<Scenario>,
    seed: u64,
    fencing: bool,
    check: FenceCheck,
    inputs: Vec<Input>,
    world: World,
}

impl Session {
    /// A session at t = 0.
    pub fn new(scenario: Arc<Scenario>, seed: u64, fencing: bool, check: FenceCheck) -> Session {
        Session::with_inputs(scenario, seed, fencing, check, Vec::new())
    }

    /// A session that will replay `inputs` as it advances.
    pub fn with_inputs(
        scenario: Arc<Scenario>,
        seed: u64,
        fencing: bool,
        check: FenceCheck,
        mut inputs: Vec<Input>,
    ) -> Session {
        inputs.sort_by_key(|i| i.at);
        let world = World::new(scenario.clone(), seed, fencing, check, &inputs, true);
        Session {
            scenario,
            seed,
            fencing,
            check,
            inputs,
            world,
        }
    }

    /// The world at t = 0 of this session's scenario, seed, settings and inputs.
    fn world_at_start(&self) -> World {
        World::new(
            self.scenario.clone(),
            self.seed,
            self.fencing,
            self.check,
            &self.inputs,
            true,
        )
    }

    /// The world at the current moment.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The scenario.
    pub fn scenario(&self) -> &Arc<Scenario> {
        &self.scenario
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Whether fencing was on at t = 0.
    pub fn fencing_at_start(&self) -> bool {
        self.fencing
    }

    /// The check at t = 0.
    pub fn check_at_start(&self) -> FenceCheck {
        self.check
    }

    /// Every outside input so far, in time order.
    pub fn inputs(&self) -> &[Input] {
        &self.inputs
    }

    /// The current moment.
    pub fn now(&self) -> Ms {
        self.world.now()
    }

    /// Travels to `t`, forward by playing on, back by replaying from t = 0 with the same inputs.
    pub fn seek(&mut self, t: Ms) {
        if t < self.world.now() {
            self.world = self.world_at_start();
        }
        self.world.advance_to(t, &self.inputs);
    }

    /// The next moment something happens after now (an event or a lesson beat).
    pub fn next_moment(&self) -> Option<Ms> {
        self.world.next_due(&self.inputs)
    }

    /// Adds an input at the current moment and applies it. Inputs later in the history (left
    /// there by stepping back) stay, so nothing is lost.
    pub fn inject(&mut self, kind: InputKind) {
        let at = self.world.now();
        let position = self.inputs.partition_point(|i| i.at <= at);
        self.inputs.insert(position, Input { at, kind });
        self.world.apply_due_inputs(&self.inputs);
    }

    /// Starts again from t = 0 with no inputs, keeping the current fencing setting and check.
    pub fn restart(&mut self) {
        self.fencing = self.world.fencing();
        self.check = self.world.fenced_check();
        self.inputs.clear();
        self.world = self.world_at_start();
    }
}
