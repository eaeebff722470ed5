//! The conductor's eye on etcd: a thread that reads the run's lock keys every
//! [`EVERY`], on a connection of its own, so a lease that etcd ended (its lock key deleted
//! when the TTL ran out) is seen within a tenth of a second, and a slow answer (an election)
//! never holds up the lesson's clock. And a second thread that asks every member for its status
//! every [`LEADER_EVERY`], so a change of the cluster's leader is told when it happens.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use super::gateway::{uint, Etcd, EtcdError};
use super::http::Url;
use super::keys::Layout;
use super::ops::{self, Kv};
use crate::sim::base64;

/// How often the lock keys are read.
pub const EVERY: Duration = Duration::from_millis(100);

/// How often every member is asked who leads.
pub const LEADER_EVERY: Duration = Duration::from_millis(250);
/// How long a member may take to say who leads.
const STATUS_TIMEOUT: Duration = Duration::from_millis(400);

/// Who leads the cluster, by the members that answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leadership {
    /// When the answers came, since the lesson's start.
    pub at: Duration,
    /// The leader's member id (hex), if a member that answered names one.
    pub leader: Option<String>,
    /// The highest raft term a member gave.
    pub term: u64,
    /// The endpoints that did not answer.
    pub silent: Vec<String>,
    /// Each member that answered: its id (hex) and endpoint.
    pub members: Vec<(String, String)>,
}

/// A thread that sends a reading every so often, until it is dropped or a reading is its last.
pub struct Poller<T> {
    stop: Arc<AtomicBool>,
    pub rx: Receiver<T>,
}

impl<T: Send + 'static> Poller<T> {
    /// Sends `read()` every `every`; stops after a reading `last` says is the last.
    fn spawn(
        every: Duration,
        mut read: impl FnMut() -> T + Send + 'static,
        last: fn(&T) -> bool,
    ) -> Poller<T> {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let stopping = Arc::clone(&stop);
        std::thread::spawn(move || {
            while !stopping.load(Ordering::SeqCst) {
                let reading = read();
                let ends = last(&reading);
                if tx.send(reading).is_err() || ends {
                    return;
                }
                std::thread::sleep(every);
            }
        });
        Poller { stop, rx }
    }
}

impl<T> Drop for Poller<T> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// The thread that asks the members who leads.
pub type Leaders = Poller<Leadership>;

impl Leaders {
    /// Starts asking each of `urls` for its status, with times since `start`.
    pub fn start(urls: &[Url], start: Instant) -> Leaders {
        let mut members: Vec<(String, Etcd)> = urls
            .iter()
            .map(|u| {
                let etcd = Etcd::new(std::slice::from_ref(u), STATUS_TIMEOUT, STATUS_TIMEOUT);
                (u.to_string(), etcd)
            })
            .collect();
        Poller::spawn(
            LEADER_EVERY,
            move || leadership(&mut members, start),
            |_| false,
        )
    }
}

/// One round of `maintenance/status` on every member.
fn leadership(members: &mut [(String, Etcd)], start: Instant) -> Leadership {
    let mut answers = Vec::new();
    let mut silent = Vec::new();
    for (url, etcd) in members.iter_mut() {
        match etcd.call("/v3/maintenance/status", &json!({})) {
            Ok(status) => answers.push((url.clone(), status)),
            Err(_) => silent.push(url.clone()),
        }
    }
    leadership_of(&answers, silent, start.elapsed())
}

/// Who leads by `answers` (endpoint, status): the leader the members in the highest term name.
pub fn leadership_of(
    answers: &[(String, serde_json::Value)],
    silent: Vec<String>,
    at: Duration,
) -> Leadership {
    let id = |v: &serde_json::Value| uint(v).filter(|&n| n != 0);
    let term = answers
        .iter()
        .filter_map(|(_, s)| id(&s["raftTerm"]))
        .max()
        .unwrap_or(0);
    let leader = answers
        .iter()
        .filter(|(_, s)| id(&s["raftTerm"]) == Some(term))
        .find_map(|(_, s)| id(&s["leader"]))
        .map(|leader| format!("{leader:x}"));
    let members = answers
        .iter()
        .filter_map(|(url, s)| Some((format!("{:x}", id(&s["header"]["member_id"])?), url.clone())))
        .collect();
    Leadership {
        at,
        leader,
        term,
        silent,
        members,
    }
}

