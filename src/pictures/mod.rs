//! Pictures of a run, for slides and for students who will not install Rust: a space-time
//! diagram (SVG), the lesson as one self-contained HTML page, and an asciicast of the UI stepping
//! through it. Every word and mark is read from the simulation (the verdicts, the events, the
//! lesson's captions and answers, the history's lanes) or drawn by the UI itself: nothing here
//! decides what a run means. The modules are layered one way, each using only those above it
//! (a test keeps it so):
//!
//! 1. [`xml`]: the one escape for text in SVG and HTML.
//! 2. [`words`]: the settings line every document heads with.
//! 3. [`screen`]: a drawn UI buffer as styled runs, written as HTML or as ANSI.
//! 4. [`steps`]: the lesson walked beat by beat in the UI, as a class sees it.
//! 5. [`svg`]: the space-time diagram.
//! 6. [`cast`]: the asciicast v2 recording.
//! 7. [`html`]: the lesson page.

pub mod xml;

pub mod words;

pub mod screen;

pub mod steps;

pub mod svg;

pub mod cast;

pub mod html;

pub use words::{settings_line, settings_without_seed};
