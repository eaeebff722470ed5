//! The lock service's clock, apart from the world's: clock jumps move it, and the service's time
//! never goes back.

use crate::sim::time::{expiry_tick, Ms};

/// The lock service's clock: the world's time plus an offset that clock jumps change. The
/// service's time is the highest reading it has seen, so it never goes back.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ServiceClock {
    pub(super) offset: i64,
    high_water: i64,
}

impl ServiceClock {
    /// Reads the clock at world time `now`, in ms: the raw reading, which steps back when the
    /// clock does (what the implementation is told); the service's time keeps the highest.
    pub(super) fn read(&mut self, now: Ms) -> i64 {
        let reading = now as i64 + self.offset;
        self.high_water = self.high_water.max(reading);
        reading
    }

    /// The service's time at its latest reading, in ms.
    pub(super) fn now(&self) -> i64 {
        self.high_water
    }

    /// The first world tick, at or after `now` (the latest reading), at which a lease with
    /// `expires_at` has expired.
    pub(super) fn expiry(&self, now: Ms, expires_at: f64) -> Ms {
        let tick = expiry_tick(expires_at);
        if self.high_water >= tick {
            now
        } else {
            (tick - self.offset) as Ms
        }
    }
}
