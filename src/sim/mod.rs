//! The deterministic world the lesson shows: three clients, a lock service, a storage, the
//! network between them, and what the lesson makes of it all.
//!
//! Time is integer milliseconds; randomness comes only from a seeded ChaCha8 generator. The same
//! setup and inputs always give the same history. The modules are layered one way, each using
//! only those above it in this list (a test keeps it so):
//!
//! 1. [`text`], [`time`], [`systems`], [`files`], [`base64`]: printable text, plurals;
//!    milliseconds and the one time format; what real systems call the fencing token; files
//!    written whole; base64 (etcd's keys and values, the pages' WebAssembly).
//! 2. [`vocab`], [`event`]: how the lesson names locks and tokens (in a real system's words with
//!    `--as`); clients, locks and the event stream.
//! 3. [`phrase`]: the words for each event, in one place: the transcript's line, the caption's
//!    sentence and the diagram's labels, in the vocabulary of the system in force.
//! 4. [`scenario`]: lesson scripts and their validation (pure data).
//! 5. [`input`]: what the lecturer does.
//! 6. [`chaos`]: the chaos test's job machine, a pure step.
//! 7. [`client`]: one client's state and its own clock.
//! 8. [`history`]: the record of a run.
//! 9. [`backend`]: the lock service and storage behind traits (built-in or a student's).
//! 10. [`world`]: the world at one moment, and how it advances.
//! 11. [`session`]: a run with its inputs, and time travel by replay.
//! 12. [`recording`]: a session saved and loaded.
//! 13. [`lesson`]: captions that are true, questions, belief beside truth.
//! 14. [`story`]: a run told in time order, for transcripts, handouts and pages.
//! 15. [`board`]: a run played on a real etcd (`live`), as the UI reads it.

pub mod base64;
pub mod files;
pub mod systems;
pub mod text;
pub mod time;

pub mod event;

pub mod vocab;

pub(crate) mod phrase;

pub mod scenario;

pub(crate) mod input;

pub(crate) mod chaos;

pub(crate) mod client;

pub(crate) mod history;

pub(crate) mod backend;

pub(crate) mod world;

pub(crate) mod session;

pub mod recording;

pub mod lesson;

pub(crate) mod story;

pub mod board;

pub use backend::{built_in, Backend, BackendFactory, LockApi, NextToken, StorageApi};
pub use client::{Activity, Belief, Client};
pub use event::{ClientId, Event, EventKind, LockId, Refusal};
pub use history::{Fate, History, Keep, LaneState, LockSpan, Mark, MarkKind, Span};
pub use input::{Input, InputKind};
pub use lesson::{
    belief_and_truth, BeliefTruth, Believes, Caption, Lesson, RunView, Source, Tone, Truth,
};
pub use phrase::{labels, Labels};
pub use scenario::{
    Beat, BeatAction, Captions, ChaosParams, ClientAction, Question, Scenario, ScenarioError,
    Variant, CLIENT_COUNT,
};
pub use session::Session;
pub use time::{fmt_seconds, seconds, to_ms, Ms};
pub use vocab::{Marks, Vocab};
pub use world::{LiveLease, Setup, Stats, World};
