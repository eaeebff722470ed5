//! The lab in a page: the student's code, run by the page (a Web Worker calling the class the
//! student pasted), answers the checker one protocol line at a time, and the checker is the
//! same Rust as `fencing-lab check`: the same rules, scripts, shrinking and verdicts.
//!
//! The page cannot interrupt a call that never returns; it ends the worker after its deadline
//! and runs the check again, telling it which calls stopped: those calls are then answered "no
//! answer", as a process that stopped is natively, and the check goes on past them.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::lab::check::{self, Named, Plan, Report};
use crate::lab::script::Subject;
use crate::lab::wire::{parse_reply, shorten, ProtocolError, Reply, Request};
use crate::sim::text::printable;

/// Where the student's code runs: the page's worker, or a test's stand-in.
pub trait Host: Send {
    /// A fresh instance of the student's code (its module loaded anew), greeted; `Err` says why
    /// it could not be.
    fn start(&mut self) -> Result<(), String>;
    /// One request line answered with one reply line; `number` counts every request of the
    /// check, so the page can say which call it saw never return.
    fn call(&mut self, number: u64, line: &str) -> String;
    /// A check decided, as `check` prints it: for the page to show as it goes.
    fn decided(&mut self, _text: &str) {}
}

/// The calls to stop at: the numbers, over the whole check, of those the page saw never return.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stops {
    pub at: Vec<u64>,
    /// How long the page waited for each.
    pub waited_ms: u64,
}

/// The student's code as the checker's [`Subject`]: each request answered at once by the host.
pub struct HostProgram {
    host: Arc<Mutex<dyn Host>>,
    /// Requests sent over the whole check, across restarts: a stop is named by its number.
    counter: Arc<AtomicU64>,
    stops: Arc<Stops>,
    next_id: u64,
    language: String,
    pending: VecDeque<Result<Reply, ProtocolError>>,
    answered: u64,
    /// How it stopped, once it has: like a process that stopped, it answers nothing after.
    stopped: Option<ProtocolError>,
}

impl HostProgram {
    /// Starts the host's student code and greets it.
    pub fn start(
        host: Arc<Mutex<dyn Host>>,
        counter: Arc<AtomicU64>,
        stops: Arc<Stops>,
    ) -> Result<HostProgram, ProtocolError> {
        host.lock()
            .unwrap_or_else(|e| e.into_inner())
            .start()
            .map_err(ProtocolError::new)?;
        let mut program = HostProgram {
            host,
            counter,
            stops,
            next_id: 0,
            language: String::new(),
            pending: VecDeque::new(),
            answered: 0,
            stopped: None,
        };
        program.send(&Request::Hello)?;
        match program.receive()? {
            Reply::Hello { language } => program.language = printable(&language).into_owned(),
            other => {
                return Err(ProtocolError::new(format!(
                    "your code answered hello with {}",
                    other.describe()
                )))
            }
        }
        program.answered = 0;
        Ok(program)
    }

    fn answer(&mut self, request: &Request) -> Result<Reply, ProtocolError> {
        let id = self.next_id;
        self.next_id += 1;
        let number = self.counter.fetch_add(1, Ordering::Relaxed);
        if let Some(stopped) = &self.stopped {
            return Err(stopped.clone());
        }
        if self.stops.at.contains(&number) {
            let how = format!(
                "did not answer within {}",
                crate::lab::wire::fmt_time(self.stops.waited_ms as f64 / 1000.0) + " s"
            );
            let stopped = ProtocolError {
                stopped: Some(how.clone()),
                ..ProtocolError::new(format!(
                    "your code {how} at request {id} ({})",
                    printable(&request.call())
                ))
            };
            self.stopped = Some(stopped.clone());
            return Err(stopped);
        }
        let line = request.to_line(id);
        let reply = self
            .host
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .call(number, &line);
        parse_reply(&reply, id, request).map_err(|what| {
            ProtocolError::new(format!(
                "your code replied '{}', which {what}, at request {id} ({})",
                shorten(&reply),
                printable(&request.call())
            ))
        })
    }
}

impl Subject for HostProgram {
    fn send(&mut self, request: &Request) -> Result<(), ProtocolError> {
        let answer = self.answer(request);
        self.pending.push_back(answer);
        Ok(())
    }

    fn receive(&mut self) -> Result<Reply, ProtocolError> {
        let answer = self
            .pending
            .pop_front()
            .unwrap_or_else(|| Err(ProtocolError::new("no request is waiting for a reply")))?;
        self.answered += 1;
        Ok(answer)
    }

    fn in_flight(&self) -> usize {
        self.pending.len()
    }

    fn language(&self) -> &str {
        &self.language
    }

    fn answered(&self) -> u64 {
        self.answered
    }
}

/// The file the page's student edits, as its reports name it.
const PAGE_FILE: &str = "lock_service.mjs";

/// What the page's check names the student's code by in its replay lines: the file a student
/// checks at home with the tool installed.
pub struct PageFile;

impl Named for PageFile {
    fn check_command(&self, options: &[&str]) -> String {
        let mut words = vec!["fencing-lab", "check"];
        words.extend_from_slice(options);
        words.push(".");
        words.join(" ")
    }

    fn lesson_command(&self, scenario: &str, seed: u64) -> String {
        format!("fencing-lab tui {scenario} --seed {seed} --impl .")
    }
}

/// The whole check on the host's code: the report `check` prints, and its calls counted.
pub fn check_on(host: Arc<Mutex<dyn Host>>, stops: Stops, plan: &Plan) -> Report {
    let started = crate::realtime::now_ms();
    let counter = Arc::new(AtomicU64::new(0));
    let stops = Arc::new(stops);
    let start_one = {
        let (host, counter, stops) = (host.clone(), counter.clone(), stops.clone());
        move || -> Result<HostProgram, ProtocolError> {
            HostProgram::start(host.clone(), counter.clone(), stops.clone())
        }
    };
    let first = match start_one() {
        Ok(first) => first,
        Err(e) => return Report::unstarted(PAGE_FILE.into(), plan, &e),
    };
    let language = first.language.clone();
    let mut start = || -> Result<Box<dyn Subject>, ProtocolError> {
        Ok(Box::new(start_one()?) as Box<dyn Subject>)
    };
    let found = check::run_on(
        Box::new(first),
        &mut start,
        &PageFile,
        plan,
        &mut |_| {},
        &mut |outcome| {
            let text = crate::lab::report::text_of(outcome);
            host.lock()
                .unwrap_or_else(|e| e.into_inner())
                .decided(&text);
        },
    );
    Report {
        target: PAGE_FILE.into(),
        language,
        outcomes: found.outcomes,
        calls: found.calls,
        seconds: (crate::realtime::now_ms() - started) / 1000.0,
        error: found.error,
        stderr: found.stderr,
        stops: found.stops,
    }
}

#[cfg(test)]
mod tests;
