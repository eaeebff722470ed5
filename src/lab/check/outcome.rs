//! What a check run finds, as data: the checks, the plan, each check's verdict and the report.

use std::time::Duration;

use crate::lab::explore::{self, Bounds};
use crate::lab::script::Played;
use crate::lab::seed::Rule;
#[cfg(not(target_family = "wasm"))]
use crate::lab::target::Target;
use crate::lab::wire::{ProtocolError, Timeouts};
use crate::sim::text::counted;

/// One check `check` runs: a rule's own script, or one of the broad ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CheckId {
    Rule(Rule),
    Random,
    Exhaustive,
    Chaos,
}

impl CheckId {
    /// Every check, in the order they run and are reported.
    pub fn all() -> Vec<CheckId> {
        Rule::ALL
            .into_iter()
            .map(CheckId::Rule)
            .chain([CheckId::Random, CheckId::Exhaustive, CheckId::Chaos])
            .collect()
    }

    /// The id `check` prints and `--only` takes.
    pub fn id(self) -> &'static str {
        match self {
            CheckId::Rule(rule) => rule.id(),
            CheckId::Random => "random",
            CheckId::Exhaustive => "exhaustive",
            CheckId::Chaos => "chaos",
        }
    }

    pub fn from_id(id: &str) -> Option<CheckId> {
        CheckId::all().into_iter().find(|c| c.id() == id)
    }
}

/// How much `check` runs.
#[derive(Clone, Debug)]
pub struct Plan {
    pub bounds: Bounds,
    /// Chaos seeds 1..=N.
    pub chaos_seeds: u64,
    /// Only this check.
    pub only: Option<CheckId>,
    /// How long the program may take, to start and to answer; a fresh program gets the same.
    pub timeouts: Timeouts,
    /// When the whole check must end; the checks not started by then are reported as not run.
    pub deadline: Option<Duration>,
}

impl Default for Plan {
    fn default() -> Self {
        Plan {
            bounds: Bounds::default(),
            chaos_seeds: 20,
            only: None,
            timeouts: Timeouts::default(),
            deadline: None,
        }
    }
}

/// What one check decided.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Passed,
    Failed(Box<Failure>),
    /// A difference about another rule came first, or a method the check cannot do without is
    /// still to write, so this rule could not be judged: counted neither passed nor failed.
    NotJudged {
        /// The rule broken first (`None`: a method still to write, which breaks no rule here).
        rule: Option<Rule>,
        because: String,
    },
    /// The check did not run: the program stopped, or the check's deadline passed.
    NotRun(String),
}

/// One check's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub check: CheckId,
    /// What it checks, in the seed's words where it is a rule.
    pub words: String,
    /// What was tried ("4,096 scripts of 4 calls").
    pub scope: String,
    pub verdict: Verdict,
}

impl Outcome {
    pub fn id(&self) -> &'static str {
        self.check.id()
    }

    pub fn passed(&self) -> bool {
        self.verdict == Verdict::Passed
    }

    pub fn failure(&self) -> Option<&Failure> {
        match &self.verdict {
            Verdict::Failed(f) => Some(f),
            _ => None,
        }
    }
}

/// How a check failed.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// The rule the difference breaks.
    pub rule: Rule,
    /// The minimal transcript, one call a line, the last the one that differs.
    pub transcript: Vec<String>,
    /// What the seed gives instead, and why.
    pub expected: String,
    /// A note in the student's terms (why their none counted as success).
    pub hint: Option<String>,
    /// More that a reader needs (the chaos runs' writes, a difference that would not repeat).
    pub note: Option<String>,
    /// The command that shows it again.
    pub replay: String,
    /// The command that plays it in the lesson's UI, where that is a lesson of its own.
    pub watch: Option<String>,
    /// The chaos seed that failed, for `--tui`.
    pub chaos_seed: Option<u64>,
    /// The minimal case's calls, for `--tui` to play as a lesson.
    pub played: Vec<Played>,
    /// The settings the minimal case ran with.
    pub lease_seconds: f64,
    pub first_token: u64,
    /// The method that differed is the starter's, not written yet.
    pub not_implemented: Option<String>,
    /// The rule's words in the student's language (`expiresAt`, `null` for Java and
    /// JavaScript), as the report prints them.
    pub rule_words: String,
}

