//! The pictures: the SVG space-time diagram (a real XML parser, every event drawn, every text in
//! view, a snapshot and the committed `docs/gc-pause.svg`), the asciicast (valid v2, ending on
//! the `frame` screen), the lesson page (self-contained, under budget) and the page in a real
//! headless Chromium: clicks, keys, the question, the fencing switch, no network request, phone
//! width, no JavaScript, screenshots.

#[path = "pictures/cdp.rs"]
mod cdp;
#[path = "pictures/minimal.rs"]
mod minimal;
#[path = "pictures/truth.rs"]
mod truth;

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

/// Every text's words, a label of two lines as one.
fn texts(doc: &roxmltree::Document) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(truth::text_of)
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
        // Each grant labelled with its token, beside its arrows, in its longest form that fits.
        for n in 1..=3 {
            let forms = [format!("grant, token {n}"), format!("grant t{n}")];
            assert!(
                texts.iter().any(|t| forms.contains(t)),
                "grant {n}: {texts:?}"
            );
        }
        assert!(texts.iter().any(|t| t == "grant, token 1"));
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
        // A label of several lines: its own text, then a tspan a line down each.
        let lines: Vec<&str> = node
            .descendants()
            .filter(|n| n.is_text())
            .map(|n| n.text().unwrap_or_default())
            .collect();
        let bold = node.attribute("font-weight") == Some("bold");
        let width = lines
            .iter()
            .map(|l| text_width(l, size, bold))
            .fold(0.0, f64::max);
        let bottom = y + (lines.len().max(1) - 1) as f64 * size * 1.2;
        let left = match node.attribute("text-anchor") {
            Some("middle") => x - width / 2.0,
            Some("end") => x - width,
            _ => x,
        };
        assert!(
            left >= 0.0 && left + width <= w && y - size >= 0.0 && bottom <= h,
            "{what}: '{lines:?}' at ({x}, {y}) size {size} leaves the {w}x{h} view box"
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
            &["run", "gc-pause", "--format", "svg", "--compare", "--as", "redlock"],
            "Redlock has no fencing token, so there is no fenced run to draw beside the unfenced one",
        ),
        (
            &["run", "per-key", "--format", "svg", "--compare", "--as", "kubernetes"],
            "Kubernetes Lease has no fencing token",
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
        (
            &["run", "gc-pause", "--axis", "0:23"],
            "--axis is for --format svg",
        ),
        (
            &["run", "gc-pause", "--hide-idle", "--format", "json"],
            "--hide-idle is for --format svg",
        ),
        (
            &["run", "gc-pause", "--format", "svg", "--axis", "23"],
            "is not an axis like 0:23",
        ),
        (
            &["run", "gc-pause", "--format", "svg", "--axis", "9:3"],
            "ends before it begins",
        ),
        (
            &["run", "gc-pause", "--format", "svg", "--axis", "0:20", "--from", "2"],
            "cannot be used with",
        ),
        (
            &["run", "gc-pause", "--format", "svg", "--axis", "30:40"],
            "--axis begins at 30.0 s, not before the run's end",
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
    let html = lab(&["export", "gc-pause", "--static", "-o", "-"]);
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
    // Under a system with another word for the token, no word of the page says "token": its
    // headings, captions, steps and screens, and its diagrams' texts and tooltips.
    for system in ["etcd", "zookeeper", "redlock"] {
        let page = lab(&["export", "gc-pause", "--static", "--as", system, "-o", "-"]);
        let body = &page[page.find("<body").unwrap()..page.find("<script>").unwrap()];
        let mut words = String::new();
        let mut inside = false;
        for c in body.chars() {
            match c {
                '<' => inside = true,
                '>' => {
                    inside = false;
                    words.push(' ');
                }
                c if !inside => words.push(c),
                _ => {}
            }
        }
        let words = words.replace("&#39;", "'").replace("&quot;", "\"");
        assert_eq!(truth::says_token(&words), None, "--as {system}'s page");
    }
    // Every built-in scenario exports, its live page under 1.5 MB, the WebAssembly in it.
    for name in scenarios() {
        let page = lab(&["export", &name, "-o", "-"]);
        assert!(page.ends_with("</html>\n"), "{name}");
        assert!(page.len() < 1_500_000, "{name}: {} bytes", page.len());
        assert!(page.contains("id=\"fencing-lab-module\""), "{name}");
        assert!(page.contains(
            "content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline' 'wasm-unsafe-eval'\""
        ));
        let without_namespace = page.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
        let without_namespace =
            without_namespace.replace("createElementNS(\"http://www.w3.org/2000/svg\"", "");
        for outside in [
            "http:", "https:", "=\"//", " src=", "@import", "url(h", "url(/",
        ] {
            assert!(
                !without_namespace.contains(outside),
                "{name} refers outside itself: {outside}"
            );
        }
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
               .filter(t => t.getClientRects().length > 0 && t.checkVisibility()).map(t => t.textContent); \
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

/// Headless Chromium, or `None` (the test says SKIPPED; in CI it fails instead).
fn chromium() -> Option<std::path::PathBuf> {
    let exe = cdp::chromium();
    if exe.is_none() {
        // In CI (`.ci/run` installs it) a missing browser fails instead of skipping.
        let required = std::env::var_os("FENCING_LAB_CI").is_some();
        eprintln!(
            "\n\n!!!!!!!! SKIPPED: the browser test needs Debian's `chromium` on PATH \
             (apt-get install -y chromium); .ci/run installs it. !!!!!!!!\n"
        );
        assert!(!required, "FENCING_LAB_CI is set and chromium is missing");
    }
    exe
}

/// In the page's current view: every label of every shown diagram whose box overlaps another's,
/// or that something covers at its ends or its centre (what `elementFromPoint` finds there is
/// not the label), and every text smaller than `min` pixels as drawn.
const LABELS_CLEAR: &str = r#"((min) => {
  const bad = [];
  const shown = el => el.getClientRects().length > 0 && el.checkVisibility({visibilityProperty: true});
  for (const svg of document.querySelectorAll('svg')) {
    if (!shown(svg)) continue;
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const labels = [...svg.querySelectorAll('text.label')].filter(shown);
    const boxes = labels.map(t => t.getBoundingClientRect());
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
          bad.push('overlap: ' + labels[i].textContent + ' / ' + labels[j].textContent);
      }
      // Each line of it (its first text, then a tspan a line), at its ends and its centre.
      const lines = [];
      const first = labels[i].firstChild;
      if (first && first.nodeType === 3) {
        const range = document.createRange();
        range.selectNodeContents(first);
        lines.push(range.getBoundingClientRect());
      }
      for (const span of labels[i].querySelectorAll('tspan')) lines.push(span.getBoundingClientRect());
      for (const r of lines) {
        const y = (r.top + r.bottom) / 2;
        for (const x of [r.left + 2, (r.left + r.right) / 2, r.right - 2]) {
          if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) continue;
          const hit = document.elementFromPoint(x, y);
          if (!hit || !(hit === labels[i] || labels[i].contains(hit)))
            bad.push('covered: ' + labels[i].textContent + ' by ' + (hit ? hit.tagName + '.' + (hit.getAttribute('class') || '') : 'nothing'));
        }
      }
    }
    for (const t of svg.querySelectorAll('text')) {
      if (!shown(t)) continue;
      const size = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (size < min - 0.01) bad.push('small: ' + t.textContent + ' ' + size.toFixed(2) + ' px');
    }
  }
  return bad;
})"#;

