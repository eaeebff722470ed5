//! The terminal UI: the model (`App`), the key tables, the frame's data, the view and the
//! terminal loop. The UI draws; it decides nothing (the lesson's meaning comes from `sim`).
//! Its modules are layered one way, each using only those above it (a test keeps it so):
//!
//! 1. [`theme`]: styles by role.
//! 2. [`action`]: what a user can ask for, and the modes.
//! 3. [`keys`]: one key table per mode, feeding dispatch, footer, help and every sentence that
//!    names a key.
//! 4. [`app`]: the model; `update` is the only place state changes.
//! 5. [`frame`]: a frame's data, derived once from the app.
//! 6. [`view`]: widgets that lay the frame's data out.
//! 7. [`terminal`]: the loop, the signals and the terminal's modes.
//! 8. [`live`]: the lesson on a real etcd, drawn from the board its run fills, and its loop.

mod action;
mod app;
mod frame;
mod keys;
#[cfg(not(target_family = "wasm"))]
mod live;
#[cfg(not(target_family = "wasm"))]
mod terminal;
mod theme;
mod view;

pub use app::{Action, App, CommandInfo, Mode, Overlay, Prediction, HELP_PAGES, SPEEDS, STEPS};
pub use frame::{duration, FrameData};
pub use keys::{
    action_for, help_rows, hints, key_for, key_label, keymap, Binding, Hint, KeyCode, KeyPress,
};
#[cfg(not(target_family = "wasm"))]
pub use live::{live_frame, live_text, run_live};
#[cfg(not(target_family = "wasm"))]
pub use terminal::{clamped, report_save, run_terminal};
pub use theme::{Role, Theme};
pub use view::{
    buffer_text, clip, draw, heights, help_pages, lane_span, lock_labels, render_buffer,
    render_text, shown_cells, verdict_text, wrap, Heights, LockLabels, Window, LEGEND, MAX_HEIGHT,
    MAX_WIDTH, MIN_HEIGHT, MIN_WIDTH,
};
