//! Measuring: rectangles and line segments, a text's width and box at a size, a text cut to fit.

/// The smallest text any picture writes, in pixels: readable on a projected slide.
pub(super) const MIN_TEXT: f64 = 11.0;

/// Where a text's x is: its start, its middle or its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Rect {
    pub(super) l: f64,
    pub(super) t: f64,
    pub(super) r: f64,
    pub(super) b: f64,
}

impl Rect {
    /// Whether the two share any area (touching edges do not).
    pub(super) fn overlaps(&self, o: &Rect) -> bool {
        self.l < o.r && o.l < self.r && self.t < o.b && o.t < self.b
    }

    pub(super) fn inside(&self, o: &Rect) -> bool {
        self.l >= o.l && self.r <= o.r && self.t >= o.t && self.b <= o.b
    }

    /// Grown by `by` on every side.
    pub(super) fn grown(&self, by: f64) -> Rect {
        Rect {
            l: self.l - by,
            t: self.t - by,
            r: self.r + by,
            b: self.b + by,
        }
    }

    /// Whether the segment crosses or touches the inside of the rectangle (Liang-Barsky).
    pub(super) fn crossed_by(&self, s: &Seg) -> bool {
        let (dx, dy) = (s.x2 - s.x1, s.y2 - s.y1);
        let mut lo: f64 = 0.0;
        let mut hi: f64 = 1.0;
        for (p, q) in [
            (-dx, s.x1 - self.l),
            (dx, self.r - s.x1),
            (-dy, s.y1 - self.t),
            (dy, self.b - s.y1),
        ] {
            if p == 0.0 {
                if q <= 0.0 {
                    return false;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    lo = lo.max(r);
                } else {
                    hi = hi.min(r);
                }
            }
        }
        lo < hi
    }
}

/// A straight line from (x1, y1) to (x2, y2): an arrow, an actor's line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Seg {
    pub(super) x1: f64,
    pub(super) y1: f64,
    pub(super) x2: f64,
    pub(super) y2: f64,
}

impl Seg {
    pub(super) fn new(x1: f64, y1: f64, x2: f64, y2: f64) -> Seg {
        Seg { x1, y1, x2, y2 }
    }

    /// The box an arrowhead `len` long and `half` wide each side covers at its end (x2, y2):
    /// the box of its triangle.
    pub(super) fn head(&self, len: f64, half: f64) -> Rect {
        let (dx, dy) = (self.x2 - self.x1, self.y2 - self.y1);
        let norm = (dx * dx + dy * dy).sqrt().max(1e-9);
        let (ux, uy) = (dx / norm, dy / norm);
        let len = len.min(norm);
        let (bx, by) = (self.x2 - ux * len, self.y2 - uy * len);
        let corners = [
            (self.x2, self.y2),
            (bx - uy * half, by + ux * half),
            (bx + uy * half, by - ux * half),
        ];
        let xs = corners.map(|c| c.0);
        let ys = corners.map(|c| c.1);
        let min = |v: [f64; 3]| v.into_iter().fold(f64::INFINITY, f64::min);
        let max = |v: [f64; 3]| v.into_iter().fold(f64::NEG_INFINITY, f64::max);
        Rect {
            l: min(xs),
            t: min(ys),
            r: max(xs),
            b: max(ys),
        }
    }

    /// The smallest rectangle holding it.
    pub(super) fn bounds(&self) -> Rect {
        Rect {
            l: self.x1.min(self.x2),
            t: self.y1.min(self.y2),
            r: self.x1.max(self.x2),
            b: self.y1.max(self.y2),
        }
    }
}

/// The width text of `size` takes, estimated generously for a sans-serif face.
pub fn text_width(text: &str, size: f64, bold: bool) -> f64 {
    let em: f64 = text
        .chars()
        .map(|c| match c {
            'i' | 'l' | 'j' | '.' | ',' | ':' | ';' | '\'' | '!' | '|' | ' ' | '(' | ')' => 0.36,
            'm' | 'w' | 'M' | 'W' => 0.92,
            '0'..='9' => 0.66,
            c if c.is_ascii_uppercase() => 0.74,
            _ => 0.62,
        })
        .sum();
    em * size * if bold { 1.08 } else { 1.0 }
}

