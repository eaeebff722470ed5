//! What happens to a client: a GC pause and its waking, a crash and its restart.

use super::World;
use crate::sim::client::Activity;
use crate::sim::event::EventKind;
use crate::sim::history::Fate;
use crate::sim::time::Ms;

impl World {
    pub(super) fn pause(&mut self, i: usize, ms: Ms) {
        let now = self.now;
        let client = &mut self.clients[i];
        if client.is_down() {
            return;
        }
        let until = match client.pause {
            Some((since, until)) => {
                let until = until.max(now + ms);
                client.pause = Some((since, until));
                until
            }
            None => {
                client.pause = Some((now, now + ms));
                now + ms
            }
        };
        let id = client.id;
        self.history
            .emit(now, || EventKind::Pause { client: id, until });
    }

    pub(super) fn resume(&mut self, i: usize) {
        let client = &mut self.clients[i];
        let Some((since, until)) = client.pause.take() else {
            return;
        };
        client.lag += until - since;
        let id = client.id;
        self.history
            .emit(self.now, || EventKind::Resume { client: id });
        // It carries on as if no time had passed: first what came due while it was frozen.
        // Only calls to the service and the storage wait (a pause or a crash hits a frozen
        // client at once, see `order`), so none of them freezes or crashes it again.
        while let Some((beat, action)) = self.clients[i].deferred.pop_front() {
            let fate = self.perform(i, action);
            self.history.set_fate(beat, fate);
        }
    }

    pub(super) fn crash(&mut self, i: usize, down: Ms) {
        let now = self.now;
        let client = &mut self.clients[i];
        if client.is_down() {
            return;
        }
        if let Some((since, _)) = client.pause.take() {
            client.lag += now - since;
        }
        let dropped: Vec<usize> = client.deferred.iter().map(|(beat, _)| *beat).collect();
        client.wipe();
        client.activity = Activity::Crashed;
        client.restart_at = Some(now + down);
        let id = client.id;
        for beat in dropped {
            self.history.set_fate(beat, Fate::Dropped { at: now });
        }
        self.history.emit(now, || EventKind::Crash {
            client: id,
            restart_at: now + down,
        });
    }

    pub(super) fn restart(&mut self, i: usize) {
        let now = self.now;
        let client = &mut self.clients[i];
        client.restart_at = None;
        client.activity = Activity::Idle;
        let id = client.id;
        self.history.emit(now, || EventKind::Restart { client: id });
        if let Some(driver) = &mut self.chaos {
            let local = self.clients[i].local_time(now);
            self.clients[i].job = driver.think(local);
        }
    }
}