#[test]
fn every_label_is_clear_uncovered_and_readable_in_a_real_browser() {
    let Some(exe) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut browser = cdp::Browser::launch(&exe, &dir.path().join("profile"));
    browser.attach_page();
    browser.call("Page.enable", serde_json::json!({}));
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        serde_json::json!({"width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": false}),
    );
    // Every lesson × storage check (fencing off is `none`) × system, and the slides drawn
    // otherwise: compared, chaos's windows, a build's slide, idle lanes left out, minimal.
    let mut runs: Vec<Vec<String>> = Vec::new();
    for name in scenarios() {
        for check in ["per-key", "strict", "global", "none"] {
            for system in std::iter::once("").chain(fencing_lab::sim::systems::ids()) {
                let mut args = vec![name.clone(), "--check".into(), check.into()];
                if !system.is_empty() {
                    args.extend(["--as".into(), system.into()]);
                }
                runs.push(args);
            }
        }
        if name != "chaos" {
            runs.push(vec![name.clone(), "--minimal".into()]);
            runs.push(vec![name.clone(), "--minimal".into(), "--compare".into()]);
        }
    }
    for extra in [
        &["gc-pause", "--compare"][..],
        &["per-key", "--compare"],
        &["per-key", "--compare", "--as", "zookeeper"],
        &["chaos", "--seed", "11"],
        &["chaos", "--seed", "11", "--compare"],
        &["gc-pause", "--axis", "0:23", "--until", "12"],
        &["gc-pause", "--axis", "0:23", "--until", "12", "--hide-idle"],
        &["heartbeat", "--hide-idle"],
        &["gc-pause", "--actors", "1,2", "--as", "hazelcast"],
    ] {
        runs.push(extra.iter().map(|s| s.to_string()).collect());
    }
    let shots = shots_dir();
    for args in &runs {
        let mut full = vec!["run"];
        full.extend(args.iter().map(String::as_str));
        full.extend(["--format", "svg"]);
        let name = args.join("_").replace("--", "");
        let path = dir.path().join(format!("{name}.svg"));
        std::fs::write(&path, lab(&full)).unwrap();
        load(&mut browser, &format!("file://{}", path.display()));
        let bad = browser.eval(&format!("{LABELS_CLEAR}(11)"));
        if bad != serde_json::json!([]) {
            browser.screenshot(&shots.join(format!("{name}.png")), false);
        }
        assert_eq!(bad, serde_json::json!([]), "{full:?}");
    }
    assert!(
        runs.len() > 300,
        "only {} diagrams were looked at",
        runs.len()
    );
}

