//! The headless reports: the lesson transcript, the JSON event stream and the markdown handout,
//! all told from the same story, with user text always printable.

use std::io::{self, Write};

use serde_json::json;

use crate::pictures::steps::app_at;
pub use crate::pictures::{settings_line, settings_without_seed};
use crate::sim::event::judge_name;
use crate::sim::lesson::{Lesson, RunView};
use crate::sim::story::{tell, Line};
use crate::sim::text::printable;
use crate::sim::time::{fmt_seconds, seconds};
use crate::sim::{Event, EventKind, Keep, Ms, Session, Setup, Stats, Vocab, World};
use crate::tui::{self, Theme};

/// "3 grants, 2 writes accepted, 1 rejected, 0 corruptions"
pub fn counts(s: &Stats) -> String {
    s.words()
}

/// The `summary` line (see `docs/events.md`); `stale_writes_accepted` and `corruptions` are the
/// same count by definition: an accepted write with a token older than the key's highest.
/// `fencing` and `check` are what is in force at `t`, as the write events name it (`none` while
/// fencing is off), not what the run started with.
///
/// On a student's implementation the line also names it, and its `check` is the seed's `per_key`
/// while the student's storage judged every write as that check does (no `differs` event), or
/// `external` once it did not.
pub fn summary_json(world: &World, t: Ms) -> serde_json::Value {
    let setup = world.setup();
    let stats = world.stats();
    let judge = match world.judge() {
        crate::Judge::External if stats.differences == 0 => {
            crate::Judge::Check(crate::FenceCheck::PerKey)
        }
        judge => judge,
    };
    let mut summary = json!({
        "t": seconds(t),
        "event": "summary",
        "scenario": setup.scenario.name,
        "seed": setup.scenario.chaos.as_ref().map(|_| setup.seed),
        "fencing": world.fencing(),
        "check": judge_name(judge),
        "grants": stats.grants,
        "writes_accepted": stats.writes_accepted,
        "writes_rejected": stats.writes_rejected,
        "stale_writes_accepted": stats.corruptions,
        "corruptions": stats.corruptions,
    });
    if let Some(implementation) = &setup.implemented_by {
        summary["implementation"] = json!(implementation);
    }
    summary
}

/// The transcript of a played session.
pub fn transcript(out: &mut impl Write, session: &Session) -> io::Result<()> {
    let scenario = session.scenario();
    let lesson = Lesson::of(session);
    writeln!(
        out,
        "{}: {}",
        printable(&scenario.name),
        printable(&lesson.vocab().say_script(&scenario.title))
    )?;
    writeln!(out, "{}\n", settings_line(session.setup()))?;
    let mut last_t = None;
    for (t, line) in tell(&lesson, RunView::of(session), session.now()) {
        let stamp = if last_t == Some(t) {
            String::new()
        } else {
            format!("{} s", fmt_seconds(t))
        };
        last_t = Some(t);
        let (mark, text) = match line {
            Line::Caption(c) => ("»", c.text),
            Line::Question { text, .. } => ("?", text),
            Line::Event(event) => (" ", event.describe(lesson.vocab())),
            Line::Answer { caption, .. } => ("=", caption.text),
        };
        writeln!(out, "{stamp:>8}  {mark} {}", printable(&text))?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "summary at {} s: {}",
        fmt_seconds(session.now()),
        counts(session.world().stats())
    )
}

/// Plays `setup` to `until`, printing events as they happen (text or JSON), in bounded memory:
/// a long chaos run never holds its whole history. Returns the stats.
pub fn stream(out: &mut impl Write, setup: &Setup, until: Ms, json: bool) -> io::Result<Stats> {
    let scenario = &setup.scenario;
    // JSON keeps its field names; the text speaks the system's words (`--as`).
    let vocab = if json {
        Vocab::plain(&scenario.locks)
    } else {
        Vocab::of(&scenario.locks, setup.system)
    };
    let mut world = World::new(setup, &[], Keep::Stream);
    if !json {
        writeln!(
            out,
            "{}: {}",
            printable(&scenario.name),
            printable(&scenario.title)
        )?;
        writeln!(out, "{}\n", settings_line(setup))?;
    }
    let mut last_t = None;
    let mut print = |out: &mut dyn Write, events: Vec<Event>| -> io::Result<()> {
        for event in events {
            if json {
                writeln!(out, "{}", event.to_json(&vocab))?;
            } else {
                let stamp = if last_t == Some(event.t) {
                    String::new()
                } else {
                    format!("{} s", fmt_seconds(event.t))
                };
                last_t = Some(event.t);
                writeln!(out, "{stamp:>8}    {}", printable(&event.describe(&vocab)))?;
            }
        }
        Ok(())
    };
    print(out, world.take_events())?;
    let mut t = 0;
    while t < until {
        t = (t + 1_000).min(until);
        world.advance_to(t, &[]);
        print(out, world.take_events())?;
    }
    if json {
        writeln!(out, "{}", summary_json(&world, until))?;
    } else {
        writeln!(
            out,
            "\nsummary at {} s: {}",
            fmt_seconds(until),
            counts(world.stats())
        )?;
    }
    Ok(*world.stats())
}

