//! Labels waiting for a place, placed most important first, each at its first free try.

use super::geometry::Anchor;
use crate::sim::Ms;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Tone {
    Plain,
    Strong,
    Quiet,
    /// White box, heavy border.
    Rejected,
    /// Black box, white text.
    Corrupted,
}

/// A label waiting for a place: the first try that fits is drawn, else none.
pub(super) struct Label {
    pub(super) priority: u8,
    pub(super) tone: Tone,
    pub(super) size: f64,
    /// (x, baseline y, anchor, text), in order of preference.
    pub(super) tries: Vec<(f64, f64, Anchor, String)>,
    /// The moment of the event it labels, so a page can keep the future out of sight.
    pub(super) t: Option<Ms>,
}