/// One label of a diagram, as drawn.
struct Drawn {
    role: String,
    t: String,
    text: String,
    x: f64,
    y: f64,
    left: f64,
}

fn drawn_labels(doc: &roxmltree::Document) -> Vec<Drawn> {
    doc.descendants()
        .filter(|n| n.attribute("class") == Some("label"))
        .map(|n| {
            let lines: Vec<String> = n
                .descendants()
                .filter(|d| d.is_text())
                .map(|d| d.text().unwrap_or_default().to_owned())
                .collect();
            let size: f64 = n.attribute("font-size").unwrap().parse().unwrap();
            let bold = n.attribute("font-weight") == Some("bold");
            let width = lines
                .iter()
                .map(|l| text_width(l, size, bold))
                .fold(0.0, f64::max);
            let x: f64 = n.attribute("x").unwrap().parse().unwrap();
            let left = match n.attribute("text-anchor") {
                Some("middle") => x - width / 2.0,
                Some("end") => x - width,
                _ => x,
            };
            Drawn {
                role: n.attribute("data-role").unwrap_or_default().to_owned(),
                t: n.attribute("data-t").unwrap_or_default().to_owned(),
                text: lines.join(" "),
                x,
                y: n.attribute("y").unwrap().parse().unwrap(),
                left,
            }
        })
        .collect()
}

/// A short token ("t4", "t4?", "t4:") among a text's words.
fn short_token_in(text: &str) -> Option<&str> {
    text.split(' ').find(|w| {
        let core = w.trim_end_matches([',', ':', '?', ')']);
        core.len() > 1 && core.starts_with('t') && core[1..].bytes().all(|b| b.is_ascii_digit())
    })
}

