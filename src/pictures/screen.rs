//! A drawn UI buffer as rows of styled runs, written as HTML (a `<pre>` with classes) or as ANSI
//! (a full-screen redraw). Both read the cells the UI drew; neither draws anything itself.

use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

use super::xml::escape;
use crate::tui::shown_cells;

/// A colour as the screen paints it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paint {
    /// The terminal's own foreground or background.
    Default,
    /// One of the 256 indexed colours (0 to 15: the named ones).
    Indexed(u8),
    Rgb(u8, u8, u8),
}

impl Paint {
    fn of(color: Color) -> Paint {
        match color {
            Color::Reset => Paint::Default,
            Color::Black => Paint::Indexed(0),
            Color::Red => Paint::Indexed(1),
            Color::Green => Paint::Indexed(2),
            Color::Yellow => Paint::Indexed(3),
            Color::Blue => Paint::Indexed(4),
            Color::Magenta => Paint::Indexed(5),
            Color::Cyan => Paint::Indexed(6),
            Color::Gray => Paint::Indexed(7),
            Color::DarkGray => Paint::Indexed(8),
            Color::LightRed => Paint::Indexed(9),
            Color::LightGreen => Paint::Indexed(10),
            Color::LightYellow => Paint::Indexed(11),
            Color::LightBlue => Paint::Indexed(12),
            Color::LightMagenta => Paint::Indexed(13),
            Color::LightCyan => Paint::Indexed(14),
            Color::White => Paint::Indexed(15),
            Color::Indexed(n) => Paint::Indexed(n),
            Color::Rgb(r, g, b) => Paint::Rgb(r, g, b),
        }
    }
}

/// How a run of cells looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Look {
    pub fg: Paint,
    pub bg: Paint,
    pub bold: bool,
    pub dim: bool,
    pub italic: bool,
    pub underline: bool,
    pub reversed: bool,
}

impl Look {
    const PLAIN: Look = Look {
        fg: Paint::Default,
        bg: Paint::Default,
        bold: false,
        dim: false,
        italic: false,
        underline: false,
        reversed: false,
    };
}

/// Cells of one look, side by side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub look: Look,
    pub text: String,
}

/// The buffer's rows as runs; plain trailing blanks are left out.
pub fn rows(buf: &Buffer) -> Vec<Vec<Run>> {
    let area = buf.area;
    let mut rows = Vec::with_capacity(area.height as usize);
    for y in area.top()..area.bottom() {
        let mut runs: Vec<Run> = Vec::new();
        for cell in shown_cells(buf, y) {
            let m = cell.modifier;
            let look = Look {
                fg: Paint::of(cell.fg),
                bg: Paint::of(cell.bg),
                bold: m.contains(Modifier::BOLD),
                dim: m.contains(Modifier::DIM),
                italic: m.contains(Modifier::ITALIC),
                underline: m.contains(Modifier::UNDERLINED),
                reversed: m.contains(Modifier::REVERSED),
            };
            match runs.last_mut() {
                Some(run) if run.look == look => run.text.push_str(cell.symbol()),
                _ => runs.push(Run {
                    look,
                    text: cell.symbol().to_owned(),
                }),
            }
        }
        if let Some(last) = runs.last_mut() {
            if last.look == Look::PLAIN {
                last.text.truncate(last.text.trim_end().len());
                if last.text.is_empty() {
                    runs.pop();
                }
            }
        }
        rows.push(runs);
    }
    rows
}

/// The screen's palette on the page: a dark terminal, each named colour readable on it.
pub const CSS: &str = "\
.screen{background:#16181d;color:#d8dde6}\
.screen .f0{color:#16181d}.screen .f1{color:#ff6b6b}.screen .f2{color:#5fd38d}\
.screen .f3{color:#f2c94c}.screen .f4{color:#6ea8ff}.screen .f5{color:#d98cf0}\
.screen .f6{color:#5cd6e0}.screen .f7{color:#c4c9d2}.screen .f8{color:#8a93a3}\
.screen .f9{color:#ff8f8f}.screen .f10{color:#8ff0b0}.screen .f11{color:#ffe08a}\
.screen .f12{color:#9cc3ff}.screen .f13{color:#ebb0ff}.screen .f14{color:#96eef4}\
.screen .f15{color:#ffffff}.screen .fbg{color:#16181d}\
.screen .b0{background:#16181d}.screen .b1{background:#c93c3c}.screen .b2{background:#3fa26b}\
.screen .b3{background:#c9a227}.screen .b4{background:#3d6fc4}.screen .b5{background:#a45cbf}\
.screen .b6{background:#2aa3ad}.screen .b7{background:#c4c9d2}.screen .b8{background:#4a5060}\
.screen .b9{background:#e05555}.screen .b10{background:#5fd38d}.screen .b11{background:#f2c94c}\
.screen .b12{background:#6ea8ff}.screen .b13{background:#d98cf0}.screen .b14{background:#5cd6e0}\
.screen .b15{background:#ffffff}.screen .bfg{background:#d8dde6}\
.screen .B{font-weight:bold}.screen .D{opacity:.62}.screen .I{font-style:italic}\
.screen .U{text-decoration:underline}";

/// The 256-colour palette's RGB for an index above the named 16.
fn indexed_rgb(n: u8) -> (u8, u8, u8) {
    match n {
        16..=231 => {
            let n = n - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            (level(n / 36), level(n / 6 % 6), level(n % 6))
        }
        _ => {
            let v = 8 + (n.saturating_sub(232)) * 10;
            (v, v, v)
        }
    }
}

