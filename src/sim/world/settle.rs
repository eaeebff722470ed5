//! Settling an instant: everything due at `now` done in one fixed order, pass after pass until
//! nothing more is due; the service's expiries and the storage's switches; the lanes drawn after.

use super::World;
use crate::sim::client::Retry;
use crate::sim::event::{EventKind, LockId};
use crate::sim::history::{Fate, Keep, LaneState};
use crate::sim::input::{Input, InputKind};
use crate::sim::scenario::{BeatAction, CLIENT_COUNT};
use crate::FenceCheck;

impl World {
    /// Does everything due at `now` until nothing more is, in this order each pass:
    ///
    /// 1. the lock service: leases that ran out expire, so everything a client does at this
    ///    instant sees the lock as the service does;
    /// 2. the network: writes it held arrive at the storage;
    /// 3. clients come back: restarts, then wake-ups (a waking client first does what came due
    ///    while it was frozen);
    /// 4. the script's beats;
    /// 5. chaos: the planned crash, then each client's retry timer and job;
    /// 6. one lecturer input, so a live injection and its replay take exactly the same steps.
    pub(super) fn settle(&mut self, inputs: &[Input]) {
        let now = self.now;
        loop {
            if self.halted() {
                // Nothing more happens once the implementation stopped answering.
                return;
            }
            let mut acted = false;
            for lock in 0..self.leases.len() {
                let due = self.leases[lock].is_some()
                    && self.service.expiry_at_tick(now, self.lease_ticks[lock]) <= now;
                if due {
                    self.expire(LockId(lock as u8));
                    acted = true;
                }
            }
            while self.in_flight.first().is_some_and(|f| f.deliver_at <= now) {
                let flight = self.in_flight.remove(0);
                self.deliver(flight);
                acted = true;
            }
            for i in 0..CLIENT_COUNT {
                if self.clients[i].restart_at.is_some_and(|t| t <= now) {
                    self.restart(i);
                    acted = true;
                }
                if self.clients[i].pause.is_some_and(|(_, until)| until <= now) {
                    self.resume(i);
                    acted = true;
                }
            }
            while let Some(beat) = self.scenario().beats.get(self.next_beat) {
                if beat.at > now {
                    break;
                }
                let index = self.next_beat;
                let action = beat.action.clone();
                self.next_beat += 1;
                match action {
                    Some(BeatAction::Client { client, action }) => {
                        self.order(index, client.index(), action)
                    }
                    Some(BeatAction::Fencing { on }) => {
                        self.set_fencing(on);
                        self.history.set_fate(index, Fate::Narrated);
                    }
                    Some(BeatAction::ClockJump { by }) => {
                        self.jump_clock(by);
                        self.history.set_fate(index, Fate::Narrated);
                    }
                    None => self.history.set_fate(index, Fate::Narrated),
                }
                acted = true;
            }
            if let Some((client, down)) = self.chaos.as_mut().and_then(|c| c.take_crash_due(now)) {
                self.crash(client.index(), down);
                acted = true;
            }
            for i in 0..CLIENT_COUNT {
                acted |= self.step_client(i);
            }
            if let Some(input) = inputs.get(self.next_input).filter(|i| i.at <= now) {
                self.next_input += 1;
                self.apply_input(input.kind);
                acted = true;
            }
            if !acted {
                break;
            }
        }
        self.update_lanes();
    }

    /// A running client does what its retry timer or chaos job says is due.
    pub(super) fn step_client(&mut self, i: usize) -> bool {
        let client = &self.clients[i];
        if client.is_paused() || client.is_down() {
            return false;
        }
        let local = client.local_time(self.now);
        let mut acted = false;
        if let Some(retry) = client.retry.filter(|r| r.at <= local) {
            self.clients[i].retry = None;
            if !self.try_acquire(i, retry.lock) {
                self.clients[i].retry = Some(Retry {
                    at: local + retry.interval,
                    ..retry
                });
            }
            acted = true;
        }
        if self.clients[i].job.due().is_some_and(|at| at <= local) {
            self.step_job(i);
            acted = true;
        }
        acted
    }

    pub(super) fn apply_input(&mut self, input: InputKind) {
        match input {
            InputKind::Pause { client } => {
                let ms = self.scenario().injected_pause_ms();
                self.pause(client.index(), ms);
            }
            InputKind::Crash { client } => {
                let down = self.scenario().injected_down_ms();
                self.crash(client.index(), down);
            }
            InputKind::Delay { client } => {
                let ms = self.scenario().injected_delay_ms();
                let client = &mut self.clients[client.index()];
                if !client.is_down() {
                    client.delay_next = Some(ms);
                }
            }
            InputKind::Fencing { on } => self.set_fencing(on),
            InputKind::Check(check) => self.set_check(check),
        }
    }

    pub(super) fn expire(&mut self, lock: LockId) {
        let Some(live) = self.leases[lock.index()].take() else {
            return;
        };
        self.history.emit(self.now, || EventKind::Expire {
            client: live.client,
            lock,
            token: live.token,
        });
    }

    pub(super) fn set_fencing(&mut self, on: bool) {
        if self.fencing == on {
            return;
        }
        let check = if on {
            self.check
        } else {
            FenceCheck::Unchecked
        };
        if !self.backend.storage.set_check(check) {
            return;
        }
        self.fencing = on;
        self.history.emit(self.now, || EventKind::Fencing { on });
    }

    pub(super) fn set_check(&mut self, check: FenceCheck) {
        if self.check == check || check == FenceCheck::Unchecked {
            return;
        }
        if self.fencing && !self.backend.storage.set_check(check) {
            return;
        }
        self.check = check;
        self.history.emit(self.now, || EventKind::Check { check });
    }

    pub(super) fn jump_clock(&mut self, by: i64) {
        self.service.offset += by;
        self.tell_service_the_time();
        let service_now = self.service.now() as f64 / 1000.0;
        self.history
            .emit(self.now, || EventKind::ClockJump { by, service_now });
    }

    pub(super) fn update_lanes(&mut self) {
        // Lanes are drawn only from a history that keeps everything: a chaos summary or a
        // stream spends nothing on them.
        if self.history.keep() != Keep::All {
            return;
        }
        let clients: [(LaneState, Option<u64>); CLIENT_COUNT] = std::array::from_fn(|i| {
            let c = &self.clients[i];
            (self.lane_state(c), c.first_belief().map(|(_, b)| b.token))
        });
        let locks = self.leases.iter().map(|l| l.map(|l| (l.client, l.token)));
        self.history
            .update_lanes(self.now, clients.into_iter(), locks);
    }
}