/// Every diagram of every lesson, fencing, check and system, its labels read back against the
/// run: the system's word for a token on every label, "lease gone" on every belief stripe,
/// the key on every write and verdict where a lesson writes several, nothing left of the time
/// axis, a wake on its own client's line, a lease's end beside the clock jump that ends it,
/// and no two verdict boxes alike at one instant.
#[test]
fn every_label_speaks_the_systems_words_names_its_key_and_sits_where_it_belongs() {
    use fencing_lab::pictures::svg;
    use fencing_lab::sim::systems::SYSTEMS;
    use fencing_lab::sim::{Scenario, Session, Setup};
    use fencing_lab::FenceCheck;
    use std::sync::Arc;
    let mut diagrams = 0;
    let (mut keyed_writes, mut wakes, mut beside, mut merged) = (0, 0, 0, false);
    for scenario in Scenario::all_built_in() {
        let keys = scenario.keys();
        for fencing in [true, false] {
            for check in FenceCheck::ALL {
                let seeds: &[u64] = if scenario.chaos.is_some() {
                    &[1, 8, 11]
                } else {
                    &[0]
                };
                let systems = std::iter::once(None).chain(SYSTEMS.iter().map(Some));
                for (system, &seed) in systems.flat_map(|s| seeds.iter().map(move |seed| (s, seed)))
                {
                    let mut setup = Setup::new(Arc::new(scenario.clone()))
                        .fencing(fencing)
                        .check(check);
                    if let Some(system) = system {
                        setup = setup.as_system(system);
                    }
                    if scenario.chaos.is_some() {
                        setup = setup.seed(seed);
                    }
                    let what = format!(
                        "{} seed {seed} fencing={fencing} {} --as {}",
                        scenario.name,
                        check.name(),
                        system.map_or("-", |s| s.id)
                    );
                    let until = scenario.end.min(40_000);
                    let session = Session::played_to(setup, until);
                    let window = svg::Window::choose(&[&session], None, until);
                    let picture = svg::diagram(&session, svg::Size::DEFAULT, window, "");
                    let doc = roxmltree::Document::parse(&picture).unwrap();
                    diagrams += 1;
                    let root = doc.root_element();
                    let x0: f64 = root.attribute("data-x0").unwrap().parse().unwrap();
                    let lanes: Vec<f64> = doc
                        .descendants()
                        .filter(|n| n.attribute("class") == Some("actor"))
                        .map(|n| n.attribute("y1").unwrap().parse().unwrap())
                        .collect();
                    let labels = drawn_labels(&doc);
                    let renamed = system.is_some_and(|s| s.has_token && s.mark != "t");
                    for label in &labels {
                        let text = &label.text;
                        if renamed {
                            assert_eq!(short_token_in(text), None, "{what}: {text:?}");
                        }
                        if text.contains("believes") || text.ends_with('?') {
                            assert!(text.contains("lease gone"), "{what}: {text:?}");
                        }
                        assert!(
                            label.left >= x0 - 0.5,
                            "{what}: {text:?} begins at {:.1}, left of the axis at {x0}",
                            label.left
                        );
                        if keys.len() > 1
                            && ["write", "asked", "verdict"].contains(&label.role.as_str())
                        {
                            keyed_writes += 1;
                            assert!(
                                keys.iter()
                                    .any(|k| text.split([' ', ',', ':']).any(|w| w == *k)),
                                "{what}: {} {text:?} names no key of {keys:?}",
                                label.role
                            );
                        }
                    }
                    // Every short form a label uses is in the legend.
                    let legend: Vec<String> = doc
                        .descendants()
                        .filter(|n| n.attribute("class") == Some("legend"))
                        .flat_map(|g| g.descendants().filter_map(|d| d.text()).map(str::to_owned))
                        .collect();
                    let in_legend = |entry: &str| legend.iter().any(|l| l == entry);
                    for label in &labels {
                        let words: Vec<&str> = label.text.split(' ').collect();
                        let short = match system {
                            Some(s) if s.has_token && s.mark != "t" && s.mark != s.word => {
                                words.windows(2).any(|w| {
                                    w[0] == s.mark
                                        && w[1]
                                            .trim_end_matches([',', ':', '?'])
                                            .parse::<u64>()
                                            .is_ok()
                                })
                            }
                            Some(s) if !s.has_token || s.mark == s.word => false,
                            _ => short_token_in(&label.text).is_some(),
                        };
                        if short {
                            let entry = match system.filter(|s| s.mark != "t") {
                                Some(s) => format!("{} 2: {} 2", s.mark, s.word),
                                None => "t2: token 2".to_owned(),
                            };
                            assert!(
                                in_legend(&entry),
                                "{what}: {:?} and no {entry:?} in {legend:?}",
                                label.text
                            );
                        }
                        if words.iter().any(|w| {
                            w.len() == 2 && w.starts_with('c') && w[1..].parse::<u8>().is_ok()
                        }) {
                            assert!(
                                in_legend("c1: client-1"),
                                "{what}: {:?} and {legend:?}",
                                label.text
                            );
                        }
                        if label.text == "+" {
                            assert!(in_legend("+ renewed"), "{what}: {legend:?}");
                        }
                        if label.text.contains('×') {
                            assert!(in_legend("×2: two alike at once"), "{what}: {legend:?}");
                        }
                    }
                    // A wake's label is nearer its own client's line than any other.
                    for event in doc
                        .descendants()
                        .filter(|n| n.attribute("data-event") == Some("resume"))
                    {
                        let t = event.attribute("data-t").unwrap();
                        let title = event.first_element_child().unwrap().text().unwrap();
                        let client: usize = title
                            .split("client-")
                            .nth(1)
                            .and_then(|r| r[..1].parse().ok())
                            .unwrap();
                        let nearest = |y: f64| {
                            (0..lanes.len())
                                .min_by(|&a, &b| {
                                    (lanes[a] - y).abs().total_cmp(&(lanes[b] - y).abs())
                                })
                                .unwrap()
                        };
                        let shown: Vec<usize> = doc
                            .descendants()
                            .filter(|n| {
                                n.attribute("class") == Some("actor-name") || n.has_tag_name("text")
                            })
                            .filter_map(|n| n.text())
                            .filter_map(|n| n.strip_prefix("client-").and_then(|d| d.parse().ok()))
                            .collect();
                        let lane = 1 + shown.iter().position(|&c| c == client).unwrap();
                        for wake in labels
                            .iter()
                            .filter(|l| l.role == "client" && l.t == t && l.text == "wakes")
                        {
                            wakes += 1;
                            assert_eq!(
                                nearest(wake.y),
                                lane,
                                "{what}: client-{client} wakes at {t} s, labelled at y {}",
                                wake.y
                            );
                        }
                    }
                    // A lease that a clock jump ends at once: its label beside the jump's.
                    for jump in labels.iter().filter(|l| l.role == "clock") {
                        for end in labels
                            .iter()
                            .filter(|l| l.role == "expire" && l.t == jump.t)
                        {
                            beside += 1;
                            assert!(
                                end.left > jump.x,
                                "{what}: {:?} at ({}, {}) is not right of {:?} at ({}, {})",
                                end.text,
                                end.x,
                                end.y,
                                jump.text,
                                jump.x,
                                jump.y
                            );
                        }
                    }
                    // A verdict's box stands for as many writes as it says (×N), never more.
                    let mut said: BTreeMap<(String, String), usize> = BTreeMap::new();
                    for label in labels.iter().filter(|l| l.role == "verdict") {
                        let outcome = label.text.split(' ').next().unwrap().to_lowercase();
                        let times = label
                            .text
                            .split('×')
                            .nth(1)
                            .map_or(1, |n| n.split(' ').next().unwrap().parse().unwrap());
                        merged |= times > 1;
                        *said.entry((label.t.clone(), outcome)).or_default() += times;
                    }
                    for ((t, outcome), times) in &said {
                        let writes = doc
                            .descendants()
                            .filter(|n| {
                                n.attribute("data-t") == Some(t.as_str())
                                    && n.attribute("data-outcome") == Some(outcome.as_str())
                            })
                            .count();
                        assert!(
                            *times <= writes,
                            "{what}: {times} {outcome} at {t} s, {writes} drawn"
                        );
                        if scenario.chaos.is_none() {
                            assert_eq!(*times, writes, "{what}: {outcome} at {t} s");
                        }
                    }
                    let mut verdicts: Vec<(&str, &str)> = labels
                        .iter()
                        .filter(|l| l.role == "verdict")
                        .map(|l| (l.t.as_str(), l.text.as_str()))
                        .collect();
                    let all = verdicts.len();
                    verdicts.sort();
                    verdicts.dedup();
                    assert_eq!(
                        verdicts.len(),
                        all,
                        "{what}: two verdict boxes alike at one instant"
                    );
                }
            }
        }
    }
    assert_eq!(diagrams, 13 * 2 * 4 * 7);
    assert!(
        keyed_writes > 100 && wakes > 20 && beside > 10,
        "{keyed_writes} {wakes} {beside}"
    );
    assert!(
        merged,
        "no verdicts alike at one instant were drawn as one box"
    );
}

