//! The lesson on a real etcd (`live --tui`), drawn as it happens: the same screen as the
//! lesson's (timeline, lock panel, storage panel, caption, events), its data read from the
//! board the live run fills. The captions are the lesson's own, generated from the events
//! (tokens and times are etcd's, so no scripted sentence is taken on trust).

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossterm::event::{self, Event};
use crossterm::terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};

use super::action::Action;
use super::app::{Mode, Overlay};
use super::frame::{
    duration, event_role, verdict_line, Author, CaptionData, ClientRow, EventLine, FooterData,
    FrameData, HeaderData, Holder, KeyRow, LockLines, LockPanelData, LockRow, StorageData,
    TimelineData, EVENTS_DESCRIBED,
};
use super::frame::{flights, Field};
use super::keys::{self, Hint, KeyPress};
use super::terminal::{clamped, enter, press_of, restore};
use super::theme::{Role, Theme};
use super::view;
use crate::sim::board::Board;
use crate::sim::lesson::{belief_and_truth, Believes, Lesson, RunView, Tone, Truth};
use crate::sim::time::{fmt_seconds, fmt_service_seconds};
use crate::sim::{systems, EventKind, LockId, Ms, Vocab};

/// How often the screen is drawn while the lesson runs.
const REDRAW: Duration = Duration::from_millis(100);

/// The frame of the live run as the board holds it now.
pub fn live_frame(board: &Board) -> FrameData<'_> {
    live_frame_with(board, Overlay::None)
}

/// The live screen's keys: `?` for the help, `q` (or Esc, Ctrl-C) to stop or leave. Every other
/// command of the lesson's screen changes the run, which etcd's clock plays.
const LIVE_KEYS: [Action; 2] = [Action::ToggleHelp, Action::Quit];

/// Why the live screen has no other command, for the help.
const LIVE_MISSING: &str =
    "not on a real etcd: the lesson plays on etcd's clock, so it cannot be stepped, paused, \
     rewound or changed while it runs";

/// The frame of the live run, with `overlay` (the help) over it.
fn live_frame_with(board: &Board, overlay: Overlay) -> FrameData<'_> {
    let vocab = live_vocab(board);
    let now = board.now();
    let events = board.events();
    let from = events.len().saturating_sub(EVENTS_DESCRIBED);
    FrameData {
        mode: Mode::Main,
        overlay,
        header: header(board),
        timeline: timeline(board),
        lock_panel: lock_panel(board),
        storage: storage(board),
        compare: None,
        caption: caption(board, &vocab),
        events_before: from,
        events: events[from..]
            .iter()
            .map(|e| EventLine {
                time: fmt_seconds(e.t),
                text: e.describe(&vocab),
                role: event_role(&e.kind),
                fresh: now.saturating_sub(e.t) < 1_000,
            })
            .collect(),
        footer: FooterData {
            status: None,
            lead: Some(if board.ended.is_some() {
                "lesson over:"
            } else {
                "LIVE on etcd, real seconds:"
            }),
            hints: vec![
                Hint {
                    key: "?".into(),
                    text: "help",
                    order: 1,
                    action: Action::ToggleHelp,
                },
                Hint {
                    key: "q".into(),
                    text: "quit",
                    order: 0,
                    action: Action::Quit,
                },
            ],
        },
        help_missing: Some((
            keys::keymap(Mode::Main)
                .iter()
                .map(|b| b.action)
                .filter(|a| !LIVE_KEYS.contains(a))
                .collect(),
            LIVE_MISSING.to_owned(),
        )),
    }
}

/// What a key does on the live screen, with `overlay` over it: the overlay it leaves, and
/// whether the key asks to quit.
fn live_key(overlay: Overlay, key: KeyPress) -> (Overlay, bool) {
    let mode = match overlay {
        Overlay::Help { .. } => Mode::Help,
        _ => Mode::Main,
    };
    let pages = view::help_pages(Mode::Main).len();
    match (keys::action_for(key, mode), overlay) {
        (Some(Action::Quit), _) => (overlay, true),
        (Some(Action::ToggleHelp), Overlay::None) => (Overlay::Help { page: 0 }, false),
        (Some(Action::HelpNext), Overlay::Help { page }) => (
            Overlay::Help {
                page: (page + 1).min(pages - 1),
            },
            false,
        ),
        (Some(Action::HelpBack), Overlay::Help { page }) => (
            Overlay::Help {
                page: page.saturating_sub(1),
            },
            false,
        ),
        (Some(Action::ToggleHelp | Action::CloseOverlay), Overlay::Help { .. }) => {
            (Overlay::None, false)
        }
        // Esc stops the lesson from its screen, as `q` does.
        _ if key.code == keys::KeyCode::Esc => (overlay, true),
        _ => (overlay, false),
    }
}

