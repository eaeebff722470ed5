//! What the client processes answer, told as the lesson's events: the grant with etcd's
//! revision as the token, refusals with who holds the lock by etcd, and each write with the
//! verdict etcd's transaction reached and the value read back from etcd after it.

use serde_json::{json, Map};

use super::ops;
use super::orders::Reply;
use super::play::{Holding, InFlight, Play};
use super::said::{Fault, Said, Side};
use crate::sim::board::StoredRow;
use crate::sim::time::{fmt_seconds, seconds};
use crate::sim::{ClientId, EventKind, LockId, Refusal};
use crate::{FenceCheck, Judge, LeaseError, Outcome, Verdict};

impl Play<'_> {
    fn lock_id(&self, name: &str) -> Result<LockId, Fault> {
        self.stage.scenario.lock_id(name).ok_or_else(|| {
            Fault(format!(
                "a client answered about a lock '{name}' the lesson does not have"
            ))
        })
    }

    /// One reply of `client`'s running process.
    pub(super) fn reply(&mut self, client: ClientId, reply: Reply) -> Result<(), Fault> {
        let note = |text: String| Some(text);
        let said = match reply {
            Reply::Ready { .. } => None,
            Reply::Granted {
                lock,
                token,
                lease,
                ttl,
            } => return self.granted(client, &lock, token, lease, ttl),
            Reply::Refused {
                lock,
                holder,
                token,
            } => return self.refused(client, &lock, &holder, token),
            Reply::Renewed { lock, token, ttl } => return self.renewed(client, &lock, token, ttl),
            Reply::RenewRefused {
                lock,
                token,
                holder,
            } => return self.lease_refused(client, &lock, token, holder, true),
            Reply::Releasing { lock, .. } => {
                let id = self.lock_id(&lock)?;
                self.releasing.push((client, id));
                None
            }
            Reply::Released { lock, token, lease } => {
                return self.released(client, &lock, token, lease)
            }
            Reply::ReleaseRefused {
                lock,
                token,
                holder,
            } => return self.lease_refused(client, &lock, token, holder, false),
            Reply::NoLease { lock, what } => {
                if let Ok(id) = self.lock_id(&lock) {
                    self.releasing.retain(|r| *r != (client, id));
                }
                note(format!(
                    "{client} believes it holds no lease on {lock}, so there is no {what}"
                ))
            }
            Reply::Sent {
                key,
                token,
                delay_ms,
            } => {
                self.sent(client, key, token, delay_ms);
                None
            }
            Reply::Wrote {
                key,
                value,
                token,
                fenced,
                accepted,
                key_highest,
                replaced,
                revision,
                delayed,
            } => {
                let check = if fenced {
                    FenceCheck::PerKey
                } else {
                    FenceCheck::Unchecked
                };
                let verdict = Verdict {
                    judge: Judge::Check(check),
                    token,
                    key_highest,
                    any_highest: None,
                    accepted,
                    replaced_token: replaced.as_ref().map(|(_, t)| *t),
                };
                return self.wrote(client, key, value, verdict, revision, delayed);
            }
            Reply::Stall { ms } => return self.pause(client, ms),
            Reply::GaveUp { lock, token } => note(format!(
                "{client}'s own clock says its lease with token {token} on {lock} ran out: it gives the job up"
            )),
            Reply::Moved { endpoint, why } => {
                let mut fields = serde_json::Map::new();
                fields.insert("client".into(), json!(client.name()));
                fields.insert("endpoint".into(), json!(endpoint));
                fields.insert("why".into(), json!(why));
                let text = format!("{client} now speaks to etcd at {endpoint} ({why})");
                let t = self.now();
                self.news(t, super::said::News::EndpointChanged, fields, text);
                None
            }
            Reply::Failed { doing, error } => {
                return Err(Fault(format!("{client} failed {doing}: {error}")));
            }
        };
        if let Some(text) = said {
            let t = self.now();
            (self.say)(Said::Note { t, text });
        }
        Ok(())
    }

    fn refused(
        &mut self,
        client: ClientId,
        lock: &str,
        holder: &str,
        token: u64,
    ) -> Result<(), Fault> {
        let id = self.lock_id(lock)?;
        let kind = EventKind::AcquireRefused {
            client,
            lock: id,
            holder: ClientId::from_name(holder),
        };
        let etcd = format!(
            "the transaction's compare create_revision(lock/{lock}) == 0 failed: {holder} \
             created it at revision {token}"
        );
        let mut extra = Map::new();
        extra.insert("holder_token".into(), json!(token));
        let now = self.now();
        self.emit(now, kind, extra, Some(Side::Etcd(etcd)));
        self.retry_later(client, id);
        Ok(())
    }

    fn renewed(&mut self, client: ClientId, lock: &str, token: u64, ttl: i64) -> Result<(), Fault> {
        let id = self.lock_id(lock)?;
        let now = self.now();
        let expires_at = seconds(now) + ttl as f64;
        let mut lease = 0;
        if let Some(h) = self.leases[id.index()].as_mut() {
            if h.client == client && h.token == token {
                h.expires_at = expires_at;
                lease = h.lease;
            }
        }
        // Renewed by its holder, the lease's end is the lesson's own again, not etcd's.
        self.outlived.retain(|o| o.token != token);
        let kind = EventKind::Renew {
            client,
            lock: id,
            token,
            expires_at,
        };
        let etcd = format!("keep-alive of lease {lease:x}: TTL {ttl} s again");
        let mut extra = Map::new();
        extra.insert("ttl".into(), json!(ttl));
        self.emit(now, kind, extra, Some(Side::Etcd(etcd)));
        Ok(())
    }

    /// A renew (keep-alive) or release (revoke) of a lease etcd no longer has.
    fn lease_refused(
        &mut self,
        client: ClientId,
        lock: &str,
        token: u64,
        holder: Option<String>,
        renew: bool,
    ) -> Result<(), Fault> {
        let id = self.lock_id(lock)?;
        let reason = self.refusal(client, lock, token, holder.as_deref());
        let held = held_now(lock, holder.as_deref());
        let (kind, etcd) = if renew {
            let kind = EventKind::RenewRefused {
                client,
                lock: id,
                token,
                reason,
            };
            (
                kind,
                format!("keep-alive: etcd has no such lease any more (TTL 0); {held}"),
            )
        } else {
            self.releasing.retain(|r| *r != (client, id));
            let kind = EventKind::ReleaseRefused {
                client,
                lock: id,
                token,
                reason,
            };
            (
                kind,
                format!("revoke: etcd has no such lease any more; {held}"),
            )
        };
        let now = self.now();
        self.emit(now, kind, Map::new(), Some(Side::Etcd(etcd)));
        Ok(())
    }

    /// A write the client holds back: the network delay.
    fn sent(&mut self, client: ClientId, key: String, token: u64, delay_ms: u64) {
        let now = self.now();
        let lease_live = self.holds(client, token);
        self.sends.push(InFlight {
            client,
            key: key.clone(),
            token,
            sent_at: now,
            lease_live,
        });
        let held = format!(
            "{client}'s process holds its request for {} s before it sends it to etcd (the \
             lesson's network delay)",
            fmt_seconds(delay_ms)
        );
        let kind = EventKind::Send {
            client,
            key,
            token,
            deliver_at: now + delay_ms,
            // The live lesson's delays are its script's: no one presses a key in it.
            injected: false,
        };
        self.emit(now, kind, Map::new(), Some(Side::Client(held)));
    }

    /// Whether `client`'s lease with `token` is live by etcd, as the run last saw it.
    fn holds(&self, client: ClientId, token: u64) -> bool {
        self.leases
            .iter()
            .flatten()
            .any(|h| h.client == client && h.token == token)
    }

    fn granted(
        &mut self,
        client: ClientId,
        lock: &str,
        token: u64,
        lease: i64,
        ttl: i64,
    ) -> Result<(), Fault> {
        let id = self.lock_id(lock)?;
        let now = self.now();
        // The lease before it ended (its key is gone, or this grant could not be): told first.
        // (A lease whose release is on its way is not told as expired: its release follows.)
        if let Some(old) = self.leases[id.index()] {
            let releasing = self.releasing.contains(&(old.client, id));
            if old.token != token && !releasing {
                self.expired(id, old, now);
            }
        }
        let expires_at = seconds(now) + ttl as f64;
        self.leases[id.index()] = Some(Holding {
            client,
            token,
            lease,
            expires_at,
        });
        if self.retry[client.index()].is_some_and(|(l, _)| l == id) {
            self.retry[client.index()] = None;
        }
        let key = self.stage.layout.lock(lock);
        let etcd = format!(
            "lease {lease:x} granted with TTL {ttl} s; lock/{lock} created with it at revision {token}: the token"
        );
        let mut extra = Map::new();
        extra.insert("lease".into(), json!(format!("{lease:x}")));
        extra.insert("ttl".into(), json!(ttl));
        extra.insert("key".into(), json!(key));
        let txn = ops::acquire_txn(&self.stage.layout, lock, client.name(), lease);
        extra.insert("etcdctl".into(), json!(txn.etcdctl(&self.stage.endpoints)));
        let kind = EventKind::Grant {
            client,
            lock: id,
            token,
            expires_at,
        };
        self.emit(now, kind, extra, Some(Side::Etcd(etcd)));
        Ok(())
    }

    fn released(
        &mut self,
        client: ClientId,
        lock: &str,
        token: u64,
        lease: i64,
    ) -> Result<(), Fault> {
        let id = self.lock_id(lock)?;
        let now = self.now();
        self.releasing.retain(|r| *r != (client, id));
        if let Some(h) = self.leases[id.index()] {
            if h.client == client && h.token == token {
                self.leases[id.index()] = None;
            }
        }
        let etcd = format!("lease {lease:x} revoked; etcd deleted lock/{lock} with it");
        let kind = EventKind::Release {
            client,
            lock: id,
            token,
        };
        self.emit(now, kind, Map::new(), Some(Side::Etcd(etcd)));
        Ok(())
    }

    /// Why etcd refused a renew or release of `token`, from what it showed: another client
    /// holds the lock, or the lease ran out (when the run saw it end), or neither.
    fn refusal(&self, client: ClientId, lock: &str, token: u64, holder: Option<&str>) -> Refusal {
        let (lock, client_id) = (lock.to_owned(), client.name().to_owned());
        let ended = self
            .ended
            .iter()
            .find(|(t, _)| *t == token)
            .map(|(_, at)| *at);
        Refusal::Lease(match (holder, ended) {
            (Some(holder), _) if holder != client.name() => LeaseError::HeldByOther {
                lock,
                client_id,
                holder: holder.to_owned(),
            },
            (_, Some(at)) => LeaseError::Expired {
                lock,
                client_id,
                token,
                expired_at: seconds(at),
            },
            _ => LeaseError::NotHeld { lock, client_id },
        })
    }

    /// A write as etcd decided it; then what etcd holds, read back.
    fn wrote(
        &mut self,
        client: ClientId,
        key: String,
        value: String,
        verdict: Verdict,
        revision: u64,
        delayed: bool,
    ) -> Result<(), Fault> {
        let now = self.now();
        // The verdict printed is etcd's; it must also be what the numbers etcd returned say.
        let explained = match verdict.judge {
            Judge::Check(check) => check.admits(verdict.token, verdict.key_highest, None),
            Judge::External => false,
        };
        if explained != verdict.accepted {
            return Err(Fault(format!(
                "etcd's transaction {} {client}'s write with token {} to {key} although the \
                 highest token it returned is {:?}: the lesson stops rather than print a verdict \
                 it cannot explain",
                if verdict.accepted {
                    "accepted"
                } else {
                    "refused"
                },
                verdict.token,
                verdict.key_highest
            )));
        }
        let flight = if delayed {
            let i = self
                .sends
                .iter()
                .position(|f| f.client == client && f.key == key && f.token == verdict.token);
            i.map(|i| self.sends.remove(i))
        } else {
            None
        };
        let lease_live = match &flight {
            Some(f) => f.lease_live,
            None => self.holds(client, verdict.token),
        };
        let rows = ops::storage(&mut self.reader, &self.stage.layout)
            .map_err(|e| Fault(format!("reading the storage back from etcd failed: {e}")))?;
        let rows: Vec<StoredRow> = rows
            .into_iter()
            .map(|s| StoredRow {
                key: s.key,
                value: s.value.unwrap_or_default(),
                highest: s.highest,
                by: s
                    .writer
                    .and_then(|(c, t)| ClientId::from_name(&c).map(|c| (c, t))),
            })
            .collect();
        let row = rows.iter().find(|r| r.key == key).cloned();
        (self.say)(Said::Storage(rows));
        let etcd = write_sentence(&format!("highest/{key}"), &verdict, revision, row.as_ref());
        let fenced = verdict.judge != Judge::Check(FenceCheck::Unchecked);
        let txn = ops::write_txn(
            &self.stage.layout,
            &key,
            &value,
            verdict.token,
            client.name(),
            fenced,
        );
        let mut extra = Map::new();
        extra.insert("etcdctl".into(), json!(txn.etcdctl(&self.stage.endpoints)));
        extra.insert("revision".into(), json!(revision));
        extra.insert(
            "read_back".into(),
            json!(row.as_ref().map(|r| r.value.clone())),
        );
        let kind = EventKind::Write {
            client,
            key: key.clone(),
            value,
            verdict,
            sent_at: flight.map(|f| f.sent_at),
            lease_live,
        };
        self.emit(now, kind, extra, Some(Side::Etcd(etcd)));
        self.not_stale(client, verdict.token, now);
        if verdict.outcome() == Outcome::Corrupted {
            let kind = EventKind::Corruption {
                client,
                key,
                token: verdict.token,
                highest: verdict.key_highest.unwrap_or(0),
                overwrote_token: verdict.replaced_token,
            };
            self.emit(now, kind, Map::new(), None);
        }
        Ok(())
    }
}

