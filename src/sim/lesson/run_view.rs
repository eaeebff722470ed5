//! A run as the lesson reads it: the setup, the record and the lecturer's inputs, with the
//! questions a caption asks of them (was a client frozen or down then, did the lecturer do it).

use crate::sim::event::{ClientId, Event, EventKind};
use crate::sim::history::History;
use crate::sim::input::{Input, InputKind};
use crate::sim::scenario::{Scenario, Variant};
use crate::sim::session::Session;
use crate::sim::time::Ms;
use crate::sim::world::Setup;

/// A run as the lesson reads it: what fixed it, its record, and the lecturer's inputs.
#[derive(Clone, Copy)]
pub struct RunView<'a> {
    pub setup: &'a Setup,
    pub history: &'a History,
    pub inputs: &'a [Input],
}

impl<'a> RunView<'a> {
    /// The view of a session.
    pub fn of(session: &'a Session) -> RunView<'a> {
        RunView {
            setup: session.setup(),
            history: session.world().history(),
            inputs: session.inputs(),
        }
    }

    pub(super) fn events(&self) -> &'a [Event] {
        self.history.events()
    }

    pub(super) fn scenario(&self) -> &'a Scenario {
        &self.setup.scenario
    }

    /// Fencing and the check in force at `t`, from the start settings and the events up to `t`.
    pub fn variant_at(&self, t: Ms) -> Variant {
        let mut fencing = self.setup.fencing;
        let mut check = self.setup.check;
        for e in self.events().iter().take_while(|e| e.t <= t) {
            match e.kind {
                EventKind::Fencing { on } => fencing = on,
                EventKind::Check { check: c } => check = c,
                _ => {}
            }
        }
        Variant::of(fencing, check)
    }

    /// When `client` was last frozen until, as of `t` (if it was frozen at `t`), and whether the
    /// lecturer injected that pause.
    pub(super) fn frozen_at(&self, client: ClientId, t: Ms) -> Option<(Ms, bool)> {
        let mut frozen = None;
        for e in self.events().iter().take_while(|e| e.t <= t) {
            match e.kind {
                EventKind::Pause { client: c, until } if c == client => {
                    let injected = self
                        .inputs
                        .iter()
                        .any(|i| i.at == e.t && i.kind == InputKind::Pause { client });
                    frozen = Some((until, injected));
                }
                EventKind::Resume { client: c } | EventKind::Crash { client: c, .. }
                    if c == client =>
                {
                    frozen = None
                }
                _ => {}
            }
        }
        frozen.filter(|(until, _)| *until > t)
    }

    /// When `client` comes back, if it was down at `t`.
    pub(super) fn down_at(&self, client: ClientId, t: Ms) -> Option<Ms> {
        let mut down = None;
        for e in self.events().iter().take_while(|e| e.t <= t) {
            match e.kind {
                EventKind::Crash {
                    client: c,
                    restart_at,
                } if c == client => down = Some(restart_at),
                EventKind::Restart { client: c } if c == client => down = None,
                _ => {}
            }
        }
        down
    }

    pub(super) fn injected(&self, t: Ms, kind: InputKind) -> bool {
        self.inputs.iter().any(|i| i.at == t && i.kind == kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::lesson::tests::played;

    /// crash-restart: client 2 crashes at 2 s for 4 s. It is down from the crash until it
    /// restarts at 6 s, and up again after; client 1 is never down.
    #[test]
    fn a_crashed_client_is_down_until_it_restarts_and_up_after() {
        let session = played("crash-restart", &[]);
        let run = RunView::of(&session);
        let client_2 = ClientId::ALL[1];
        let down: Vec<Option<Ms>> = [1_999, 2_000, 5_999, 6_000, 9_000]
            .into_iter()
            .map(|t| run.down_at(client_2, t))
            .collect();
        assert_eq!(down, [None, Some(6_000), Some(6_000), None, None]);
        assert_eq!(run.down_at(ClientId::ALL[0], 3_000), None);
    }
}
