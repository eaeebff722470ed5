//! A frame's data, derived once from the app: every sentence, number and mark the screen shows.
//! The widgets in `view/` only lay this out; they decide nothing about what it means. One file
//! per part of the screen: `header`, `timeline`, `panels` (the lock and the storages) and
//! `text` (the caption, the event log and the footer).

// The live lesson's screen (`tui::live`, native only) reads some of these too.
#![cfg_attr(target_family = "wasm", allow(unused_imports))]

mod header;
mod panels;
mod text;
mod timeline;

use super::app::{Action, App, Mode, Overlay};

pub use header::{Field, HeaderData, HEADER_KEPT};
pub use panels::{
    verdict_line, Author, Holder, KeyRow, LockLines, LockPanelData, StorageData, VerdictLine,
};
pub(in crate::tui) use text::event_role;
pub use text::{duration, CaptionData, EventLine, FooterData, EVENTS_DESCRIBED};
pub use timeline::{flights, ClientRow, LockRow, TimelineData};

/// Everything one frame shows.
pub struct FrameData<'a> {
    pub mode: Mode,
    pub overlay: Overlay,
    pub header: HeaderData,
    pub timeline: TimelineData<'a>,
    pub lock_panel: LockPanelData,
    pub storage: StorageData,
    pub compare: Option<[StorageData; 2]>,
    pub caption: CaptionData,
    /// The latest events, oldest first.
    pub events: Vec<EventLine>,
    /// How many earlier events are not in `events`.
    pub events_before: usize,
    pub footer: FooterData,
    /// The commands this run does not have and why, for the help.
    pub help_missing: Option<(Vec<Action>, String)>,
}

impl<'a> FrameData<'a> {
    /// The frame of `app` now.
    pub fn of(app: &'a App) -> FrameData<'a> {
        let world = app.session().world();
        let (events, events_before) = text::events(app, world);
        FrameData {
            mode: app.mode(),
            overlay: app.overlay(),
            header: header::header(app),
            timeline: timeline::timeline(app, world),
            lock_panel: panels::lock_panel(app, world),
            storage: panels::storage(app, world),
            compare: app.compare().then(|| panels::compare(app, world)),
            caption: text::caption(app),
            events,
            events_before,
            footer: text::footer(app),
            help_missing: app.missing_commands(),
        }
    }
}
