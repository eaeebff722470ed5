//! The conductor's eye on etcd: a thread that reads the run's lock keys every
//! [`EVERY`], on a connection of its own, so a lease that etcd ended (its lock key deleted
//! when the TTL ran out) is seen within a tenth of a second, and a slow answer (an election)
//! never holds up the lesson's clock.

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
