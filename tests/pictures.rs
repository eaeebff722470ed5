//! The pictures: the SVG space-time diagram (a real XML parser, every event drawn, every text in
//! view, a snapshot and the committed `docs/gc-pause.svg`), the asciicast (valid v2, ending on
//! the `frame` screen), the lesson page (self-contained, under budget) and the page in a real
//! headless Chromium: clicks, keys, the question, the fencing switch, no network request, phone
//! width, no JavaScript, screenshots.

#[path = "pictures/cdp.rs"]
mod cdp;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use fencing_lab::pictures::html::RUN_IT_YOURSELF;
use fencing_lab::pictures::svg::text_width;
use serde_json::Value;

fn lab(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_fencing-lab"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs, expects exit 2 and one sentence on one line of stderr; returns it.
fn usage_error(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_fencing-lab"))
        .args(args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?} must exit 2");
    assert!(out.stdout.is_empty(), "{args:?} printed on stdout");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    stderr
}

fn scenarios() -> Vec<String> {
    lab(&["list"])
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().to_owned())
        .collect()
}

fn texts(doc: &roxmltree::Document) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or_default().to_owned())
        .collect()
}

fn view_box(doc: &roxmltree::Document) -> (f64, f64) {
    let root = doc.root_element();
    assert!(root.has_tag_name("svg"));
    let vb: Vec<f64> = root
        .attribute("viewBox")
        .expect("a viewBox")
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(&vb[..2], &[0.0, 0.0]);
    (vb[2], vb[3])
}

#[test]
fn the_diagram_is_xml_with_its_actors_tokens_and_verdicts() {
    let fenced = lab(&["run", "gc-pause", "--format", "svg"]);
    let unfenced = lab(&["run", "gc-pause", "--format", "svg", "--no-fencing"]);
    for (svg, fencing) in [(&fenced, true), (&unfenced, false)] {
        let doc = roxmltree::Document::parse(svg).expect("the SVG parses as XML");
        assert_eq!(view_box(&doc), (1280.0, 720.0), "a 16:9 slide by default");
        let texts = texts(&doc);
        for actor in [
            "lock service",
            "client-1",
            "client-2",
            "client-3",
            "storage",
        ] {
            assert!(texts.iter().any(|t| t == actor), "{actor} is drawn");
        }
        for token in ["grant, token 1", "grant, token 2", "grant, token 3"] {
            assert!(texts.iter().any(|t| t == token), "{token}: {texts:?}");
        }
        let rejected = texts.iter().any(|t| t.starts_with("REJECTED t1 < t2"));
        let corrupted = texts
            .iter()
            .any(|t| t.starts_with("CORRUPTED DATA! token 1 overwrote token 2"));
        assert_eq!(rejected, fencing, "REJECTED only with fencing: {texts:?}");
        assert_eq!(corrupted, !fencing, "CORRUPTED only without: {texts:?}");
        // Belief beside truth: the stale lease is drawn, and the lease ends on the lock line.
        assert!(texts.iter().any(|t| t == "believes token 1: lease gone"));
        assert!(texts.iter().any(|t| t == "token 1 expires"));
        // Every mark has a title: the event's own sentence.
        let titled = doc
            .descendants()
            .filter(|n| n.attribute("data-event").is_some())
            .all(|n| {
                n.first_element_child()
                    .is_some_and(|c| c.has_tag_name("title"))
            });
        assert!(titled);
        assert!(svg.contains(
            "16.5 s: client-1 writes \"client 1's data\" to file with token 1: "
                .replace('"', "&quot;")
                .replace('\'', "&#39;")
                .as_str()
        ));
    }
    insta::assert_snapshot!("svg_gc_pause_unfenced", unfenced);
    insta::assert_snapshot!(
        "svg_gc_pause_compare",
        lab(&["run", "gc-pause", "--format", "svg", "--compare"])
    );
}

