//! The lab: a student's own `LockService` and `FencedStorage`, in any language, checked against
//! the seed's rules and run in the lesson.
//!
//! The modules are layered one way, each using only those above it in this list (a test keeps
//! it so), and the lab uses the library and the simulation, never the UI or the command line:
//!
//! 1. [`cpu`]: one CPU for the checker and the program, the pipe's hand-overs kept local.
//! 2. [`protocol`]: the JSON Lines client of a student's program (docs/lab-protocol.md).
//! 3. [`target`]: which program to run for a folder (its language's adapter) or a command.
//! 4. [`script`]: scripts of calls played on the program and on the library side by side.
//! 5. [`rules`]: the seed's rules, one script each.
//! 6. [`explore`]: random scripts (shrunk on failure) and every script of a small length.
//! 7. [`remote`]: the program as the simulation's backend (the lesson and the chaos test).
//! 8. [`check`]: all of it, and the report as text or JSON.
//! 9. [`starter`]: `lab init`'s files.

pub mod check;
pub mod cpu;
pub mod explore;
pub mod protocol;
pub mod remote;
pub mod rules;
pub mod script;
pub mod starter;
pub mod target;

pub use check::{Plan, Report};
pub use protocol::{Program, ProtocolError, DEFAULT_TIMEOUT};
pub use target::Target;
