//! The lesson as one self-contained HTML page, for students who will not install Rust: the
//! diagram, then the lesson step by step, each with its caption, what happened and the UI's own
//! screen at that moment (in its colours); the predict-then-reveal question; a fencing switch
//! between two precomputed histories; and how to run it yourself.
//!
//! The page makes no request of any kind (its Content-Security-Policy allows nothing but its own
//! inline style and script), so it works opened from `file://`. Without JavaScript it shows every
//! step in order, each answer behind a "Show the answer" fold.

use std::fmt::Write as _;

mod lab;
mod live;
mod style;

pub use lab::lab_page;

use super::screen::{self, to_html};
use super::steps::{walk, Step, StepKind};
use super::svg::{self, Size, Window};
use super::xml::escape;
use crate::sim::lesson::{Caption, Lesson, RunView, Source, Tone};
use crate::sim::phrase::{self, Around};
use crate::sim::scenario::Beat;
use crate::sim::story::{tell, Line};
use crate::sim::text::printable;
use crate::sim::time::fmt_seconds;
use crate::sim::{Event, Ms, Session, Setup, Vocab};
use crate::tui::{render_buffer, Theme};
use style::{CSS, SCRIPT};

/// The screen size each step is drawn at: the projector's 80x24.
pub const SCREEN: (u16, u16) = (80, 24);

/// The two commands the README's set-up gives, as the page's footer repeats them.
pub const RUN_IT_YOURSELF: [&str; 2] = ["cargo run --release", "cargo test"];

/// What a reader can say to a question, as the page names it.
const SAID: [(Option<bool>, &str); 3] = [
    (None, "skipped"),
    (Some(true), "accepted"),
    (Some(false), "rejected"),
];

/// One step of a run as the page shows it.
struct PageStep {
    step: Step,
    /// The caption lines and what happened since the step before, from the story.
    captions: Vec<Caption>,
    events: Vec<String>,
    question: Option<String>,
    /// The screen; for a reveal, one per answer in [`SAID`]'s order, with its caption.
    screens: Vec<(String, Option<Caption>)>,
    /// For the last step: the run summed up.
    summary: Vec<Caption>,
}

/// The page of `setup`'s lesson, played to `until`, with both fencing settings. The switch starts
/// where `setup` has it.
pub fn page(setup: &Setup, until: Ms) -> String {
    page_of(setup, until, None)
}

/// [`page`] with the live lesson above its steps: `module` is the WebAssembly of `web`,
/// gzipped. A student's code cannot run in the page, so its page has no live lesson.
pub fn live_page(setup: &Setup, until: Ms, module: &[u8]) -> String {
    let live = setup.implemented_by.is_none().then_some(module);
    page_of(setup, until, live)
}