#[test]
fn slides_share_their_axis_and_leave_idle_actors_out() {
    let early = lab(&[
        "run", "gc-pause", "--format", "svg", "--axis", "0:23", "--until", "9",
    ]);
    let late = lab(&["run", "gc-pause", "--format", "svg", "--axis", "0:23"]);
    let axis = |svg: &str| -> (Vec<String>, Vec<String>) {
        let doc = roxmltree::Document::parse(svg).unwrap();
        let root = doc.root_element();
        let attrs = ["data-from", "data-until", "data-x0", "data-x1"]
            .map(|a| root.attribute(a).unwrap().to_owned())
            .to_vec();
        // The grid: a line up from each tick.
        let ticks = doc
            .descendants()
            .filter(|n| n.attribute("stroke") == Some("#e4e7ec"))
            .map(|n| n.attribute("x1").unwrap().to_owned())
            .collect();
        (attrs, ticks)
    };
    assert_eq!(
        axis(&early),
        axis(&late),
        "the same axis, whatever --until says"
    );
    assert_eq!(axis(&early).0[..2], ["0".to_owned(), "23000".to_owned()]);
    let doc = roxmltree::Document::parse(&early).unwrap();
    assert!(texts(&doc)
        .iter()
        .any(|t| t.contains("Played to 9.0 s, on an axis of 0.0 to 23.0 s (--axis)")));
    let (drawn, _, _) = svg_events(&early);
    assert!(drawn.keys().all(|(_, t)| t.parse::<f64>().unwrap() <= 9.0));

    // heartbeat: client-3 never acts; --hide-idle leaves it out, and only it.
    let all = lab(&["run", "heartbeat", "--format", "svg"]);
    let busy = lab(&["run", "heartbeat", "--format", "svg", "--hide-idle"]);
    let names = |svg: &str| -> Vec<String> {
        let doc = roxmltree::Document::parse(svg).unwrap();
        texts(&doc)
            .into_iter()
            .filter(|t| {
                [
                    "lock service",
                    "client-1",
                    "client-2",
                    "client-3",
                    "storage",
                ]
                .contains(&t.as_str())
            })
            .collect()
    };
    assert_eq!(
        names(&all),
        [
            "lock service",
            "client-1",
            "client-2",
            "client-3",
            "storage"
        ]
    );
    assert_eq!(
        names(&busy),
        ["lock service", "client-1", "client-2", "storage"]
    );
    assert_eq!(
        svg_events(&all).0,
        svg_events(&busy).0,
        "every event still drawn"
    );
}

