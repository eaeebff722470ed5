//! Measuring: a rectangle, a text's width and box at a size, and a text cut to fit.

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    pub(super) fn name(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// A rectangle: left, top, right, bottom.
#[derive(Clone, Copy, Debug)]
pub(super) struct Rect {
    pub(super) l: f64,
    pub(super) t: f64,
    pub(super) r: f64,
    pub(super) b: f64,
}

impl Rect {
    pub(super) fn overlaps(&self, o: &Rect) -> bool {
        self.l < o.r && o.l < self.r && self.t < o.b && o.t < self.b
    }

    pub(super) fn inside(&self, o: &Rect) -> bool {
        self.l >= o.l && self.r <= o.r && self.t >= o.t && self.b <= o.b
    }
}

/// The width text of `size` takes, estimated generously for a sans-serif face.
pub fn text_width(text: &str, size: f64, bold: bool) -> f64 {
    let em: f64 = text
        .chars()
        .map(|c| match c {
            'i' | 'l' | 'j' | '.' | ',' | ':' | ';' | '\'' | '!' | '|' | ' ' | '(' | ')' => 0.36,
            'm' | 'w' | 'M' | 'W' => 0.92,
            c if c.is_ascii_uppercase() => 0.74,
            _ => 0.62,
        })
        .sum();
    em * size * if bold { 1.08 } else { 1.0 }
}

/// The box text of `size` at baseline `y` covers.
pub(super) fn text_box(x: f64, y: f64, anchor: Anchor, text: &str, size: f64, bold: bool) -> Rect {
    let w = text_width(text, size, bold);
    let l = match anchor {
        Anchor::Start => x,
        Anchor::Middle => x - w / 2.0,
        Anchor::End => x - w,
    };
    Rect {
        l,
        t: y - size * 0.95,
        r: l + w,
        b: y + size * 0.3,
    }
}

/// `text` cut with an ellipsis to fit `room` pixels.
pub(super) fn fit(text: &str, room: f64, size: f64, bold: bool) -> String {
    if text_width(text, size, bold) <= room {
        return text.to_owned();
    }
    let mut out = String::new();
    for c in text.chars() {
        out.push(c);
        if text_width(&out, size, bold) + size > room {
            out.pop();
            break;
        }
    }
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}
