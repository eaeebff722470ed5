//! The checks every field of a scenario file shares: text, names and times.

use toml::Spanned;

use super::{MAX_NAME, MAX_TEXT};
use crate::sim::text::{first_control, one_line};
use crate::sim::time::{to_ms, Ms};

/// A caption, question or title: no control characters, line breaks folded, not too long.
pub(super) fn checked_text(text: &str, what: &str) -> Result<String, String> {
    let folded = one_line(text);
    if let Some(c) = first_control(&folded) {
        return Err(format!(
            "{what} contains the control character U+{:04X}; remove it",
            c as u32
        ));
    }
    if folded.is_empty() {
        return Err(format!("{what} is empty"));
    }
    if folded.chars().count() > MAX_TEXT {
        return Err(format!("{what} is longer than {MAX_TEXT} characters"));
    }
    Ok(folded)
}

/// A key, value or lock name: one line of printable text, not too long.
pub(super) fn check_name(name: &str, what: &str) -> Result<(), String> {
    if let Some(c) = first_control(name) {
        return Err(format!(
            "{what} contains the control character U+{:04X}; remove it",
            c as u32
        ));
    }
    if name.trim().is_empty() {
        return Err(format!("{what} is empty"));
    }
    if name.chars().count() > MAX_NAME {
        return Err(format!("{what} is longer than {MAX_NAME} characters"));
    }
    Ok(())
}

/// A time field in seconds, as ms; errors carry the field's offset.
pub(super) fn seconds_field(value: &Spanned<f64>, field: &str) -> Result<Ms, (usize, String)> {
    let seconds = *value.get_ref();
    if seconds.is_finite() && (0.0..=86_400.0).contains(&seconds) {
        Ok(to_ms(seconds))
    } else {
        Err((
            value.span().start,
            format!("field `{field}` must be a number of seconds from 0 to 86400, got {seconds}"),
        ))
    }
}
