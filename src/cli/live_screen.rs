//! `live --tui`: the live run on a thread of its own fills the board the terminal UI draws,
//! and the summary is printed on the terminal once the screen is given back.

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::live::counts;
use super::Failure;
use crate::live::{self, Fault, Said, Settings, Start};
use crate::sim::board::{About, Board};
use crate::sim::text::printable;
use crate::sim::time::fmt_seconds;
use crate::sim::{Ms, Scenario, Setup};

/// `live --tui`: the run on another thread fills the board the UI draws.
pub(super) fn run_tui(settings: &Settings) -> Result<ExitCode, Failure> {
    let setup = Setup::new(Arc::clone(&settings.scenario))
        .seed(settings.seed)
        .fencing(settings.fencing);
    let board = Arc::new(Mutex::new(Board::new(setup)));
    let done = Arc::new(AtomicBool::new(false));
    let result = std::thread::scope(|scope| {
        let conductor = scope.spawn(|| {
            let board = Arc::clone(&board);
            let scenario = Arc::clone(&settings.scenario);
            let result = live::run(settings, &mut |said| {
                let mut b = board.lock().unwrap_or_else(|p| p.into_inner());
                match said {
                    Said::Start(start) => {
                        b.end = start.end;
                        b.ttl = Some(start.ttl_granted.max(0) as Ms * 1000);
                        b.about = Some(about(&start));
                    }
                    Said::Event { event, .. } => b.apply(event),
                    Said::Storage(rows) => b.set_storage(rows),
                    Said::Tick(t) => b.tick(t),
                    Said::News {
                        t,
                        what,
                        fields,
                        text,
                    } => {
                        if what == live::News::LeaseOutlived {
                            outlived(&mut b, &scenario, t, &fields);
                        }
                        b.news = Some((t, text));
                    }
                    // The screen's caption box follows the run as it goes; the script's
                    // captions, told a beat late, are for the transcript.
                    Said::Note { .. } | Said::Caption { .. } => {}
                }
            });
            let mut b = board.lock().unwrap_or_else(|p| p.into_inner());
            b.ended = Some(match &result {
                Ok(f) => format!(
                    "The lesson is over at {} s: {}. {}.",
                    fmt_seconds(f.at),
                    counts(&f.stats),
                    capitalized(&f.afterwards)
                ),
                Err(Fault(why)) => format!("The lesson stopped: {why}."),
            });
            drop(b);
            done.store(true, Ordering::SeqCst);
            result
        });
        let ui = crate::tui::run_live(
            Arc::clone(&board),
            Arc::clone(&done),
            Arc::clone(&settings.stop),
        );
        if ui.is_err() {
            settings.stop.store(true, Ordering::SeqCst);
        }
        let result = conductor
            .join()
            .unwrap_or_else(|_| Err(Fault("the lesson's thread panicked".into())));
        (ui, result)
    });
    match result {
        (Err(e), _) => Err(Failure::usage(format!("the terminal UI failed: {e}"))),
        (Ok(()), Ok(finished)) => {
            let mut out = io::stdout().lock();
            writeln!(
                out,
                "summary at {} s (real seconds): {}\n{}.",
                fmt_seconds(finished.at),
                counts(&finished.stats),
                printable(&finished.afterwards)
            )?;
            Ok(ExitCode::SUCCESS)
        }
        (Ok(()), Err(Fault(why))) => Err(Failure::usage(why)),
    }
}

/// A lease etcd kept past its planned end, as the board's lock service truth.
fn outlived(
    board: &mut Board,
    scenario: &Scenario,
    t: Ms,
    fields: &serde_json::Map<String, Value>,
) {
    let lock = fields
        .get("lock")
        .and_then(Value::as_str)
        .and_then(|name| scenario.lock_id(name));
    let token = fields.get("token").and_then(Value::as_u64);
    let ends = fields.get("ends_about").and_then(Value::as_f64);
    if let (Some(lock), Some(token), Some(ends)) = (lock, token, ends) {
        board.lease_outlived(lock, token, t, ends);
    }
}

/// `text` with its first letter a capital, to begin a sentence.
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Where the run happens, as the UI's header says it: "etcd 3.4.23 at 127.0.0.1:2379" (the
/// lesson's own) or "etcd at 127.0.0.1:23791 +2" (the first endpoint, and how many more); short,
/// "etcd 127.0.0.1:23791".
fn about(start: &Start) -> About {
    let first = start.endpoints.first().map_or("", String::as_str);
    let first = first.strip_prefix("http://").unwrap_or(first);
    let more = match start.endpoints.len() {
        0 | 1 => String::new(),
        n => format!(" +{}", n - 1),
    };
    let long = match &start.private {
        Some(p) => format!("etcd {} at {first}", p.version),
        None => format!("etcd at {first}{more}"),
    };
    About {
        long,
        short: format!("etcd {first}"),
    }
}
