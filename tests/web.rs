//! The lesson and the lab in a real browser (headless Chromium, driven over the DevTools
//! protocol): the live page plays every lesson as `frame --keys` draws it, screen for screen,
//! and draws the diagram `run --format svg --keys` draws; it asks for nothing and logs no error;
//! the lab page checks JavaScript as `check` does.

// The DevTools client tests/pictures.rs uses; this suite needs only some of it.
#[allow(dead_code)]
#[path = "pictures/cdp.rs"]
mod cdp;
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use fencing_lab::sim::{Scenario, Setup};
use fencing_lab::tui::{render_text, Theme};
use fencing_lab::web::lesson::{diagram_of, keys_of, played};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_fencing-lab");

fn tool(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Headless Chromium, or `None` (the test says SKIPPED; in CI it fails instead).
fn chromium() -> Option<PathBuf> {
    let exe = cdp::chromium();
    if exe.is_none() {
        assert!(
            std::env::var_os("FENCING_LAB_CI").is_none(),
            "FENCING_LAB_CI is set and chromium is missing"
        );
        eprintln!(
            "SKIPPED: the browser tests need Debian's `chromium` (apt-get install -y chromium)"
        );
    }
    exe
}

/// A browser on `page` at `width` x `height`, every request and console message recorded.
fn open(exe: &Path, profile: &Path, page: &Path, width: u32, height: u32) -> cdp::Browser {
    let mut browser = cdp::Browser::launch(exe, profile);
    browser.attach_page();
    for domain in [
        "Page.enable",
        "Network.enable",
        "Runtime.enable",
        "Log.enable",
    ] {
        browser.call(domain, json!({}));
    }
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}),
    );
    browser.call(
        "Page.navigate",
        json!({ "url": format!("file://{}", page.display()) }),
    );
    browser.wait_for("Page.loadEventFired");
    browser
}

/// Waits (a few seconds at most) until `condition` holds in the page.
fn wait(browser: &mut cdp::Browser, condition: &str) {
    for _ in 0..300 {
        if browser.eval(condition) == json!(true) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("the page never came to `{condition}`");
}

/// What the browser said went wrong: requests for anything but the page, and console errors
/// and exceptions.
fn complaints(browser: &mut cdp::Browser, page: &Path) -> Vec<String> {
    let url = format!("file://{}", page.display());
    browser
        .drain()
        .into_iter()
        .filter_map(|e| {
            let method = e["method"].as_str().unwrap_or_default();
            let params = &e["params"];
            match method {
                "Network.requestWillBeSent" => {
                    let asked = params["request"]["url"].as_str().unwrap_or_default();
                    (asked != url && !asked.starts_with("blob:") && !asked.starts_with("data:"))
                        .then(|| format!("request {asked}"))
                }
                "Runtime.exceptionThrown" => {
                    Some(format!("exception {}", params["exceptionDetails"]))
                }
                "Runtime.consoleAPICalled" if params["type"] == "error" => {
                    Some(format!("console error {}", params["args"]))
                }
                "Log.entryAdded" if params["entry"]["level"] == "error" => {
                    Some(format!("log {}", params["entry"]["text"]))
                }
                _ => None,
            }
        })
        .collect()
}

/// The screen's text as the page shows it: each line without its trailing blanks, as `frame`.
const SCREEN_TEXT: &str =
    "document.getElementById('screen').textContent.split('\\n').map(l => l.trimEnd()).join('\\n')";

/// A key pressed as a reader presses it.
fn press(browser: &mut cdp::Browser, key: &str) {
    let dom_key = match key {
        "space" => " ",
        other => other,
    };
    browser.eval(&format!(
        "document.dispatchEvent(new KeyboardEvent('keydown', {{key: {}, bubbles: true}}))",
        json!(dom_key)
    ));
}

/// The keys each lesson is played with: on through it, with the lecturer's pause, crash and
/// delay, fencing switched, the check changed, and time travel back and forth.
fn keys_for(lesson: usize) -> Vec<&'static str> {
    let mut keys = vec!["n", "n", "g", "n", "ArrowRight", "2", "x", "n"];
    keys.extend([
        "3",
        "d",
        "n",
        "f",
        "n",
        "ArrowLeft",
        "ArrowLeft",
        "ArrowRight",
        "n",
    ]);
    if lesson.is_multiple_of(2) {
        keys.extend(["v", "n", "c", "n", "c"]);
    }
    keys.extend(["n"; 24]);
    keys
}

