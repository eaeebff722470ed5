//! A run as the UI holds it: the setup and every lecturer input, so any moment can be rebuilt
//! exactly. Travelling back replays from t = 0, which keeps one source of truth.

use std::sync::Arc;

use super::history::Keep;
use super::input::{Input, InputKind};
use super::scenario::Scenario;
use super::time::Ms;
use super::world::{Setup, World};
use crate::FenceCheck;

/// A scenario being played, with its history of inputs.
pub struct Session {
    setup: Setup,
    inputs: Vec<Input>,
    world: World,
}

impl Session {
    /// A session at t = 0.
    pub fn new(setup: Setup) -> Session {
        Session::with_inputs(setup, Vec::new())
    }

    /// A session that will replay `inputs` as it advances.
    pub fn with_inputs(setup: Setup, mut inputs: Vec<Input>) -> Session {
        inputs.sort_by_key(|i| i.at);
        let world = World::new(&setup, &inputs, Keep::All);
        Session {
            setup,
            inputs,
            world,
        }
    }

    /// A session of `setup` played to `t`.
    pub fn played_to(setup: Setup, t: Ms) -> Session {
        let mut session = Session::new(setup);
        session.seek(t);
        session
    }

    /// A session of `setup` with `inputs`, played to `t`.
    pub fn played_to_with(setup: Setup, inputs: Vec<Input>, t: Ms) -> Session {
        let mut session = Session::with_inputs(setup, inputs);
        session.seek(t);
        session
    }

    /// The world at the current moment.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// What fixes the run (at t = 0).
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// The scenario.
    pub fn scenario(&self) -> &Arc<Scenario> {
        &self.setup.scenario
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.setup.seed
    }

    /// Whether fencing was on at t = 0.
    pub fn fencing_at_start(&self) -> bool {
        self.setup.fencing
    }

    /// The check at t = 0.
    pub fn check_at_start(&self) -> FenceCheck {
        self.setup.check
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
            self.world = World::new(&self.setup, &self.inputs, Keep::All);
        }
        self.world.advance_to(t, &self.inputs);
    }

    /// Travels to `t` with what is due at `t` not yet done ([`World::approach`]): where a
    /// question about that moment is asked.
    pub fn approach(&mut self, t: Ms) {
        if t <= self.world.now() {
            self.world = World::new(&self.setup, &self.inputs, Keep::All);
        }
        self.world.approach(t, &self.inputs);
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
        self.setup.fencing = self.world.fencing();
        self.setup.check = self.world.fenced_check();
        self.inputs.clear();
        self.world = World::new(&self.setup, &self.inputs, Keep::All);
    }
}