/// A build of slides (`--axis A:B --until T --hide-idle`, docs/pictures.md's recipe): every
/// slide has the same lanes, named alike, at the same heights, an actor idle so far included,
/// and an actor idle over the whole axis left out of them all.
#[test]
fn every_slide_of_a_build_has_the_same_lanes_at_the_same_heights() {
    let lanes = |svg: &str| -> Vec<(String, String)> {
        let doc = roxmltree::Document::parse(svg).unwrap();
        let ys: Vec<String> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("actor"))
            .map(|n| n.attribute("y1").unwrap().to_owned())
            .collect();
        let names: Vec<String> = texts(&doc)
            .into_iter()
            .filter(|t| {
                [
                    "lock service",
                    "client-1",
                    "client-2",
                    "client-3",
                    "storage",
                ]
                .contains(&t.as_str())
            })
            .collect();
        assert_eq!(ys.len(), names.len(), "{names:?}");
        names.into_iter().zip(ys).collect()
    };
    for scenario in fencing_lab::sim::Scenario::all_built_in()
        .iter()
        .filter(|s| s.chaos.is_none())
    {
        let end = scenario.end as f64 / 1000.0;
        let axis = format!("0:{end}");
        for compare in [false, true] {
            let mut build: Vec<(String, Vec<(String, String)>)> = Vec::new();
            for share in [0.15, 0.4, 0.7, 1.0] {
                let until = format!("{:.1}", end * share);
                let mut args = vec![
                    "run",
                    &scenario.name,
                    "--format",
                    "svg",
                    "--axis",
                    &axis,
                    "--until",
                    &until,
                    "--hide-idle",
                ];
                if compare {
                    args.push("--compare");
                }
                build.push((until.clone(), lanes(&lab(&args))));
            }
            let (last_until, last) = build.last().unwrap().clone();
            for (until, slide) in &build {
                assert_eq!(
                    slide, &last,
                    "{} compare={compare}: the slide at {until} s has other lanes than the one at {last_until} s",
                    scenario.name
                );
            }
            if scenario.name == "heartbeat" {
                assert!(
                    !last.iter().any(|(name, _)| name == "client-3"),
                    "heartbeat: client-3 is idle over the whole axis: {last:?}"
                );
            }
        }
    }
}