/// etcd's words: on a real etcd the token is the lock key's revision ("rev 4", "c1 r4").
fn live_vocab(board: &Board) -> Vocab {
    Vocab::of(&board.setup().scenario.locks, systems::find("etcd"))
}

fn header(board: &Board) -> HeaderData {
    // Where the run happens, long and short; after the end, nowhere: the lesson's own etcd is
    // stopped by then.
    let (progress, short_progress) = match (&board.ended, &board.about) {
        (Some(_), _) => ("lesson over".to_owned(), "lesson over".to_owned()),
        (None, Some(about)) => (about.long.clone(), about.short.clone()),
        (None, None) => ("starting etcd".to_owned(), "etcd".to_owned()),
    };
    let scenario = &board.setup().scenario;
    let fencing = if board.fencing() {
        Field {
            text: " LIVE · FENCING ON ".into(),
            role: Some(Role::FencingOn),
        }
    } else {
        Field {
            text: " LIVE · FENCING OFF ".into(),
            role: Some(Role::FencingOff),
        }
    };
    let rule = if board.fencing() {
        "etcd txn: token >= highest(key)"
    } else {
        "etcd txn: no check"
    };
    HeaderData {
        fields: vec![
            fencing,
            Field {
                text: rule.into(),
                role: None,
            },
            Field {
                // Tenths: a header that changes every millisecond is unreadable.
                text: format!("t = {} s real", fmt_seconds(board.now() / 100 * 100)),
                role: None,
            },
        ],
        name: scenario.name.clone(),
        title: scenario.title.clone(),
        short_title: scenario.short_title.clone(),
        progress,
        short_progress,
    }
}

fn timeline(board: &Board) -> TimelineData<'_> {
    let scenario = &board.setup().scenario;
    let marks = live_vocab(board).marks();
    let clients = board
        .clients()
        .iter()
        .map(|client| {
            let bt = belief_and_truth(board, client);
            ClientRow {
                id: client.id,
                selected: false,
                believes: match bt.believes {
                    Believes::Down => "crashed".into(),
                    Believes::Frozen => "frozen (SIGSTOP)".into(),
                    Believes::Wants => "wants lock".into(),
                    Believes::Nothing => "no lock".into(),
                    Believes::Holds { token, left } if left > 0 => {
                        format!("{} {} left", marks.compact(token), duration(left))
                    }
                    Believes::Holds { token, .. } => {
                        format!("{} ran out", marks.compact(token))
                    }
                },
                truth: match bt.truth {
                    Truth::Nothing => String::new(),
                    Truth::Live { left } => format!("live {}", duration(left)),
                    Truth::Ended { ago } => format!("ended {} ago", duration(ago as i64)),
                    Truth::NotItsLease => "not its lease".into(),
                },
                stale: bt.stale,
            }
        })
        .collect();
    let locks = scenario
        .locks
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let id = LockId(i as u8);
            LockRow {
                id,
                name: name.clone(),
                status: match board.lease(id) {
                    Some(lease) => format!("{} {}", lease.client, marks.compact(lease.token)),
                    None => "free".into(),
                },
            }
        })
        .collect();
    let flights = flights(board.events());
    TimelineData {
        now: board.now(),
        end: board.end.max(board.now()),
        chaos: scenario.chaos.is_some(),
        tokens: marks,
        history: board.history(),
        clients,
        locks,
        flights,
    }
}

