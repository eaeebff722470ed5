//! # fencing-lab
//!
//! Why a lease lock needs fencing tokens, as a library and a terminal teaching tool.
//!
//! The library half is a [`LockService`] that grants leases, each with a fencing token from one
//! service-wide counter that only goes up, and a [`FencedStorage`] that rejects any write whose
//! token is lower than the highest its key has accepted. Both read time only through a [`Clock`].
//!
//! ```
//! use fencing_lab::{FencedStorage, LockService, ManualClock};
//!
//! let clock = ManualClock::new(0.0);
//! let mut locks = LockService::with_defaults(clock.clone());
//! let mut storage = FencedStorage::new();
//!
//! let lease_1 = locks.acquire("file", "client-1").unwrap();    // token 1
//! clock.advance(15.0);                                         // client 1 freezes in GC
//! let lease_2 = locks.acquire("file", "client-2").unwrap();    // token 2
//! storage.write("file", "client 2's data", lease_2.token).unwrap();
//! // Client 1 wakes, still sure it holds the lock, and writes: rejected.
//! assert!(storage.write("file", "client 1's data", lease_1.token).is_err());
//! assert_eq!(storage.read("file"), Some("client 2's data"));
//! ```

// Each folder's module list links its rooms, private ones included: the docs are read with the
// source by the engineer changing it (`cargo doc --document-private-items` shows them all).
#![allow(rustdoc::private_intra_doc_links)]

mod clock;
mod lock;
mod realtime;
mod storage;

// The seam (ARCHITECTURE.md): the command line and the live lesson run processes, files,
// signals and sockets, so they are native only; everything else builds for the browser too.
#[cfg(not(target_family = "wasm"))]
pub mod cli;
pub mod lab;
#[cfg(not(target_family = "wasm"))]
pub mod live;
pub mod pictures;
pub mod sim;
pub mod tui;
pub mod web;

pub use clock::{Clock, ManualClock, SystemClock};
pub use lock::{
    ConfigError, Lease, LeaseError, LockService, DEFAULT_FIRST_TOKEN, DEFAULT_LEASE_SECONDS,
};
pub use storage::{
    CheckedStorage, FenceCheck, FencedStorage, Judge, Outcome, StaleToken, StoredValue, Verdict,
};

// The README's Rust example is compiled and run with the doctests, so it cannot drift.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
