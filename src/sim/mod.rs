//! The deterministic world the lesson shows: three clients, a lock service, a storage, the
//! network between them, and what the lesson makes of it all.
//!
//! Time is integer milliseconds; randomness comes only from a seeded ChaCha8 generator. The same
//! setup and inputs always give the same history. The modules are layered one way, each using
//! only those above it in this list (a test keeps it so):
//!
//! 1. [`text`], [`time`], [`systems`], [`files`]: printable text, plurals; milliseconds and the
//!    one time format; what real systems call the fencing token; files written whole.
//! 2. [`event`]: clients, locks and the event stream.
//! 3. [`scenario`]: lesson scripts and their validation (pure data).
//! 4. [`input`]: what the lecturer does.
//! 5. [`chaos`]: the chaos test's job machine, a pure step.
//! 6. [`client`]: one client's state and its own clock.
//! 7. [`history`]: the record of a run.
//! 8. [`backend`]: the lock service and storage behind traits (built-in or a student's).
//! 9. [`world`]: the world at one moment, and how it advances.
//! 10. [`session`]: a run with its inputs, and time travel by replay.
//! 11. [`recording`]: a session saved and loaded.
//! 12. [`lesson`]: captions that are true, questions, belief beside truth.
//! 13. [`story`]: a run told in time order, for transcripts, handouts and pages.
//! 14. [`board`]: a run played on a real etcd (`live`), as the UI reads it.

pub mod files;
pub mod systems;
pub mod text;
pub mod time;

pub mod event;

pub mod scenario;

pub mod input;

pub mod chaos;

pub mod client;

pub mod history;

pub mod backend;

pub mod world;

pub mod session;

pub mod recording;

pub mod lesson;

pub mod story;

pub mod board;

pub use backend::{built_in, Backend, BackendFactory, LockApi, NextToken, StorageApi};
pub use client::{Activity, Belief, Client};
pub use event::{ClientId, Event, EventKind, LockId, Refusal, Vocab};
pub use history::{Fate, History, Keep, LaneState, LockSpan, Mark, MarkKind, Span};
pub use input::{Input, InputKind};
pub use lesson::{
    belief_and_truth, BeliefTruth, Believes, Caption, Lesson, RunView, Source, Tone, Truth,
};
pub use scenario::{
    Beat, BeatAction, Captions, ChaosParams, ClientAction, Question, Scenario, ScenarioError,
    Variant, CLIENT_COUNT,
};
pub use session::Session;
pub use time::{fmt_seconds, seconds, to_ms, Ms};
pub use world::{LiveLease, Setup, Stats, World};
