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

use super::gateway::{Etcd, EtcdError};
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
    /// The leader's member id (hex) and its endpoint, if a member that answered names one and
    /// that leader is among the endpoints; the id alone if it is not.
    pub leader: Option<(String, Option<String>)>,
    /// The highest raft term a member gave.
    pub term: u64,
    /// The endpoints that did not answer.
    pub silent: Vec<String>,
    /// Each member that answered: its id (hex) and endpoint.
    pub members: Vec<(String, String)>,
}

/// The thread that asks the members who leads; it stops when dropped.
pub struct Leaders {
    stop: Arc<AtomicBool>,
    pub rx: Receiver<Leadership>,
}

impl Leaders {
    /// Starts asking each of `urls` for its status, with times since `start`.
    pub fn start(urls: &[Url], start: Instant) -> Leaders {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let mut members: Vec<(String, Etcd)> = urls
            .iter()
            .map(|u| {
                let etcd = Etcd::new(std::slice::from_ref(u), STATUS_TIMEOUT, STATUS_TIMEOUT);
                (u.to_string(), etcd)
            })
            .collect();
        let stopping = Arc::clone(&stop);
        std::thread::spawn(move || {
            while !stopping.load(Ordering::SeqCst) {
                if tx.send(leadership(&mut members, start)).is_err() {
                    return;
                }
                std::thread::sleep(LEADER_EVERY);
            }
        });
        Leaders { stop, rx }
    }
}

impl Drop for Leaders {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
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
    // uint64s, which the gateway writes as strings of digits (a member id may pass i64's range).
    let id = |v: &serde_json::Value| {
        v.as_str()
            .and_then(|s| s.parse::<u64>().ok())
            .or_else(|| v.as_u64())
            .filter(|&n| n != 0)
    };
    let term = answers
        .iter()
        .filter_map(|(_, s)| id(&s["raftTerm"]))
        .max()
        .unwrap_or(0);
    let leader = answers
        .iter()
        .filter(|(_, s)| id(&s["raftTerm"]) == Some(term))
        .find_map(|(_, s)| id(&s["leader"]))
        .map(|leader| {
            let url = answers
                .iter()
                .find(|(_, s)| id(&s["header"]["member_id"]) == Some(leader))
                .map(|(url, _)| url.clone());
            (format!("{leader:x}"), url)
        });
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

/// The observer thread; it stops when dropped.
pub struct Observer {
    stop: Arc<AtomicBool>,
    pub rx: Receiver<Result<Seen, EtcdError>>,
}

impl Observer {
    /// Starts reading the lock keys of `layout` on `urls`, with times since `start`.
    pub fn start(
        urls: &[Url],
        layout: &Layout,
        start: Instant,
        timeout: Duration,
        patience: Duration,
    ) -> Observer {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let mut etcd = Etcd::new(urls, timeout, patience);
        let (layout, stopping) = (layout.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !stopping.load(Ordering::SeqCst) {
                let seen = read(&mut etcd, &layout, start);
                let failed = seen.is_err();
                if tx.send(seen).is_err() || failed {
                    return;
                }
                std::thread::sleep(EVERY);
            }
        });
        Observer { stop, rx }
    }
}

impl Drop for Observer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
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