/// Every `<text>` inside the view box, by the text's estimated extent.
fn assert_texts_inside(svg: &str, what: &str) {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{what}: {e}"));
    let (w, h) = view_box(&doc);
    for node in doc.descendants().filter(|n| n.has_tag_name("text")) {
        let num = |name: &str| node.attribute(name).unwrap().parse::<f64>().unwrap();
        let (x, y, size) = (num("x"), num("y"), num("font-size"));
        let text = node.text().unwrap_or_default();
        let width = text_width(text, size, node.attribute("font-weight") == Some("bold"));
        let left = match node.attribute("text-anchor") {
            Some("middle") => x - width / 2.0,
            Some("end") => x - width,
            _ => x,
        };
        assert!(
            left >= 0.0 && left + width <= w && y - size >= 0.0 && y <= h,
            "{what}: '{text}' at ({x}, {y}) size {size} leaves the {w}x{h} view box"
        );
    }
}

#[test]
fn every_text_lies_inside_the_view_box_for_every_scenario_size_and_window() {
    for name in scenarios() {
        for extra in [
            &[][..],
            &["--no-fencing"],
            &["--compare"],
            &["--size", "640x360"],
            &["--size", "1920x1080", "--check", "strict"],
        ] {
            let mut args = vec!["run", name.as_str(), "--format", "svg"];
            args.extend_from_slice(extra);
            assert_texts_inside(&lab(&args), &format!("{args:?}"));
        }
    }
    for seed in ["2", "7"] {
        let args = [
            "run", "chaos", "--format", "svg", "--seed", seed, "--until", "600", "--from", "0",
        ];
        assert_texts_inside(&lab(&args), &format!("{args:?}"));
    }
}

/// (event name, time) of every JSON event from `from` to `until`, and of every SVG mark.
fn json_events(json: &str, from: f64, until: f64) -> BTreeMap<(String, String), usize> {
    let mut events = BTreeMap::new();
    for line in json.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let name = v["event"].as_str().unwrap().to_owned();
        let t = v["t"].as_f64().unwrap();
        if name == "summary" || t < from - 1e-9 || t > until + 1e-9 {
            continue;
        }
        *events.entry((name, format!("{t:.3}"))).or_default() += 1;
    }
    events
}

fn svg_events(svg: &str) -> (BTreeMap<(String, String), usize>, f64, f64) {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let root = doc.root_element();
    let ms = |name: &str| root.attribute(name).unwrap().parse::<f64>().unwrap() / 1000.0;
    let mut events = BTreeMap::new();
    for node in doc.descendants() {
        if let Some(name) = node.attribute("data-event") {
            let t: f64 = node.attribute("data-t").unwrap().parse().unwrap();
            *events
                .entry((name.to_owned(), format!("{t:.3}")))
                .or_default() += 1;
        }
    }
    (events, ms("data-from"), ms("data-until"))
}

#[test]
fn every_event_of_the_json_stream_is_drawn_as_its_arrow_or_mark() {
    let mut runs: Vec<Vec<String>> = Vec::new();
    for name in scenarios() {
        for extra in [&[][..], &["--no-fencing"], &["--check", "global"]] {
            let mut args = vec![name.clone()];
            args.extend(extra.iter().map(|s| s.to_string()));
            runs.push(args);
        }
    }
    for seed in ["1", "3", "11", "42"] {
        for extra in [&[][..], &["--no-fencing"], &["--from", "0"]] {
            let mut args: Vec<String> = vec!["chaos".into(), "--seed".into(), seed.into()];
            args.extend(extra.iter().map(|s| s.to_string()));
            runs.push(args);
        }
    }
    // Ten minutes, drawn whole: messages become ticks, still one a message.
    runs.push(
        ["chaos", "--until", "600", "--from", "0"]
            .map(String::from)
            .to_vec(),
    );
    let mut total = 0;
    for args in runs {
        // The same run as JSON: the world's options without the picture's window.
        let mut world: Vec<&str> = Vec::new();
        let mut rest = args.iter().map(String::as_str);
        while let Some(arg) = rest.next() {
            if arg == "--from" {
                rest.next();
            } else {
                world.push(arg);
            }
        }
        let mut json_args = vec!["run"];
        json_args.extend(&world);
        json_args.extend(["--format", "json"]);
        let mut svg_args = vec!["run"];
        svg_args.extend(args.iter().map(String::as_str));
        svg_args.extend(["--format", "svg"]);
        let (drawn, from, until) = svg_events(&lab(&svg_args));
        let happened = json_events(&lab(&json_args), from, until);
        assert!(!happened.is_empty(), "{args:?}: nothing in the window");
        assert_eq!(
            drawn, happened,
            "{args:?}: every event drawn once, nothing else"
        );
        total += happened.values().sum::<usize>();
    }
    assert!(total > 5_000, "only {total} events checked");
}

