//! The counts a run's summary gives.

use crate::sim::text::counted;
use crate::{Outcome, Verdict};

/// Counts for the run's summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub grants: u64,
    pub writes_accepted: u64,
    pub writes_rejected: u64,
    /// Accepted writes whose token was older than one the key had accepted: CORRUPTED DATA!
    /// (the JSON summary's `stale_writes_accepted` and `corruptions` are both this count).
    pub corruptions: u64,
    /// Refused writes sent while the writer's lease was live: a check stricter than the seed's
    /// refusing an honest write.
    pub honest_writes_refused: u64,
    /// Calls a student's implementation answered otherwise than the seed (0 for this library).
    pub differences: u64,
}

impl Stats {
    /// Counts one write's verdict.
    pub fn count(&mut self, verdict: &Verdict, lease_live: bool) {
        if verdict.accepted {
            self.writes_accepted += 1;
        } else {
            self.writes_rejected += 1;
            if lease_live {
                self.honest_writes_refused += 1;
            }
        }
        if verdict.outcome() == Outcome::Corrupted {
            self.corruptions += 1;
        }
    }

    /// The counts in words, as every summary says them: "3 grants, 2 writes accepted, 1
    /// rejected, 0 corruptions".
    pub fn words(&self) -> String {
        format!(
            "{}, {} accepted, {} rejected, {}",
            counted(self.grants, "grant", "grants"),
            counted(self.writes_accepted, "write", "writes"),
            crate::sim::text::thousands(self.writes_rejected),
            counted(self.corruptions, "corruption", "corruptions"),
        )
    }

    /// Adds another run's counts.
    pub fn add(&mut self, other: &Stats) {
        self.grants += other.grants;
        self.writes_accepted += other.writes_accepted;
        self.writes_rejected += other.writes_rejected;
        self.corruptions += other.corruptions;
        self.honest_writes_refused += other.honest_writes_refused;
        self.differences += other.differences;
    }
}
