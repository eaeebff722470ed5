//! What etcd did that the lesson did not plan, told when it happens: the cluster losing its
//! leader and electing another, a lease living on past the end the lesson planned for it (with
//! etcd's own figures, `lease timetolive`), and what that means for a write the lesson planned
//! as stale: its writer still holds the lock, so fencing has nothing to refuse.

use serde_json::{json, Map, Value};

use super::gateway::int;
use super::observer::Leadership;
use super::play::{Holding, Outlived, Play};
use super::said::{News, Said};
use crate::sim::time::{fmt_seconds, seconds};
use crate::sim::{ClientId, LockId, Ms};

/// How long past its planned end a lease may live before it is told as outliving the plan:
/// etcd ends a lease up to half a second late, and the observer sees it within a tenth.
const LATE: Ms = 1_500;

impl Play<'_> {
    /// Tells a leader lost or a new one elected, against the last reading.
    pub(super) fn leadership(&mut self, now: Leadership) {
        for member in &now.members {
            if !self.members.contains(member) {
                self.members.push(member.clone());
            }
        }
        // A round no member answered says nothing of who leads (etcd's silence is watched
        // apart): "no leader" is told only when members answer without naming one.
        if now.members.is_empty() {
            return;
        }
        let before = self.leader.replace(now.clone());
        // The leader a new one replaces, even across a round in which none led.
        let replaced = match &now.leader {
            Some(_) => self.last_leader.take(),
            None => None,
        };
        if now.leader.is_some() {
            self.last_leader.clone_from(&now.leader);
        }
        let Some(before) = before else {
            return;
        };
        if before.leader == now.leader {
            return;
        }
        let t = (now.at.as_millis() as Ms).max(1);
        // A member that stopped answering is still named by the endpoint it answered on.
        let members = &self.members;
        let name = |id: &String| match members.iter().find(|(m, _)| m == id) {
            Some((_, url)) => format!("member {id} at {url}"),
            None => format!("member {id}"),
        };
        let mut fields = Map::new();
        fields.insert("term".into(), json!(now.term));
        fields.insert("silent".into(), json!(now.silent));
        let old_leader = before.leader.clone().or(replaced);
        fields.insert("old_leader".into(), json!(old_leader));
        fields.insert("leader".into(), json!(now.leader));
        let text = match (&old_leader, &now.leader) {
            (Some(old), None) => format!(
                "etcd has no leader: {} no longer leads{}, and the other members are electing one",
                name(old),
                silent_of(&now)
            ),
            (old, Some(new)) => {
                self.elected_at = Some(t);
                format!(
                    "etcd elected a new leader: {} (raft term {}){}. A new leader renews every \
                     lease when it takes over, so each lease runs its whole TTL again from here",
                    name(new),
                    now.term,
                    old.as_ref().map_or(String::new(), |old| format!(
                        ", in place of {}{}",
                        name(old),
                        if silent_member(&now, members, old) {
                            ", which no longer answers"
                        } else {
                            ""
                        }
                    ))
                )
            }
            (None, None) => return,
        };
        self.news(t, News::LeaderChanged, fields, text);
        if now.leader.is_some() {
            self.check_leases(t, true);
        }
    }

    /// Asks etcd how long each lease still held has left, and tells each that now ends later
    /// than the lesson planned; with `all` every lease held, else only those already past
    /// their planned end by [`LATE`].
    pub(super) fn check_leases(&mut self, t: Ms, all: bool) {
        for i in 0..self.leases.len() {
            let Some(holding) = self.leases[i] else {
                continue;
            };
            let planned = (holding.expires_at * 1000.0).round() as Ms;
            if !all && (t < planned + LATE || self.ttl_asked.contains(&holding.token)) {
                continue;
            }
            self.ttl_asked.push(holding.token);
            self.time_to_live(t, LockId(i as u8), holding, planned);
        }
    }

    fn time_to_live(&mut self, t: Ms, lock: LockId, holding: Holding, planned: Ms) {
        let asked = self.reader.call(
            "/v3/lease/timetolive",
            &json!({ "ID": holding.lease.to_string() }),
        );
        let Ok(answer) = asked else {
            return;
        };
        let left = answer.get("TTL").and_then(int).unwrap_or(-1);
        let granted = answer.get("grantedTTL").and_then(int).unwrap_or(0);
        if left <= 0 {
            return;
        }
        // The TTL left is in whole seconds, cut down (see `Outlived::ends_before`).
        let ends_about = t + left as Ms * 1000;
        if ends_about < planned + LATE {
            return;
        }
        let outlived = Outlived {
            token: holding.token,
            ends_about,
        };
        self.outlived.retain(|o| o.token != holding.token);
        self.outlived.push(outlived);
        let client = holding.client;
        let why = match self.elected_at {
            Some(at) => format!(
                ": etcd's new leader, elected at {} s, renewed it",
                fmt_seconds(at)
            ),
            None => String::new(),
        };
        let text = format!(
            "{client}'s lease on {} (token {}) outlives the plan: etcd gives it {left} s more \
             of its {granted} s TTL (lease timetolive, in whole seconds), so its TTL runs out between \
             {} s and {} s, not at {} s as the lesson planned{why}. {} still holds the lock",
            self.stage.scenario.locks[lock.index()],
            holding.token,
            fmt_seconds(ends_about),
            fmt_seconds(outlived.ends_before()),
            fmt_seconds(planned),
            client.title()
        );
        let mut fields = Map::new();
        fields.insert("client".into(), json!(client.name()));
        fields.insert(
            "lock".into(),
            json!(self.stage.scenario.locks[lock.index()]),
        );
        fields.insert("token".into(), json!(holding.token));
        fields.insert("lease".into(), json!(format!("{:x}", holding.lease)));
        fields.insert("ttl_left".into(), json!(left));
        fields.insert("ttl_granted".into(), json!(granted));
        fields.insert("planned_end".into(), json!(seconds(planned)));
        fields.insert("ends_about".into(), json!(seconds(ends_about)));
        fields.insert("ends_before".into(), json!(seconds(outlived.ends_before())));
        self.news(t, News::LeaseOutlived, fields, text);
    }

    /// After `client`'s write with `token` at `t`: if its lease outlived the plan and the lesson
    /// planned the write after that lease's end, the write is not stale, and fencing has
    /// nothing to refuse. Says so.
    pub(super) fn not_stale(&mut self, client: ClientId, token: u64, t: Ms) {
        let Some(outlived) = self.outlived.iter().find(|o| o.token == token).copied() else {
            return;
        };
        // Held by the lock key etcd still has (read within the last tenth of a second), not
        // by the estimate of its end.
        let held = self
            .leases
            .iter()
            .flatten()
            .any(|h| h.client == client && h.token == token);
        if !held {
            return;
        }
        let text = format!(
            "{client} still holds the lock (etcd still has its lock key, and its lease ends by \
             about {} s): its write is not stale, so fencing has nothing to refuse. The story \
             changed because etcd's did",
            fmt_seconds(outlived.ends_before())
        );
        let mut fields = Map::new();
        fields.insert("client".into(), json!(client.name()));
        fields.insert("token".into(), json!(token));
        fields.insert("ends_before".into(), json!(seconds(outlived.ends_before())));
        self.news(t, News::NotStale, fields, text);
    }

    pub(super) fn news(&mut self, t: Ms, what: News, fields: Map<String, Value>, text: String) {
        (self.say)(Said::News {
            t,
            what,
            fields,
            text,
        });
    }
}

/// Whether member `id` is among the endpoints that did not answer `now`.
fn silent_member(now: &Leadership, members: &[(String, String)], id: &str) -> bool {
    members
        .iter()
        .any(|(m, url)| m == id && now.silent.contains(url))
}

/// ", and http://... does not answer" for the members that were silent.
fn silent_of(now: &Leadership) -> String {
    match now.silent.as_slice() {
        [] => String::new(),
        [one] => format!(" ({one} does not answer)"),
        many => format!(" ({} do not answer)", many.join(", ")),
    }
}
