//! A client process: the same binary, started by the conductor with a hidden subcommand. It
//! reads orders on standard input, speaks to etcd through its own connection, and answers on
//! standard output. It keeps the lease it believes it holds on its own clock, a ticker that
//! counts only while the process runs, so a SIGSTOP freezes it as a GC pause freezes a
//! program's sense of time. Its standard input closing (the conductor is gone) ends it.

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::gateway::{Etcd, EtcdError};
use super::http::Url;
use super::keys::Layout;
use super::ops::{self, Acquired};
use super::orders::{Order, Reply};
use crate::sim::chaos::{ChaosDriver, Job, Step};
use crate::sim::{ClientId, Ms, Scenario};

/// How long one request may wait on one endpoint, and how long a call tries endpoints.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);
pub const PATIENCE: Duration = Duration::from_secs(8);

/// What a client process is told on its command line.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    pub client: ClientId,
    pub endpoints: Vec<Url>,
    pub prefix: String,
}

/// The client's own clock, in ms: a ticker that adds what passed since its last tick, at most
/// 50 ms a tick, so time the process spends stopped is not counted.
#[derive(Clone)]
struct OwnClock(Arc<AtomicU64>);

impl OwnClock {
    fn start() -> OwnClock {
        let ms = Arc::new(AtomicU64::new(0));
        let ticking = Arc::clone(&ms);
        std::thread::spawn(move || {
            let mut last = Instant::now();
            loop {
                std::thread::sleep(Duration::from_millis(5));
                let now = Instant::now();
                let passed = (now - last).min(Duration::from_millis(50));
                last = now;
                ticking.fetch_add(passed.as_millis() as u64, Ordering::Relaxed);
            }
        });
        OwnClock(ms)
    }

    fn now(&self) -> Ms {
        self.0.load(Ordering::Relaxed)
    }
}

/// The lease a client believes it holds on a lock.
#[derive(Clone, Copy, Debug)]
struct Belief {
    token: u64,
    lease: i64,
    /// When, on the client's own clock, it believes the lease runs out.
    expires_own: Ms,
}

type Out = Arc<Mutex<io::Stdout>>;

/// Writes one reply line; a closed pipe means the conductor is gone, and so is the point.
fn say(out: &Out, reply: &Reply) {
    let mut out = out.lock().unwrap_or_else(|p| p.into_inner());
    let line = serde_json::to_string(reply).expect("a reply is always JSON");
    if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
        std::process::exit(0);
    }
}

struct Client {
    name: &'static str,
    config: ClientConfig,
    etcd: Etcd,
    layout: Layout,
    beliefs: HashMap<String, Belief>,
    clock: OwnClock,
    out: Out,
}

/// Runs a client process until it is told to quit or its standard input closes; the exit code.
pub fn serve(config: ClientConfig) -> u8 {
    let out: Out = Arc::new(Mutex::new(io::stdout()));
    let (send, orders) = mpsc::channel();
    std::thread::spawn(move || {
        for line in io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            match serde_json::from_str::<Order>(&line) {
                Ok(order) => {
                    if send.send(order).is_err() {
                        return;
                    }
                }
                Err(e) => eprintln!("fencing-lab live client: a bad order ({e}): {line}"),
            }
        }
        let _ = send.send(Order::Quit);
    });
    let mut client = Client {
        name: config.client.name(),
        etcd: Etcd::new(&config.endpoints, REQUEST_TIMEOUT, PATIENCE),
        layout: Layout::under(&config.prefix),
        beliefs: HashMap::new(),
        clock: OwnClock::start(),
        out,
        config,
    };
    say(
        &client.out,
        &Reply::Ready {
            pid: std::process::id(),
        },
    );
    while let Ok(order) = orders.recv() {
        match order {
            Order::Quit => break,
            Order::Chaos {
                scenario,
                lock,
                ttl,
                fenced,
                seed,
            } => {
                client.chaos(&orders, &scenario, &lock, ttl, fenced, seed);
                break;
            }
            order => {
                let reply = client.handle(order);
                client.tell_move();
                if let Some(reply) = reply {
                    say(&client.out, &reply);
                }
            }
        }
    }
    0
}

fn failed(doing: impl Into<String>, error: EtcdError) -> Reply {
    Reply::Failed {
        doing: doing.into(),
        error: error.to_string(),
    }
}

