//! A caption, lock, key or value in Chinese or with emoji takes two columns a character on a
//! terminal. Every copy of the screen (`frame`, the handout's screens, the page's screens, the
//! asciicast) must keep the screen's width, so a box's right border stays in its column. Generated
//! over every moment of a lesson written in CJK and emoji, at three sizes.

mod common;

use std::path::PathBuf;
use std::process::Command;

use unicode_width::UnicodeWidthStr;

const SIZES: [(usize, usize); 3] = [(80, 24), (100, 30), (120, 40)];

const LESSON: &str = r#"
title = "锁与令牌: 一个 GC 停顿 🔒 outlives the lease"
lease = 10.0
locks = ["文件锁"]
end = 22.0

[[beat]]
at = 0.0
client = 1
do = "acquire"
caption = "客户端一拿到锁，令牌一号 🔒。It holds the lock with token 1, a ten-second lease, and a caption long enough to wrap onto a second line of the lesson pane."

[[beat]]
at = 1.0
client = 1
do = "pause"
seconds = 15.0
caption = "客户端一进入很长的垃圾回收停顿 🐢🐢🐢，它仍然认为自己持有锁。"

[[beat]]
at = 11.0
client = 2
do = "acquire"
caption = "客户端二拿到锁，令牌二号。"

[[beat]]
at = 12.0
client = 2
do = "write"
key = "数据"
value = "客户端二的数据 ✅"
caption = "客户端二写入 数据 with token 2."

[[beat]]
at = 16.5
client = 1
do = "write"
key = "数据"
value = "客户端一的数据 💥"
caption = "客户端一醒来并写入：被拒绝 ❌ with fencing."
"#;

fn lesson_file() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fencing-lab-wide-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("wide.toml");
    std::fs::write(&path, LESSON).unwrap();
    path
}

fn fencing_lab(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_fencing-lab"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Every line of a screen is at most `width` columns, and a line that starts a box's border ends
/// at exactly `width`, on a border character: the right edge is straight.
fn assert_screen_fits(screen: &str, width: usize, what: &str) {
    let mut boxed = 0;
    for line in screen.lines() {
        let columns = UnicodeWidthStr::width(line);
        assert!(
            columns <= width,
            "{what}: a line is {columns} columns on a {width}-column screen:\n{line}\n\n{screen}"
        );
        if line.starts_with('│') || line.starts_with('┌') || line.starts_with('└') {
            boxed += 1;
            let last = line.chars().last().unwrap();
            let spans_screen = columns == width && "│┐┘┤".contains(last);
            // Two boxes side by side: the right one ends the line.
            assert!(
                spans_screen,
                "{what}: a box's line ends at column {columns}, not on the border at {width}:\n\
                 {line}\n\n{screen}"
            );
        }
    }
    assert!(boxed > 10, "{what}: no boxes read:\n{screen}");
}

/// The caption of the beat at `tenth` tenths of a second, if one is there.
fn caption_at(tenth: u32) -> Option<&'static str> {
    let mut beat_at = None;
    for line in LESSON.lines() {
        if let Some(at) = line.strip_prefix("at = ") {
            beat_at = Some((at.parse::<f64>().unwrap() * 10.0).round() as u32);
        }
        if let Some(caption) = line.strip_prefix("caption = ") {
            if beat_at == Some(tenth) {
                return Some(caption.trim_matches('"'));
            }
        }
    }
    None
}

/// The caption is on the screen whole: wrapped at the pane's width in columns, nothing cut.
fn assert_caption_whole(screen: &str, caption: &str, what: &str) {
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let inside: String = screen
        .lines()
        .map(|l| l.trim_matches(|c: char| c == '│' || c.is_whitespace()))
        .collect();
    assert!(
        squeeze(&inside).contains(&squeeze(caption)),
        "{what}: the caption is not shown whole:\n{caption}\n\n{screen}"
    );
}

/// The plain text of an ANSI redraw: each `ESC[row;1H` starts a row, SGR sequences dropped.
fn ansi_rows(frame: &str) -> String {
    let mut rows = Vec::new();
    let mut row = String::new();
    let mut chars = frame.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            row.push(c);
            continue;
        }
        let mut sequence = String::new();
        for d in chars.by_ref() {
            sequence.push(d);
            if d.is_ascii_alphabetic() && d != '[' {
                break;
            }
        }
        if sequence.ends_with('H') {
            rows.push(std::mem::take(&mut row));
        }
    }
    rows.push(row);
    rows.join("\n")
}

#[test]
fn frame_keeps_the_screen_width_at_every_moment_and_size() {
    let path = lesson_file();
    let path = path.to_str().unwrap();
    for (width, height) in SIZES {
        let size = format!("{width}x{height}");
        for tenth in (0..=220u32).step_by(5) {
            let at = format!("{}", tenth as f64 / 10.0);
            for fencing in [&[][..], &["--no-fencing"][..]] {
                let mut args = vec!["frame", path, "--size", &size, "--at", &at];
                args.extend_from_slice(fencing);
                let screen = fencing_lab(&args);
                let what = format!("frame --size {size} --at {at}");
                assert_screen_fits(&screen, width, &what);
                // The captions are written for fencing on; off, the lesson says its own.
                if let (Some(caption), true) = (caption_at(tenth), fencing.is_empty()) {
                    assert_caption_whole(&screen, caption, &what);
                }
            }
        }
    }
}

#[test]
fn the_handout_page_and_recording_keep_the_screen_width() {
    let path = lesson_file();
    let path = path.to_str().unwrap();

    let handout = fencing_lab(&["run", path, "--format", "markdown"]);
    let mut screens = 0;
    for block in handout.split("```").skip(1).step_by(2) {
        if block.contains('┌') {
            screens += 1;
            assert_screen_fits(block.trim_start_matches("text"), 80, "the handout");
        }
    }
    assert!(screens >= 2, "the handout has {screens} screens");

    let cast = fencing_lab(&["run", path, "--format", "cast"]);
    let mut frames = 0;
    for line in cast.lines().skip(1) {
        let event: serde_json::Value = serde_json::from_str(line).unwrap();
        let text = event[2].as_str().unwrap();
        if text.contains('┌') {
            frames += 1;
            assert_screen_fits(&ansi_rows(text), 80, "the recording");
        }
    }
    assert!(frames >= 5, "the recording has {frames} frames");

    let page_path = std::path::Path::new(path).with_file_name("page.html");
    fencing_lab(&["export", path, "-o", page_path.to_str().unwrap()]);
    let page = std::fs::read_to_string(&page_path).unwrap();
    let mut shown = 0;
    for piece in page.split("<pre class=\"screen\">").skip(1) {
        let screen = common::html_text(piece.split("</pre>").next().unwrap());
        shown += 1;
        assert_screen_fits(&screen, 80, "the page");
    }
    assert!(shown >= 5, "the page has {shown} screens");
}