fn page_of(setup: &Setup, until: Ms, module: Option<&[u8]>) -> String {
    let scenario = &setup.scenario;
    // On a student's code the storage is theirs, and under a system with no token there is
    // nothing to check: no fencing to switch, one run.
    let student = setup.implemented_by.is_some();
    let single = student || !setup.has_token();
    let runs = if student {
        vec![("on", setup.clone())]
    } else if !setup.has_token() {
        vec![("off", setup.clone().fencing(false))]
    } else {
        vec![
            ("on", setup.clone().fencing(true)),
            ("off", setup.clone().fencing(false)),
        ]
    };
    let sessions: Vec<Session> = runs
        .iter()
        .map(|(_, s)| Session::played_to(s.clone(), until))
        .collect();
    let window = Window::choose(&sessions.iter().collect::<Vec<_>>(), None, until);
    let vocab = Vocab::of(&scenario.locks, setup.system).writing(&scenario.keys());
    let title = format!("{}: {}", scenario.name, vocab.say_script(&scenario.title));
    let start = if single || setup.fencing {
        runs[0].0
    } else {
        "off"
    };

    let mut html = String::with_capacity(512 * 1024);
    let _ = write!(
        html,
        concat!(
            "<!DOCTYPE html>\n<html lang=\"en\" class=\"nojs\">\n<head>\n<meta charset=\"utf-8\">\n",
            "<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n",
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
            "<title>{title}</title>\n<style>{css}{screen_css}{live_css}</style>\n</head>\n",
            "<body data-start=\"{start}\"{single}>\n<header>\n<h1>{title}</h1>\n",
            "<p class=\"settings\">{settings}</p>\n</header>\n{live}",
            "<nav class=\"controls js-only\" aria-label=\"Lesson steps\">{to_live}",
            "<button type=\"button\" id=\"back\">← Back</button>",
            "<button type=\"button\" id=\"next\">Next →</button>",
            "<span id=\"where\" aria-live=\"polite\"></span>",
            "{switch}<span class=\"keys\">keys: ← → steps, a accepted, b rejected{f_key}</span>",
            "</nav>\n<main>\n"
        ),
        title = escape(&title),
        csp = if module.is_some() {
            live::CSP
        } else {
            "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"
        },
        css = CSS,
        screen_css = screen::CSS,
        live_css = if module.is_some() { live::CSS } else { "" },
        live = if module.is_some() {
            live::section(setup)
        } else {
            String::new()
        },
        to_live = if module.is_some() {
            "<button type=\"button\" id=\"to-live\" class=\"quiet\">Live lesson</button>"
        } else {
            ""
        },
        start = start,
        single = if single { " class=\"single\"" } else { "" },
        switch = if single {
            ""
        } else {
            concat!(
                "<label class=\"switch\"><input type=\"checkbox\" id=\"fencing\"> ",
                "<span>Fencing <b id=\"fencing-word\">ON</b></span></label>"
            )
        },
        f_key = if single { "" } else { ", f fencing" },
        settings = escape(&settings(setup, &vocab)),
    );
    for ((name, run_setup), session) in runs.iter().zip(&sessions) {
        run_section(&mut html, name, run_setup, session, window, until);
    }
    let _ = write!(
        html,
        concat!(
            "</main>\n<footer>\n<h2>How to run it yourself</h2>\n",
            "<p>On a machine with Rust (1.88 or later), from a copy of fencing-lab:</p>\n",
            "<pre class=\"commands\">{one}\n{two}</pre>\n",
            "<p>The first command builds the tool and opens its terminal UI; the second runs ",
            "every test. {in_the_ui} On this page: <kbd>←</kbd> <kbd>→</kbd> step, <kbd>a</kbd> ",
            "accepted, <kbd>b</kbd> rejected{f_kbd}.</p>\n</footer>\n<script>{js}</script>\n",
            "{module}{live_js}</body>\n</html>\n"
        ),
        module = module.map(live::module).unwrap_or_default(),
        live_js = if module.is_some() {
            format!("<script>{}</script>\n", live::SCRIPT)
        } else {
            String::new()
        },
        one = escape(RUN_IT_YOURSELF[0]),
        two = escape(RUN_IT_YOURSELF[1]),
        in_the_ui = in_the_ui(setup),
        f_kbd = if single { "" } else { ", <kbd>f</kbd> fencing" },
        js = SCRIPT,
    );
    html
}

/// The line under the title: the lease, the first token and who judges the writes.
fn settings(setup: &Setup, vocab: &Vocab) -> String {
    let scenario = &setup.scenario;
    let judged = match (&setup.implemented_by, setup.system) {
        (Some(who), _) => format!(
            "every write judged by your FencedStorage ({})",
            printable(who)
        ),
        (None, Some(system)) if !system.has_token => format!(
            "{} has no token, so the storage has nothing to check",
            system.name
        ),
        (None, _) => vocab.say(&format!(
            "the storage's rule with fencing on: {}",
            setup.check.rule()
        )),
    };
    // In the system's words the lease and its numbers; the system's own lack of a token as it is.
    format!(
        "{}; {judged}. A lesson of fencing-lab, on lease locks and fencing.",
        vocab.say(&format!(
            "lease {} s, first token {}",
            fmt_seconds(scenario.lease_ms),
            setup.first_token()
        )),
    )
}

/// How to see the same lesson in the terminal UI, as the footer says it (HTML).
fn in_the_ui(setup: &Setup) -> String {
    let name = escape(&setup.scenario.name);
    if let Some(system) = setup.system.filter(|s| !s.has_token) {
        return format!(
            "In the UI, <code>fencing-lab tui {name} --as {}</code> tells the same run; \
             <kbd>n</kbd> steps through it and <kbd>?</kbd> shows every key.",
            system.id
        );
    }
    if setup.implemented_by.is_some() {
        return format!(
            "To watch your code in the terminal UI, give the same <code>--impl</code> to \
             <code>fencing-lab tui {name}</code>; <kbd>n</kbd> steps through it and <kbd>?</kbd> \
             shows every key."
        );
    }
    format!(
        "In the UI, press <kbd>s</kbd> to choose <b>{name}</b>, <kbd>n</kbd> to step through it, \
         <kbd>f</kbd> then <kbd>r</kbd> to replay it without fencing, and <kbd>?</kbd> for every \
         key."
    )
}

