//! When the checker reads the program's replies. A program answers each request with a write of
//! its own; reading (and so waking) for each would cost the checker more than the program spends
//! answering, and on a machine grading many programs at once every wake-up takes a core from a
//! student's program. So after a read that leaves replies due, the checker lets them gather in
//! the pipe for about as long as the program has been taking to answer them. Only the checker's
//! wake-ups depend on this: a reply is late only if the pipe is seen without it after its time
//! (see `Program::receive`), however long it waited to be read.

use std::time::{Duration, Instant};

/// The program's time a reply, until it has shown its own.
const FIRST_GUESS: Duration = Duration::from_micros(10);
/// The shortest wait worth a sleep (the first guess for one reply, as it happens).
const SHORTEST: Duration = Duration::from_micros(10);
/// The longest wait: a reply read this much late costs nothing but memory in the pipe.
const LONGEST: Duration = Duration::from_millis(2);
/// With more replies than this still due after a read, the checker reads again when half of
/// them have come, so that the requests it writes after judging them reach the program before it
/// runs out of work.
const HALF_ABOVE: usize = 16;

#[derive(Debug)]
pub(super) struct Pace {
    /// How long the program takes a reply, as last seen (a running average).
    per_reply: Duration,
    /// The last read that left replies due, when it was made.
    last_read: Option<Instant>,
    /// When the next read should be.
    next_read: Option<Instant>,
}

impl Default for Pace {
    fn default() -> Self {
        Pace {
            per_reply: FIRST_GUESS,
            last_read: None,
            next_read: None,
        }
    }
}

impl Pace {
    /// A read at `now` brought `came` of the `due` replies awaited.
    pub fn read(&mut self, now: Instant, came: usize, due: usize) {
        if let Some(last) = self.last_read.take() {
            if came > 0 {
                let sample =
                    now.saturating_duration_since(last) / came.min(u32::MAX as usize) as u32;
                self.per_reply = if came < due {
                    // Replies still due: the program was busy all the time since the last read,
                    // so its pace is the time between the reads over the replies they brought.
                    (self.per_reply * 3 + sample) / 4
                } else {
                    // Every reply in: the program may have been idle part of the time, so it
                    // is at least that fast.
                    self.per_reply.min(sample)
                };
            }
        }
        let left = due.saturating_sub(came);
        // Nothing came (a line in pieces, say): the rest is awaited as it comes, not gathered.
        if left == 0 || came == 0 {
            self.next_read = None;
            return;
        }
        let all = self
            .per_reply
            .saturating_mul(left.min(u32::MAX as usize) as u32);
        let wait = if left > HALF_ABOVE { all / 2 } else { all };
        self.last_read = Some(now);
        self.next_read = Some(now + wait.clamp(SHORTEST, LONGEST));
    }

    /// When to read next, if it is later than `now`: the replies are left to gather until then.
    pub fn gathering(&mut self, now: Instant) -> Option<Instant> {
        self.next_read.take().filter(|&at| at > now)
    }

    #[cfg(test)]
    pub fn waits(&self) -> bool {
        self.next_read.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    #[test]
    fn a_read_that_brings_every_reply_due_leaves_nothing_to_gather() {
        let mut pace = Pace::default();
        let now = Instant::now();
        pace.read(now, 3, 3);
        assert_eq!(pace.gathering(now), None);
    }

    #[test]
    fn a_few_replies_left_are_awaited_whole_and_many_by_half() {
        let now = Instant::now();
        let gathering = |came, due| {
            let mut pace = Pace::default();
            pace.read(now, came, due);
            pace.gathering(now)
        };
        assert_eq!(gathering(1, 5), Some(now + FIRST_GUESS * 4));
        assert_eq!(gathering(1, 2), Some(now + FIRST_GUESS));
        assert_eq!(gathering(1, 17), Some(now + FIRST_GUESS * 16));
        assert_eq!(gathering(1, 18), Some(now + FIRST_GUESS * 17 / 2));
        assert_eq!(gathering(1, 101), Some(now + FIRST_GUESS * 50));
        assert_eq!(gathering(1, 100_000), Some(now + LONGEST));
    }

    /// A read that brought no whole line (a reply written in pieces) waits for the rest as it
    /// comes.
    #[test]
    fn a_read_that_brings_no_line_gathers_nothing() {
        let mut pace = Pace::default();
        let now = Instant::now();
        pace.read(now, 0, 5);
        assert_eq!(pace.gathering(now), None);
    }

    #[test]
    fn the_pace_follows_the_program_slower_while_it_stays_busy_and_faster_when_it_is_done() {
        let mut pace = Pace::default();
        let start = Instant::now();
        // 100 replies in 4 ms with more due: 40 us a reply, a quarter of the way from 10 us.
        pace.read(start, 1, 501);
        pace.read(start + us(4000), 100, 500);
        assert_eq!(pace.per_reply, us(17) + Duration::from_nanos(500));
        // Every reply in after 1 ms, 400 of them: the program takes at most 2.5 us a reply.
        pace.read(start + us(5000), 400, 400);
        assert_eq!(pace.per_reply, us(2) + Duration::from_nanos(500));
        // Every reply in, more slowly than the pace known: it may have been idle, nothing is
        // learnt.
        pace.read(start + us(90_000), 1, 2);
        pace.read(start + us(99_000), 1, 1);
        assert_eq!(pace.per_reply, us(2) + Duration::from_nanos(500));
    }

    #[test]
    fn a_moment_already_past_is_not_waited_for() {
        let mut pace = Pace::default();
        let now = Instant::now();
        pace.read(now, 1, 3);
        assert_eq!(pace.gathering(now + LONGEST), None);
        pace.read(now, 1, 2);
        assert_eq!(
            pace.gathering(now + FIRST_GUESS),
            None,
            "the moment itself is reached"
        );
        assert!(!pace.waits(), "asked once, the wait is over");
    }
}