/// One reading of the lock keys.
#[derive(Debug)]
pub struct Seen {
    /// When the answer came, since the lesson's start.
    pub at: Duration,
    /// etcd's store revision at the reading: a reading older than a grant says nothing of it.
    pub revision: u64,
    /// Each lock key that exists: (lock name, key).
    pub locks: Vec<(String, Kv)>,
}

/// The thread that reads the lock keys; it stops after etcd fails it.
pub type Observer = Poller<Result<Seen, EtcdError>>;

impl Observer {
    /// Starts reading the lock keys of `layout` on `urls`, with times since `start`.
    pub fn start(
        urls: &[Url],
        layout: &Layout,
        start: Instant,
        timeout: Duration,
        patience: Duration,
    ) -> Observer {
        let mut etcd = Etcd::new(urls, timeout, patience);
        let layout = layout.clone();
        Poller::spawn(
            EVERY,
            move || read(&mut etcd, &layout, start),
            Result::is_err,
        )
    }
}

fn read(etcd: &mut Etcd, layout: &Layout, start: Instant) -> Result<Seen, EtcdError> {
    let (key, end) = layout.locks();
    // One range: the keys and the revision they were read at.
    let answer = etcd.call(
        "/v3/kv/range",
        &json!({"key": base64::encode(key.as_bytes()), "range_end": base64::encode(end.as_bytes())}),
    )?;
    let revision = ops::revision(&answer);
    let locks = ops::kvs(&answer)?
        .into_iter()
        .map(|kv| (kv.key[key.len()..].to_owned(), kv))
        .collect();
    Ok(Seen {
        at: start.elapsed(),
        revision,
        locks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A member's answer to `maintenance/status`, as the gateway writes one (ids as strings of
    /// digits: a member id may pass i64's range).
    fn status(member: u64, leader: u64, term: u64) -> serde_json::Value {
        json!({
            "header": {"member_id": member.to_string(), "raft_term": term.to_string()},
            "leader": leader.to_string(),
            "raftTerm": term.to_string(),
        })
    }

    /// The leader is the one members of the highest term name: a member still in an old term
    /// (cut off, or not yet told) is not believed; a term where none is named has no leader.
    #[test]
    fn the_leader_is_the_one_the_newest_term_names() {
        let (a, b, c) = (0xaa, u64::MAX - 1, 0xcc);
        let answers = vec![
            ("http://a".to_owned(), status(a, a, 2)),
            ("http://b".to_owned(), status(b, c, 3)),
            ("http://c".to_owned(), status(c, c, 3)),
        ];
        let told = leadership_of(&answers, vec!["http://d".into()], Duration::from_secs(6));
        assert_eq!(told.leader.as_deref(), Some("cc"));
        assert_eq!(told.term, 3);
        assert_eq!(told.silent, ["http://d"]);
        assert_eq!(
            told.members,
            [
                ("aa".to_owned(), "http://a".to_owned()),
                (format!("{b:x}"), "http://b".to_owned()),
                ("cc".to_owned(), "http://c".to_owned()),
            ]
        );
        let electing = vec![
            ("http://a".to_owned(), status(a, a, 2)),
            ("http://b".to_owned(), status(b, 0, 4)),
        ];
        let told = leadership_of(&electing, vec![], Duration::ZERO);
        assert_eq!((told.leader, told.term), (None, 4));
        let none = leadership_of(&[], vec!["http://a".into()], Duration::ZERO);
        assert_eq!((none.leader, none.term, none.members.len()), (None, 0, 0));
    }
}
