//! Where a label may go beside each kind of mark, in order of preference: beside the end of a
//! lock call's arrows (its own side first, so it reads as that arrow's), under a client's line,
//! under the lock service's, above a verdict's mark, under the storage's line. The placer picks
//! the first free one.

use super::geometry::{Anchor, LINE};
use super::panel::Panel;
use super::placer::Try;

/// How far apart the levels of a label's places are, in text sizes: a label's box and its
/// padding, so two labels on neighbouring levels do not touch.
const STEP: f64 = 1.45;

fn at(x: f64, y: f64, anchor: Anchor, text: &str) -> Try {
    Try {
        x,
        y,
        anchor,
        text: text.to_owned(),
    }
}

/// A lock call's label, above the client's bar at `y`: right of the arrows' end at `x`, a level up
/// at a time, then left of the call; the longest wording on either side before a shorter one.
pub(super) fn beside_call(p: &Panel, x: f64, call_x: f64, y: f64, texts: &[String]) -> Vec<Try> {
    let f = p.font;
    let level = |n: usize| y - p.bar - 6.0 - n as f64 * f * STEP;
    let mut tries = Vec::new();
    for text in texts {
        tries.extend((0..4).map(|n| at(x + 4.0, level(n), Anchor::Start, text)));
        tries.extend((0..4).map(|n| at(call_x - 4.0, level(n), Anchor::End, text)));
    }
    tries
}

/// A label under a client's line at `y` (below its bands), at `x`, then beside the mark above
/// the line: never nearer another lane than its own, so it reads as its own client's.
pub(super) fn under_client(
    p: &Panel,
    x: f64,
    y: f64,
    anchor: Anchor,
    texts: &[String],
) -> Vec<Try> {
    let f = p.font;
    let base = y + p.bar + 4.0 + f;
    let mut tries = Vec::new();
    for text in texts {
        for level in 0..4 {
            let at_y = base + level as f64 * f * STEP;
            if at_y - y < p.gap * 0.5 {
                tries.push(at(x, at_y, anchor, text));
            }
        }
        let above = y - p.bar - 6.0;
        tries.push(at(x + 4.0, above, Anchor::Start, text));
        tries.push(at(x - 4.0, above, Anchor::End, text));
    }
    tries
}

/// A label under the lock service's line, at `x`.
pub(super) fn below_lock(p: &Panel, x: f64, size: f64, texts: &[String]) -> Vec<Try> {
    let mut tries = Vec::new();
    for text in texts {
        for level in 0..4 {
            // Clear of the diamond on the line, a line's height apart.
            let y = p.lock + 7.0 + size * (1.0 + STEP * level as f64);
            tries.push(at(x, y, Anchor::Middle, text));
            tries.push(at(x + 4.0, y, Anchor::Start, text));
            tries.push(at(x - 4.0, y, Anchor::End, text));
        }
    }
    tries
}

/// A verdict's label above its mark (`mark` pixels wide) at `x` on the storage's line: over the
/// mark, beside it, then further along; each wording in all of these before the next, so the
/// comparison stays while it fits anywhere near.
pub(super) fn above_storage(p: &Panel, x: f64, mark: f64, texts: &[String]) -> Vec<Try> {
    let f = p.font;
    let mut tries = Vec::new();
    for text in texts {
        // A text of several lines rises by its extra lines, so its box ends above the mark.
        let extra = text.matches('\n').count() as f64 * f * LINE;
        let base = p.storage - mark - f * 0.9 - 3.0 - extra;
        for level in 0..4 {
            let y = base - level as f64 * f * 1.5;
            tries.push(at(x, y, Anchor::Middle, text));
            tries.push(at(x + mark, y, Anchor::Start, text));
            tries.push(at(x - mark, y, Anchor::End, text));
            // Across its own arrow still, a little to either side.
            for shift in 1..=4 {
                let dx = shift as f64 * f * 1.5;
                tries.push(at(x - dx, y, Anchor::Middle, text));
                tries.push(at(x + dx, y, Anchor::Middle, text));
            }
        }
        for away in 1..=2 {
            for level in 0..2 {
                let (y, dx) = (base - level as f64 * f * 1.5, away as f64 * f * 2.5);
                tries.push(at(x + mark + dx, y, Anchor::Start, text));
                tries.push(at(x - mark - dx, y, Anchor::End, text));
            }
        }
    }
    tries
}

/// A key's new highest token, under the storage's line at `x`: centred under the mark a level
/// at a time, then beside it.
pub(super) fn below_storage(p: &Panel, x: f64, size: f64, texts: &[String]) -> Vec<Try> {
    let mut tries = Vec::new();
    let y = |level: usize| p.storage + size * 1.3 + level as f64 * size * STEP;
    for text in texts {
        tries.extend((0..2).map(|level| at(x, y(level), Anchor::Middle, text)));
        for level in 0..2 {
            tries.push(at(x + 3.0, y(level), Anchor::Start, text));
            tries.push(at(x - 3.0, y(level), Anchor::End, text));
        }
    }
    tries
}

/// A switch's label at the top of the panel, beside its line at `x`.
pub(super) fn beside_switch(p: &Panel, x: f64, text: &str) -> Vec<Try> {
    let y = p.bounds.t + p.font * 1.1;
    vec![
        at(x + 4.0, y, Anchor::Start, text),
        at(x - 4.0, y, Anchor::End, text),
        at(x + 4.0, y + p.font * 1.2, Anchor::Start, text),
        at(x - 4.0, y + p.font * 1.2, Anchor::End, text),
    ]
}

/// A crowd of refused asks from `x` to `last_x` on a client's line at `y`: above its bar, along
/// the crowd.
pub(super) fn over_crowd(p: &Panel, x: f64, last_x: f64, y: f64, texts: &[String]) -> Vec<Try> {
    let f = p.font;
    let base = y - p.bar - 6.0;
    let step = ((last_x - x) / 6.0).max(f);
    let mut tries = Vec::new();
    for text in texts {
        for level in 0..3 {
            let mut lx = x;
            while lx <= last_x.max(x) {
                tries.push(at(lx, base - level as f64 * f * STEP, Anchor::Start, text));
                lx += step;
            }
        }
    }
    tries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pictures::svg::window::Window;

    fn panel() -> Panel {
        Panel::new(
            16.0,
            1280.0,
            60.0,
            650.0,
            Window::fixed(0, 20_000),
            20_000,
            ([true; 3], true),
            20,
        )
    }

    #[test]
    fn a_calls_label_tries_its_own_side_first_then_the_other() {
        let p = panel();
        let tries = beside_call(&p, 500.0, 490.0, 300.0, &["grant, token 2".into()]);
        assert_eq!(tries[0].anchor, Anchor::Start);
        assert!(tries[0].x > 500.0);
        assert!(tries[..4].iter().all(|t| t.anchor == Anchor::Start));
        assert!(tries[4..]
            .iter()
            .all(|t| t.anchor == Anchor::End && t.x < 490.0));
        assert!(tries.iter().all(|t| t.y < 300.0 - p.bar), "above the bar");
    }

    #[test]
    fn verdicts_go_above_the_storage_and_highests_below() {
        let p = panel();
        let above = above_storage(&p, 600.0, 15.0, &["REJECTED t1 < t2".into()]);
        assert!(above.iter().all(|t| t.y < p.storage));
        let below = below_storage(&p, 600.0, 13.0, &["highest(file) = 2".into()]);
        assert!(below.iter().all(|t| t.y > p.storage));
    }
}
