//! What clients do: a scripted order carried out (or deferred, or dropped), and the lock
//! service's and storage's answers recorded as events, with any difference a student's
//! implementation showed.

use super::{InFlight, LiveLease, World};
use crate::sim::backend::Difference;
use crate::sim::client::{Activity, Belief, Retry};
use crate::sim::event::{ClientId, EventKind, LockId};
use crate::sim::history::{Fate, MarkKind};
use crate::sim::scenario::ClientAction;
use crate::sim::time::{expiry_tick, Ms};
use crate::Outcome;

impl World {
    /// A scripted order to a client: done now, deferred while frozen, dropped while down.
    pub(super) fn order(&mut self, beat: usize, i: usize, action: ClientAction) {
        let client = &mut self.clients[i];
        if client.is_down() {
            self.history.set_fate(beat, Fate::Dropped { at: self.now });
            return;
        }
        // A frozen process does its work when it wakes; a pause or a crash hits it anyway.
        if client.is_paused()
            && !matches!(
                action,
                ClientAction::Pause { .. } | ClientAction::Crash { .. }
            )
        {
            client.deferred.push_back((beat, action));
            self.history.set_fate(beat, Fate::Deferred);
            return;
        }
        let fate = self.perform(i, action);
        self.history.set_fate(beat, fate);
    }

    pub(super) fn perform(&mut self, i: usize, action: ClientAction) -> Fate {
        let done = Fate::Done { at: self.now };
        match action {
            ClientAction::Acquire { lock, retry } => {
                if !self.try_acquire(i, lock) {
                    let local = self.clients[i].local_time(self.now);
                    match retry {
                        Some(interval) => {
                            self.clients[i].retry = Some(Retry {
                                lock,
                                at: local + interval,
                                interval,
                            });
                        }
                        // One ask, refused: it does not wait around.
                        None => {
                            if self.clients[i].activity == Activity::Waiting {
                                self.clients[i].activity = Activity::Idle;
                            }
                        }
                    }
                }
                done
            }
            ClientAction::Renew { lock, token } => match self.token_for(i, lock, token) {
                Some(token) => {
                    self.renew(i, lock, token);
                    done
                }
                None => Fate::NoLease { at: self.now },
            },
            ClientAction::Release { lock, token } => match self.token_for(i, lock, token) {
                Some(token) => {
                    self.release(i, lock, token);
                    done
                }
                None => Fate::NoLease { at: self.now },
            },
            ClientAction::Write {
                lock,
                key,
                value,
                token,
                delay,
            } => match self.token_for(i, lock, token) {
                Some(token) => {
                    self.send_write(i, lock, key, value, token, delay);
                    done
                }
                None => Fate::NoLease { at: self.now },
            },
            ClientAction::Pause { ms } => {
                self.pause(i, ms);
                done
            }
            ClientAction::Crash { down } => {
                self.crash(i, down);
                done
            }
        }
    }

    /// The token a client uses on `lock`: the one a beat names, else the one it believes it holds.
    pub(super) fn token_for(&self, i: usize, lock: LockId, named: Option<u64>) -> Option<u64> {
        named.or_else(|| self.clients[i].belief(lock).map(|b| b.token))
    }