impl Client {
    /// Says so when the last request went to another endpoint.
    fn tell_move(&mut self) {
        if let Some((endpoint, why)) = self.etcd.take_move() {
            say(&self.out, &Reply::Moved { endpoint, why });
        }
    }

    fn handle(&mut self, order: Order) -> Option<Reply> {
        Some(match order {
            Order::Acquire { lock, ttl } => self.acquire(&lock, ttl),
            Order::Renew { lock } => self.renew(&lock),
            Order::Release { lock } => self.release(&lock),
            Order::Write {
                lock,
                key,
                value,
                fenced,
                delay_ms,
            } => return self.write(&lock, key, value, fenced, delay_ms),
            Order::Go | Order::Quit | Order::Chaos { .. } => return None,
        })
    }

    fn acquire(&mut self, lock: &str, ttl: i64) -> Reply {
        let asked_at = self.clock.now();
        match ops::acquire(&mut self.etcd, &self.layout, lock, self.name, ttl) {
            Ok(Acquired::Granted { token, lease, ttl }) => {
                self.beliefs.insert(
                    lock.to_owned(),
                    Belief {
                        token,
                        lease,
                        expires_own: asked_at + ttl.max(0) as u64 * 1000,
                    },
                );
                Reply::Granted {
                    lock: lock.to_owned(),
                    token,
                    lease,
                    ttl,
                }
            }
            Ok(Acquired::Held { holder, token }) => Reply::Refused {
                lock: lock.to_owned(),
                holder,
                token,
            },
            Err(e) => failed(format!("acquiring {lock}"), e),
        }
    }

    fn no_lease(lock: &str, what: &str) -> Reply {
        Reply::NoLease {
            lock: lock.to_owned(),
            what: what.to_owned(),
        }
    }

    /// Who holds `lock` now, by etcd, for a refusal's reason.
    fn holder(&mut self, lock: &str) -> Option<String> {
        ops::holder(&mut self.etcd, &self.layout, lock)
            .ok()
            .flatten()
            .map(|kv| kv.value)
    }

    fn renew(&mut self, lock: &str) -> Reply {
        let Some(belief) = self.beliefs.get(lock).copied() else {
            return Client::no_lease(lock, "renew");
        };
        let asked_at = self.clock.now();
        match ops::renew(&mut self.etcd, belief.lease) {
            Ok(Some(ttl)) => {
                if let Some(b) = self.beliefs.get_mut(lock) {
                    b.expires_own = asked_at + ttl as u64 * 1000;
                }
                Reply::Renewed {
                    lock: lock.to_owned(),
                    token: belief.token,
                    ttl,
                }
            }
            Ok(None) => {
                // Only now does it learn: it forgets the lease.
                self.beliefs.remove(lock);
                Reply::RenewRefused {
                    lock: lock.to_owned(),
                    token: belief.token,
                    holder: self.holder(lock),
                }
            }
            Err(e) => failed(format!("renewing {lock}"), e),
        }
    }

    fn release(&mut self, lock: &str) -> Reply {
        let Some(belief) = self.beliefs.remove(lock) else {
            return Client::no_lease(lock, "release");
        };
        match ops::release(&mut self.etcd, belief.lease) {
            Ok(true) => Reply::Released {
                lock: lock.to_owned(),
                token: belief.token,
                lease: belief.lease,
            },
            Ok(false) => Reply::ReleaseRefused {
                lock: lock.to_owned(),
                token: belief.token,
                holder: self.holder(lock),
            },
            Err(e) => failed(format!("releasing {lock}"), e),
        }
    }