#[test]
fn a_long_run_is_shown_through_a_window_that_says_so() {
    let svg = lab(&["run", "chaos", "--until", "600", "--format", "svg"]);
    let (_, from, until) = svg_events(&svg);
    assert_eq!(until - from, 30.0, "a 30 s window of a 10-minute run");
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let note = format!("Showing {from:.1} to {until:.1} s of a run played to 600.0 s");
    assert!(
        texts(&doc).iter().any(|t| t.contains(&note)),
        "the picture says it is a window: {note}"
    );
    // The window opens a little before the first write the storage refused.
    let json = lab(&["run", "chaos", "--until", "600", "--format", "json"]);
    let first_refused = json
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["event"] == "write" && v["outcome"] != "accepted")
        .map(|v| v["t"].as_f64().unwrap())
        .unwrap();
    assert!(from <= first_refused && first_refused <= from + 6.0);
    let (_, from, until) = svg_events(&lab(&[
        "run", "chaos", "--until", "600", "--from", "120", "--format", "svg",
    ]));
    assert_eq!((from, until), (120.0, 600.0));
}

#[test]
fn the_committed_gc_pause_diagram_is_the_current_one() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/gc-pause.svg");
    let svg = lab(&["run", "gc-pause", "--format", "svg"]);
    if std::env::var_os("UPDATE_PICTURES").is_some() {
        std::fs::write(&path, &svg).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == svg,
        "docs/gc-pause.svg is not what `fencing-lab run gc-pause --format svg` draws; \
         regenerate it with `UPDATE_PICTURES=1 cargo test --test pictures committed`"
    );
}

#[test]
fn picture_options_are_refused_in_one_sentence() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["run", "gc-pause", "--from", "3"],
            "--from is for --format svg",
        ),
        (
            &["run", "gc-pause", "--compare", "--format", "json"],
            "--compare is for --format svg",
        ),
        (
            &["run", "gc-pause", "--size", "80x24"],
            "--size is for --format svg",
        ),
        (
            &["run", "gc-pause", "--format", "svg", "--size", "100x100"],
            "does not fit",
        ),
        (
            &["run", "gc-pause", "--format", "svg", "--size", "big"],
            "is not a size like 1280x720",
        ),
        (
            &["run", "gc-pause", "--format", "cast", "--size", "40x10"],
            "does not fit the UI",
        ),
        (
            &["run", "gc-pause", "--format", "svg", "--from", "30"],
            "is not before the run's end",
        ),
        (
            &[
                "run",
                "gc-pause",
                "--format",
                "svg",
                "--compare",
                "--no-fencing",
            ],
            "cannot be used with",
        ),
        (
            &["chaos", "--format", "svg"],
            "--format svg is for `fencing-lab run`",
        ),
        (&["export", "gc-pause"], "--output"),
        (
            &["export", "gc-pause", "-o", "/nonexistent/dir/lesson.html"],
            "cannot export to /nonexistent/dir/lesson.html: the folder /nonexistent/dir does not exist",
        ),
        (&["export", "no-such-lesson", "-o", "-"], "no-such-lesson"),
    ];
    for (args, expected) in cases {
        let message = usage_error(args);
        assert!(message.contains(expected), "{args:?}: {message}");
        assert!(message.starts_with("fencing-lab: "), "{message}");
    }
}

