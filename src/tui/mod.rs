//! The terminal UI: the model (`App`), the key table, the view and the terminal loop.

mod app;
mod keys;
pub mod recording;
mod terminal;
mod theme;
mod view;

pub use app::{Action, App, Overlay, Prediction, SPEEDS, STEPS};
pub use keys::{action_for, help_rows, hints, Binding, KEYMAP};
pub use terminal::run_terminal;
pub use theme::{Role, Theme};
pub use view::{
    belief_and_truth, buffer_text, draw, render_text, Window, LEGEND, MIN_HEIGHT, MIN_WIDTH,
};
