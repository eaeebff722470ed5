//! The lesson on a real etcd (`live --tui`), drawn as it happens: the same screen as the
//! lesson's (timeline, lock panel, storage panel, caption, events), its data read from the
//! board the live run fills. The captions are the lesson's own, generated from the events
//! (tokens and times are etcd's, so no scripted sentence is taken on trust).

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossterm::event::{self, Event, KeyCode, KeyModifiers};
use crossterm::terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};

use super::action::Action;
use super::app::{Mode, Overlay};
use super::frame::{
    duration, event_role, verdict_line, CaptionData, ClientRow, EventLine, FooterData, FrameData,
    HeaderData, Holder, KeyRow, LockLines, LockPanelData, LockRow, StorageData, TimelineData,
    EVENTS_DESCRIBED,
};
use super::frame::{flights, Field};
use super::keys::Hint;
use super::terminal::{clamped, enter, restore};
use super::theme::{Role, Theme};
use super::view;
use crate::sim::board::Board;
use crate::sim::lesson::{belief_and_truth, Believes, Lesson, RunView, Tone, Truth};
use crate::sim::time::{fmt_seconds, fmt_service_seconds};
use crate::sim::{EventKind, LockId, Marks, Ms, Vocab};

/// How often the screen is drawn while the lesson runs.
const REDRAW: Duration = Duration::from_millis(100);

/// The frame of the live run as the board holds it now.
pub fn live_frame(board: &Board) -> FrameData<'_> {
    let scenario = &board.setup().scenario;
    let vocab = Vocab::plain(&scenario.locks);
    let now = board.now();
    let events = board.events();
    let from = events.len().saturating_sub(EVENTS_DESCRIBED);
    FrameData {
        mode: Mode::Main,
        overlay: Overlay::None,
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
            hints: vec![Hint {
                key: "q".into(),
                text: "quit",
                order: 0,
                action: Action::Quit,
            }],
        },
        // The live screen has no help overlay.
        help_missing: None,
    }
}

fn header(board: &Board) -> HeaderData {
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
        "etcd: plain put, no check"
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
        progress: board
            .about
            .first()
            .cloned()
            .unwrap_or_else(|| "starting etcd".into()),
    }
}

fn timeline(board: &Board) -> TimelineData<'_> {
    let scenario = &board.setup().scenario;
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
                        format!("t{token} {} left", duration(left))
                    }
                    Believes::Holds { token, .. } => format!("t{token} ran out"),
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
                    Some(lease) => format!("{} t{}", lease.client, lease.token),
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
        tokens: Marks::PLAIN,
        history: board.history(),
        clients,
        locks,
        flights,
    }
}

fn lock_panel(board: &Board) -> LockPanelData {
    let scenario = &board.setup().scenario;
    let mut ttl = None;
    let locks = scenario
        .locks
        .iter()
        .enumerate()
        .map(|(i, name)| match board.lease(LockId(i as u8)) {
            Some(lease) => {
                let left = board.lease_left(&lease);
                let length = ((lease.expires_at - lease.granted_at) * 1000.0)
                    .round()
                    .max(1.0);
                ttl = Some(length);
                LockLines {
                    name: name.clone(),
                    holder: Some(Holder {
                        client: lease.client.to_string(),
                        short: format!("c{}", lease.client.number()),
                        token: Some(format!("token {}", lease.token)),
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
        Some(ms) => format!("token = revision   TTL {} s", fmt_seconds(ms as u64)),
        None => "token = the lock key's revision".into(),
    };
    LockPanelData { locks, footer }
}

fn storage(board: &Board) -> StorageData {
    let title = if board.fencing() {
        "Storage in etcd: token >= highest(key)"
    } else {
        "Storage in etcd: NO CHECK (plain put)"
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
                    (
                        format!("{client} (t{token})"),
                        format!("c{} (t{token})", client.number()),
                    )
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
        } => Some(verdict_line(
            verdict,
            *client,
            key,
            e.t,
            board.now(),
            Marks::PLAIN,
        )),
        _ => None,
    });
    StorageData {
        title: title.into(),
        highest: true,
        marks: Marks::PLAIN,
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
        &Vocab::plain(&board.setup().scenario.locks),
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
        Vocab::plain(&board.setup().scenario.locks)
    };
    event::poll(Duration::ZERO)?;
    loop {
        {
            let board = board.lock().unwrap_or_else(|p| p.into_inner());
            let data = live_frame(&board);
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
                let ctrl_c =
                    key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c');
                if ctrl_c || matches!(key.code, KeyCode::Char('q') | KeyCode::Esc) {
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
