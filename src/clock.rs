//! Time as the lock service sees it: always through a [`Clock`], never from the OS directly.

use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// A source of time in seconds.
///
/// The lock service reads time only through this trait, so tests and the simulation can drive it
/// with a [`ManualClock`] while a real deployment uses a [`SystemClock`].
///
/// ```
/// use fencing_lab::{Clock, ManualClock};
/// let clock = ManualClock::new(5.0);
/// assert_eq!(clock.now(), 5.0);
/// ```
pub trait Clock {
    /// The current time in seconds. Only differences between readings matter.
    fn now(&self) -> f64;
}

impl<T: Clock + ?Sized> Clock for &T {
    fn now(&self) -> f64 {
        (**self).now()
    }
}

impl<T: Clock + ?Sized> Clock for Box<T> {
    fn now(&self) -> f64 {
        (**self).now()
    }
}

impl<T: Clock + ?Sized> Clock for Rc<T> {
    fn now(&self) -> f64 {
        (**self).now()
    }
}

impl<T: Clock + ?Sized> Clock for Arc<T> {
    fn now(&self) -> f64 {
        (**self).now()
    }
}

/// A clock that moves only when told to: the lesson's "manual clock".
///
/// Clones share one time, so a test can keep a handle while the lock service owns another.
///
/// ```
/// use fencing_lab::{Clock, ManualClock};
/// let clock = ManualClock::new(0.0);
/// let handle = clock.clone();
/// handle.advance(2.5);
/// assert_eq!(clock.now(), 2.5);
/// ```
#[derive(Debug, Clone)]
pub struct ManualClock {
    // f64 bits in an atomic: Send + Sync without a lock, and clones share the Arc.
    seconds_bits: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock showing `start` seconds.
    ///
    /// # Panics
    /// If `start` is NaN or infinite.
    pub fn new(start: f64) -> ManualClock {
        assert!(
            start.is_finite(),
            "ManualClock::new needs a finite start time, got {start}"
        );
        ManualClock {
            seconds_bits: Arc::new(AtomicU64::new(start.to_bits())),
        }
    }

    /// Sets the time to `t`, forwards or backwards (a test may model a clock that steps back).
    ///
    /// # Panics
    /// If `t` is NaN or infinite.
    pub fn set(&self, t: f64) {
        assert!(
            t.is_finite(),
            "ManualClock::set needs a finite time, got {t}"
        );
        self.seconds_bits.store(t.to_bits(), Ordering::SeqCst);
    }

    /// Moves the time forward by `seconds`.
    ///
    /// # Panics
    /// If `seconds` is negative, NaN or infinite.
    pub fn advance(&self, seconds: f64) {
        assert!(
            seconds.is_finite() && seconds >= 0.0,
            "ManualClock::advance needs a finite, non-negative number of seconds, got {seconds}"
        );
        let next = self.now() + seconds;
        self.seconds_bits.store(next.to_bits(), Ordering::SeqCst);
    }
}

impl Default for ManualClock {
    /// A clock at 0 seconds.
    fn default() -> Self {
        ManualClock::new(0.0)
    }
}

impl Clock for ManualClock {
    fn now(&self) -> f64 {
        f64::from_bits(self.seconds_bits.load(Ordering::SeqCst))
    }
}

/// Monotonic wall time in seconds since the clock was made, from [`std::time::Instant`].
///
/// ```
/// use fencing_lab::{Clock, SystemClock};
/// let clock = SystemClock::new();
/// let a = clock.now();
/// assert!(clock.now() >= a);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SystemClock {
    origin: Instant,
}

impl SystemClock {
    /// A clock that reads 0 now and counts up.
    pub fn new() -> SystemClock {
        SystemClock {
            origin: Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock::new()
    }
}

impl Clock for SystemClock {
    fn now(&self) -> f64 {
        self.origin.elapsed().as_secs_f64()
    }
}
