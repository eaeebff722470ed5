//! The lesson as one self-contained HTML page, for students who will not install Rust: the
//! diagram, then the lesson step by step, each with its caption, what happened and the UI's own
//! screen at that moment (in its colours); the predict-then-reveal question; a fencing switch
//! between two precomputed histories; and how to run it yourself.
//!
//! The page makes no request of any kind (its Content-Security-Policy allows nothing but its own
//! inline style and script), so it works opened from `file://`. Without JavaScript it shows every
//! step in order, each answer behind a "Show the answer" fold.

use std::fmt::Write as _;

use super::screen::{self, to_html};
use super::steps::{walk, Step, StepKind};
use super::svg::{self, Size, Window};
use super::xml::escape;
use crate::sim::lesson::{Caption, Lesson, RunView, Tone};
use crate::sim::story::{tell, Line};
use crate::sim::time::fmt_seconds;
use crate::sim::{Ms, Session, Setup};
use crate::tui::{render_buffer, Theme};

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
}

/// The page of `setup`'s lesson, played to `until`, with both fencing settings. The switch starts
/// where `setup` has it.
pub fn page(setup: &Setup, until: Ms) -> String {
    let scenario = &setup.scenario;
    let runs = [
        ("on", setup.clone().fencing(true)),
        ("off", setup.clone().fencing(false)),
    ];
    let sessions: Vec<Session> = runs
        .iter()
        .map(|(_, s)| Session::played_to(s.clone(), until))
        .collect();
    let window = Window::choose(&sessions.iter().collect::<Vec<_>>(), None, until);
    let title = format!("{}: {}", scenario.name, scenario.title);
    let start = if setup.fencing { "on" } else { "off" };

    let mut html = String::with_capacity(512 * 1024);
    let _ = write!(
        html,
        concat!(
            "<!DOCTYPE html>\n<html lang=\"en\" class=\"nojs\">\n<head>\n<meta charset=\"utf-8\">\n",
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; ",
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n",
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
            "<title>{title}</title>\n<style>{css}{screen_css}</style>\n</head>\n",
            "<body data-start=\"{start}\">\n<header>\n<h1>{title}</h1>\n",
            "<p class=\"settings\">lease {lease} s, first token {first}; the storage's rule with fencing on: {rule}. ",
            "A lesson of fencing-lab: why a lease lock needs fencing tokens.</p>\n",
            "<nav class=\"controls js-only\" aria-label=\"Lesson steps\">",
            "<button type=\"button\" id=\"back\">← Back</button>",
            "<button type=\"button\" id=\"next\">Next →</button>",
            "<span id=\"where\" aria-live=\"polite\"></span>",
            "<label class=\"switch\"><input type=\"checkbox\" id=\"fencing\"> ",
            "<span>Fencing <b id=\"fencing-word\">ON</b></span></label>",
            "<span class=\"keys\">keys: ← → steps, a accepted, b rejected, f fencing</span>",
            "</nav>\n</header>\n<main>\n"
        ),
        title = escape(&title),
        css = CSS,
        screen_css = screen::CSS,
        start = start,
        lease = fmt_seconds(scenario.lease_ms),
        first = scenario.first_token,
        rule = escape(setup.check.rule()),
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
            "every test. In the UI, press <kbd>s</kbd> to choose <b>{name}</b>, <kbd>n</kbd> to step ",
            "through it, <kbd>f</kbd> then <kbd>r</kbd> to replay it without fencing, and ",
            "<kbd>?</kbd> for every key.</p>\n</footer>\n<script>{js}</script>\n</body>\n</html>\n"
        ),
        one = escape(RUN_IT_YOURSELF[0]),
        two = escape(RUN_IT_YOURSELF[1]),
        name = escape(&scenario.name),
        js = SCRIPT,
    );
    html
}