/// The JSON stream of a played session.
pub fn json_stream(out: &mut impl Write, session: &Session) -> io::Result<()> {
    let vocab = Vocab::plain(&session.scenario().locks);
    for event in session.world().events() {
        writeln!(out, "{}", event.to_json(&vocab))?;
    }
    writeln!(out, "{}", summary_json(session.world(), session.now()))
}

/// The moment a handout or `frame` shows by default: the first beat that asks a question, else
/// the first rejected or corrupting write, else the end.
pub fn key_moment(session: &Session) -> Ms {
    let asked = session
        .scenario()
        .beats
        .iter()
        .find(|b| b.ask.is_some())
        .map(|b| b.at);
    let verdict = session.world().events().iter().find_map(|e| match &e.kind {
        EventKind::Write { verdict, .. } if verdict.outcome() != crate::Outcome::Accepted => {
            Some(e.t)
        }
        _ => None,
    });
    asked
        .or(verdict)
        .unwrap_or(session.now())
        .min(session.now())
}

/// The screen of `setup` at `t`, for paper: no key hints, no play state.
fn handout_screen(setup: &Setup, t: Ms) -> String {
    let mut app = app_at(setup.clone(), t, Theme::plain(), false);
    app.set_handout(true);
    tui::render_text(&app, 80, 24)
}

fn cell(text: &str) -> String {
    printable(text).replace('|', "\\|")
}

/// A handout: the story up to the lesson's question as a table, the question on its own, then a
/// teacher's key with the answer, the rest of the story and the screen at the key moment with
/// fencing on and off (one screen, as it ran, on a student's code or a system with no token).
pub fn handout(out: &mut impl Write, session: &Session) -> io::Result<()> {
    let scenario = session.scenario();
    let lesson = Lesson::of(session);
    writeln!(
        out,
        "# {}: {}\n",
        printable(&scenario.name),
        printable(&scenario.title)
    )?;
    writeln!(out, "{}.\n", settings_line(session.setup()))?;
    let story = tell(&lesson, RunView::of(session), session.now());
    let question = story
        .iter()
        .position(|(_, line)| matches!(line, Line::Question { .. }));

    // Rows of (time, lesson column, what happens column); a question is a row of its own.
    type Row = (Ms, Vec<String>, Vec<String>);
    let rows_of = |lines: &[(Ms, Line<'_>)]| -> Vec<Row> {
        let mut rows: Vec<Row> = Vec::new();
        for (t, line) in lines {
            if rows.last().is_none_or(|row| row.0 != *t) {
                rows.push((*t, Vec::new(), Vec::new()));
            }
            let row = rows.last_mut().expect("just pushed");
            match line {
                Line::Caption(c) => row.1.push(cell(&c.text)),
                Line::Event(e) => row.2.push(cell(&e.describe(lesson.vocab()))),
                Line::Question { .. } | Line::Answer { .. } => {}
            }
        }
        rows
    };
    let table = |out: &mut dyn Write, rows: Vec<Row>| -> io::Result<()> {
        writeln!(out, "| t (s) | lesson | what happens |")?;
        writeln!(out, "|---:|---|---|")?;
        for (t, lesson, happened) in rows {
            writeln!(
                out,
                "| {} | {} | {} |",
                fmt_seconds(t),
                lesson.join("<br>"),
                happened.join("<br>")
            )?;
        }
        Ok(())
    };

    writeln!(out, "## The story\n")?;
    let (before, after) = story.split_at(question.unwrap_or(story.len()));
    table(out, rows_of(before))?;
    if let Some((t, Line::Question { text, .. })) = after.first() {
        writeln!(out, "\n## Question for the class\n")?;
        writeln!(
            out,
            "At {} s: **{}** Accepted or rejected? Predict, then turn to the teacher's key.\n",
            fmt_seconds(*t),
            cell(text)
        )?;
        writeln!(out, "---\n\n## Teacher's key\n")?;
        for (_, line) in after {
            if let Line::Answer { caption, .. } = line {
                writeln!(out, "**Answer:** {}\n", cell(&caption.text))?;
            }
        }
        writeln!(out, "The rest of the story:\n")?;
        table(out, rows_of(&after[1..]))?;
    }
    let moment = key_moment(session);
    // A student's storage keeps its own rule, and a system with no token has nothing to check:
    // fencing switched is not a screen this run can show, so there is one screen, as it ran.
    let setup = session.setup();
    let student = setup.implemented_by.is_some();
    let settings: &[bool] = if student || !setup.has_token() {
        &[setup.fencing]
    } else {
        &[true, false]
    };
    for &fencing in settings {
        let setup = setup.clone().fencing(fencing);
        let label = match (student, fencing) {
            (true, _) => "on your code",
            (false, true) => "fencing on",
            (false, false) => "fencing off",
        };
        writeln!(
            out,
            "\n### The screen at {} s, {label}\n",
            fmt_seconds(moment)
        )?;
        writeln!(out, "```text\n{}```", handout_screen(&setup, moment))?;
    }
    writeln!(
        out,
        "\nSummary at {} s: {}.",
        fmt_seconds(session.now()),
        counts(session.world().stats())
    )
}
