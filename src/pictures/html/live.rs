//! The live lesson a page carries above its steps: the simulation as WebAssembly (inlined,
//! gzipped, in base64), the terminal's screen in a `<pre id="screen">`, buttons for the
//! terminal's keys, and the diagram of the run so far. Its script (`assets/web/live.js`) starts
//! it only where the browser runs WebAssembly; everywhere else the page is its steps, as before.

use std::fmt::Write as _;

use super::super::xml::escape;
use crate::sim::{Scenario, Setup};
use crate::tui::{key_for, Action, Mode};

/// The script that runs the live lesson.
pub(super) const SCRIPT: &str = include_str!("../../../assets/web/live.js");

/// The page's Content-Security-Policy with a live lesson: its own inline style and script, and
/// WebAssembly compiled from the bytes it carries; still nothing fetched.
pub(super) const CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline' 'wasm-unsafe-eval'";

/// The buttons, one a command, as the terminal's main keys are: the key each presses, its
/// label, and the action whose key it is (so a key named differently in the table is caught).
const BUTTONS: &[(&str, &str, Action)] = &[
    ("n", "next", Action::NextMoment),
    ("ArrowRight", "step", Action::StepForward),
    ("ArrowLeft", "back", Action::StepBack),
    ("space", "play", Action::TogglePlay),
    (
        "1",
        "client 1",
        Action::Select(crate::sim::ClientId::ALL[0]),
    ),
    (
        "2",
        "client 2",
        Action::Select(crate::sim::ClientId::ALL[1]),
    ),
    (
        "3",
        "client 3",
        Action::Select(crate::sim::ClientId::ALL[2]),
    ),
    ("g", "GC pause", Action::InjectPause),
    ("x", "crash", Action::Crash),
    ("d", "delay", Action::DelayWrite),
    ("f", "fencing", Action::ToggleFencing),
    ("v", "check", Action::CycleCheck),
    ("r", "restart", Action::Restart),
    ("c", "compare", Action::ToggleCompare),
    ("a", "accepted", Action::Answer(true)),
    ("b", "rejected", Action::Answer(false)),
    ("?", "help", Action::ToggleHelp),
];

/// The live section: settings in its data, the lesson picker, the screen, the buttons and the
/// diagram's place.
pub(super) fn section(setup: &Setup) -> String {
    let mut html = String::new();
    let _ = write!(
        html,
        concat!(
            "<section id=\"live\" class=\"live\" hidden data-scenario=\"{name}\" ",
            "data-fencing=\"{fencing}\" data-check=\"{check}\" data-system=\"{system}\" ",
            "aria-label=\"The lesson, live\">\n<div class=\"live-column\">",
            "<div class=\"live-top\"><label>Lesson <select id=\"lesson\">{options}</select></label>",
            "<span id=\"live-time\"></span>",
            "<button type=\"button\" id=\"to-steps\" class=\"quiet\">Read it step by step</button>",
            "<span id=\"live-status\" role=\"status\" aria-live=\"polite\"></span></div>\n",
            "<pre id=\"screen\" class=\"screen\" tabindex=\"0\" ",
            "aria-label=\"The lesson's screen, as the terminal shows it\"></pre>\n",
            "<div class=\"live-keys\" role=\"toolbar\" aria-label=\"The terminal's keys\">{buttons}</div></div>\n",
            "<figure id=\"live-diagram\" class=\"diagram\" aria-label=\"The run so far\"></figure>\n",
            "<p class=\"live-note live-column\">This is the terminal UI of fencing-lab running in your browser: ",
            "the same simulation, captions, questions and verdicts. Press the keys on your keyboard ",
            "or the buttons; <kbd>?</kbd> lists every key. Nothing leaves the page.</p>\n",
            "</section>\n"
        ),
        name = escape(&setup.scenario.name),
        fencing = if setup.fencing { "on" } else { "off" },
        check = setup.check.name(),
        system = setup.system.map_or("", |s| s.id),
        options = options(&setup.scenario.name),
        buttons = buttons(),
    );
    html
}

fn options(chosen: &str) -> String {
    Scenario::built_in_names()
        .map(|name| {
            let selected = if name == chosen { " selected" } else { "" };
            format!("<option value=\"{name}\"{selected}>{name}</option>")
        })
        .collect()
}

pub(super) fn buttons() -> String {
    BUTTONS
        .iter()
        .map(|(key, label, action)| {
            let mode = match action {
                Action::Answer(_) => Mode::Question,
                _ => Mode::Main,
            };
            format!(
                "<button type=\"button\" data-key=\"{}\"><kbd>{}</kbd> {}</button>",
                escape(key),
                escape(&key_for(mode, *action)),
                escape(label)
            )
        })
        .collect()
}

/// The module's bytes (gzipped) as the page carries them.
pub(super) fn module(gzipped: &[u8]) -> String {
    format!(
        "<script type=\"application/octet-stream\" id=\"fencing-lab-module\">{}</script>\n",
        crate::sim::base64::encode(gzipped)
    )
}

/// The live section's look, beside the page's. (`section.live`: the root takes the class `live`
/// too, while the lesson is live.) The diagram is never drawn smaller than its own size (on a
/// phone, 840 px), so that its smallest label still reads: in a narrower window it spans the
/// window, framed by a shadow that takes no width, and scrolls, its lane names pinned.
pub(super) const CSS: &str = r##"
section.live{max-width:1240px;margin:0 auto;padding:0 16px 12px}
#live{max-width:none;padding:0 0 12px}
.live-column{max-width:1240px;margin-left:auto;margin-right:auto;padding-left:16px;padding-right:16px}
.live[hidden]{display:none}
.live-top{display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center;margin:6px 0}
.live-top select{font:inherit;min-height:44px;padding:4px 8px}
#live-time{font-weight:700;color:#4b5260}
#live-status{color:#b91c1c;font-weight:600}
.live .screen{font-size:clamp(9px,calc((100vw - 48px) / 49),16px);outline:none;width:max-content;max-width:100%}
.live .screen:focus-visible{outline:3px solid #7c3aed;outline-offset:2px}
.live-keys{display:flex;flex-wrap:wrap;gap:6px;margin:8px 0}
.live-keys button{padding:4px 10px;min-height:44px;font-weight:600}
.live-keys kbd{margin-right:4px}
button.quiet{border-width:1px;font-weight:500}
.live-note{font-size:.9rem;color:#4b5260}
#live-diagram{margin:8px auto .6em;max-width:var(--natural,100%);border:0;box-shadow:0 0 0 1px #d9dde3}
#live-diagram .track{display:grid;min-width:var(--natural,0)}
#live-diagram .track>svg{grid-area:1/1;width:100%;min-width:0}
#live-diagram .lane-names{position:sticky;left:0;z-index:1;align-self:start}
#live-diagram:not(.scrolled) .lane-names .edge{display:none}
@media (max-width:700px){#live-diagram .track{min-width:840px}}
.live main>.run,.live .controls{display:none}
.live #to-live{display:none}
html:not(.live) #to-live{display:inline-block}
"##;
