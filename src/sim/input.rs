//! What the lecturer does, at a time: the inputs that, with the scenario and the seed, make a run.

use super::event::ClientId;
use super::time::Ms;
use crate::FenceCheck;

/// Something from outside the script, at a time: part of the run's history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Input {
    /// When, in simulated ms.
    pub at: Ms,
    /// What.
    pub kind: InputKind,
}

/// What the user did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// Freeze a client in a GC pause.
    Pause { client: ClientId },
    /// Crash a client; it restarts later and must acquire again.
    Crash { client: ClientId },
    /// The network holds the client's next write for a while.
    Delay { client: ClientId },
    /// Turn fencing on or off from now on.
    Fencing { on: bool },
    /// Use this check while fencing is on.
    Check(FenceCheck),
}