fn lock_panel(board: &Board) -> LockPanelData {
    let scenario = &board.setup().scenario;
    let marks = live_vocab(board).marks();
    let mut ttl = None;
    let locks = scenario
        .locks
        .iter()
        .enumerate()
        .map(|(i, name)| match board.lease(LockId(i as u8)) {
            Some(lease) => {
                let left = board.lease_left(&lease);
                // The TTL etcd grants, which a renewal starts again (not the time since the
                // grant, which a renewal lengthens).
                let length = board.ttl.map_or_else(
                    || ((lease.expires_at - lease.granted_at) * 1000.0).round(),
                    |ttl| ttl as f64,
                );
                let length = length.max(1.0);
                ttl = Some(length);
                LockLines {
                    name: name.clone(),
                    holder: Some(Holder {
                        client: lease.client.to_string(),
                        short: format!("c{}", lease.client.number()),
                        token: Some(marks.of_token(lease.token)),
                    }),
                    details: vec![
                        format!(
                            "granted {} s  TTL to {} s",
                            fmt_service_seconds(lease.granted_at),
                            fmt_service_seconds(lease.expires_at)
                        ),
                        format!(
                            "lease   {} → {} s",
                            fmt_service_seconds(lease.granted_at),
                            fmt_service_seconds(lease.expires_at)
                        ),
                    ],
                    left: Some((left.max(0) as f64 / length, duration(left))),
                }
            }
            None => LockLines {
                name: name.clone(),
                holder: None,
                details: vec!["no lock key in etcd".into()],
                left: None,
            },
        })
        .collect();
    let footer = match ttl {
        Some(ms) => format!("TTL {} s", fmt_seconds(ms as u64)),
        None => "token = lock key's revision".into(),
    };
    LockPanelData { locks, footer }
}

fn storage(board: &Board) -> StorageData {
    let marks = live_vocab(board).marks();
    let title = if board.fencing() {
        "Storage in etcd: token >= highest(key)"
    } else {
        "Storage in etcd: NO CHECK"
    };
    let rows = board
        .storage()
        .iter()
        .map(|row| {
            let highest = row.highest.unwrap_or(0);
            KeyRow {
                key: row.key.clone(),
                value: row.value.clone(),
                highest: Some(highest),
                by: row.by.map(|(client, token)| {
                    Author::new(client, Some((token, marks)), token == highest)
                }),
                corrupted: row
                    .by
                    .and_then(|(_, token)| (token < highest).then_some((token, highest))),
            }
        })
        .collect();
    let verdict = board.events().iter().rev().find_map(|e| match &e.kind {
        EventKind::Write {
            client,
            key,
            verdict,
            ..
        } => Some(verdict_line(verdict, *client, key, e.t, board.now(), marks)),
        _ => None,
    });
    StorageData {
        title: title.into(),
        highest: true,
        marks,
        rows,
        verdict,
        counts: None,
    }
}

fn caption(board: &Board, vocab: &Vocab) -> CaptionData {
    if let Some(ended) = &board.ended {
        return CaptionData {
            title: " Lesson over ",
            text: ended.clone(),
            role: None,
            prompt: None,
            prompt_in_footer: false,
        };
    }
    // What etcd did that the lesson did not plan stays in the box for a while: the class must
    // see it before the lesson's caption goes on.
    if let Some((t, news)) = board
        .news
        .as_ref()
        .filter(|(t, _)| board.now() < t + NEWS_SHOWN)
    {
        return CaptionData {
            title: " What etcd did ",
            text: format!("{} s: {news}.", fmt_seconds(*t)),
            role: Some(Role::Rejected),
            prompt: None,
            prompt_in_footer: false,
        };
    }
    let lesson = Lesson::new(
        board.setup().scenario.clone(),
        board.setup().seed,
        vocab.clone(),
    );
    let run = RunView {
        setup: board.setup(),
        history: board.history(),
        inputs: &[],
    };
    let caption = lesson.caption(run, board.now());
    CaptionData {
        title: " Lesson ",
        role: match caption.tone {
            Tone::Rejected => Some(Role::Rejected),
            Tone::Corrupted => Some(Role::Corrupted),
            Tone::Plain | Tone::Question => None,
        },
        text: caption.text,
        prompt: None,
        prompt_in_footer: false,
    }
}

/// How long etcd's news stays in the caption box, in ms.
const NEWS_SHOWN: Ms = 6_000;

/// The live screen as plain text, `width` x `height`: for tests and docs.
pub fn live_text(board: &Board, width: u16, height: u16) -> String {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    view::draw_data(
        area,
        &mut buf,
        &live_frame(board),
        &Theme::plain(),
        Mode::Main,
        &live_vocab(board),
    );
    view::buffer_text(&buf)
}

