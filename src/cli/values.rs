//! The parsers of the command line's values, for clap's `value_parser`. Each error says what is
//! wrong with the value, in one sentence.

use crate::sim::systems::System;
use crate::sim::text::printable;
use crate::sim::time::{to_ms, MAX_MS};
use crate::sim::Ms;
use crate::FenceCheck;

/// One check, or all of them side by side.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CheckChoice {
    One(FenceCheck),
    All,
}

pub(crate) fn parse_system(text: &str) -> Result<&'static System, String> {
    crate::sim::systems::find(text).ok_or_else(|| {
        format!(
            "'{}' is not a system fencing-lab knows; use one of {}",
            printable(text),
            crate::sim::systems::ids().join(", ")
        )
    })
}

pub(crate) fn parse_check(text: &str) -> Result<FenceCheck, String> {
    FenceCheck::from_name(text).ok_or_else(|| {
        format!("there is no check '{text}'; use per-key (the seed's rule), strict, global or none")
    })
}

pub(crate) fn parse_check_or_all(text: &str) -> Result<CheckChoice, String> {
    if text == "all" {
        Ok(CheckChoice::All)
    } else {
        parse_check(text).map(CheckChoice::One)
    }
}

/// A whole number written as digits alone: no sign, no space, no other base.
fn digits<T: std::str::FromStr>(text: &str) -> Option<T> {
    (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

pub(crate) fn parse_seed(text: &str) -> Result<u64, String> {
    digits(text).ok_or_else(|| {
        format!(
            "a seed must be a whole number from 0 to {}, got '{text}'",
            u64::MAX
        )
    })
}

pub(crate) fn parse_runs(text: &str) -> Result<u64, String> {
    match digits::<u64>(text) {
        Some(n) if (1..=10_000_000).contains(&n) => Ok(n),
        _ => Err(format!(
            "the number of runs must be a whole number from 1 to 10000000, got '{text}'"
        )),
    }
}

pub(crate) fn parse_seeds(text: &str) -> Result<u64, String> {
    match digits::<u64>(text) {
        Some(n) if (1..=10_000_000).contains(&n) => Ok(n),
        _ => Err(format!(
            "the number of chaos seeds must be a whole number from 1 to 10000000, got '{text}'"
        )),
    }
}

pub(crate) fn parse_jobs(text: &str) -> Result<usize, String> {
    match digits::<usize>(text) {
        Some(n) if (1..=1024).contains(&n) => Ok(n),
        _ => Err(format!(
            "the number of jobs must be a whole number from 1 to 1024, got '{text}'"
        )),
    }
}

pub(crate) fn parse_seconds(text: &str) -> Result<f64, String> {
    // A number as written in the docs: digits, a point, an exponent; no plus sign or space
    // around. A minus sign is read, to say what is wrong with the number.
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    let plain = unsigned
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-'))
        && unsigned
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_digit() || b == b'.');
    let value: f64 = text
        .parse()
        .ok()
        .filter(|_| plain)
        .ok_or_else(|| format!("'{text}' is not a number of seconds"))?;
    if value < 0.0 {
        return Err(format!(
            "{text} is negative: a time in seconds is 0 or more"
        ));
    }
    if !value.is_finite() {
        return Err(format!("{text} is not a finite number of seconds"));
    }
    if value > MAX_MS as f64 / 1000.0 {
        return Err(format!(
            "{text} seconds is more than a day, the longest time allowed"
        ));
    }
    Ok(value)
}

pub(crate) fn parse_time(text: &str) -> Result<Ms, String> {
    parse_seconds(text).map(to_ms)
}

pub(crate) fn parse_duration(text: &str) -> Result<Ms, String> {
    let seconds = parse_seconds(text)?;
    // The shortest time the tool keeps is a millisecond: anything less is refused, not rounded.
    if seconds < 0.001 {
        return Err(format!("must be at least 0.001 seconds, got {text}"));
    }
    Ok(to_ms(seconds))
}

pub(crate) fn parse_axis(text: &str) -> Result<(Ms, Ms), String> {
    let (from, to) = text
        .split_once(':')
        .ok_or_else(|| format!("'{text}' is not an axis like 0:23 (from and to, in seconds)"))?;
    let (from, to) = (parse_time(from)?, parse_time(to)?);
    if from >= to {
        return Err(format!(
            "the axis {text} ends before it begins: FROM must be less than TO"
        ));
    }
    Ok((from, to))
}

/// "1,2" (or "client-1,client-2"): which clients have a line.
pub(crate) fn parse_actors(text: &str) -> Result<[bool; 3], String> {
    let mut clients = [false; 3];
    for part in text.split(',').map(str::trim) {
        let number = part.strip_prefix("client-").unwrap_or(part);
        match number {
            "1" | "2" | "3" => clients[number.as_bytes()[0] as usize - b'1' as usize] = true,
            _ => {
                return Err(format!(
                    "'{}' is not a client: give client numbers 1 to 3, like --actors 1,2",
                    printable(part)
                ))
            }
        }
    }
    Ok(clients)
}

pub(crate) fn parse_picture_size(text: &str) -> Result<(u32, u32), String> {
    let bad = || {
        format!("'{text}' is not a size like 1280x720 (pixels for svg, columns x rows for cast)")
    };
    let (w, h) = text.split_once('x').ok_or_else(bad)?;
    Ok((digits(w).ok_or_else(bad)?, digits(h).ok_or_else(bad)?))
}

pub(crate) fn parse_size(text: &str) -> Result<(u16, u16), String> {
    // The UI draws at most MAX_WIDTH x MAX_HEIGHT; a larger frame would be that one, padded.
    let (max_w, max_h) = (crate::tui::MAX_WIDTH, crate::tui::MAX_HEIGHT);
    let bad =
        || format!("'{text}' is not a size like 80x24 (columns 1 to {max_w} x rows 1 to {max_h})");
    let (w, h) = text.split_once('x').ok_or_else(bad)?;
    let w: u16 = digits(w).ok_or_else(bad)?;
    let h: u16 = digits(h).ok_or_else(bad)?;
    if !(1..=max_w).contains(&w) || !(1..=max_h).contains(&h) {
        return Err(bad());
    }
    Ok((w, h))
}
