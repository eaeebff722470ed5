//! The commands a page sends, one JSON object each, and what each answers: a lesson made and
//! played by keys (its screen, time and mode after each), its diagram, a check of the page's
//! JavaScript, and the lesson played on that code. Every answer is an object with `ok`; a
//! command that cannot be done answers `{"ok": false, "error": SENTENCE}`.

use std::cell::RefCell;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use super::lab::{self, Host, Stops};
use super::lesson::Lesson;
use crate::lab::check::Plan;
use crate::lab::report;
use crate::sim::time::fmt_seconds;
use crate::sim::{Scenario, Setup};
use crate::tui::Mode;
use crate::FenceCheck;

/// The most columns and rows a page's screen is drawn at, as the terminal clamps them.
const MOST: (u16, u16) = (crate::tui::MAX_WIDTH, crate::tui::MAX_HEIGHT);

thread_local! {
    /// The page's lesson: one page, one lesson at a time.
    static LESSON: RefCell<Option<Lesson>> = const { RefCell::new(None) };
}

/// Answers one command of the page, `host` standing for the student's code where a command
/// needs it (a check, the lesson on their code).
pub fn handle(command: &str, host: &dyn Fn() -> Arc<Mutex<dyn Host>>) -> String {
    let answer = serde_json::from_str::<Value>(command)
        .map_err(|e| format!("the page's command is not JSON: {e}"))
        .and_then(|c| answer(&c, host));
    match answer {
        Ok(mut value) => {
            value["ok"] = json!(true);
            value.to_string()
        }
        Err(error) => json!({ "ok": false, "error": error }).to_string(),
    }
}

fn answer(command: &Value, host: &dyn Fn() -> Arc<Mutex<dyn Host>>) -> Result<Value, String> {
    let op = command["op"].as_str().unwrap_or_default();
    match op {
        "lesson" => {
            let (width, height) = size(command)?;
            let system =
                match text(command, "system").filter(|s| !s.is_empty()) {
                    None => None,
                    Some(id) => Some(crate::sim::systems::find(id).ok_or_else(|| {
                        format!("no system `{}`", crate::sim::text::printable(id))
                    })?),
                };
            let lesson = Lesson::new(
                text(command, "scenario").unwrap_or("gc-pause"),
                command["fencing"].as_bool().unwrap_or(true),
                check_of(command)?,
                system,
                width,
                height,
            )?;
            set(lesson)
        }
        "watch" => {
            let (width, height) = size(command)?;
            let scenario = text(command, "scenario").unwrap_or("gc-pause");
            let scenario = Scenario::built_in(scenario)
                .map(Arc::new)
                .ok_or_else(|| format!("no built-in lesson `{scenario}`"))?;
            let program =
                lab::HostProgram::start(host(), Arc::default(), Arc::new(Stops::default()))
                    .map_err(|e| e.sentence)?;
            let shared: crate::lab::remote::Shared = Arc::new(Mutex::new(program));
            let setup = Setup::new(scenario)
                .student(crate::lab::remote::factory(shared), "lock_service.mjs");
            set(Lesson::of(setup, width, height))
        }
        "keys" => with_lesson(|lesson| lesson.press(text(command, "keys").unwrap_or_default())),
        "tick" => with_lesson(|lesson| {
            lesson.tick(command["ms"].as_u64().unwrap_or(0));
            Ok(())
        }),
        "resize" => {
            let (width, height) = size(command)?;
            with_lesson(|lesson| {
                lesson.resize(width, height);
                Ok(())
            })
        }
        "view" => with_lesson(|_| Ok(())),
        "diagram" => LESSON.with(|cell| match &*cell.borrow() {
            Some(lesson) => Ok(json!({ "svg": lesson.diagram() })),
            None => Err(NO_LESSON.into()),
        }),
        "check" => {
            let stops = Stops {
                at: command["stops"]
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_u64).collect())
                    .unwrap_or_default(),
                waited_ms: command["waited_ms"].as_u64().unwrap_or(2000),
            };
            let report = lab::check_on(host(), stops, &Plan::default());
            Ok(json!({
                "text": report::text(&report),
                "report": report::json(&report, &crate::lab::points::Points::default()),
                "passed": report.passed(),
                "total": report.outcomes.len(),
            }))
        }
        other => Err(format!(
            "the page asked for `{}`, which is no command",
            crate::sim::text::printable(other)
        )),
    }
}

const NO_LESSON: &str = "no lesson yet: the page starts one first";

/// Makes `lesson` the page's, and answers its view.
fn set(lesson: Lesson) -> Result<Value, String> {
    let view = view(&lesson);
    LESSON.with(|cell| *cell.borrow_mut() = Some(lesson));
    Ok(view)
}

/// `change` done to the page's lesson, and its view after.
fn with_lesson(change: impl FnOnce(&mut Lesson) -> Result<(), String>) -> Result<Value, String> {
    LESSON.with(|cell| {
        let mut lesson = cell.borrow_mut();
        let lesson = lesson.as_mut().ok_or(NO_LESSON)?;
        change(lesson)?;
        Ok(view(lesson))
    })
}

/// What the page shows after each command: the screen (in colour, and as text), the time, and
/// what the page's controls need to know (the mode, whether it plays, whether it asks).
fn view(lesson: &Lesson) -> Value {
    let app = lesson.app();
    let mode = match app.mode() {
        Mode::Main => "main",
        Mode::Question => "question",
        Mode::Help => "help",
        Mode::Picker => "picker",
    };
    json!({
        "screen": lesson.screen_html(),
        "text": lesson.screen_text(),
        "t": app.session().now() as f64 / 1000.0,
        "time": fmt_seconds(app.session().now()),
        "mode": mode,
        "playing": app.wants_ticks(),
        "at_end": app.at_end(),
        "asking": lesson.asking(),
    })
}

fn text<'a>(command: &'a Value, field: &str) -> Option<&'a str> {
    command[field].as_str()
}

fn size(command: &Value) -> Result<(u16, u16), String> {
    let side = |field: &str, least: u16, most: u16, default: u16| -> Result<u16, String> {
        match command[field].as_u64() {
            None => Ok(default),
            Some(n) if (least as u64..=most as u64).contains(&n) => Ok(n as u16),
            Some(n) => Err(format!("a screen {n} {field} is not {least} to {most}")),
        }
    };
    Ok((
        side("width", 1, MOST.0, 80)?,
        side("height", 1, MOST.1, 24)?,
    ))
}

fn check_of(command: &Value) -> Result<FenceCheck, String> {
    match text(command, "check") {
        None => Ok(FenceCheck::PerKey),
        Some(name) => FenceCheck::from_name(name).ok_or_else(|| {
            format!(
                "there is no check `{}`; use per-key, strict, global or none",
                crate::sim::text::printable(name)
            )
        }),
    }
}