/// The viewport's rectangles of the controls, the current step's diagram and its first
/// caption, and whether each lies in view.
const IN_VIEW: &str = r#"(() => {
  const inside = el => { if (!el) return false; const r = el.getBoundingClientRect();
    return r.top >= -1 && r.bottom <= innerHeight + 1 && r.left >= -1 && r.right <= innerWidth + 1; };
  const cur = document.querySelector('.run:not([hidden]) .step.current');
  const svg = cur.querySelector('.slot svg');
  const caption = [...cur.querySelectorAll('.caption')].find(c => c.getClientRects().length);
  const top = caption && caption.getBoundingClientRect().top;
  return [inside(document.querySelector('.controls')), inside(svg),
          !!caption && top >= 0 && top < innerHeight - 20, cur.dataset.when];
})()"#;

#[test]
fn the_page_works_in_a_real_browser_offline_at_desktop_and_phone_width() {
    let Some(exe) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("lesson.html");
    lab(&[
        "export",
        "gc-pause",
        "--static",
        "-o",
        page.to_str().unwrap(),
    ]);
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

    // The controls, the diagram and the caption on screen together at every step.
    let together = |browser: &mut cdp::Browser| {
        let v = browser.eval(IN_VIEW);
        assert_eq!(
            [&v[0], &v[1], &v[2]],
            [true, true, true],
            "controls, diagram, caption in view at {}",
            v[3]
        );
    };
    together(&mut browser);

    // Next, click by click, to the question; its answer stays hidden.
    let mut clicks = 0;
    while current(&mut browser).0 != "question" {
        browser.click("#next");
        together(&mut browser);
        clicks += 1;
        assert!(clicks < 30, "never reached the question");
    }
    let text = visible(&mut browser);
    assert!(text.contains("Will the storage accept client 1's write with token 1?"));
    // The question dated as the transcript dates it: at the write's own moment.
    assert!(
        text.contains("16.5 s · a question before the write"),
        "{text}"
    );
    assert!(!text.contains("16.0 s · a question"));
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

    // Answer: rejected. The reveal says so, with the storage's reason, and the diagram shows
    // its whole verdict, nothing over it.
    browser.click(".run:not([hidden]) .step.current [data-say=rejected]");
    let (kind, _) = current(&mut browser);
    assert_eq!(kind, "reveal");
    together(&mut browser);
    let text = visible(&mut browser);
    assert!(
        text.contains("You said rejected. Right: REJECTED, token 1 < 2, the highest token 'file' has accepted."),
        "{text}"
    );
    assert!(!text.contains("You said accepted"));
    assert!(
        text.contains("REJECTED t1 < t2"),
        "the verdict's label shows: {text}"
    );
    let clear = browser.eval(&format!("{LABELS_CLEAR}(9)"));
    assert_eq!(clear, serde_json::json!([]), "the reveal's diagram");
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
    let clear = browser.eval(&format!("{LABELS_CLEAR}(9)"));
    assert_eq!(
        clear,
        serde_json::json!([]),
        "the unfenced reveal's diagram"
    );
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
        together(&mut browser);
    }
    let (kind, _) = current(&mut browser);
    assert_eq!(kind, "end");
    assert_eq!(
        browser.eval("document.getElementById('next').disabled"),
        true
    );
    // The last step sums the run up.
    let text = visible(&mut browser);
    assert!(text.contains("The run summed up"), "{text}");
    assert!(
        text.contains("The run, to 23.0 s: 3 grants, 3 writes accepted, 0 rejected, 1 corruption."),
        "{text}"
    );
    browser.screenshot(&shots.join("desktop-end.png"), false);

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

    // Phone width: the page does not scroll sideways, every text is 9 px or more, and the
    // diagram scrolls inside its box to the moment.
    let phone =
        serde_json::json!({"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": true});
    browser.call("Emulation.setDeviceMetricsOverride", phone);
    load(&mut browser, &url);
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
    // (Before `visible`, which hides the diagrams a moment and so resets their scrolling.)
    let at_moment = browser.eval(
        "(() => { const f = document.querySelector('.run:not([hidden]) .step.current .diagram'); \
         const c = f.querySelector('line.cursor').getBoundingClientRect(), r = f.getBoundingClientRect(); \
         return f.scrollLeft > 0 && c.left >= r.left && c.right <= r.right; })()",
    );
    assert_eq!(
        at_moment, true,
        "the phone's diagram scrolled to the moment"
    );
    assert!(visible(&mut browser).contains("You said accepted. Not quite: REJECTED"));
    let small = browser.eval(PAGE_TEXT_BELOW);
    assert_eq!(small, serde_json::json!([]), "texts under 9 px at 390 px");
    browser
        .eval("document.querySelector('.run:not([hidden]) .step.current .slot').scrollIntoView()");
    browser.screenshot(&shots.join("phone-reveal.png"), false);
    let overflow =
        browser.eval("Math.max(document.documentElement.scrollWidth, window.innerWidth) - 390");
    assert!(
        overflow.as_f64().unwrap() <= 0.0,
        "sideways scroll at 390 px: {overflow}"
    );

    // Without JavaScript: the steps up to the question, in order; nothing after it gives the
    // answer away until the reader opens the fold; then every step, in order.
    browser.call("Emulation.setDeviceMetricsOverride", desktop);
    browser.call(
        "Emulation.setScriptExecutionDisabled",
        serde_json::json!({"value": true}),
    );
    load(&mut browser, &url);
    assert_eq!(browser.eval("document.documentElement.className"), "nojs");
    let folded = visible(&mut browser);
    // (A write accepted before the question may say so: the answer is the asked write's.)
    for answer in ["REJECTED", "CORRUPTED", "The answer", "You said"] {
        let at = folded.find(answer).unwrap_or(0);
        let from = (0..=at.saturating_sub(300))
            .rev()
            .find(|&i| folded.is_char_boundary(i))
            .unwrap_or(0);
        assert!(
            !folded.contains(answer),
            "'{answer}' shows before the fold is opened: {}",
            &folded[from..]
        );
    }
    assert!(folded.contains("Will the storage accept client 1's write"));
    assert!(folded.contains("Show the answer and the rest of the lesson"));
    browser.screenshot(&shots.join("desktop-no-javascript.png"), false);
    browser.eval("document.querySelectorAll('details').forEach(d => d.open = true)");
    let shown = browser.eval(
        "(() => { const s = [...document.querySelectorAll('.step')]; \
         return [s.length, s.filter(e => e.offsetParent !== null).length]; })()",
    );
    assert_eq!(
        shown[0], shown[1],
        "every step once the folds are open: {shown}"
    );
    let text = visible(&mut browser);
    let order: Vec<usize> = [
        "Client 1 takes the lock",
        "Will the storage accept client 1's write",
        "Skipped. The answer: REJECTED",
        "Client 1 releases. With fencing on",
        "The run summed up",
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

/// Every text a reader sees (of the page and of its diagrams, at the size drawn) under 9 px.
const PAGE_TEXT_BELOW: &str = r#"(() => {
  const small = [];
  for (const el of document.querySelectorAll('body *')) {
    if (!el.getClientRects().length || !el.checkVisibility()) continue;
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    let size = parseFloat(getComputedStyle(el).fontSize);
    const svg = el.closest('svg');
    if (svg) size *= svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    if (size < 9 - 0.01) small.push(el.tagName + ' ' + el.textContent.slice(0, 30) + ' ' + size.toFixed(2));
  }
  return small;
})()"#;