/// Who holds `lock` now by etcd's lock key, for a refusal's sentence.
fn held_now(lock: &str, holder: Option<&str>) -> String {
    match holder {
        Some(holder) => format!("lock/{lock} is {holder}'s now"),
        None => format!("lock/{lock} does not exist"),
    }
}

/// etcd's side of a write, for the transcript.
fn write_sentence(
    highest_key: &str,
    verdict: &Verdict,
    revision: u64,
    row: Option<&StoredRow>,
) -> String {
    let token = verdict.token;
    let how = match (verdict.judge, verdict.accepted, verdict.key_highest) {
        (Judge::Check(FenceCheck::Unchecked), _, highest) => {
            let kept = match highest {
                Some(h) if h > token => format!("left {highest_key} at {h}"),
                Some(h) => format!("set {highest_key} from {h} to {token}"),
                None => format!("set {highest_key} to {token}"),
            };
            format!(
                "no check: one transaction put the value at revision {revision} whichever way its \
                 compare went; the compare only {kept}, for the lesson's count of stale writes"
            )
        }
        (_, false, Some(h)) => format!(
            "one transaction: {highest_key} holds {h} > {token}, so it put nothing (etcd's \
             revision stays {revision})"
        ),
        (_, true, Some(h)) => format!(
            "one transaction: {highest_key} held {h} <= {token}, so it put the value at revision \
             {revision}"
        ),
        (_, _, None) => format!(
            "one transaction: {highest_key} did not exist, so it put the value at revision {revision}"
        ),
    };
    let back = match row {
        Some(row) => {
            let by = row.by.map_or(String::new(), |(c, t)| {
                format!(", written by {c} with token {t}")
            });
            format!(
                "read back: \"{}\"{by}",
                crate::sim::text::printable(&row.value)
            )
        }
        None => "read back: nothing".to_owned(),
    };
    format!("{how}; {back}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etcd_s_side_of_a_write_names_the_compare_it_made() {
        let refused = Verdict {
            accepted: false,
            ..Verdict::judge(FenceCheck::PerKey, 8, Some(11), None)
        };
        let row = StoredRow {
            key: "file".into(),
            value: "client 2's data".into(),
            highest: Some(11),
            by: Some((ClientId::ALL[1], 11)),
        };
        assert_eq!(
            write_sentence("p/highest/file", &refused, 14, Some(&row)),
            "one transaction: p/highest/file holds 11 > 8, so it put nothing (etcd's revision \
             stays 14); read back: \"client 2's data\", written by client-2 with token 11"
        );
        let fresh = Verdict::judge(FenceCheck::PerKey, 11, None, None);
        assert!(
            write_sentence("h", &fresh, 12, None).starts_with("one transaction: h did not exist")
        );
        let plain = Verdict::judge(FenceCheck::Unchecked, 8, Some(11), None);
        assert!(write_sentence("h", &plain, 15, None).starts_with(
            "no check: one transaction put the value at revision 15 whichever way its compare \
             went; the compare only left h at 11,"
        ));
        let raised = Verdict::judge(FenceCheck::Unchecked, 12, Some(11), None);
        assert!(write_sentence("h", &raised, 16, None).contains("only set h from 11 to 12,"));
    }
}