/// The classes and inline style of a look; reversed is resolved here, since a page has no
/// "swap the colours" property.
fn html_attrs(look: &Look) -> (Vec<String>, Vec<String>) {
    let (fg, bg, fg_default, bg_default) = if look.reversed {
        (look.bg, look.fg, "fbg", "bfg")
    } else {
        (look.fg, look.bg, "", "")
    };
    let mut classes = Vec::new();
    let mut style = Vec::new();
    let mut paint = |p: Paint, prefix: &str, default: &str, property: &str| match p {
        Paint::Default if !default.is_empty() => classes.push(default.to_owned()),
        Paint::Default => {}
        Paint::Indexed(n) if n < 16 => classes.push(format!("{prefix}{n}")),
        Paint::Indexed(n) => {
            let (r, g, b) = indexed_rgb(n);
            style.push(format!("{property}:#{r:02x}{g:02x}{b:02x}"));
        }
        Paint::Rgb(r, g, b) => style.push(format!("{property}:#{r:02x}{g:02x}{b:02x}")),
    };
    paint(fg, "f", fg_default, "color");
    paint(bg, "b", bg_default, "background");
    for (on, class) in [
        (look.bold, "B"),
        (look.dim, "D"),
        (look.italic, "I"),
        (look.underline, "U"),
    ] {
        if on {
            classes.push(class.to_owned());
        }
    }
    (classes, style)
}

/// The screen as the inside of a `<pre class="screen">`: one line a row, a span per styled run.
pub fn to_html(buf: &Buffer) -> String {
    let mut out = String::new();
    for (i, row) in rows(buf).iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        for run in row {
            let (classes, style) = html_attrs(&run.look);
            let text = escape(&run.text);
            if classes.is_empty() && style.is_empty() {
                out.push_str(&text);
                continue;
            }
            out.push_str("<span");
            if !classes.is_empty() {
                let _ = write!(out, " class=\"{}\"", classes.join(" "));
            }
            if !style.is_empty() {
                let _ = write!(out, " style=\"{}\"", style.join(";"));
            }
            let _ = write!(out, ">{text}</span>");
        }
    }
    out
}

/// The SGR parameters of a paint: `base` 30 for the foreground, 40 for the background.
fn sgr_paint(p: Paint, base: u8, out: &mut String) {
    match p {
        Paint::Default => {}
        Paint::Indexed(n) if n < 8 => {
            let _ = write!(out, ";{}", base + n);
        }
        Paint::Indexed(n) if n < 16 => {
            let _ = write!(out, ";{}", base + 60 + n - 8);
        }
        Paint::Indexed(n) => {
            let _ = write!(out, ";{};5;{n}", base + 8);
        }
        Paint::Rgb(r, g, b) => {
            let _ = write!(out, ";{};2;{r};{g};{b}", base + 8);
        }
    }
}

fn sgr(look: &Look) -> String {
    let mut out = String::from("\x1b[0");
    for (on, code) in [
        (look.bold, 1),
        (look.dim, 2),
        (look.italic, 3),
        (look.underline, 4),
        (look.reversed, 7),
    ] {
        if on {
            let _ = write!(out, ";{code}");
        }
    }
    sgr_paint(look.fg, 30, &mut out);
    sgr_paint(look.bg, 40, &mut out);
    out.push('m');
    out
}

/// The screen as one redraw for a terminal: clear, then every row at its place in its colours.
pub fn to_ansi(buf: &Buffer) -> String {
    let mut out = String::from("\x1b[?25l\x1b[0m\x1b[2J");
    for (y, row) in rows(buf).iter().enumerate() {
        if row.is_empty() {
            continue;
        }
        let _ = write!(out, "\x1b[{};1H", y + 1);
        for run in row {
            out.push_str(&sgr(&run.look));
            out.push_str(&run.text);
        }
        out.push_str("\x1b[0m");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    fn sample() -> Buffer {
        let mut buf = Buffer::empty(Rect::new(0, 0, 12, 2));
        buf.set_string(0, 0, "ok ", Style::new().fg(Color::Green));
        buf.set_string(
            3,
            0,
            "<b>",
            Style::new().fg(Color::White).bg(Color::Red).bold(),
        );
        buf.set_string(0, 1, "rev", Style::new().reversed());
        buf
    }

    #[test]
    fn runs_keep_each_look_and_drop_plain_trailing_blanks() {
        let rows = rows(&sample());
        assert_eq!(rows[0].len(), 2);
        assert_eq!(rows[0][0].text, "ok ");
        assert_eq!(rows[1].len(), 1, "{:?}", rows[1]);
    }

    #[test]
    fn html_escapes_text_and_resolves_reversed_colours() {
        let html = to_html(&sample());
        assert_eq!(
            html,
            "<span class=\"f2\">ok </span><span class=\"f15 b1 B\">&lt;b&gt;</span>\n\
             <span class=\"fbg bfg\">rev</span>"
        );
    }

    #[test]
    fn ansi_places_each_row_and_resets_after_it() {
        let ansi = to_ansi(&sample());
        assert!(ansi.starts_with("\x1b[?25l\x1b[0m\x1b[2J\x1b[1;1H\x1b[0;32mok \x1b[0;1;97;41m<b>"));
        assert!(ansi.contains("\x1b[2;1H\x1b[0;7mrev\x1b[0m"));
    }
}
