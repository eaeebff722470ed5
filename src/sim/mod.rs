//! The deterministic world the UI shows: three clients, one lock service, one storage.
//!
//! Time is integer milliseconds ([`Ms`]) fed to a [`ManualClock`](crate::ManualClock); randomness
//! comes only from a seeded ChaCha8 generator. The same scenario, seed and inputs always give the
//! same event stream.

mod chaos;
mod event;
mod scenario;
mod session;
mod world;

pub use chaos::{run_chaos, ChaosParams, RunSummary};
pub use event::{explain_write, ClientId, Event, EventKind};
pub use scenario::{
    Beat, BeatAction, ClientAction, Question, Scenario, ScenarioError, CLIENT_COUNT,
};
pub use session::{Input, InputKind, Session};
pub use world::{
    Activity, Belief, Client, LaneState, LockSpan, Mark, MarkKind, Span, Stats, World,
};

/// Simulated time in milliseconds since the scenario started.
pub type Ms = u64;

/// `ms` as seconds.
pub fn seconds(ms: Ms) -> f64 {
    ms as f64 / 1000.0
}

/// Seconds (finite, >= 0) rounded to the nearest millisecond.
pub fn to_ms(seconds: f64) -> Ms {
    (seconds * 1000.0).round() as Ms
}

/// The first millisecond tick at which a lease with this `expires_at` has expired, that is the
/// smallest `m` with `seconds(m) >= expires_at`, exact despite floating point rounding.
pub fn expiry_tick(expires_at: f64) -> Ms {
    let mut tick = (expires_at * 1000.0).ceil().max(0.0) as Ms;
    while seconds(tick) < expires_at {
        tick += 1;
    }
    while tick > 0 && seconds(tick - 1) >= expires_at {
        tick -= 1;
    }
    tick
}

/// `ms` as seconds with one decimal ("16.5"), or more when the tenth would hide a difference.
pub fn fmt_seconds(ms: Ms) -> String {
    if ms.is_multiple_of(100) {
        format!("{:.1}", seconds(ms))
    } else if ms.is_multiple_of(10) {
        format!("{:.2}", seconds(ms))
    } else {
        format!("{:.3}", seconds(ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_tick_is_the_first_expired_millisecond() {
        for granted in [0u64, 300, 1234, 99_999] {
            for lease in [0.1, 0.3, 3.0, 10.0, 7.777] {
                let expires_at = seconds(granted) + lease;
                let tick = expiry_tick(expires_at);
                assert!(seconds(tick) >= expires_at);
                assert!(tick == 0 || seconds(tick - 1) < expires_at);
            }
        }
    }

    #[test]
    fn seconds_format_shows_what_matters() {
        assert_eq!(fmt_seconds(16_500), "16.5");
        assert_eq!(fmt_seconds(0), "0.0");
        assert_eq!(fmt_seconds(1_250), "1.25");
        assert_eq!(fmt_seconds(1_001), "1.001");
    }
}