/// The size the page draws its diagrams at: a little under a slide's, so that beside the
/// caption its smallest text still reads.
pub const DIAGRAM: Size = Size {
    width: 1000,
    height: 563,
};

/// One run's section: its heading, its steps and its diagram. The steps after the first answer,
/// and the diagram (which shows every verdict), are inside a fold, so that without JavaScript
/// nothing before the fold gives the answer away; with JavaScript the fold is open and the
/// diagram moves into each step, drawn up to it.
fn run_section(
    html: &mut String,
    name: &str,
    setup: &Setup,
    session: &Session,
    window: Window,
    until: Ms,
) {
    let lesson = Lesson::of(session);
    let vocab = lesson.vocab();
    let heading = if let Some(who) = &setup.implemented_by {
        format!(
            "On your code: every write judged by your FencedStorage ({})",
            printable(who)
        )
    } else if let Some(system) = setup.system.filter(|s| !s.has_token) {
        format!(
            "As {}: no token, so the storage checks nothing",
            system.name
        )
    } else if setup.fencing {
        vocab.say(&format!("Fencing ON: {}", setup.check.rule()))
    } else {
        "The same lesson with fencing OFF: the storage checks nothing".to_owned()
    };
    let _ = write!(
        html,
        "<section class=\"run\" id=\"run-{name}\" data-fencing=\"{name}\">\n<h2>{}</h2>\n<ol class=\"steps\">\n",
        escape(&heading),
    );
    let beats = &setup.scenario.beats;
    let steps = steps(setup, session, until);
    let fold = steps
        .iter()
        .position(|s| matches!(s.step.kind, StepKind::Reveal { .. }));
    for (n, step) in steps.iter().enumerate() {
        if Some(n) == fold {
            html.push_str(concat!(
                "<li class=\"fold\"><details class=\"rest\"><summary>Show the answer and the rest ",
                "of the lesson</summary>\n<ol class=\"steps\">\n"
            ));
        }
        write_step(html, name, n, step, beats);
    }
    let diagram = format!(
        "<figure class=\"diagram\">{}<figcaption>The run as a space-time diagram: one line per actor, time left to right. Solid bars: a lease the lock service agrees is held; striped: a lease the client believes it holds, though it is gone. Every mark has its event as a tooltip.</figcaption></figure>\n",
        svg::diagram(session, DIAGRAM, window, &format!("{name}-")),
    );
    if fold.is_some() {
        html.push_str("</ol>\n");
        html.push_str(&diagram);
        html.push_str("</details></li>\n</ol>\n");
    } else {
        html.push_str("</ol>\n");
        html.push_str(&diagram);
    }
    html.push_str("</section>\n");
}

/// The run's steps, walked in the UI, each with its share of the story and its screens; the
/// last also sums the run up.
fn steps(setup: &Setup, session: &Session, until: Ms) -> Vec<PageStep> {
    let (w, h) = SCREEN;
    let theme = Theme::colored();
    let mut steps: Vec<PageStep> = Vec::new();
    walk(setup, until, theme, true, None, |step, app| {
        let caption = matches!(step.kind, StepKind::Reveal { .. }).then(|| app.caption());
        // The question as the UI's caption box asks it.
        let question = matches!(step.kind, StepKind::Question { .. }).then(|| app.caption().text);
        steps.push(PageStep {
            step,
            captions: Vec::new(),
            events: Vec::new(),
            question,
            screens: vec![(to_html(&render_buffer(app, w, h)), caption)],
            summary: Vec::new(),
        });
    });
    // The reveal as each answer makes it: the same walk, answered otherwise.
    for (said, _) in &SAID[1..] {
        let mut reveals = Vec::new();
        walk(setup, until, theme, true, *said, |step, app| {
            if matches!(step.kind, StepKind::Reveal { .. }) {
                reveals.push((to_html(&render_buffer(app, w, h)), Some(app.caption())));
            }
        });
        let mut reveals = reveals.into_iter();
        for step in steps
            .iter_mut()
            .filter(|s| matches!(s.step.kind, StepKind::Reveal { .. }))
        {
            if let Some(screen) = reveals.next() {
                step.screens.push(screen);
            }
        }
    }

    // The story told once, shared out: each step takes the lines up to its moment.
    let lesson = Lesson::of(session);
    let story = tell(&lesson, RunView::of(session), until);
    let mut next = 0;
    for page_step in &mut steps {
        let Step { t, kind } = page_step.step;
        while let Some((line_t, line)) = story.get(next) {
            let take = match kind {
                // The question is the step's own; the story's line of it is passed over.
                StepKind::Question { .. } if matches!(line, Line::Question { .. }) => {
                    next += 1;
                    break;
                }
                StepKind::End => true,
                _ => *line_t <= t && !matches!(line, Line::Question { .. }),
            };
            if !take {
                break;
            }
            match line {
                Line::Caption(caption) => page_step.captions.push(caption.clone()),
                Line::Event(event) => page_step.events.push(event.describe(lesson.vocab())),
                // The reveal's own caption (with what the reader said) is its screens'.
                Line::Answer { .. } | Line::Question { .. } => {}
            }
            next += 1;
        }
        if kind == StepKind::End {
            page_step.summary = summary(&lesson, session, until);
        }
    }
    steps
}

