//! The program a check runs on, started again when it stops answering. A call that never
//! returns (an `acquire` that waits for the lock) or a program that exits is one answer,
//! [`Reply::Stopped`], judged like any other, and the check goes on with a fresh program: a bug
//! in one method costs the rules it breaks, not the whole check.

use std::collections::VecDeque;

use super::Start;
use crate::lab::script::Subject;
use crate::lab::wire::ProtocolError;
use crate::lab::wire::{Reply, Request};

/// How many times one check starts a program again; one that stops more often than this ends
/// the check, as any protocol error does (each stop may have cost a request's whole timeout).
pub const MOST_RESTARTS: usize = 24;

/// What a request sent after the one a program stopped at is answered: it was lost with it.
const LOST: &str = "stopped at an earlier call, so this one was never answered";

/// A stop, as the report tells it.
#[derive(Clone, Debug, PartialEq)]
pub struct Stop {
    /// The call it stopped at.
    pub call: String,
    /// How: "did not answer within 2.0 s".
    pub how: String,
    /// Where in the check it happened: a check's id, or the experiments before them.
    pub during: String,
}

/// The program across its restarts.
pub struct Restarting<'a> {
    current: Option<Box<dyn Subject>>,
    pub(super) start: &'a mut Start<'a>,
    /// Requests sent to `current` and not yet answered, oldest first.
    sent: VecDeque<Request>,
    /// Answers owed ahead of `current`'s, for requests a stopped program took with it.
    owed: VecDeque<Reply>,
    /// Requests answered by the programs let go.
    pub(super) answered_before: u64,
    pub(super) stops: Vec<Stop>,
    /// What the check is doing now, for a stop's `during`.
    pub(super) during: String,
    language: String,
}

impl<'a> Restarting<'a> {
    pub fn new(first: Box<dyn Subject>, start: &'a mut Start<'a>) -> Restarting<'a> {
        Restarting {
            language: first.language().to_owned(),
            current: Some(first),
            start,
            sent: VecDeque::new(),
            owed: VecDeque::new(),
            answered_before: 0,
            stops: Vec::new(),
            during: String::new(),
        }
    }

    /// Lets the program in use go, counting its calls; the next request starts a fresh one.
    pub fn retire(&mut self) {
        if let Some(subject) = self.current.take() {
            self.answered_before += subject.answered();
        }
        self.sent.clear();
        self.owed.clear();
    }

    /// A fresh program from now on.
    pub fn fresh(&mut self) -> Result<(), ProtocolError> {
        self.retire();
        self.current = Some((self.start)()?);
        Ok(())
    }

    /// Whether a program is in use (none after [`Restarting::retire`] until the next request).
    pub fn is_running(&self) -> bool {
        self.current.is_some()
    }

    fn current(&mut self) -> Result<&mut Box<dyn Subject>, ProtocolError> {
        if self.current.is_none() {
            self.current = Some((self.start)()?);
        }
        Ok(self.current.as_mut().expect("started"))
    }

    /// The program stopped at the oldest request in flight: a fresh one takes the requests
    /// from the next `new` on (every script and experiment starts with one), and those before
    /// it, which needed the lost program's state, are owed as lost.
    fn restart(&mut self, error: ProtocolError, how: String) -> Result<Reply, ProtocolError> {
        if self.stops.len() >= MOST_RESTARTS {
            let mut error = error;
            error.sentence = format!(
                "{} (it had stopped answering {} times before, and was started again each time)",
                error.sentence, MOST_RESTARTS
            );
            return Err(error);
        }
        let stopped_at = self.sent.pop_front().expect("a request in flight");
        let rest: Vec<Request> = self.sent.drain(..).collect();
        let next_new = rest
            .iter()
            .position(|r| matches!(r, Request::New { .. }))
            .unwrap_or(rest.len());
        self.stops.push(Stop {
            call: stopped_at.call(),
            how: how.clone(),
            during: self.during.clone(),
        });
        // Nothing was owed: owed answers are given before the program is asked again.
        self.retire();
        self.owed
            .extend(std::iter::repeat_n(Reply::Stopped(LOST.into()), next_new));
        let fresh = match self.current() {
            Ok(fresh) => fresh,
            Err(again) => {
                return Err(ProtocolError {
                    sentence: format!(
                        "{}, and it could not be started again: {}",
                        error.sentence, again.sentence
                    ),
                    ..again
                })
            }
        };
        for request in &rest[next_new..] {
            fresh.send(request)?;
        }
        self.sent.extend(rest[next_new..].iter().cloned());
        Ok(Reply::Stopped(how))
    }
}

impl Subject for Restarting<'_> {
    fn send(&mut self, request: &Request) -> Result<(), ProtocolError> {
        self.current()?.send(request)?;
        self.sent.push_back(request.clone());
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ProtocolError> {
        self.current()?.flush()
    }

    fn receive(&mut self) -> Result<Reply, ProtocolError> {
        if let Some(owed) = self.owed.pop_front() {
            return Ok(owed);
        }
        match self.current()?.receive() {
            Ok(reply) => {
                self.sent.pop_front();
                Ok(reply)
            }
            Err(e) => match e.stopped.clone() {
                Some(how) if !self.sent.is_empty() => self.restart(e, how),
                _ => Err(e),
            },
        }
    }

    fn in_flight(&self) -> usize {
        self.owed.len() + self.sent.len()
    }

    fn language(&self) -> &str {
        &self.language
    }

    fn answered(&self) -> u64 {
        self.answered_before + self.current.as_ref().map_or(0, |c| c.answered())
    }

    /// Drops what is in flight; a program that stops meanwhile is only let go, since nothing
    /// it was sent is wanted (starting it again and sending the rest could stop it again).
    fn drain(&mut self) -> Result<(), ProtocolError> {
        self.owed.clear();
        while !self.sent.is_empty() {
            match self.current()?.receive() {
                Ok(_) => {
                    self.sent.pop_front();
                }
                Err(e) => match e.stopped {
                    Some(how) if self.stops.len() < MOST_RESTARTS => {
                        let call = self.sent.front().map(Request::call).unwrap_or_default();
                        self.stops.push(Stop {
                            call,
                            how,
                            during: self.during.clone(),
                        });
                        self.retire();
                    }
                    _ => return Err(e),
                },
            }
        }
        Ok(())
    }

    fn last_words(&mut self) -> Vec<String> {
        self.current
            .as_mut()
            .map(|c| c.last_words())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests;
