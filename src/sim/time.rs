//! Simulated time: integer milliseconds, and the one way every view writes a time.

/// Simulated time in milliseconds since the scenario started.
pub type Ms = u64;

/// The longest time a scenario or a command may name: a day, far beyond any lesson.
pub const MAX_MS: Ms = 86_400_000;

/// `ms` as seconds.
pub fn seconds(ms: Ms) -> f64 {
    ms as f64 / 1000.0
}

/// Seconds (finite, >= 0) rounded to the nearest millisecond.
pub fn to_ms(seconds: f64) -> Ms {
    (seconds * 1000.0).round() as Ms
}

/// The first millisecond tick at which a lease with this `expires_at` has expired, that is the
/// smallest `m` with `m / 1000 >= expires_at`, exact despite floating point rounding. Signed,
/// because a lock service's clock may have been set before zero.
pub fn expiry_tick(expires_at: f64) -> i64 {
    // `expires_at * 1000` is off by at most one rounding, far less than a tick for any time
    // within a day, so its ceiling is the answer or a neighbour of it.
    let estimate = (expires_at * 1000.0).ceil() as i64;
    (estimate - 1..=estimate + 1)
        .find(|&tick| tick as f64 / 1000.0 >= expires_at)
        .expect("the ceiling of expires_at * 1000 is within one tick of the answer")
}

/// `ms` as seconds: as many decimals as the value needs, at least one ("16.0", "16.5",
/// "15.12", "16.402"). Every time and duration on screen and in transcripts goes through here.
pub fn fmt_seconds(ms: Ms) -> String {
    fmt_signed(ms as i64)
}

/// A signed number of milliseconds, written as [`fmt_seconds`] writes times ("-6.0").
pub fn fmt_signed(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.unsigned_abs();
    let (whole, frac) = (ms / 1000, ms % 1000);
    if frac.is_multiple_of(100) {
        format!("{sign}{whole}.{}", frac / 100)
    } else if frac.is_multiple_of(10) {
        format!("{sign}{whole}.{:02}", frac / 10)
    } else {
        format!("{sign}{whole}.{frac:03}")
    }
}

/// Seconds as the lock service reports them (an `f64`), written as [`fmt_seconds`] does.
pub fn fmt_service_seconds(seconds: f64) -> String {
    fmt_signed((seconds * 1000.0).round() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, checked the slow way: `tick` has expired and `tick - 1` has not.
    fn is_first_expired(tick: i64, expires_at: f64) -> bool {
        tick as f64 / 1000.0 >= expires_at && ((tick - 1) as f64 / 1000.0) < expires_at
    }

    #[test]
    fn expiry_tick_is_the_first_expired_millisecond() {
        for granted in [0i64, 300, 1234, 99_999, -5_000, 86_399_999] {
            for lease in [0.1, 0.3, 3.0, 10.0, 7.777, 0.001, 86_400.0] {
                let expires_at = granted as f64 / 1000.0 + lease;
                let tick = expiry_tick(expires_at);
                assert!(is_first_expired(tick, expires_at), "{expires_at} -> {tick}");
            }
        }
        // Sums that floating point cannot hold exactly, on every millisecond of a minute and
        // near the end of a day.
        for ms in (0..60_000).chain(86_340_000..86_400_000) {
            for lease in [0.1, 0.2, 0.3, 2.5, 10.0] {
                let expires_at = ms as f64 / 1000.0 + lease;
                let tick = expiry_tick(expires_at);
                assert!(is_first_expired(tick, expires_at), "{expires_at} -> {tick}");
            }
        }
        // A whole number of seconds expires exactly on its tick, not one later.
        assert_eq!(expiry_tick(10.0), 10_000);
        assert_eq!(expiry_tick(-2.0), -2_000);
        assert_eq!(expiry_tick(0.0015), 2);
        assert_eq!(expiry_tick(0.1 + 0.2), 301, "0.1 + 0.2 is a hair above 0.3");
    }

    #[test]
    fn one_time_format_shows_what_matters() {
        assert_eq!(fmt_seconds(16_500), "16.5");
        assert_eq!(fmt_seconds(0), "0.0");
        assert_eq!(fmt_seconds(1_250), "1.25");
        assert_eq!(fmt_seconds(15_120), "15.12");
        assert_eq!(fmt_seconds(16_402), "16.402");
        assert_eq!(fmt_seconds(1_001), "1.001");
        assert_eq!(fmt_signed(-6_000), "-6.0");
        assert_eq!(fmt_service_seconds(21.0), "21.0");
        assert_eq!(fmt_service_seconds(3.4000000000000004), "3.4");
    }
}