fn setup_of(name: &str) -> Setup {
    Setup::new(std::sync::Arc::new(Scenario::built_in(name).unwrap()))
}

/// Each SVG's texts in order and its count of elements: what a diagram says and holds, read
/// the same from the page's DOM and from the native SVG.
fn diagram_facts(svg: &str) -> (Vec<String>, usize) {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let texts = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            n.descendants()
                .filter(|d| d.is_text())
                .filter_map(|d| d.text())
                .collect::<String>()
        })
        .collect();
    (texts, doc.descendants().filter(|n| n.is_element()).count())
}

const PAGE_DIAGRAM: &str = "(() => { const svg = document.querySelector('#live-diagram svg'); \
     if (!svg) return null; \
     return [[...svg.querySelectorAll('text')].map(t => t.textContent), \
             svg.querySelectorAll('*').length + 1]; })()";

/// Every built-in lesson played in the page with the lecturer's inputs: at every key, the
/// page's screen is the one `frame --keys` prints for the same keys (the same code, natively),
/// and at every few keys its diagram is the one `run --format svg --keys` draws; no request,
/// no error. (How fast it is, `cargo bench --bench page` measures.)
#[test]
fn the_live_page_plays_every_lesson_as_the_terminal_draws_it() {
    let Some(exe) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("lesson.html");
    let (code, _, err) = tool(&["export", "gc-pause", "-o", page.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let mut browser = open(&exe, &dir.path().join("profile"), &page, 1280, 800);
    wait(
        &mut browser,
        "document.getElementById('live').dataset.ready !== undefined",
    );
    for (n, name) in Scenario::built_in_names().enumerate() {
        browser.eval(&format!(
            "(() => {{ const p = document.getElementById('lesson'); p.value = {}; \
             p.dispatchEvent(new Event('change')); }})()",
            json!(name)
        ));
        let mut pressed: Vec<&str> = Vec::new();
        for (i, key) in keys_for(n).into_iter().enumerate() {
            press(&mut browser, key);
            pressed.push(key);
            let keys = keys_of(&pressed.join(" ")).unwrap();
            let app = played(setup_of(name), &keys, Theme::plain());
            let want = render_text(&app, 80, 24);
            let have = browser.eval(SCREEN_TEXT).as_str().unwrap().to_owned();
            assert_eq!(
                have.trim_end(),
                want.trim_end(),
                "{name} after {}",
                pressed.join(" ")
            );
            if i % 6 == 5 {
                let t = app.session().now() as f64 / 1000.0;
                wait(
                    &mut browser,
                    &format!("document.getElementById('live').dataset.drawnAt === '{t}'"),
                );
                let (texts, elements) = diagram_facts(&diagram_of(&app));
                let shown = browser.eval(PAGE_DIAGRAM);
                assert_eq!(
                    shown[0],
                    json!(texts),
                    "{name}'s diagram after {}",
                    pressed.join(" ")
                );
                assert_eq!(
                    shown[1],
                    json!(elements),
                    "{name}'s diagram after {}",
                    pressed.join(" ")
                );
            }
            if app.at_end() && i > 20 {
                break;
            }
        }
    }
    assert_eq!(complaints(&mut browser, &page), Vec::<String>::new());
}

/// `frame --keys` and `run --format svg --keys` are the page's screen and diagram: the same
/// function draws both, so the page's own test above holds for the command line too.
#[test]
fn frame_and_run_take_the_pages_keys() {
    let keys = "n n g n 2 x n f n";
    let (code, frame, err) = tool(&["frame", "gc-pause", "--keys", keys]);
    assert_eq!(code, Some(0), "{err}");
    let app = played(
        setup_of("gc-pause"),
        &keys_of(keys).unwrap(),
        Theme::plain(),
    );
    assert_eq!(frame, render_text(&app, 80, 24));
    let (code, svg, err) = tool(&["run", "gc-pause", "--format", "svg", "--keys", keys]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(svg, diagram_of(&app));
    let (code, _, err) = tool(&["frame", "gc-pause", "--keys", "n nope"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        err.trim_end(),
        "fencing-lab: --keys: `nope` names no key: give keys as n, ArrowRight, ArrowLeft, g, 1, \
         space, Enter, Escape, ... separated by spaces"
    );
}

/// Each check's verdict and the rule it is charged to, from `check`'s JSON report.
fn verdicts(report: &Value) -> Vec<(String, String, String)> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_owned(),
                c["verdict"].as_str().unwrap().to_owned(),
                c["charged_to"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

/// The lab page's check of `code`: its report as `check`'s JSON gives it, and its text.
fn check_in_page(browser: &mut cdp::Browser, code: &str) -> (Value, String) {
    browser.eval(&format!(
        "(() => {{ document.getElementById('impl').value = {}; \
         delete document.getElementById('report').dataset.passed; \
         document.getElementById('check').click(); }})()",
        json!(code)
    ));
    wait_long(
        browser,
        "document.getElementById('report').dataset.passed !== undefined",
    );
    let text = browser
        .eval("document.getElementById('report').textContent")
        .as_str()
        .unwrap()
        .to_owned();
    let report = browser.eval("window.__fencingLabReport || null");
    (report, text)
}

/// [`wait`], for as long as a check with stops may take.
fn wait_long(browser: &mut cdp::Browser, condition: &str) {
    for _ in 0..3000 {
        if browser.eval(condition) == json!(true) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let said = browser.eval(
        "(document.getElementById('lab-status') || {}).textContent + ' | ' + \
         (document.getElementById('report') || {}).textContent",
    );
    panic!("the page never came to `{condition}`: {said}");
}

/// The zoo's JavaScript (correct in every idiom, and each one-rule mutant) checked in the lab
/// page gets the verdicts `check` gives it, check for check, each charged to the same rule, and
/// the report ends as `check`'s does.
#[test]
fn the_lab_page_judges_the_javascript_zoo_as_check_does() {
    let Some(exe) = chromium() else {
        return;
    };
    if !common::zoo::can_run("js") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("lab.html");
    let (code, _, err) = tool(&["export", "--lab", "-o", page.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let mut browser = open(&exe, &dir.path().join("profile"), &page, 1280, 800);
    wait(
        &mut browser,
        "document.documentElement.classList.contains('ready')",
    );
    let mut compared = 0;
    for entry in common::zoo::zoo("js") {
        let folder = common::zoo::build(&entry, dir.path());
        let (_, json, err) = tool(&["check", folder.to_str().unwrap(), "--format", "json"]);
        let native: Value = serde_json::from_str(&json).unwrap_or_else(|_| panic!("{err}"));
        let code = std::fs::read_to_string(folder.join("lock_service.mjs")).unwrap();
        let (report, text) = check_in_page(&mut browser, &code);
        assert_eq!(
            verdicts(&report),
            verdicts(&native),
            "{}:\n{text}",
            entry.name
        );
        let counts = format!("{} of {} checks passed", native["passed"], native["total"]);
        assert!(text.contains(&counts), "{}: {text}", entry.name);
        compared += 1;
    }
    assert!(compared >= 20, "{compared} entries");
    assert_eq!(complaints(&mut browser, &page), Vec::<String>::new());
}

/// The lab page opens on the starter `lab init js` writes, byte for byte, ready to check; a
/// fresh starter's report is the one `check` gives a fresh starter.
#[test]
fn the_lab_page_opens_on_the_starter_and_checks_it_as_check_does() {
    let Some(exe) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("lab.html");
    tool(&["export", "--lab", "-o", page.to_str().unwrap()]);
    let starter = dir.path().join("starter");
    let (code, _, err) = tool(&["lab", "init", "js", starter.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let written = std::fs::read_to_string(starter.join("lock_service.mjs")).unwrap();
    let mut browser = open(&exe, &dir.path().join("profile"), &page, 1280, 800);
    wait(
        &mut browser,
        "document.documentElement.classList.contains('ready')",
    );
    let shown = browser.eval("document.getElementById('impl').value");
    assert_eq!(shown, json!(written));
    browser.click("#check");
    wait_long(
        &mut browser,
        "document.getElementById('report').dataset.passed !== undefined",
    );
    let report = browser.eval("window.__fencingLabReport");
    let (_, json, _) = tool(&["check", starter.to_str().unwrap(), "--format", "json"]);
    let native: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(verdicts(&report), verdicts(&native));
    assert_eq!(report["passed"], 0);
}

/// An endless loop in the student's code (a `write` that never returns when its token is
/// stale) ends in one sentence of the report, the code started again and the check gone on past
/// it; the tab stays usable, and the verdicts are those `check` gives the same code.
#[test]
fn an_endless_loop_in_the_page_ends_in_one_sentence_and_the_tab_stays_usable() {
    let Some(exe) = chromium() else {
        return;
    };
    if !common::zoo::can_run("js") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("lab.html");
    tool(&["export", "--lab", "-o", page.to_str().unwrap()]);
    let entry = common::zoo::zoo("js")
        .into_iter()
        .find(|e| e.name == "js-throw-map")
        .unwrap();
    let folder = common::zoo::build(&entry, dir.path());
    let code = std::fs::read_to_string(folder.join("lock_service.mjs"))
        .unwrap()
        .replace(
            "    if (entry !== undefined && token < entry.highest) {\n",
            "    if (entry !== undefined && token < entry.highest) {\n      for (;;) {}\n",
        );
    assert!(code.contains("for (;;)"), "the loop went in");
    std::fs::write(folder.join("lock_service.mjs"), &code).unwrap();
    let mut browser = open(&exe, &dir.path().join("profile"), &page, 1280, 800);
    wait(
        &mut browser,
        "document.documentElement.classList.contains('ready')",
    );
    let (report, text) = check_in_page(&mut browser, &code);
    assert!(
        text.contains("your program stopped answering")
            && text.contains("did not answer within 1.0 s"),
        "{text}"
    );
    assert!(
        text.contains("-> no answer: it did not answer within 1.0 s"),
        "{text}"
    );
    assert!(text.contains("✗ write-stale-rejected"), "{text}");
    let (_, json, _) = tool(&[
        "check",
        folder.to_str().unwrap(),
        "--format",
        "json",
        "--timeout",
        "1",
    ]);
    let native: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(verdicts(&report), verdicts(&native), "{text}");
    // Still usable: the page answers, and the editor still edits.
    browser.click("#reset");
    let reset = browser.eval("document.getElementById('impl').value.includes('NotImplemented')");
    assert_eq!(reset, json!(true));
    assert_eq!(complaints(&mut browser, &page), Vec::<String>::new());
}

/// What a reader cannot reach: the page's width beyond the viewport's, and every element shown
/// outside the viewport's width that no box of its own scrolls to (the screen's 80 columns may
/// scroll sideways on a phone; a button or a line of prose may not).
const CUT_OFF: &str = "(() => { const width = innerWidth; const cut = []; \
    for (const e of document.querySelectorAll('body *')) { \
      const r = e.getBoundingClientRect(); if (r.width === 0 || r.height === 0) continue; \
      let box = e.parentElement, scrolls = false; \
      while (box) { const o = getComputedStyle(box).overflowX; \
        if (o === 'auto' || o === 'scroll') { scrolls = true; break; } box = box.parentElement; } \
      if (!scrolls && (r.right > width + 0.5 || r.left < -0.5)) \
        cut.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' ' + \
          (e.textContent || '').trim().slice(0, 20) + ' at ' + Math.round(r.left) + '..' + Math.round(r.right)); \
    } \
    return [document.documentElement.scrollWidth, cut]; })()";

fn nothing_cut(browser: &mut cdp::Browser, width: u32, what: &str) {
    let shown = browser.eval(CUT_OFF);
    assert_eq!(
        shown,
        json!([width, []]),
        "{what} at {width} px wide: the page's width, and what is cut off"
    );
}

/// A student's phone and a lecturer's laptop: at 390x844 and 1280x800 nothing of either page is
/// out of reach (the screen scrolls in its own box), and on the laptop the whole screen shows
/// above the fold. The check of the check: a button made too wide is seen as cut off.
#[test]
fn both_pages_fit_a_phone_and_a_laptop() {
    let Some(exe) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let lesson = dir.path().join("lesson.html");
    let lab = dir.path().join("lab.html");
    tool(&["export", "gc-pause", "-o", lesson.to_str().unwrap()]);
    tool(&["export", "--lab", "-o", lab.to_str().unwrap()]);
    for (width, height) in [(390, 844), (1280, 800)] {
        let profile = dir.path().join(format!("lesson-{width}"));
        let mut browser = open(&exe, &profile, &lesson, width, height);
        wait(
            &mut browser,
            "document.getElementById('live').dataset.ready !== undefined",
        );
        nothing_cut(&mut browser, width, "the lesson's first screen");
        for key in ["n", "n", "n", "n", "n", "n", "n"] {
            press(&mut browser, key);
        }
        assert_eq!(
            browser.eval("document.getElementById('live').dataset.mode"),
            json!("question")
        );
        nothing_cut(&mut browser, width, "the lesson's question");
        press(&mut browser, "?");
        nothing_cut(&mut browser, width, "the lesson's help");
        let screen = browser.eval(
            "(() => { const s = document.getElementById('screen'); const r = s.getBoundingClientRect(); \
             return [getComputedStyle(s).overflowX, s.scrollWidth <= s.clientWidth, r.bottom <= innerHeight]; })()",
        );
        assert_eq!(
            screen[0],
            json!("auto"),
            "the screen scrolls in its own box"
        );
        if width >= 1280 {
            assert_eq!(screen[1], json!(true), "all 80 columns show at {width} px");
            assert_eq!(screen[2], json!(true), "the screen is above the fold");
        }
        assert_eq!(complaints(&mut browser, &lesson), Vec::<String>::new());

        let profile = dir.path().join(format!("lab-{width}"));
        let mut browser = open(&exe, &profile, &lab, width, height);
        wait(
            &mut browser,
            "document.documentElement.classList.contains('ready')",
        );
        nothing_cut(&mut browser, width, "the lab page");
        browser.eval("document.getElementById('check').style.minWidth = '2000px'");
        let seen = browser.eval(CUT_OFF);
        assert!(
            seen[1]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c.as_str().unwrap().starts_with("button#check")),
            "a button wider than the phone is seen as cut off: {seen}"
        );
    }
}

/// Scrolls the live diagram into the window and fully right, then names each lane (the text
/// drawn after each actor's line) and those some text of the diagram with its words shows inside
/// the window, on top where it is drawn: the diagram's scroll, the lanes, the names shown.
const LANE_NAMES_SHOWN: &str = "(() => { const f = document.getElementById('live-diagram'); \
    f.scrollIntoView(); f.scrollLeft = f.scrollWidth; \
    const names = [...f.querySelector('svg').querySelectorAll('line.actor + text')] \
      .map(t => t.textContent); \
    const shown = names.filter(name => [...f.querySelectorAll('text')].some(t => { \
      if (t.textContent !== name) return false; \
      const r = t.getBoundingClientRect(); \
      if (r.width === 0 || r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) \
        return false; \
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); \
      return hit !== null && (hit === t || t.contains(hit)); })); \
    return [f.scrollLeft, names, shown]; })()";

/// The live diagram's scale on the page, how many labels it has, and those drawn under 11 px
/// tall (their size times the scale, or their box), each with both.
const SMALL_LABELS: &str = "(() => { const svg = document.querySelector('#live-diagram svg'); \
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width; \
    const labels = [...svg.querySelectorAll('text.label')]; \
    const small = labels.map(t => [t.textContent, parseFloat(getComputedStyle(t).fontSize) * scale, \
        t.getBoundingClientRect().height]).filter(l => l[1] < 11 || l[2] < 11); \
    return [scale, labels.length, small]; })()";

/// Where the answer's verdict is on the screen (the row that says what the reader said), and
/// the window's height.
const VERDICT_AT: &str = "(() => { const said = [...document.querySelectorAll('#screen span')] \
    .find(s => s.textContent.startsWith('You said')); if (!said) return null; \
    const r = said.getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; })()";

/// The live diagram on a phone and a laptop, and the answer: at 390x844, the diagram scrolled
/// fully right, every lane's name still shows; at 1280x800 the screen is above the fold at once
/// and every label is at least 11 px tall, the diagram drawn no smaller than its own size (its
/// smallest text, `MIN_TEXT`, is 11 px); and a question answered with the diagram in view
/// brings the verdict into the window.
#[test]
fn the_live_diagram_keeps_its_lane_names_and_labels_and_the_verdict_shows() {
    let Some(exe) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let lesson = dir.path().join("lesson.html");
    let (code, _, err) = tool(&["export", "gc-pause", "-o", lesson.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let drawn = "document.getElementById('live').dataset.drawnAt === \
                 document.getElementById('live').dataset.t";
    for (width, height) in [(390, 844), (1280, 800)] {
        let profile = dir.path().join(format!("lanes-{width}"));
        let mut browser = open(&exe, &profile, &lesson, width, height);
        wait(
            &mut browser,
            "document.getElementById('live').dataset.ready !== undefined",
        );
        if width >= 1280 {
            let screen = browser.eval(
                "(() => { const r = document.getElementById('screen').getBoundingClientRect(); \
                 return [r.top, r.bottom]; })()",
            );
            let (top, bottom) = (screen[0].as_f64().unwrap(), screen[1].as_f64().unwrap());
            assert!(
                top >= 0.0 && bottom <= f64::from(height),
                "the screen at {top}..{bottom}, above the fold of {height} px"
            );
        }
        for key in ["n", "n", "n", "n", "n", "n", "n"] {
            press(&mut browser, key);
        }
        assert_eq!(
            browser.eval("document.getElementById('live').dataset.mode"),
            json!("question")
        );
        wait(&mut browser, drawn);
        if width < 600 {
            let seen = browser.eval(LANE_NAMES_SHOWN);
            assert!(
                seen[0].as_f64().unwrap() > 0.0,
                "the diagram scrolls sideways at {width} px: {seen}"
            );
            assert_eq!(
                seen[1].as_array().unwrap().len(),
                5,
                "the lock service's, three clients' and the storage's lanes: {seen}"
            );
            assert_eq!(
                seen[2], seen[1],
                "every lane's name in sight with the diagram scrolled fully right at {width} px"
            );
        }
        // A reader looking at the diagram answers: the verdict comes into sight.
        browser.eval("document.getElementById('live-diagram').scrollIntoView()");
        press(&mut browser, "a");
        assert_eq!(
            browser.eval("document.getElementById('live').dataset.mode"),
            json!("main")
        );
        let verdict = browser.eval(VERDICT_AT);
        assert!(verdict.is_array(), "the screen says what the reader said");
        let (top, bottom) = (verdict[0].as_f64().unwrap(), verdict[1].as_f64().unwrap());
        assert!(
            top >= 0.0 && bottom <= verdict[2].as_f64().unwrap(),
            "the verdict at {top}..{bottom}, inside the window at {width}x{height}"
        );
        if width >= 1280 {
            wait(&mut browser, drawn);
            let labels = browser.eval(SMALL_LABELS);
            let scale = labels[0].as_f64().unwrap();
            assert!(
                labels[1].as_u64().unwrap() >= 5,
                "the diagram has labels: {labels}"
            );
            assert_eq!(labels[2], json!([]), "labels under 11 px at {width} px");
            assert!(
                scale >= 0.999,
                "the diagram drawn at {scale} of its size, so its smallest text (11 px) reads smaller"
            );
        }
        assert_eq!(complaints(&mut browser, &lesson), Vec::<String>::new());
    }
}

/// `export --lab` runs the code pasted into the page on a lesson the module carries: the
/// settings of a run, which it would ignore, are refused in one sentence each, as is a lesson
/// that is a file.
#[test]
fn the_lab_page_refuses_what_it_would_ignore() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("lab.html");
    let out = page.to_str().unwrap();
    for given in [
        &["--no-fencing"][..],
        &["--check", "strict"],
        &["--seed", "4"],
        &["--as", "etcd"],
        &["--until", "3"],
        &["--impl", "."],
        &["--static"],
        &["--", "node", "adapter.mjs"],
    ] {
        let mut args = vec!["export", "--lab", "-o", out];
        args.extend_from_slice(given);
        let (code, stdout, err) = tool(&args);
        assert_eq!(code, Some(2), "{given:?}: {err}");
        assert!(
            stdout.is_empty() && err.lines().count() == 1,
            "{given:?}: {err}"
        );
        assert!(
            err.contains(given[0].trim_start_matches('-')) || given[0] == "--",
            "{err}"
        );
    }
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/scenarios/gc-pause.toml"
    );
    let (code, _, err) = tool(&["export", file, "--lab", "-o", out]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("watches a built-in lesson"), "{err}");
    assert!(!page.exists(), "no page was written");
    let (code, _, err) = tool(&["export", "renew", "--lab", "-o", out]);
    assert_eq!(code, Some(0), "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("data-scenario=\"renew\""),
        "watch it plays renew"
    );
}