/// One run's section: its heading, its diagram and its steps.
fn run_section(
    html: &mut String,
    name: &str,
    setup: &Setup,
    session: &Session,
    window: Window,
    until: Ms,
) {
    let heading = if setup.fencing {
        format!("Fencing ON: {}", setup.check.rule())
    } else {
        "The same lesson with fencing OFF: the storage checks nothing".to_owned()
    };
    let _ = write!(
        html,
        "<section class=\"run\" id=\"run-{name}\" data-fencing=\"{name}\">\n<h2>{}</h2>\n<ol class=\"steps\">\n",
        escape(&heading),
    );
    let beats = setup.scenario.beats.len();
    for (n, step) in steps(setup, session, until).iter().enumerate() {
        write_step(html, name, n, step, beats);
    }
    // After the steps, so the whole run does not give the question's answer away; with
    // JavaScript it shows the run up to the current step.
    let _ = write!(
        html,
        "</ol>\n<figure class=\"diagram\">{}<figcaption>The run as a space-time diagram: one line per actor, time left to right. Solid bars: a lease the lock service agrees is held; striped: a lease the client believes it holds, though it is gone. Every mark has its event as a tooltip.</figcaption></figure>\n</section>\n",
        svg::diagram(session, Size::DEFAULT, window, &format!("{name}-")),
    );
}

/// The run's steps, walked in the UI, each with its share of the story and its screens.
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
    }
    steps
}

fn tone_class(tone: Tone) -> &'static str {
    match tone {
        Tone::Plain => "caption",
        Tone::Rejected => "caption rejected",
        Tone::Corrupted => "caption corrupted",
        Tone::Question => "caption question",
    }
}

fn when(step: &Step, beats: usize) -> String {
    let t = fmt_seconds(step.t);
    match step.kind {
        StepKind::Beat { beat } => format!("{t} s · beat {} of {beats}", beat + 1),
        StepKind::Question { .. } => format!("{t} s · a question before the next write"),
        StepKind::Reveal { .. } => format!("{t} s · the answer"),
        StepKind::Moment => format!("{t} s"),
        StepKind::End => format!("{t} s · the end"),
    }
}

fn write_step(html: &mut String, run: &str, n: usize, page_step: &PageStep, beats: usize) {
    let step = &page_step.step;
    let (kind, beat) = match step.kind {
        StepKind::Beat { beat } => ("beat", Some(beat)),
        StepKind::Question { beat } => ("question", Some(beat)),
        StepKind::Reveal { beat, .. } => ("reveal", Some(beat)),
        StepKind::Moment => ("moment", None),
        StepKind::End => ("end", None),
    };
    let when = when(step, beats);
    let _ = write!(
        html,
        "<li class=\"step {kind}\" id=\"{run}-{n}\" data-kind=\"{kind}\" data-t=\"{}\" data-when=\"{}\"{}>\n<p class=\"when\">{}</p>\n",
        step.t,
        escape(&when),
        beat.map(|b| format!(" data-beat=\"{b}\"")).unwrap_or_default(),
        escape(&when),
    );
    let screen_label = |t: Ms| format!("The terminal UI at {} s", fmt_seconds(t));
    match step.kind {
        StepKind::Question { .. } => {
            let question = page_step.question.as_deref().unwrap_or_default();
            let _ = write!(
                html,
                concat!(
                    "<div class=\"body\"><div class=\"text\">{before}",
                    "<p class=\"caption question\">{q}</p>",
                    "<p class=\"predict\">Predict before you look: accepted or rejected?</p>",
                    "<div class=\"answers js-only\">",
                    "<button type=\"button\" data-say=\"accepted\">Accepted (a)</button>",
                    "<button type=\"button\" data-say=\"rejected\">Rejected (b)</button></div>",
                    "</div>{screen}</div>\n"
                ),
                before = story_text(page_step),
                q = escape(question),
                screen = ui(&page_step.screens[0].0, &screen_label(step.t)),
            );
        }
        StepKind::Reveal { .. } => {
            html.push_str("<details class=\"answer\"><summary>Show the answer</summary>\n");
            for ((_, said), (screen, caption)) in SAID.iter().zip(&page_step.screens) {
                let caption = caption
                    .as_ref()
                    .map(|c| {
                        format!(
                            "<p class=\"{}\">{}</p>",
                            tone_class(c.tone),
                            escape(&c.text)
                        )
                    })
                    .unwrap_or_default();
                let _ = writeln!(
                    html,
                    "<div class=\"said body\" data-said=\"{said}\"><div class=\"text\">{caption}{}</div>{}</div>",
                    story_text(page_step),
                    ui(screen, &screen_label(step.t)),
                );
            }
            html.push_str("</details>\n");
        }
        _ => {
            let _ = writeln!(
                html,
                "<div class=\"body\"><div class=\"text\">{}</div>{}</div>",
                story_text(page_step),
                ui(&page_step.screens[0].0, &screen_label(step.t)),
            );
        }
    }
    html.push_str("</li>\n");
}