/// Everything `check` found.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub target: String,
    pub language: String,
    pub outcomes: Vec<Outcome>,
    /// Requests answered, the greetings aside.
    pub calls: u64,
    pub seconds: f64,
    /// Why the check stopped early (the program broke the protocol), if it did.
    pub error: Option<String>,
    /// The last lines the program wrote on stderr, if it wrote any.
    pub stderr: Vec<String>,
    /// Each time the program stopped answering (a call that never returned, an exit) and was
    /// started again for the check to go on.
    pub stops: Vec<super::Stop>,
}

impl Report {
    pub fn count(&self, which: fn(&Verdict) -> bool) -> usize {
        self.outcomes.iter().filter(|o| which(&o.verdict)).count()
    }

    pub fn passed(&self) -> usize {
        self.count(|v| *v == Verdict::Passed)
    }

    pub fn failed(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Failed(_)))
    }

    pub fn not_judged(&self) -> usize {
        self.count(|v| matches!(v, Verdict::NotJudged { .. }))
    }

    pub fn not_run(&self) -> usize {
        self.count(|v| matches!(v, Verdict::NotRun(_)))
    }

    pub fn all_passed(&self) -> bool {
        self.error.is_none() && self.passed() == self.outcomes.len()
    }

    /// The first failing check's minimal case, for `check --tui`.
    pub fn first_failure(&self) -> Option<&Outcome> {
        self.outcomes.iter().find(|o| o.failure().is_some())
    }

    /// The report of a program that could not start (it did not build, compile or greet):
    /// every check the plan names not run, and `error` why.
    #[cfg(not(target_family = "wasm"))]
    pub fn not_started(target: &Target, plan: &Plan, error: &ProtocolError) -> Report {
        Report::unstarted(target.describe(), plan, error)
    }

    /// [`Report::not_started`], for a program named `target` however it is run.
    pub fn unstarted(target: String, plan: &Plan, error: &ProtocolError) -> Report {
        let checks = match plan.only {
            Some(only) => vec![only],
            None => CheckId::all(),
        };
        Report {
            target,
            language: String::new(),
            outcomes: checks
                .into_iter()
                .map(|c| not_run(c, "the program did not start"))
                .collect(),
            calls: 0,
            seconds: 0.0,
            error: Some(error.sentence.clone()),
            stderr: error.stderr.clone(),
            stops: Vec::new(),
        }
    }
}

pub(super) fn not_run(check: CheckId, why: &str) -> Outcome {
    Outcome {
        check,
        words: words_of(check),
        scope: String::new(),
        verdict: Verdict::NotRun(why.into()),
    }
}

/// What a check checks, in words.
pub(super) fn words_of(check: CheckId) -> String {
    match check {
        CheckId::Rule(rule) => rule.words().into(),
        CheckId::Random => "Random calls and clock steps on a grid that hits each boundary get \
                            the seed's answers."
            .into(),
        CheckId::Exhaustive => format!(
            "Every script of {} calls over {} (acquire by two clients; renew and release with the \
             current token, an older one and another client's; writes with the latest, the \
             previous and a stale token; the clock to just before and exactly at expiry) gets the \
             seed's answers.",
            Bounds::default().exhaustive_length,
            counted(explore::alphabet().len() as u64, "call", "calls")
        ),
        CheckId::Chaos => "Three clients, one lock, a 3-second lease, random work and stalls, a \
                           crash and restart: every call gets the seed's answer, so storage never \
                           accepts a write with a token older than one it has accepted."
            .into(),
    }
}