/// The run summed up, for its last step: the counts, each question's answer, and every write
/// the storage refused or let corrupt, in the sentences the lesson uses for them.
fn summary(lesson: &Lesson, session: &Session, until: Ms) -> Vec<Caption> {
    let run = RunView::of(session);
    let mut lines = vec![Caption {
        text: format!(
            "The run, to {} s: {}.",
            fmt_seconds(until),
            session.world().stats().words()
        ),
        tone: Tone::Plain,
        source: Source::Generated { at: until },
    }];
    for (index, beat) in session.scenario().beats.iter().enumerate() {
        if beat.ask.is_some() && lesson.has_answer(run, index) {
            let mut answer = lesson.answer(run, index);
            answer.text = format!(
                "The question at {} s: {}",
                fmt_seconds(beat.at),
                answer.text
            );
            lines.push(answer);
        }
    }
    const MOST: usize = 6;
    let asked = lesson.asked_writes(run);
    let refused: Vec<&Event> = session
        .world()
        .events()
        .iter()
        .filter(|e| e.t <= until && !asked.iter().any(|a| std::ptr::eq(*a, *e)))
        .filter(|e| {
            e.kind
                .verdict()
                .is_some_and(|v| v.outcome() != crate::Outcome::Accepted)
        })
        .collect();
    for event in refused.iter().take(MOST) {
        if let Some((_, text, tone)) = phrase::caption(event, lesson.vocab(), Around::default()) {
            lines.push(Caption {
                text: format!("{} s: {text}", fmt_seconds(event.t)),
                tone,
                source: Source::Generated { at: event.t },
            });
        }
    }
    if refused.len() > MOST {
        lines.push(Caption {
            text: format!(
                "And {} more writes the storage refused or let corrupt: the diagram marks each.",
                refused.len() - MOST
            ),
            tone: Tone::Plain,
            source: Source::Generated { at: until },
        });
    }
    lines
}

fn tone_class(tone: Tone) -> &'static str {
    match tone {
        Tone::Plain => "caption",
        Tone::Rejected => "caption rejected",
        Tone::Corrupted => "caption corrupted",
        Tone::Question => "caption question",
    }
}

/// A step's moment as the page states it: a question is dated by the write it asks about, as
/// the transcript dates it.
fn moment(step: &Step, beats: &[Beat]) -> Ms {
    match step.kind {
        StepKind::Question { beat } => beats.get(beat).map_or(step.t, |b| b.at),
        _ => step.t,
    }
}

fn when(step: &Step, beats: &[Beat]) -> String {
    let t = fmt_seconds(moment(step, beats));
    match step.kind {
        StepKind::Beat { beat } => format!("{t} s · beat {} of {}", beat + 1, beats.len()),
        StepKind::Question { .. } => format!("{t} s · a question before the write"),
        StepKind::Reveal { .. } => format!("{t} s · the answer"),
        StepKind::Moment => format!("{t} s"),
        StepKind::End => format!("{t} s · the end: the run summed up"),
    }
}