/// The screen a cast leaves, as a terminal shows it.
fn cast_screen(cast: &str) -> (String, usize) {
    let mut lines = cast.lines();
    let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["version"], 2);
    let (w, h) = (
        header["width"].as_u64().unwrap() as u16,
        header["height"].as_u64().unwrap() as u16,
    );
    let mut parser = vt100::Parser::new(h, w, 0);
    let mut last_time = -1.0;
    let mut frames = 0;
    for line in lines {
        let event: Value = serde_json::from_str(line).unwrap();
        let event = event.as_array().expect("an event is [time, code, data]");
        assert_eq!(event.len(), 3);
        let time = event[0].as_f64().unwrap();
        assert!(time >= last_time, "times only go forward");
        last_time = time;
        assert_eq!(event[1], "o");
        let data = event[2].as_str().unwrap();
        frames += usize::from(data.contains("\u{1b}[2J"));
        parser.process(data.as_bytes());
    }
    let screen = parser.screen().contents();
    let text: Vec<&str> = screen.lines().map(str::trim_end).collect();
    (text.join("\n").trim_end().to_owned(), frames)
}

#[test]
fn the_cast_is_asciicast_v2_and_ends_on_the_frame_screen() {
    for name in scenarios() {
        let cast = lab(&["run", &name, "--format", "cast"]);
        let end = lab(&["run", &name, "--format", "json"])
            .lines()
            .last()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["t"]
                    .as_f64()
                    .unwrap()
            })
            .unwrap()
            .to_string();
        let frame = lab(&["frame", &name, "--at", &end]);
        let frame: Vec<&str> = frame.lines().map(str::trim_end).collect();
        let (screen, frames) = cast_screen(&cast);
        assert_eq!(screen, frame.join("\n").trim_end(), "{name}'s last frame");
        assert!(frames >= 2, "{name}: a frame per step");
    }
    // The lesson's steps, the question among them, and another size.
    let cast = lab(&["run", "gc-pause", "--format", "cast", "--size", "100x30"]);
    assert!(cast.contains("Will the storage accept client 1"));
    assert!(cast.contains("Skipped. The answer: REJECTED, token 1 < 2"));
    let frame = lab(&["frame", "gc-pause", "--at", "23", "--size", "100x30"]);
    let frame: Vec<&str> = frame.lines().map(str::trim_end).collect();
    assert_eq!(cast_screen(&cast).0, frame.join("\n").trim_end());
}

#[test]
fn the_page_is_one_file_that_asks_for_nothing_and_stays_under_a_megabyte() {
    let html = lab(&["export", "gc-pause", "-o", "-"]);
    assert!(html.len() < 1_000_000, "{} bytes", html.len());
    assert!(html.contains(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
    ));
    // No reference to anything outside the file: the only URL is the SVG namespace, a name.
    let without_namespace = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    let without_namespace =
        without_namespace.replace("createElementNS(\"http://www.w3.org/2000/svg\"", "");
    for outside in [
        "http:", "https:", "=\"//", " src=", "href=", "@import", "url(h", "url(/",
    ] {
        assert!(
            !without_namespace.contains(outside),
            "the page refers outside itself: {outside}"
        );
    }
    // The footer's commands are the README's, word for word.
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let block = format!("```sh\n{}\n```", RUN_IT_YOURSELF.join("\n"));
    assert!(
        readme.contains(&block),
        "README's set-up no longer says:\n{block}"
    );
    assert!(html.contains(&RUN_IT_YOURSELF.join("\n")));
    // Both histories, each question's three reveals, and the verdicts from the sim's words.
    assert!(html.contains("id=\"run-on\"") && html.contains("id=\"run-off\""));
    assert!(html.contains("You said rejected. Right: REJECTED, token 1 &lt; 2"));
    assert!(html.contains("You said accepted. Not quite: REJECTED, token 1 &lt; 2"));
    assert!(
        html.contains("You said rejected. Not quite: ACCEPTED, no check, although token 1 &lt; 2")
    );
    assert!(html.contains("CORRUPTED DATA!"));
    // Every built-in scenario exports.
    for name in scenarios() {
        let page = lab(&["export", &name, "-o", "-"]);
        assert!(page.ends_with("</html>\n"), "{name}");
        assert!(page.len() < 2_000_000, "{name}: {} bytes", page.len());
    }
}