    fn write(
        &mut self,
        lock: &str,
        key: String,
        value: String,
        fenced: bool,
        delay_ms: Option<u64>,
    ) -> Option<Reply> {
        let Some(belief) = self.beliefs.get(lock).copied() else {
            return Some(Client::no_lease(lock, &format!("write to {key}")));
        };
        let token = belief.token;
        let Some(delay) = delay_ms else {
            return Some(send_write(
                &mut self.etcd,
                &self.layout,
                self.name,
                WriteOrder {
                    key,
                    value,
                    token,
                    fenced,
                    delayed: false,
                },
            ));
        };
        // The network holds the request: another thread, on a connection of its own, sends
        // it after the delay, while this client goes on with its next order.
        say(
            &self.out,
            &Reply::Sent {
                key: key.clone(),
                token,
                delay_ms: delay,
            },
        );
        let (out, layout, name) = (Arc::clone(&self.out), self.layout.clone(), self.name);
        let mut etcd = Etcd::new(&self.config.endpoints, REQUEST_TIMEOUT, PATIENCE);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(delay));
            let order = WriteOrder {
                key,
                value,
                token,
                fenced,
                delayed: true,
            };
            say(&out, &send_write(&mut etcd, &layout, name, order));
        });
        None
    }

    fn chaos(
        &mut self,
        orders: &Receiver<Order>,
        scenario: &str,
        lock: &str,
        ttl: i64,
        fenced: bool,
        seed: u64,
    ) {
        let params = match Scenario::load(scenario).map(|s| s.chaos) {
            Ok(Some(params)) => params,
            _ => {
                say(
                    &self.out,
                    &Reply::Failed {
                        doing: format!("loading {scenario}"),
                        error: "it is not a chaos scenario".into(),
                    },
                );
                return;
            }
        };
        let mut driver = ChaosDriver::new(params, seed);
        let mut job = driver.think(self.clock.now());
        let mut jobs_done = 0;
        loop {
            // Wait, on the client's own clock, until the job is due; a quit ends it.
            while job.due().is_some_and(|due| self.clock.now() < due) {
                match orders.recv_timeout(Duration::from_millis(5)) {
                    Ok(Order::Quit) | Err(RecvTimeoutError::Disconnected) => return,
                    _ => {}
                }
            }
            let now = self.clock.now();
            let believes_live = self.beliefs.get(lock).is_some_and(|b| b.expires_own > now);
            job = match driver.on_due(job, believes_live) {
                Step::Acquire => {
                    let reply = self.acquire(lock, ttl);
                    self.tell_move();
                    let granted = matches!(reply, Reply::Granted { .. });
                    say(&self.out, &reply);
                    driver.after_acquire(granted, self.clock.now())
                }
                Step::Stall { ms, then } => {
                    say(&self.out, &Reply::Stall { ms });
                    // The conductor stops this process now, and says `go` once it runs again.
                    loop {
                        match orders.recv() {
                            Ok(Order::Go) => break,
                            Ok(Order::Quit) | Err(_) => return,
                            Ok(_) => {}
                        }
                    }
                    then
                }
                Step::Finish { keys } => {
                    jobs_done += 1;
                    let value = format!("{} job {jobs_done}", self.name);
                    self.finish_job(lock, keys, &value, fenced);
                    driver.think(self.clock.now())
                }
                Step::GiveUp => {
                    if let Some(belief) = self.beliefs.remove(lock) {
                        say(
                            &self.out,
                            &Reply::GaveUp {
                                lock: lock.to_owned(),
                                token: belief.token,
                            },
                        );
                    }
                    driver.think(self.clock.now())
                }
            };
            if job == Job::None {
                return;
            }
        }
    }
}

impl Client {
    /// A chaos job's end: a write to each key with its token, then the release (announced
    /// first, so the conductor never takes the lock key's deletion for an expiry).
    fn finish_job(&mut self, lock: &str, keys: Vec<String>, value: &str, fenced: bool) {
        for key in keys {
            if let Some(reply) = self.write(lock, key, value.to_owned(), fenced, None) {
                say(&self.out, &reply);
            }
        }
        if let Some(belief) = self.beliefs.get(lock) {
            let token = belief.token;
            let lock = lock.to_owned();
            say(&self.out, &Reply::Releasing { lock, token });
        }
        let reply = self.release(lock);
        say(&self.out, &reply);
    }
}

/// A write about to be sent.
struct WriteOrder {
    key: String,
    value: String,
    token: u64,
    fenced: bool,
    delayed: bool,
}

/// Sends a write (fenced: one transaction that compares the token; unfenced: a plain put).
fn send_write(etcd: &mut Etcd, layout: &Layout, name: &str, order: WriteOrder) -> Reply {
    let WriteOrder {
        key,
        value,
        token,
        fenced,
        delayed,
    } = order;
    let written = if fenced {
        ops::fenced_write(etcd, layout, &key, &value, token, name)
    } else {
        ops::unfenced_write(etcd, layout, &key, &value, token, name)
    };
    match written {
        Ok(w) => Reply::Wrote {
            key,
            value,
            token,
            fenced,
            accepted: w.accepted,
            key_highest: w.key_highest,
            replaced: w.replaced,
            revision: w.revision,
            delayed,
        },
        Err(e) => failed(format!("writing {key}"), e),
    }
}