fn write_step(html: &mut String, run: &str, n: usize, page_step: &PageStep, beats: &[Beat]) {
    let step = &page_step.step;
    let (kind, beat) = match step.kind {
        StepKind::Beat { beat } => ("beat", Some(beat)),
        StepKind::Question { beat } => ("question", Some(beat)),
        StepKind::Reveal { beat, .. } => ("reveal", Some(beat)),
        StepKind::Moment => ("moment", None),
        StepKind::End => ("end", None),
    };
    let when = when(step, beats);
    let at = moment(step, beats);
    let _ = write!(
        html,
        "<li class=\"step {kind}\" id=\"{run}-{n}\" data-kind=\"{kind}\" data-t=\"{at}\" data-when=\"{}\"{}>\n<p class=\"when\">{}</p>\n",
        escape(&when),
        beat.map(|b| format!(" data-beat=\"{b}\"")).unwrap_or_default(),
        escape(&when),
    );
    let screen_label = match step.kind {
        StepKind::Question { .. } => format!(
            "The terminal UI as it asks: its clock stands at {} s, the last moment before the write",
            fmt_seconds(step.t)
        ),
        _ => format!("The terminal UI at {} s", fmt_seconds(step.t)),
    };
    let slot = "<div class=\"slot\"></div>";
    match step.kind {
        StepKind::Question { .. } => {
            let question = page_step.question.as_deref().unwrap_or_default();
            let _ = writeln!(
                html,
                concat!(
                    "<div class=\"body\"><div class=\"text\">{before}",
                    "<p class=\"caption question\">{q}</p>",
                    "<p class=\"predict\">Predict before you look: accepted or rejected?</p>",
                    "<div class=\"answers js-only\">",
                    "<button type=\"button\" data-say=\"accepted\">Accepted (a)</button>",
                    "<button type=\"button\" data-say=\"rejected\">Rejected (b)</button></div>",
                    "{events}</div>{slot}{screen}</div>"
                ),
                before = captions(&page_step.captions),
                q = escape(question),
                events = events(page_step),
                slot = slot,
                screen = ui(&page_step.screens[0].0, &screen_label),
            );
        }
        StepKind::Reveal { .. } => {
            // Each answer's caption and screen; the page shows the reader's (without
            // JavaScript: skipped, so the answer is told plainly).
            html.push_str("<div class=\"body\"><div class=\"text\">");
            for ((_, said), (_, caption)) in SAID.iter().zip(&page_step.screens) {
                let caption = caption.as_ref().map(|c| captions(std::slice::from_ref(c)));
                let _ = write!(
                    html,
                    "<div class=\"said\" data-said=\"{said}\">{}</div>",
                    caption.unwrap_or_default()
                );
            }
            let _ = write!(
                html,
                "{}{}</div>{slot}",
                captions(&page_step.captions),
                events(page_step)
            );
            for ((_, said), (screen, _)) in SAID.iter().zip(&page_step.screens) {
                let _ = write!(
                    html,
                    "<div class=\"said ui-of\" data-said=\"{said}\">{}</div>",
                    ui(screen, &screen_label)
                );
            }
            html.push_str("</div>\n");
        }
        _ => {
            let _ = writeln!(
                html,
                "<div class=\"body\"><div class=\"text\">{}{}{}</div>{slot}{}</div>",
                captions(&page_step.captions),
                summary_text(&page_step.summary),
                events(page_step),
                ui(&page_step.screens[0].0, &screen_label),
            );
        }
    }
    html.push_str("</li>\n");
}

/// Captions as paragraphs in their tones.
fn captions(captions: &[Caption]) -> String {
    let mut out = String::new();
    for caption in captions {
        let _ = write!(
            out,
            "<p class=\"{}\">{}</p>",
            tone_class(caption.tone),
            escape(&caption.text)
        );
    }
    out
}

/// The last step's summing up.
fn summary_text(lines: &[Caption]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    format!(
        "<div class=\"summary\"><h3>The run summed up</h3>{}</div>",
        captions(lines)
    )
}

/// What happened since the step before, as the story tells it.
fn events(step: &PageStep) -> String {
    let mut out = String::new();
    if !step.events.is_empty() {
        out.push_str("<ul class=\"events\" aria-label=\"What happened\">");
        for event in &step.events {
            let _ = write!(out, "<li>{}</li>", escape(event));
        }
        out.push_str("</ul>");
    }
    out
}

fn ui(screen: &str, label: &str) -> String {
    format!(
        "<figure class=\"ui\"><pre class=\"screen\">{screen}</pre><figcaption>{}</figcaption></figure>",
        escape(label)
    )
}
