//! The pages in a real browser (issue 43's budgets), each next to a baseline in the same run:
//! the live page under 1.5 MB; its first screen within 300 ms of opening in headless Chromium;
//! a step (a key, its screen drawn) under 16 ms, against the same step natively; the lab page's
//! check of a correct JavaScript solution, against `fencing-lab check` on the same code.
//! Prints its figures; it needs Debian's `chromium` (it says so and measures nothing without).

#[allow(dead_code)]
#[path = "../tests/pictures/cdp.rs"]
mod cdp;

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use fencing_lab::cli::export::MODULE;
use fencing_lab::pictures::html;
use fencing_lab::sim::{Scenario, Setup};
use fencing_lab::tui::{render_text, Theme};
use fencing_lab::web::lesson::{keys_of, played};
use serde_json::json;

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn open(exe: &Path, profile: &Path, page: &Path) -> cdp::Browser {
    let mut browser = cdp::Browser::launch(exe, profile);
    browser.attach_page();
    browser.call("Page.enable", json!({}));
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false}),
    );
    browser.call(
        "Page.navigate",
        json!({ "url": format!("file://{}", page.display()) }),
    );
    browser.wait_for("Page.loadEventFired");
    browser
}

fn wait(browser: &mut cdp::Browser, condition: &str) {
    for _ in 0..2000 {
        if browser.eval(condition) == json!(true) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("the page never came to {condition}");
}

/// What each key of a walk through gc-pause takes in the page: the key to its screen drawn, and
/// to its diagram redrawn too (the page draws the diagram in a task of its own, after the screen).
const STEP: &str = "(async (key) => { const t = performance.now(); \
    document.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true})); \
    const screen = performance.now() - t; \
    await new Promise((done) => setTimeout(done, 0)); \
    return [screen, performance.now() - t]; })";

fn main() {
    let Some(exe) = cdp::chromium() else {
        eprintln!(
            "SKIPPED: the page bench needs Debian's `chromium` (apt-get install -y chromium)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let setup = Setup::new(Arc::new(Scenario::built_in("gc-pause").unwrap()));
    let live = html::live_page(&setup, setup.scenario.end, MODULE);
    let steps_only = html::page(&setup, setup.scenario.end);
    let lab = html::lab_page(&setup, MODULE);
    let page = dir.path().join("lesson.html");
    std::fs::write(&page, &live).unwrap();
    let lab_file = dir.path().join("lab.html");
    std::fs::write(&lab_file, &lab).unwrap();
    // What a course's web server sends, when it compresses: gzip -9 of the page.
    let gzipped = std::process::Command::new("gzip")
        .args(["-9", "-c"])
        .arg(&page)
        .output()
        .map(|out| format!("{} bytes", out.stdout.len()))
        .unwrap_or_else(|_| "not measured (no gzip)".to_owned());
    println!(
        "live page: {} bytes, gzipped {gzipped} ({} of them the gzipped WebAssembly, in base64); \
         baseline the page without it: {} bytes; the lab page: {} bytes",
        live.len(),
        MODULE.len().div_ceil(3) * 4,
        steps_only.len(),
        lab.len()
    );

    // The first screen, opened afresh five times; the baseline, the page without the module
    // (the steps alone) loaded in the same browser.
    let static_page = dir.path().join("steps.html");
    std::fs::write(&static_page, &steps_only).unwrap();
    let mut loaded = Vec::new();
    for n in 0..5 {
        let mut browser = open(
            &exe,
            &dir.path().join(format!("profile-static-{n}")),
            &static_page,
        );
        loaded.push(
            browser
                .eval("performance.getEntriesByType('navigation')[0].loadEventEnd")
                .as_f64()
                .unwrap(),
        );
    }
    let mut ready = Vec::new();
    for n in 0..5 {
        let mut browser = open(&exe, &dir.path().join(format!("profile-{n}")), &page);
        wait(
            &mut browser,
            "document.getElementById('live').dataset.ready !== undefined",
        );
        ready.push(
            browser
                .eval("Number(document.getElementById('live').dataset.ready)")
                .as_f64()
                .unwrap(),
        );
    }
    println!(
        "first screen: median {:.0} ms after the page began to load (of 5: {ready:?}); the page \
         without the module loaded in median {:.0} ms",
        median(ready.clone()),
        median(loaded)
    );

    // Steps: gc-pause walked with its lecturer's keys, three times over, in the page and natively.
    let keys = [
        "n",
        "n",
        "g",
        "n",
        "ArrowRight",
        "2",
        "x",
        "n",
        "f",
        "n",
        "ArrowLeft",
        "n",
    ];
    let mut browser = open(&exe, &dir.path().join("profile-steps"), &page);
    wait(
        &mut browser,
        "document.getElementById('live').dataset.ready !== undefined",
    );
    let (mut in_page, mut with_diagram) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        browser.eval("document.getElementById('lesson').dispatchEvent(new Event('change'))");
        for key in keys.iter().chain(["n"; 12].iter()) {
            let took = browser.eval(&format!("{STEP}({})", json!(key)));
            in_page.push(took[0].as_f64().unwrap());
            with_diagram.push(took[1].as_f64().unwrap());
        }
    }
    let mut native = Vec::new();
    for _ in 0..3 {
        for n in 1..=keys.len() {
            let pressed = keys_of(&keys[..n].join(" ")).unwrap();
            let started = Instant::now();
            let app = played(setup.clone(), &pressed, Theme::colored());
            let _ = render_text(&app, 80, 24);
            // The whole walk to here, replayed: the page does only its last key.
            native.push(started.elapsed().as_secs_f64() * 1000.0 / n as f64);
        }
    }
    let slowest = |values: &[f64]| values.iter().copied().fold(0.0, f64::max);
    println!(
        "a step in the page, its screen drawn: median {:.2} ms, slowest {:.2} ms; with its \
         diagram redrawn: median {:.2} ms, slowest {:.2} ms (of {}); natively a key and its \
         screen: median {:.3} ms",
        median(in_page.clone()),
        slowest(&in_page),
        median(with_diagram.clone()),
        slowest(&with_diagram),
        in_page.len(),
        median(native)
    );

    // The lab page's check of a correct solution, against `check` on it natively.
    let solution =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lab/zoo/js-throw-map/lock_service.mjs");
    let code = std::fs::read_to_string(solution).unwrap();
    let mut browser = open(&exe, &dir.path().join("profile-lab"), &lab_file);
    wait(
        &mut browser,
        "document.documentElement.classList.contains('ready')",
    );
    let mut checks = Vec::new();
    for _ in 0..3 {
        browser.eval(&format!(
            "(() => {{ document.getElementById('impl').value = {}; \
             delete document.getElementById('report').dataset.passed; \
             window.__started = performance.now(); document.getElementById('check').click(); }})()",
            json!(code)
        ));
        wait(
            &mut browser,
            "document.getElementById('report').dataset.passed !== undefined",
        );
        checks.push(
            browser
                .eval("performance.now() - window.__started")
                .as_f64()
                .unwrap(),
        );
    }
    let folder = dir.path().join("js");
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/fencing-lab");
    let mut natively = Vec::new();
    if bin.is_file() {
        let _ = std::process::Command::new(&bin)
            .args(["lab", "init", "js", folder.to_str().unwrap()])
            .output();
        std::fs::write(folder.join("lock_service.mjs"), &code).unwrap();
        for _ in 0..3 {
            let started = Instant::now();
            let _ = std::process::Command::new(&bin)
                .args(["check", folder.to_str().unwrap()])
                .output();
            natively.push(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    println!(
        "the lab page's check of a correct solution: median {:.0} ms (of 3, a worker made each \
         time); `fencing-lab check` on the same code: median {} (target/release, node)",
        median(checks),
        if natively.is_empty() {
            "not measured (no target/release/fencing-lab)".to_owned()
        } else {
            format!("{:.0} ms", median(natively))
        }
    );
}