// ------------------------------------------------------------------ the real browser

fn shots_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pictures");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The text a reader sees: the page's (innerText leaves out what is hidden) and the diagram's
/// rendered texts (innerText would count an SVG's hidden ones too).
fn visible(browser: &mut cdp::Browser) -> String {
    browser
        .eval(
            "(() => { const svgs = [...document.querySelectorAll('svg')]; \
             const shown = svgs.flatMap(s => [...s.querySelectorAll('text')]) \
               .filter(t => t.getClientRects().length > 0).map(t => t.textContent); \
             svgs.forEach(s => s.style.display = 'none'); \
             const page = document.body.innerText; \
             svgs.forEach(s => s.style.display = ''); \
             return page + '\\n' + shown.join('\\n'); })()",
        )
        .as_str()
        .unwrap()
        .to_owned()
}

fn current(browser: &mut cdp::Browser) -> (String, String) {
    let v = browser.eval(
        "(() => { const s = [...document.querySelectorAll('.run:not([hidden]) .step.current')]; \
         return s.length === 1 ? [s[0].dataset.kind, document.getElementById('where').textContent] : null; })()",
    );
    assert!(v.is_array(), "exactly one current step");
    (
        v[0].as_str().unwrap().to_owned(),
        v[1].as_str().unwrap().to_owned(),
    )
}

fn load(browser: &mut cdp::Browser, url: &str) {
    browser.call("Page.navigate", serde_json::json!({ "url": url }));
    browser.wait_for("Page.loadEventFired");
}

/// Requests the page made for anything but itself, and the policy violations it caused.
fn requests(browser: &mut cdp::Browser, page: &str) -> Vec<String> {
    let mut seen: Vec<String> = browser
        .drain()
        .into_iter()
        .filter(|e| e["method"] == "Network.requestWillBeSent")
        .map(|e| {
            e["params"]["request"]["url"]
                .as_str()
                .unwrap_or("")
                .to_owned()
        })
        .filter(|url| url != page)
        .collect();
    let blocked = browser.eval(
        "[...(window.__violations || []), ...performance.getEntriesByType('resource').map(e => e.name)]",
    );
    seen.extend(
        blocked
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap_or("").to_owned()),
    );
    seen
}

