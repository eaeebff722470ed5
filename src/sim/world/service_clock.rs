//! The lock service's clock, apart from the world's: clock jumps move it, and the service's time
//! never goes back.

use crate::sim::time::Ms;

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

    /// The first world tick, at or after `now` (the latest reading), at which a lease has
    /// expired, whose first expired tick of the service's clock is `tick` (`expiry_tick` of its
    /// `expires_at`, worked out once when it was granted or renewed).
    pub(super) fn expiry_at_tick(&self, now: Ms, tick: i64) -> Ms {
        if self.high_water >= tick {
            now
        } else {
            (tick - self.offset) as Ms
        }
    }
}
