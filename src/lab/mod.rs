//! The lab: a student's own `LockService` and `FencedStorage`, in any language, checked against
//! the seed's rules and run in the lesson.
//!
//! The modules are layered one way, each using only those above it in this list (a test keeps
//! it so), and the lab uses the library and the simulation, never the UI or the command line:
//!
//! 1. [`seed`]: the seed's rules as data, what every failure is charged to.
//! 2. [`wire`]: the protocol's lines, and replies read under the one convention.
//! 3. [`program`]: a running student program, its requests written ahead of its replies.
//! 4. [`target`]: which program to run for a folder (its language's adapter) or a command.
//! 5. [`reference`](mod@reference): the seed's answer to each call, and the facts it rested on.
//! 6. [`judge`]: where a reply differs from the seed's, and the one rule that breaks.
//! 7. [`script`]: scripts of calls, planned on the seed and played on the program.
//! 8. [`rules`]: the seed's rules, one script each.
//! 9. [`profile`]: the experiments run first (the clock, the settings).
//! 10. [`explore`]: random scripts and every short script, shrunk on failure.
//! 11. [`chaos`]: the seed's chaos test, its calls played on the program.
//! 12. [`remote`]: the program as the simulation's backend (the lesson on the student's code).
//! 13. [`check`]: all of it, as a report.
//! 14. [`points`]: what each check is worth to a course.
//! 15. [`report`]: the report in words, as text and JSON.
//! 16. [`autograder`]: the report as autograders read it, JUnit XML and Gradescope's JSON.
//! 17. [`class`]: what a class got wrong, a row a student and a row a check.
//! 18. [`grade`]: a folder of submissions checked side by side over the cores.
//! 19. [`classroom`]: the CI files that check each student's repository in its own runner.
//! 20. [`starter`]: `lab init`'s files.
//! 21. [`testing`](crate::lab) (built for tests only): the test double of a student's program, for the lab's own tests.

// A student's program as a process, the folders it is found in, a class graded over the
// cores, the starters written and JUnit's XML are native only (the seam, ARCHITECTURE.md);
// the judge and everything it reads also build for a browser, where the program is the
// page's JavaScript.
#[cfg(not(target_family = "wasm"))]
pub mod autograder;
pub mod chaos;
pub mod check;
pub mod class;
pub mod classroom;
pub mod explore;
#[cfg(not(target_family = "wasm"))]
pub mod grade;
pub mod judge;
pub mod points;
pub mod profile;
#[cfg(not(target_family = "wasm"))]
pub mod program;
pub mod reference;
pub mod remote;
pub mod report;
pub mod rules;
pub mod script;
pub mod seed;
#[cfg(not(target_family = "wasm"))]
pub mod starter;
#[cfg(not(target_family = "wasm"))]
pub mod target;
#[cfg(test)]
pub(crate) mod testing;
pub mod wire;

pub use check::{CheckId, Plan, Report, Verdict};
#[cfg(not(target_family = "wasm"))]
pub use program::Program;
pub use seed::Rule;
#[cfg(not(target_family = "wasm"))]
pub use target::Target;
pub use wire::{ProtocolError, Timeouts, DEFAULT_STARTUP, DEFAULT_TIMEOUT};
