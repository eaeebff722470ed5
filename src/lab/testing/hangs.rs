//! A program that blocks: correct, except that an `acquire` of a lock already held never returns.

use std::collections::VecDeque;

use super::super::script::Subject;
use super::super::wire::ProtocolError;
use super::super::wire::{Reply, Request};
use super::{Mistake, Student};

/// A correct program whose `acquire` of a lock already held never returns: the reply to it is
/// the protocol error a real program's silence is, and once stopped it answers nothing more.
pub struct HangsWhenHeld {
    student: Student,
    /// The replies owed, in order: `None` where it hung.
    replies: VecDeque<Option<Reply>>,
    stopped: bool,
    answered: u64,
}

impl HangsWhenHeld {
    pub fn new() -> HangsWhenHeld {
        HangsWhenHeld {
            student: Student::new(Mistake::Correct),
            replies: VecDeque::new(),
            stopped: false,
            answered: 0,
        }
    }
}

impl Subject for HangsWhenHeld {
    fn send(&mut self, request: &Request) -> Result<(), ProtocolError> {
        self.student.send(request)?;
        let reply = self.student.receive()?;
        let hangs = matches!(request, Request::Acquire { .. }) && reply == Reply::Lease(None);
        self.replies.push_back((!hangs).then_some(reply));
        Ok(())
    }

    fn receive(&mut self) -> Result<Reply, ProtocolError> {
        let stop = || ProtocolError {
            stopped: Some("did not answer within 2.0 s".into()),
            ..ProtocolError::new("the program did not answer within 2.0 s at request 3")
        };
        if self.stopped {
            return Err(stop());
        }
        match self.replies.pop_front().expect("a request in flight") {
            Some(reply) => {
                self.answered += 1;
                Ok(reply)
            }
            None => {
                self.stopped = true;
                Err(stop())
            }
        }
    }

    fn in_flight(&self) -> usize {
        self.replies.len()
    }

    fn language(&self) -> &str {
        "a test double"
    }

    fn answered(&self) -> u64 {
        self.answered
    }
}
