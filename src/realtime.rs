//! Real time, where the lab must let some pass (the clock experiments) or measure it: the
//! system's on a native build, the page's (`performance.now()`, imported) in a browser, where
//! `std::time::Instant` has no clock to read. Nothing in a run's story reads it.

use std::time::Duration;

/// Milliseconds since some fixed moment of this process (or page).
pub fn now_ms() -> f64 {
    #[cfg(not(target_family = "wasm"))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
    }
    #[cfg(target_family = "wasm")]
    {
        // SAFETY: the page's import takes nothing and returns a number.
        unsafe { page::now_ms() }
    }
}

/// The page's clock, imported from the page's JavaScript.
#[cfg(target_family = "wasm")]
mod page {
    #[link(wasm_import_module = "fencing_lab")]
    extern "C" {
        pub fn now_ms() -> f64;
    }
}

/// Lets `duration` of real time pass: asleep natively; in a browser's worker, where nothing
/// else runs meanwhile, by watching the page's clock.
pub fn pause(duration: Duration) {
    #[cfg(not(target_family = "wasm"))]
    std::thread::sleep(duration);
    #[cfg(target_family = "wasm")]
    {
        let until = now_ms() + duration.as_secs_f64() * 1000.0;
        while now_ms() < until {}
    }
}
