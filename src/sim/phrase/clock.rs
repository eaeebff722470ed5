//! The lock service's clock jumps ahead or steps back (an NTP correction).

use super::{only_main, Labels, Tone};
use crate::sim::event::{Event, EventKind};
use crate::sim::time::{fmt_seconds, fmt_service_seconds, fmt_signed};

pub(super) fn line(event: &Event) -> String {
    match &event.kind {
        EventKind::ClockJump { by, service_now } if *by < 0 => format!(
            "the lock service's clock steps back {} s; the service's time reads {} s, never \
             earlier than it has read before",
            fmt_signed(-*by),
            fmt_service_seconds(*service_now)
        ),
        EventKind::ClockJump { by, service_now } => format!(
            "the lock service's clock jumps ahead {} s and now reads {} s",
            fmt_signed(*by),
            fmt_service_seconds(*service_now)
        ),
        _ => unreachable!("not a clock jump"),
    }
}

pub(super) fn caption(event: &Event) -> (u8, String, Tone) {
    match &event.kind {
        EventKind::ClockJump { by, service_now } => (
            4,
            format!(
                "The lock service's clock {} {} s (an NTP correction): it now reads {} s.",
                if *by > 0 { "jumps ahead" } else { "steps back" },
                fmt_seconds(by.unsigned_abs()),
                fmt_service_seconds(*service_now)
            ),
            Tone::Plain,
        ),
        _ => unreachable!("not a clock jump"),
    }
}

pub(super) fn labels(event: &Event) -> Labels {
    match &event.kind {
        // The service keeps the highest time it has read, so a step back changes nothing.
        EventKind::ClockJump { by, .. } if *by < 0 => only_main(&[
            format!(
                "clock steps back {} s: the service refuses to go back",
                fmt_signed(-*by)
            ),
            format!("clock back {} s: refused", fmt_signed(-*by)),
            "clock: not back".into(),
        ]),
        EventKind::ClockJump { by, .. } => only_main(&[
            format!("clock jumps ahead {} s", fmt_signed(*by)),
            format!("clock +{} s", fmt_signed(*by)),
            "clock".into(),
        ]),
        _ => unreachable!("not a clock jump"),
    }
}
