//! The chaos run's autonomous clients: each job's next step, carried out.

use super::World;
use crate::sim::chaos::Step;
use crate::sim::event::LockId;
use crate::sim::time::Ms;

impl World {
    pub(super) fn step_job(&mut self, i: usize) {
        let local = self.clients[i].local_time(self.now);
        let lock = LockId::FIRST;
        let believes_live = self.clients[i]
            .believed_left(lock, self.now)
            .is_some_and(|left| left > 0);
        let job = self.clients[i].job;
        let Some(driver) = self.chaos.as_mut() else {
            return;
        };
        match driver.on_due(job, believes_live) {
            Step::Acquire => {
                let granted = self.try_acquire(i, lock);
                let driver = self.chaos.as_mut().expect("a chaos run has a driver");
                self.clients[i].job = driver.after_acquire(granted, local);
            }
            Step::Stall { ms, then } => {
                self.clients[i].job = then;
                self.pause(i, ms);
            }
            Step::Finish { keys } => {
                let client = &mut self.clients[i];
                client.jobs_done += 1;
                let value = format!("{} job {}", client.id, client.jobs_done);
                let token = client.belief(lock).map(|b| b.token);
                if let Some(token) = token {
                    for key in keys {
                        self.send_write(i, lock, key, value.clone(), token, None);
                    }
                    self.release(i, lock, token);
                }
                self.think(i, local);
            }
            Step::GiveUp => {
                self.clients[i].forget(lock);
                self.think(i, local);
            }
        }
    }

    pub(super) fn think(&mut self, i: usize, local: Ms) {
        if let Some(driver) = self.chaos.as_mut() {
            self.clients[i].job = driver.think(local);
        }
    }
}
