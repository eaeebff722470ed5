//! The lab in a browser tab: the `lock_service.mjs` that `lab init js` writes, in an editor; a
//! Check button that runs fencing-lab's own checker (the WebAssembly of `web`) on it in a
//! worker, the report as `check` prints it; and the lesson played on that code. One file, no
//! request: the checker, the worker, the adapter's reply logic and the starter are all in it.

use std::fmt::Write as _;

use super::super::xml::{escape, escape_lines};
use super::live;
use crate::sim::Setup;

/// The starter's files a student's module needs in the page.
const STARTER: &str = include_str!("../../../assets/lab/js/lock_service.mjs");
const NOT_IMPLEMENTED: &str = include_str!("../../../assets/lab/js/not_implemented.mjs");
/// The worker (the checker beside the student's code) and the adapter's reply logic in it.
const WORKER: &str = include_str!("../../../assets/web/worker.js");
const STUDENT: &str = include_str!("../../../assets/web/student.js");
/// The page's own script.
const SCRIPT: &str = include_str!("../../../assets/web/lab.js");

/// Workers from the page's own blobs, and modules imported from them.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; \
                   script-src 'unsafe-inline' 'wasm-unsafe-eval' blob:; worker-src blob:";

/// The lab page; "watch it" plays `setup`'s lesson on the student's code.
pub fn lab_page(setup: &Setup, module: &[u8]) -> String {
    let mut html = String::with_capacity(1024 * 1024);
    let scenario = escape(&setup.scenario.name);
    let _ = write!(
        html,
        concat!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
            "<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n",
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
            "<title>fencing-lab: check your lock service</title>\n",
            "<style>{css}{screen_css}{live_css}{lab_css}</style>\n</head>\n<body>\n",
            "<header><h1>Check your LockService and FencedStorage</h1>\n",
            "<p class=\"settings\">The starter below is the <code>lock_service.mjs</code> that ",
            "<code>fencing-lab lab init js</code> writes. Fill in every method that throws ",
            "<code>NotImplemented</code>, then press <b>Check</b>: the checker is fencing-lab's own ",
            "(the seed's rules, random and exhaustive scripts, the chaos test, each failure shrunk ",
            "to its smallest case), running in this tab. Your code runs here too and goes nowhere.</p>",
            "</header>\n<main class=\"lab\">\n",
            "<section class=\"lab-edit\"><label for=\"impl\"><b>lock_service.mjs</b></label>\n",
            "<textarea id=\"impl\" spellcheck=\"false\" autocapitalize=\"off\" autocomplete=\"off\" ",
            "wrap=\"off\">{starter}</textarea>\n",
            "<div class=\"lab-buttons\"><button type=\"button\" id=\"check\">Check</button>",
            "<button type=\"button\" id=\"watch\" data-scenario=\"{scenario}\">Watch it: {scenario} ",
            "on your code</button>",
            "<button type=\"button\" id=\"reset\" class=\"quiet\">Back to the starter</button>",
            "<span id=\"lab-status\" role=\"status\" aria-live=\"polite\">Loading the checker…</span>",
            "</div></section>\n",
            "<section><h2>Report</h2>\n<pre id=\"report\" class=\"report\" aria-live=\"polite\">",
            "No check yet: press Check, and the report appears here as <code>fencing-lab check</code> ",
            "prints it.</pre></section>\n",
            "<section id=\"watching\" class=\"live\" hidden aria-label=\"The lesson on your code\">",
            "<h2>{scenario}, on your code</h2>\n",
            "<pre id=\"screen\" class=\"screen\" tabindex=\"0\"></pre>\n",
            "<div class=\"live-keys\" role=\"toolbar\">{buttons}</div></section>\n",
            "<noscript><p>This page needs JavaScript to run the checker. Without it, install ",
            "fencing-lab and run <code>fencing-lab check DIR</code> on your folder.</p></noscript>\n",
            "<p class=\"live-note\">What this page can and cannot do: it checks one ",
            "<code>lock_service.mjs</code> in plain JavaScript (no TypeScript, no imports but ",
            "<code>./not_implemented.mjs</code>, no async methods), with the checker's default ",
            "settings; a call may take {deadline} s here (a call that does not return is answered ",
            "\"no answer\", your code started again and the check goes on, as <code>check</code> ",
            "does after its <code>--timeout</code>). For Python, Java or Rust, TypeScript, a whole ",
            "class, or points, install fencing-lab.</p>\n",
            "</main>\n",
            "<script type=\"text/plain\" id=\"starter\">{starter_text}</script>\n",
            "<script type=\"text/plain\" id=\"not-implemented\">{not_implemented}</script>\n",
            "<script type=\"text/plain\" id=\"worker\">{worker}</script>\n",
            "<script type=\"text/plain\" id=\"student\">{student}</script>\n",
            "{module}<script>{script}</script>\n</body>\n</html>\n"
        ),
        csp = CSP,
        css = super::style::CSS,
        screen_css = super::screen::CSS,
        live_css = live::CSS,
        lab_css = LAB_CSS,
        starter = escape_lines(STARTER),
        scenario = scenario,
        buttons = live::buttons(),
        deadline = 1,
        starter_text = script_text(STARTER),
        not_implemented = script_text(NOT_IMPLEMENTED),
        worker = script_text(WORKER),
        student = script_text(STUDENT),
        module = live::module(module),
        script = SCRIPT,
    );
    html
}

/// Text carried in a `<script type="text/plain">`, read back whole with `textContent`: no entity
/// is decoded there, so it goes in as it is, and only a closing tag could end it early (none of
/// the files it carries has one; a test keeps it so).
fn script_text(text: &str) -> &str {
    text
}

const LAB_CSS: &str = r##"
main.lab{max-width:1240px;margin:0 auto;padding:0 16px 2em}
#impl{width:100%;min-height:26em;font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:14px;line-height:1.35;padding:8px;border:2px solid #1a1d23;border-radius:8px;tab-size:2}
.lab-buttons{display:flex;flex-wrap:wrap;gap:8px 12px;align-items:center;margin:8px 0}
#lab-status{font-weight:600;color:#4b5260}
.report{background:#16181d;color:#d8dde6;padding:10px 12px;border-radius:8px;overflow-x:auto;white-space:pre-wrap;font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:13px;min-height:3em}
"##;