    pub(super) fn try_acquire(&mut self, i: usize, lock: LockId) -> bool {
        let id = self.clients[i].id;
        // The name lent from the setup while the backend acts: two fields, no copy.
        let name = &self.setup.scenario.locks[lock.index()];
        let granted = self.backend.locks.acquire(name, id.name());
        if self.halted() {
            // The implementation stopped answering: its silence is no refusal to tell.
            return false;
        }
        self.tell_differences(id);
        match granted {
            Some(lease) => {
                // A grant on the tick a lease runs out: its expiry is told first.
                let previous_over = self.leases[lock.index()].is_some()
                    && self
                        .service
                        .expiry_at_tick(self.now, self.lease_ticks[lock.index()])
                        <= self.now;
                if previous_over {
                    self.expire(lock);
                }
                self.stats.grants += 1;
                self.leases[lock.index()] = Some(LiveLease {
                    client: id,
                    token: lease.token,
                    granted_at: lease.granted_at,
                    expires_at: lease.expires_at,
                });
                self.lease_ticks[lock.index()] = expiry_tick(lease.expires_at);
                let local = self.clients[i].local_time(self.now);
                let told = self.told_lasting(lock);
                let client = &mut self.clients[i];
                client.beliefs[lock.index()] = Some(Belief {
                    token: lease.token,
                    expires_local: local + told,
                });
                client.activity = Activity::Holding;
                if client.retry.is_some_and(|r| r.lock == lock) {
                    client.retry = None;
                }
                let now = self.now;
                self.history.emit(now, || EventKind::Grant {
                    client: id,
                    lock,
                    token: lease.token,
                    expires_at: lease.expires_at,
                });
                true
            }
            None => {
                let name = &self.setup.scenario.locks[lock.index()];
                let holder = self.backend.locks.holder(name);
                if self.halted() {
                    return false;
                }
                self.tell_differences(id);
                if self.clients[i].activity != Activity::Holding {
                    self.clients[i].activity = Activity::Waiting;
                }
                self.history.mark(i, self.now, MarkKind::Refused);
                self.history.emit(self.now, || EventKind::AcquireRefused {
                    client: id,
                    lock,
                    holder,
                });
                false
            }
        }
    }

    /// How long the lease just granted or renewed on `lock` lasts from now, as the client was
    /// told (its `expires_at` against the service's time): the scenario's lease on this
    /// library, and whatever a student's code gave on theirs.
    fn told_lasting(&self, lock: LockId) -> Ms {
        (self.lease_ticks[lock.index()] - self.service.now()).max(0) as Ms
    }

    pub(super) fn renew(&mut self, i: usize, lock: LockId, token: u64) {
        let id = self.clients[i].id;
        let believed = self.clients[i].belief(lock).map(|b| b.token) == Some(token);
        let name = &self.setup.scenario.locks[lock.index()];
        let result = self.backend.locks.renew(name, id.name(), token);
        if self.halted() {
            return;
        }
        self.tell_differences(id);
        match result {
            Ok(lease) => {
                // The lease as the implementation renewed it: a student's may carry another
                // token than the one sent, and the story tells what it really returned.
                let token = lease.token;
                self.leases[lock.index()] = Some(LiveLease {
                    client: id,
                    token,
                    granted_at: lease.granted_at,
                    expires_at: lease.expires_at,
                });
                self.lease_ticks[lock.index()] = expiry_tick(lease.expires_at);
                if believed {
                    let local = self.clients[i].local_time(self.now);
                    let told = self.told_lasting(lock);
                    self.clients[i].beliefs[lock.index()] = Some(Belief {
                        token,
                        expires_local: local + told,
                    });
                }
                self.history.mark(i, self.now, MarkKind::Renewed);
                self.history.emit(self.now, || EventKind::Renew {
                    client: id,
                    lock,
                    token,
                    expires_at: lease.expires_at,
                });
            }
            Err(reason) => {
                // The refusal is how the client learns its lease is gone.
                if believed {
                    self.clients[i].forget(lock);
                }
                self.history.mark(i, self.now, MarkKind::LeaseRefusal);
                self.history.emit(self.now, || EventKind::RenewRefused {
                    client: id,
                    lock,
                    token,
                    reason,
                });
            }
        }
    }

    pub(super) fn release(&mut self, i: usize, lock: LockId, token: u64) {
        let id = self.clients[i].id;
        let name = &self.setup.scenario.locks[lock.index()];
        let result = self.backend.locks.release(name, id.name(), token);
        if self.halted() {
            return;
        }
        self.tell_differences(id);
        if self.clients[i].belief(lock).map(|b| b.token) == Some(token) {
            self.clients[i].forget(lock);
        }
        match result {
            Ok(()) => {
                if self.lease_is_live(lock, id, token) {
                    self.leases[lock.index()] = None;
                }
                self.history.mark(i, self.now, MarkKind::Released);
                self.history.emit(self.now, || EventKind::Release {
                    client: id,
                    lock,
                    token,
                });
            }
            Err(reason) => {
                self.history.mark(i, self.now, MarkKind::LeaseRefusal);
                self.history.emit(self.now, || EventKind::ReleaseRefused {
                    client: id,
                    lock,
                    token,
                    reason,
                });
            }
        }
    }