/// Shows the board until the lesson is over and the user quits (`q`, `Esc`, Ctrl-C), or until
/// `stop` is set and the run has finished cleaning up (`done`). A key that quits before the
/// end sets `stop`, and the screen stays until the run has stopped everything.
pub fn run_live(
    board: Arc<Mutex<Board>>,
    done: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
) -> io::Result<()> {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        report(info);
    }));
    enter()?;
    let result = live_loop(&board, &done, &stop);
    restore();
    result
}

fn live_loop(board: &Mutex<Board>, done: &AtomicBool, stop: &AtomicBool) -> io::Result<()> {
    let mut screen = Terminal::with_options(
        CrosstermBackend::new(io::stdout()),
        TerminalOptions {
            viewport: Viewport::Fixed(clamped(terminal::size().unwrap_or((80, 24)))),
        },
    )?;
    let theme = Theme::from_env();
    let vocab = {
        let board = board.lock().unwrap_or_else(|p| p.into_inner());
        live_vocab(&board)
    };
    event::poll(Duration::ZERO)?;
    let mut overlay = Overlay::None;
    loop {
        {
            let board = board.lock().unwrap_or_else(|p| p.into_inner());
            let data = live_frame_with(&board, overlay);
            screen.draw(|f| {
                let area = f.area();
                view::draw_data(area, f.buffer_mut(), &data, &theme, Mode::Main, &vocab)
            })?;
        }
        if stop.load(Ordering::SeqCst) && done.load(Ordering::SeqCst) {
            return Ok(());
        }
        if !event::poll(REDRAW)? {
            continue;
        }
        match event::read()? {
            Event::Resize(w, h) => screen.resize(clamped((w, h)))?,
            Event::Key(key) if key.is_press() => {
                let quits;
                (overlay, quits) = live_key(overlay, press_of(key));
                if quits {
                    if done.load(Ordering::SeqCst) {
                        return Ok(());
                    }
                    stop.store(true, Ordering::SeqCst);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{Scenario, Setup};
    use keys::KeyCode::{Char, Esc, Right};

    fn press(overlay: Overlay, code: keys::KeyCode) -> (Overlay, bool) {
        live_key(overlay, KeyPress::of(code))
    }

    #[test]
    fn the_live_keys_open_and_turn_the_help_and_quit() {
        let help = |page| Overlay::Help { page };
        assert_eq!(press(Overlay::None, Char('?')), (help(0), false));
        assert_eq!(press(help(0), Right), (help(1), false));
        assert_eq!(press(help(1), Char('h')), (help(0), false));
        assert_eq!(press(help(0), Char('?')), (Overlay::None, false));
        assert_eq!(press(help(2), Esc), (Overlay::None, false));
        assert_eq!(press(Overlay::None, Esc), (Overlay::None, true));
        assert_eq!(press(Overlay::None, Char('q')), (Overlay::None, true));
        assert_eq!(press(help(0), Char('q')), (help(0), true));
        // The lesson's other commands change the run: on etcd they do nothing.
        for key in ['n', ' ', 'g', 'f', 'c'] {
            assert_eq!(press(Overlay::None, Char(key)), (Overlay::None, false));
        }
        let last = view::help_pages(Mode::Main).len() - 1;
        assert_eq!(press(help(last), Right), (help(last), false));
    }

    #[test]
    fn the_live_help_names_its_keys_and_why_there_are_no_others() {
        let scenario = std::sync::Arc::new(Scenario::built_in("gc-pause").unwrap());
        let board = Board::new(Setup::new(scenario));
        let area = Rect::new(0, 0, 80, 24);
        let mut buf = Buffer::empty(area);
        let data = live_frame_with(&board, Overlay::Help { page: 0 });
        let vocab = live_vocab(&board);
        view::draw_data(area, &mut buf, &data, &Theme::plain(), Mode::Main, &vocab);
        let text = view::buffer_text(&buf);
        for wanted in ["? ", "help", "q ", "not on a real etcd"] {
            assert!(text.contains(wanted), "{wanted:?} not in the help:\n{text}");
        }
        assert!(!text.contains("fencing on/off"), "{text}");
        let footer = view::buffer_text(&{
            let mut buf = Buffer::empty(area);
            view::draw_data(
                area,
                &mut buf,
                &live_frame(&board),
                &Theme::plain(),
                Mode::Main,
                &vocab,
            );
            buf
        });
        assert!(
            footer.lines().last().unwrap().contains("? help"),
            "{footer}"
        );
    }
}