/// The height of a line of text, in sizes.
pub(super) const LINE: f64 = 1.2;

/// The box text of `size` at baseline `y` covers; a text of several lines (split at `\n`) goes
/// down a [`LINE`] a line from there.
pub(super) fn text_box(x: f64, y: f64, anchor: Anchor, text: &str, size: f64, bold: bool) -> Rect {
    let w = text
        .split('\n')
        .map(|line| text_width(line, size, bold))
        .fold(0.0, f64::max);
    let lines = text.split('\n').count();
    let l = match anchor {
        Anchor::Start => x,
        Anchor::Middle => x - w / 2.0,
        Anchor::End => x - w,
    };
    Rect {
        l,
        t: y - size * 0.95,
        r: l + w,
        b: y + size * 0.3 + (lines - 1) as f64 * size * LINE,
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

#[cfg(test)]
mod tests {
    use super::*;

    const BOX: Rect = Rect {
        l: 10.0,
        t: 10.0,
        r: 20.0,
        b: 20.0,
    };

    #[test]
    fn a_segment_crosses_a_box_only_through_its_inside() {
        assert!(
            BOX.crossed_by(&Seg::new(0.0, 15.0, 30.0, 15.0)),
            "straight through"
        );
        assert!(
            BOX.crossed_by(&Seg::new(15.0, 0.0, 15.0, 12.0)),
            "ends inside"
        );
        assert!(
            BOX.crossed_by(&Seg::new(5.0, 5.0, 25.0, 25.0)),
            "diagonally"
        );
        assert!(!BOX.crossed_by(&Seg::new(0.0, 25.0, 30.0, 25.0)), "below");
        assert!(!BOX.crossed_by(&Seg::new(21.0, 0.0, 21.0, 30.0)), "beside");
        assert!(
            !BOX.crossed_by(&Seg::new(0.0, 0.0, 9.0, 9.0)),
            "stops short"
        );
        assert!(
            !BOX.crossed_by(&Seg::new(0.0, 10.0, 30.0, 10.0)),
            "along an edge"
        );
    }

    #[test]
    fn an_arrows_head_covers_its_last_pixels_each_side() {
        let head = Seg::new(0.0, 0.0, 0.0, 100.0).head(9.0, 4.0);
        assert_eq!(
            head,
            Rect {
                l: -4.0,
                t: 91.0,
                r: 4.0,
                b: 100.0
            }
        );
        let short = Seg::new(0.0, 0.0, 0.0, 5.0).head(9.0, 1.0);
        assert_eq!(short.t, 0.0, "never longer than the arrow");
    }

    #[test]
    fn a_text_of_two_lines_is_as_wide_as_its_longer_and_a_line_taller() {
        let one = text_box(0.0, 50.0, Anchor::Start, "CORRUPTED DATA!", 10.0, true);
        let two = text_box(0.0, 50.0, Anchor::Start, "CORRUPTED DATA!\nt1", 10.0, true);
        assert_eq!(one.r, two.r);
        assert_eq!(two.b - one.b, 10.0 * LINE);
    }

    #[test]
    fn a_text_box_follows_its_anchor() {
        let w = text_width("abc", 10.0, false);
        let start = text_box(100.0, 50.0, Anchor::Start, "abc", 10.0, false);
        let end = text_box(100.0, 50.0, Anchor::End, "abc", 10.0, false);
        let middle = text_box(100.0, 50.0, Anchor::Middle, "abc", 10.0, false);
        assert_eq!((start.l, start.r), (100.0, 100.0 + w));
        assert_eq!((end.l, end.r), (100.0 - w, 100.0));
        assert!((middle.l + middle.r - 200.0).abs() < 1e-9);
        assert!(
            start.t < 50.0 && start.b > 50.0,
            "the box holds the baseline"
        );
        assert!(text_width("abc", 10.0, true) > w, "bold is wider");
    }

    #[test]
    fn a_text_too_long_is_cut_with_an_ellipsis() {
        assert_eq!(fit("short", 500.0, 10.0, false), "short");
        let cut = fit("a rather long sentence indeed", 60.0, 10.0, false);
        assert!(cut.ends_with('…'), "{cut}");
        assert!(text_width(&cut, 10.0, false) <= 60.0, "{cut}");
    }
}