    /// A client sends a write with `token`; the network delivers it now, or holds it for `delay`
    /// (a beat's, or one the lecturer injected for this client's next write).
    pub(super) fn send_write(
        &mut self,
        i: usize,
        lock: LockId,
        key: String,
        value: String,
        token: u64,
        delay: Option<Ms>,
    ) {
        let id = self.clients[i].id;
        let lease_live = self.lease_is_live(lock, id, token);
        let injected = delay.is_none() && self.clients[i].delay_next.is_some();
        let delay = delay.or_else(|| self.clients[i].delay_next.take());
        let flight = InFlight {
            deliver_at: self.now + delay.unwrap_or(0),
            sent_at: self.now,
            client: id,
            key,
            value,
            token,
            lease_live,
        };
        if delay.is_none() {
            return self.deliver(flight);
        }
        self.history.mark(i, self.now, MarkKind::Sent);
        let now = self.now;
        self.history.emit(now, || EventKind::Send {
            client: id,
            key: flight.key.clone(),
            token,
            deliver_at: flight.deliver_at,
            injected,
        });
        let at = self
            .in_flight
            .partition_point(|f| f.deliver_at <= flight.deliver_at);
        self.in_flight.insert(at, flight);
    }

    /// A write reaches the storage (and, for the compare view, a storage of every check).
    pub(super) fn deliver(&mut self, flight: InFlight) {
        let InFlight {
            sent_at,
            client,
            key,
            value,
            token,
            lease_live,
            ..
        } = flight;
        for ((storage, stats), last) in self.mirrors.iter_mut().zip(&mut self.mirror_last) {
            let verdict = storage.write(&key, value.as_str(), token);
            stats.count(&verdict, lease_live);
            *last = Some((self.now, client, key.clone(), verdict));
        }
        let verdict = self.backend.storage.write(&key, &value, token);
        if self.halted() {
            return;
        }
        let differed = self.take_differences();
        self.stats.count(&verdict, lease_live);
        if verdict.accepted {
            self.authors.insert(key.clone(), client);
        }
        let now = self.now;
        self.history
            .mark(client.index(), now, MarkKind::of(verdict.outcome()));
        let sent_at = (sent_at != now).then_some(sent_at);
        if verdict.outcome() == Outcome::Corrupted {
            let highest = verdict.key_highest.unwrap_or_default();
            let corruption = EventKind::Corruption {
                client,
                key: key.clone(),
                token,
                highest,
                overwrote_token: verdict.replaced_token,
            };
            self.history.emit(now, || EventKind::Write {
                client,
                key,
                value,
                verdict,
                sent_at,
                lease_live,
            });
            self.history.emit(now, || corruption);
        } else {
            self.history.emit(now, || EventKind::Write {
                client,
                key,
                value,
                verdict,
                sent_at,
                lease_live,
            });
        }
        // Told after the write they are about.
        self.emit_differences(client, differed);
    }

    /// What the implementation has answered otherwise than the seed since last asked.
    pub(super) fn take_differences(&mut self) -> Vec<Difference> {
        let mut found = self
            .backend
            .differences
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut *found)
    }

    /// Tells, as events on `client`'s lane, where the implementation just answered otherwise
    /// than the seed (only a student's ever does).
    pub(super) fn tell_differences(&mut self, client: ClientId) {
        let found = self.take_differences();
        self.emit_differences(client, found);
    }

    pub(super) fn emit_differences(&mut self, client: ClientId, found: Vec<Difference>) {
        if found.is_empty() {
            // This library's every answer, and a student's that agree: nothing to tell.
            return;
        }
        for d in found {
            self.stats.differences += 1;
            self.history
                .mark(client.index(), self.now, MarkKind::Differs);
            self.history.emit(self.now, || EventKind::Differs {
                client: Some(client),
                call: d.call,
                got: d.got,
                seed: d.seed,
                rule: d.rule,
            });
        }
    }
}