#[test]
fn the_page_works_in_a_real_browser_offline_at_desktop_and_phone_width() {
    let Some(exe) = cdp::chromium() else {
        // In CI (`.ci/run` installs it) a missing browser fails instead of skipping.
        let required = std::env::var_os("FENCING_LAB_CI").is_some();
        eprintln!(
            "\n\n!!!!!!!! SKIPPED: the browser test needs Debian's `chromium` on PATH \
             (apt-get install -y chromium); .ci/run installs it. !!!!!!!!\n"
        );
        assert!(
            !required,
            "FENCING_LAB_REQUIRE_BROWSER is set and chromium is missing"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("lesson.html");
    lab(&["export", "gc-pause", "-o", page.to_str().unwrap()]);
    let url = format!("file://{}", page.display());
    let shots = shots_dir();
    let mut browser = cdp::Browser::launch(&exe, &dir.path().join("profile"));
    browser.attach_page();
    browser.call("Page.enable", serde_json::json!({}));
    browser.call("Network.enable", serde_json::json!({}));
    browser.call(
        "Page.addScriptToEvaluateOnNewDocument",
        serde_json::json!({"source": "window.__violations = []; document.addEventListener('securitypolicyviolation', e => window.__violations.push(e.blockedURI));"}),
    );
    let desktop =
        serde_json::json!({"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false});
    browser.call("Emulation.setDeviceMetricsOverride", desktop.clone());
    load(&mut browser, &url);
    assert_eq!(browser.eval("document.documentElement.className"), "js");
    let (kind, place) = current(&mut browser);
    assert_eq!(kind, "beat");
    assert!(place.starts_with("Step 1 of "), "{place}");
    browser.screenshot(&shots.join("desktop-start.png"), false);

    // Next, click by click, to the question; its answer stays hidden.
    let mut clicks = 0;
    while current(&mut browser).0 != "question" {
        browser.click("#next");
        clicks += 1;
        assert!(clicks < 30, "never reached the question");
    }
    let text = visible(&mut browser);
    assert!(text.contains("Will the storage accept client 1's write with token 1?"));
    assert!(
        !text.contains("REJECTED"),
        "the answer shows before the reader answers: {}",
        &text[text.find("REJECTED").unwrap_or(0).saturating_sub(300)..]
    );
    let shown = browser.eval(
        "[...document.querySelectorAll('.step')].filter(e => e.offsetParent !== null).length",
    );
    assert_eq!(shown, 1, "one step at a time");
    browser.screenshot(&shots.join("desktop-question.png"), false);
    browser.eval("document.querySelector('.run:not([hidden]) .diagram').scrollIntoView()");
    browser.screenshot(&shots.join("desktop-question-diagram.png"), false);
    browser.eval("window.scrollTo(0, 0)");

    // Answer: rejected. The reveal says so, with the storage's reason.
    browser.click(".run:not([hidden]) .step.current [data-say=rejected]");
    let (kind, _) = current(&mut browser);
    assert_eq!(kind, "reveal");
    let text = visible(&mut browser);
    assert!(
        text.contains("You said rejected. Right: REJECTED, token 1 < 2, the highest token 'file' has accepted."),
        "{text}"
    );
    assert!(!text.contains("You said accepted"));
    browser.screenshot(&shots.join("desktop-reveal.png"), false);

    // Fencing off: the same moment of the other history asks again; the answer corrupts.
    browser.click(".switch");
    assert_eq!(
        browser.eval("document.getElementById('fencing').checked"),
        false
    );
    assert_eq!(
        current(&mut browser).0,
        "question",
        "the unfenced run asks first"
    );
    browser.key("b", "KeyB", 66);
    let text = visible(&mut browser);
    assert!(
        text.contains("You said rejected. Not quite: ACCEPTED"),
        "{text}"
    );
    assert!(text.contains("CORRUPTED DATA!"), "{text}");
    browser.screenshot(&shots.join("desktop-unfenced-reveal.png"), false);

    // The arrow keys step forward and back.
    let (_, before) = current(&mut browser);
    browser.key("ArrowRight", "ArrowRight", 39);
    let (_, after) = current(&mut browser);
    assert_ne!(before, after);
    browser.key("ArrowLeft", "ArrowLeft", 37);
    assert_eq!(current(&mut browser).1, before);
    for _ in 0..40 {
        browser.key("ArrowRight", "ArrowRight", 39);
    }
    let (kind, _) = current(&mut browser);
    assert_eq!(kind, "end");
    assert_eq!(
        browser.eval("document.getElementById('next').disabled"),
        true
    );

    // Every text of the diagram inside its view box, by the browser's own measure.
    let outside = browser.eval(
        "(() => { const svg = document.querySelector('.run:not([hidden]) svg'); \
         const [,, w, h] = svg.getAttribute('viewBox').split(' ').map(Number); \
         return [...svg.querySelectorAll('text')].filter(t => { const b = t.getBBox(); \
         return b.x < 0 || b.y < 0 || b.x + b.width > w || b.y + b.height > h; }).map(t => t.textContent); })()",
    );
    assert_eq!(outside, serde_json::json!([]), "texts outside the view box");

    // Not one request for anything but the page itself.
    let asked = requests(&mut browser, &url);
    assert!(asked.is_empty(), "the page asked for: {asked:?}");

    // Phone width: the page does not scroll sideways, and works the same.
    let phone =
        serde_json::json!({"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": true});
    browser.call("Emulation.setDeviceMetricsOverride", phone);
    load(&mut browser, &url);
    // Neither scrolled sideways nor zoomed out to fit something wider than the phone.
    let overflow =
        browser.eval("Math.max(document.documentElement.scrollWidth, window.innerWidth) - 390");
    assert!(
        overflow.as_f64().unwrap() <= 0.0,
        "sideways scroll at 390 px: {overflow}"
    );
    browser.screenshot(&shots.join("phone-start.png"), false);
    while current(&mut browser).0 != "question" {
        browser.click("#next");
    }
    browser.click(".run:not([hidden]) .step.current [data-say=accepted]");
    assert!(visible(&mut browser).contains("You said accepted. Not quite: REJECTED"));
    browser.eval("window.scrollTo(0, 0)");
    browser.screenshot(&shots.join("phone-reveal.png"), false);
    // Neither scrolled sideways nor zoomed out to fit something wider than the phone.
    let overflow =
        browser.eval("Math.max(document.documentElement.scrollWidth, window.innerWidth) - 390");
    assert!(
        overflow.as_f64().unwrap() <= 0.0,
        "sideways scroll at 390 px: {overflow}"
    );

    // Without JavaScript: every step, in order, each answer folded away.
    browser.call("Emulation.setDeviceMetricsOverride", desktop);
    browser.call(
        "Emulation.setScriptExecutionDisabled",
        serde_json::json!({"value": true}),
    );
    load(&mut browser, &url);
    let shown = browser.eval(
        "(() => { const s = [...document.querySelectorAll('.step')]; \
         return [s.length, s.filter(e => e.offsetParent !== null).length, document.documentElement.className, \
         [...document.querySelectorAll('details')].every(d => !d.open)]; })()",
    );
    assert_eq!(
        shown[0], shown[1],
        "every step visible without JavaScript: {shown}"
    );
    assert_eq!(shown[2], "nojs");
    assert_eq!(shown[3], true, "answers folded");
    let text = visible(&mut browser);
    let order: Vec<usize> = [
        "Client 1 takes the lock",
        "Will the storage accept client 1's write",
        "Client 1 releases. With fencing on",
        "The same lesson with fencing OFF",
        "Without fencing, client 2's write was lost",
    ]
    .iter()
    .map(|s| {
        text.find(s)
            .unwrap_or_else(|| panic!("no '{s}' without JavaScript"))
    })
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "in order: {order:?}");
    browser.screenshot(&shots.join("desktop-no-javascript.png"), false);
    browser.call(
        "Emulation.setScriptExecutionDisabled",
        serde_json::json!({"value": false}),
    );
    let asked = requests(&mut browser, &url);
    assert!(asked.is_empty(), "the page asked for: {asked:?}");

    // And the counter counts: a request the page did not make is caught.
    load(&mut browser, &url);
    browser.eval(
        "new Image().src = 'https://example.com/pixel.png'; new Promise(r => setTimeout(r, 300))",
    );
    let asked = requests(&mut browser, &url);
    assert!(
        asked.iter().any(|u| u.contains("example.com")),
        "an outside request went unnoticed: {asked:?}"
    );
    eprintln!("browser screenshots in {}", shots.display());
}
