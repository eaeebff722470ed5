//! The lesson on a real etcd (`fencing-lab live`): three client processes of this binary, each
//! with its own connection to etcd's v3 JSON gateway; the fencing token is the lock key's
//! `create_revision`; the GC pause is a SIGSTOP; the storage's check is an etcd transaction.
//! See `docs/live.md`. It uses the library and the simulation (for the scenario, the events
//! and the board the UI reads), never the UI, the pictures or the command line.
//!
//! The modules are layered one way, each using only those above it (a test keeps it so):
//!
//! 1. [`http`], [`signal`]: a minimal HTTP/1.1 client; signals to other processes and their
//!    state (base64 for etcd's keys is `sim::base64`).
//! 2. [`gateway`]: etcd's JSON gateway over one or more endpoints, with failover.
//! 3. [`keys`], [`txn`]: where a run keeps its state: one prefix per run; one transaction, as
//!    the gateway's JSON and as `etcdctl txn` reads it.
//! 4. [`ops`]: the lesson's operations as etcd requests and transactions.
//! 5. [`orders`], [`plan`], [`said`]: what the conductor and a client process say to each
//!    other; the scenario as the live run plays it; what the run tells and how it fails.
//! 6. [`server`], [`client`], [`observer`]: the lesson's own etcd; a client process; the
//!    thread that watches the lock keys.
//! 7. [`fleet`]: the three client processes.
//! 8. [`play`]: the lesson's clock: beats, pauses, crashes, expiries.
//! 9. [`replies`], [`news`], [`captions`]: the processes' answers told as the lesson's events;
//!    what etcd did that the lesson did not plan (a new leader, a lease outliving the plan);
//!    the simulated lesson's captions and questions, where etcd played the beats as scripted.
//! 10. [`conductor`]: a run from start to end, and its cleaning up.

pub mod http;
pub mod signal;

pub mod gateway;

pub mod keys;
pub mod txn;

pub mod ops;

pub mod orders;
pub mod plan;
pub mod said;

pub mod client;
pub mod observer;
pub mod server;

pub mod fleet;

pub mod play;

pub mod captions;
pub mod news;
pub mod replies;

pub mod conductor;

pub use conductor::{run, Settings, NO_ETCD};
pub use said::{Fault, Finished, News, Said, Side, Start};