/// A step's captions and events, as the story tells them.
fn story_text(step: &PageStep) -> String {
    let mut out = String::new();
    for caption in &step.captions {
        let _ = write!(
            out,
            "<p class=\"{}\">{}</p>",
            tone_class(caption.tone),
            escape(&caption.text)
        );
    }
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

const CSS: &str = r##"
:root{color-scheme:light}
*{box-sizing:border-box}
body{margin:0;font:17px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1a1d23;background:#f4f5f7}
header,main,footer{max-width:1240px;margin:0 auto;padding:0 16px}
h1{font-size:1.55rem;line-height:1.25;margin:.7em 0 .2em}
h2{font-size:1.2rem;margin:1em 0 .2em}
.settings{color:#4b5260;margin:.1em 0 .6em}
.controls{position:sticky;top:0;z-index:2;background:#f4f5f7;display:flex;flex-wrap:wrap;gap:8px 10px;align-items:center;padding:8px 0;border-bottom:1px solid #d9dde3}
button{font:inherit;font-weight:600;padding:6px 14px;min-height:44px;border:2px solid #1a1d23;background:#fff;color:#1a1d23;border-radius:8px;cursor:pointer}
button:hover:not(:disabled){background:#eef1f6}
button:focus-visible,input:focus-visible{outline:3px solid #7c3aed;outline-offset:2px}
button:disabled{opacity:.35;cursor:default}
#where{font-weight:600;color:#4b5260}
.switch{display:inline-flex;align-items:center;gap:8px;font-weight:600;margin-left:auto;min-height:44px;cursor:pointer}
.switch input{width:22px;height:22px}
.keys{flex-basis:100%;font-size:.85rem;color:#5b6270}
.diagram{margin:.6em 0 1em;background:#fff;border:1px solid #d9dde3;border-radius:10px;overflow-x:auto}
.diagram svg{display:block;width:100%;height:auto;min-width:700px}
.diagram figcaption{font-size:.9rem;color:#4b5260;padding:6px 12px 10px}
.steps{list-style:none;margin:0;padding:0}
.step{background:#fff;border:1px solid #d9dde3;border-radius:10px;padding:12px 16px;margin:0 0 14px}
.when{margin:0 0 .2em;font-weight:700;color:#4b5260;font-size:.95rem}
.caption{font-size:1.12rem;margin:.25em 0 .5em}
.caption.rejected{border-left:6px solid #b91c1c;padding-left:10px;font-weight:600}
.caption.corrupted{background:#7f1010;color:#fff;padding:6px 10px;border-radius:6px;font-weight:700}
.caption.question{border-left:6px solid #7c3aed;padding-left:10px;font-weight:700}
.predict{margin:.2em 0 .6em}
.answers{display:flex;gap:10px;flex-wrap:wrap;margin:0 0 .8em}
.events{margin:.2em 0 .8em;padding-left:1.2em;font-size:.95rem;color:#2b303a}
.events li{margin:.15em 0}
.ui{margin:0;min-width:0}
.ui figcaption{font-size:.8rem;color:#5b6270;margin-top:4px}
.screen{margin:0;padding:8px 10px;border-radius:8px;overflow-x:auto;font-family:"DejaVu Sans Mono",Menlo,Consolas,"Liberation Mono",monospace;font-size:clamp(6px,calc((100vw - 80px) / 49),14px);line-height:1.18;white-space:pre}
.answer>summary{cursor:pointer;font-weight:700;min-height:44px;padding:8px 0}
.said{margin-top:6px}
.said[hidden]{display:none}
footer{padding-bottom:2em}
.commands{background:#16181d;color:#d8dde6;padding:10px 12px;border-radius:8px;overflow-x:auto;font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:.9rem}
kbd{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;border:1px solid #9aa1ad;border-bottom-width:2px;border-radius:4px;padding:0 4px;background:#fff}
.nojs .js-only{display:none}
.nojs .said:not([data-said=skipped]){display:none}
.js .step:not(.current){display:none}
.js .run[hidden]{display:none}
.js .answer>summary{display:none}
.js .run>h2{display:none}
@media (max-width:700px){
body{font-size:16px}
h1{font-size:1.2rem}
header .settings{font-size:.9rem}
.keys{display:none}
#where{order:3;flex-basis:100%;font-size:.9rem}
.controls{gap:6px 8px;padding:6px 0}
.step{padding:10px 12px}
}
@media (min-width:1100px){
.body{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:0 24px;align-items:start}
.screen{font-size:13.5px}
}
"##;

/// Next and Back, the arrow keys, the answers and the switch; it only shows and hides what the
/// page already holds.
const SCRIPT: &str = r##"
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.remove("nojs");
  root.classList.add("js");
  var runs = { on: document.getElementById("run-on"), off: document.getElementById("run-off") };
  var state = { on: { i: 0, said: {} }, off: { i: 0, said: {} } };
  var fencing = document.body.getAttribute("data-start") === "off" ? "off" : "on";
  var back = document.getElementById("back"), next = document.getElementById("next");
  var where = document.getElementById("where"), box = document.getElementById("fencing");
  var word = document.getElementById("fencing-word");
  function steps(run) { return Array.prototype.slice.call(runs[run].querySelectorAll(".step")); }
  function cursor(run, t) {
    var svg = runs[run].querySelector("svg");
    if (!svg) return;
    var from = +svg.getAttribute("data-from"), until = +svg.getAttribute("data-until");
    var x0 = +svg.getAttribute("data-x0"), x1 = +svg.getAttribute("data-x1");
    var line = svg.querySelector("line.cursor");
    if (!line) {
      line = document.createElementNS("http://www.w3.org/2000/svg", "line");
      line.setAttribute("class", "cursor");
      line.setAttribute("stroke", "#7c3aed");
      line.setAttribute("stroke-width", "3");
      line.setAttribute("stroke-dasharray", "10 5");
      line.setAttribute("y1", svg.getAttribute("data-top"));
      line.setAttribute("y2", svg.getAttribute("data-bottom"));
      svg.appendChild(line);
    }
    var clamped = Math.max(from, Math.min(until, t));
    var x = x0 + (clamped - from) * (x1 - x0) / Math.max(1, until - from);
    // What has not happened yet stays out of sight: its marks and labels, and a curtain over
    // the rest of the lanes.
    Array.prototype.forEach.call(svg.querySelectorAll("[data-t]"), function (el) {
      el.style.display = parseFloat(el.getAttribute("data-t")) * 1000 > t ? "none" : "";
    });
    var curtain = svg.querySelector("rect.curtain");
    if (!curtain) {
      curtain = document.createElementNS("http://www.w3.org/2000/svg", "rect");
      curtain.setAttribute("class", "curtain");
      curtain.setAttribute("fill", "#fff");
      curtain.setAttribute("fill-opacity", "0.9");
      curtain.setAttribute("y", svg.getAttribute("data-top"));
      curtain.setAttribute("height", svg.getAttribute("data-bottom") - svg.getAttribute("data-top"));
      svg.insertBefore(curtain, line);
    }
    curtain.setAttribute("x", x);
    curtain.setAttribute("width", Math.max(0, svg.viewBox.baseVal.width - x));
    line.setAttribute("x1", x);
    line.setAttribute("x2", x);
    line.style.display = t < from || t > until ? "none" : "";
  }
  function show() {
    runs.on.hidden = fencing !== "on";
    runs.off.hidden = fencing !== "off";
    var list = steps(fencing), st = state[fencing], cur = list[st.i];
    list.forEach(function (el, j) { el.classList.toggle("current", j === st.i); });
    if (cur.getAttribute("data-kind") === "reveal") {
      var said = st.said[cur.getAttribute("data-beat")] || "skipped";
      Array.prototype.forEach.call(cur.querySelectorAll(".said"), function (d) {
        d.hidden = d.getAttribute("data-said") !== said;
      });
      cur.querySelector("details").open = true;
    }
    back.disabled = st.i === 0;
    next.disabled = st.i === list.length - 1;
    next.textContent = cur.getAttribute("data-kind") === "question" ? "Skip the question →" : "Next →";
    where.textContent = "Step " + (st.i + 1) + " of " + list.length + " · " + cur.getAttribute("data-when");
    box.checked = fencing === "on";
    word.textContent = fencing === "on" ? "ON" : "OFF";
    cursor(fencing, +cur.getAttribute("data-t"));
  }
  function go(d) {
    var list = steps(fencing), st = state[fencing], cur = list[st.i];
    if (d > 0 && cur.getAttribute("data-kind") === "question") {
      var beat = cur.getAttribute("data-beat");
      if (!st.said[beat]) st.said[beat] = "skipped";
    }
    st.i = Math.max(0, Math.min(list.length - 1, st.i + d));
    show();
  }
  function say(said) {
    var list = steps(fencing), st = state[fencing], cur = list[st.i];
    if (cur.getAttribute("data-kind") !== "question") return;
    st.said[cur.getAttribute("data-beat")] = said;
    go(1);
  }
  function flip() {
    var from = steps(fencing)[state[fencing].i];
    var t = +from.getAttribute("data-t"), kind = from.getAttribute("data-kind");
    fencing = fencing === "on" ? "off" : "on";
    var list = steps(fencing), best = 0;
    list.forEach(function (el, j) { if (+el.getAttribute("data-t") <= t) best = j; });
    list.forEach(function (el, j) {
      if (+el.getAttribute("data-t") === t && el.getAttribute("data-kind") === kind) best = j;
    });
    // An answer not yet predicted in this run: ask first.
    var landed = list[best];
    if (landed.getAttribute("data-kind") === "reveal" && best > 0 &&
        !state[fencing].said[landed.getAttribute("data-beat")]) best -= 1;
    state[fencing].i = best;
    show();
  }
  back.addEventListener("click", function () { go(-1); });
  next.addEventListener("click", function () { go(1); });
  box.addEventListener("change", flip);
  Array.prototype.forEach.call(document.querySelectorAll("[data-say]"), function (b) {
    b.addEventListener("click", function () { say(b.getAttribute("data-say")); });
  });
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var k = e.key;
    if (k === "ArrowRight" || k === "n") { go(1); }
    else if (k === "ArrowLeft") { go(-1); }
    else if (k === "a") { say("accepted"); }
    else if (k === "b") { say("rejected"); }
    else if (k === "f") { flip(); }
    else return;
    e.preventDefault();
  });
  show();
})();
"##;
