//! `fencing-lab check`: the experiments, every named rule, random and exhaustive scripts and the
//! seed's chaos test, run on the student's program; the result as data ([`Report`]), each check
//! handed on as soon as it is decided. `report` says it as text, JSON or for an autograder.

use std::time::{Duration, Instant};

use super::chaos;
use super::explore::{self, Bounds, Shrunk};
use super::judge::Profile;
use super::profile::{self, Findings};
use super::program::{Program, ProtocolError, Timeouts};
use super::rules;
use super::script::{play, Mismatch, Played, Scope, Script, Subject};
use super::seed::Rule;
use super::target::Target;
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
    /// A difference about another rule came first, so this rule could not be judged: counted
    /// neither passed nor failed.
    NotJudged {
        rule: Rule,
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
    pub fn not_started(target: &Target, plan: &Plan, error: &str) -> Report {
        let checks = match plan.only {
            Some(only) => vec![only],
            None => CheckId::all(),
        };
        Report {
            target: target.describe(),
            language: String::new(),
            outcomes: checks
                .into_iter()
                .map(|c| not_run(c, "the program did not start"))
                .collect(),
            calls: 0,
            seconds: 0.0,
            error: Some(error.to_owned()),
            stderr: Vec::new(),
        }
    }
}

/// What a program whose answers change between two plays of the same calls is told.
pub const UNSTABLE: &str = "your program answers the same calls differently on a second run: \
                            does `new` start over, does it read the real clock?";

/// Runs the plan on a started program. Each check is handed to `decided` as soon as it is; a
/// protocol error ends the run, keeping every check decided before it.
pub fn run(
    target: &Target,
    program: Program,
    plan: &Plan,
    decided: &mut dyn FnMut(&Outcome),
) -> Report {
    run_watched(target, program, plan, &mut |_| {}, decided)
}

/// [`run`], with `starting` told of each check as it begins (for a progress line while a long
/// check runs).
pub fn run_watched(
    target: &Target,
    program: Program,
    plan: &Plan,
    starting: &mut dyn FnMut(CheckId),
    decided: &mut dyn FnMut(&Outcome),
) -> Report {
    let language = program.language.clone();
    let started = Instant::now();
    let mut program = program;
    program.set_deadline(started, plan.deadline);
    let mut start = || -> Result<Box<dyn Subject>, ProtocolError> {
        let mut fresh = target.start(plan.timeouts)?;
        fresh.set_deadline(started, plan.deadline);
        Ok(Box::new(fresh))
    };
    let (outcomes, calls, error, stderr) = run_on(
        Box::new(program),
        &mut start,
        target,
        plan,
        starting,
        decided,
    );
    Report {
        target: target.describe(),
        language,
        outcomes,
        calls,
        seconds: started.elapsed().as_secs_f64(),
        error,
        stderr,
    }
}

/// Starts a fresh program, for a program that keeps state across `new`.
pub type Start<'a> = dyn FnMut() -> Result<Box<dyn Subject>, ProtocolError> + 'a;

/// What [`run_on`] found: the outcomes, the requests answered, the protocol error that ended the
/// run (if one did) and the last program's last stderr lines.
pub type Found = (Vec<Outcome>, u64, Option<String>, Vec<String>);

/// [`run`] on any subject. `target` only names the check in its replay lines.
pub fn run_on(
    subject: Box<dyn Subject>,
    start: &mut Start,
    target: &Target,
    plan: &Plan,
    starting: &mut dyn FnMut(CheckId),
    decided: &mut dyn FnMut(&Outcome),
) -> Found {
    let mut run = Run {
        target,
        plan,
        subject: Some(subject),
        start,
        leaky: false,
        calls: 0,
        started: Instant::now(),
    };
    let checks: Vec<CheckId> = match plan.only {
        Some(only) => vec![only],
        None => CheckId::all(),
    };
    let mut outcomes = Vec::new();
    let mut error = None;
    let prepared = run.prepare();
    if let Err(e) = &prepared {
        error = Some(e.sentence.clone());
    }
    for check in checks {
        let outcome = match &prepared {
            _ if run.deadline_passed() => {
                if error.is_none() {
                    error = Some(out_of_time(plan, check));
                }
                not_run(check, "the check ran out of time before it")
            }
            _ if error.is_some() => not_run(check, "the program stopped answering before it"),
            Err(_) => unreachable!("a failed preparation is an error"),
            Ok(prepared) => {
                starting(check);
                match run.check(check, prepared) {
                    Ok(outcome) => outcome,
                    Err(e) => {
                        error = Some(e.sentence);
                        let why = if run.deadline_passed() {
                            "the check ran out of time during it"
                        } else {
                            "the program stopped answering during it"
                        };
                        not_run(check, why)
                    }
                }
            }
        };
        decided(&outcome);
        outcomes.push(outcome);
    }
    let stderr = run
        .subject
        .as_mut()
        .map(|s| s.last_words())
        .unwrap_or_default();
    run.retire();
    (outcomes, run.calls, error, stderr)
}

/// The sentence for a check whose deadline passed between two checks.
fn out_of_time(plan: &Plan, next: CheckId) -> String {
    let given = plan.deadline.map_or(0.0, |d| d.as_secs_f64());
    format!(
        "the check's deadline of {} s passed (--deadline) before {}, so it and the checks after it did not run",
        crate::lab::wire::fmt_time(given),
        next.id()
    )
}

fn not_run(check: CheckId, why: &str) -> Outcome {
    Outcome {
        check,
        words: words_of(check),
        scope: String::new(),
        verdict: Verdict::NotRun(why.into()),
    }
}

/// What a check checks, in words.
pub fn words_of(check: CheckId) -> String {
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

/// What is known before the checks.
struct Prepared {
    findings: Findings,
    /// `new` does not start over: every rule's path runs on a fresh program.
    leaky: bool,
    /// new-starts-over's verdict, from the experiment run first.
    starts_over: Verdict,
}

/// Whether the first pass of new-starts-over's script made state to carry over (its grants and
/// writes went as the seed's did): only then does a second pass answering as the first show that
/// `new` starts over. `None` when it did, else the first call that went otherwise.
fn made_state(
    calls: &[super::script::Call],
    played: &[Played],
    profile: Profile,
    language: &str,
) -> Option<Mismatch> {
    let seen = super::judge::Seen::default();
    let cx = super::judge::Context {
        profile,
        seen: &seen,
        language,
    };
    let first_pass = calls
        .iter()
        .zip(played)
        .take_while(|(c, _)| c.repeats.is_none());
    for (i, (call, p)) in first_pass.enumerate() {
        let Some(d) = super::judge::judge(&call.request, &call.decision, &p.got, &cx) else {
            continue;
        };
        if d.kind != super::judge::Kind::State {
            continue;
        }
        return Some(Mismatch {
            transcript: played[..=i].to_vec(),
            divergence: d,
            steps_played: call.step.map_or(0, |s| s + 1),
        });
    }
    None
}

struct Run<'a> {
    target: &'a Target,
    plan: &'a Plan,
    /// The program checks run on.
    subject: Option<Box<dyn Subject>>,
    start: &'a mut Start<'a>,
    /// The program keeps state across `new`: each path runs on a fresh one.
    leaky: bool,
    calls: u64,
    started: Instant,
}

impl Run<'_> {
    fn deadline_passed(&self) -> bool {
        self.plan
            .deadline
            .is_some_and(|d| self.started.elapsed() >= d)
    }

    fn program(&mut self) -> &mut dyn Subject {
        self.subject.as_deref_mut().expect("a program to check")
    }

    /// Whether the program keeps state across `new`, asked first while it is fresh (a `new`
    /// that does not start over would carry every earlier call into the next), then the
    /// experiments, on a fresh program where the state leaks.
    fn prepare(&mut self) -> Result<Prepared, ProtocolError> {
        let script = rules::aspects_of(Rule::NewStartsOver)[0][0].clone();
        let language = self.program().language().to_owned();
        let super::script::Repeated {
            leak,
            calls,
            played,
        } = super::script::repeat_differs(&script, self.program())?;
        if leak.is_some() {
            self.fresh()?;
        }
        let findings = profile::measure(self.program(), &std::thread::sleep)?;
        let replay = self.replay(CheckId::Rule(Rule::NewStartsOver));
        let leaky = leak.is_some();
        let starts_over = match leak {
            Some(m) => Verdict::Failed(failure(&m, &script, replay)),
            None => match made_state(&calls, &played, findings.profile, &language) {
                None => Verdict::Passed,
                // A method still to write fails the check it is needed by.
                Some(m) if m.divergence.not_implemented.is_some() => {
                    let mut f = failure(&m, &script, replay);
                    f.rule = Rule::NewStartsOver;
                    Verdict::Failed(f)
                }
                Some(m) => Verdict::NotJudged {
                    rule: m.rule(),
                    because: breaks_first(&m),
                },
            },
        };
        Ok(Prepared {
            findings,
            leaky,
            starts_over,
        })
    }

    /// A program whose state leaks across `new` gets a fresh one for each rule's script, so a
    /// check sees only its own calls.
    fn fresh(&mut self) -> Result<(), ProtocolError> {
        self.retire();
        self.subject = Some((self.start)()?);
        Ok(())
    }

    /// Counts the calls of the program in use and lets it go.
    fn retire(&mut self) {
        if let Some(subject) = self.subject.take() {
            self.calls += subject.answered();
        }
    }

    fn check(&mut self, check: CheckId, prepared: &Prepared) -> Result<Outcome, ProtocolError> {
        if self.subject.is_none() {
            self.fresh()?;
        }
        let (findings, leaky) = (&prepared.findings, prepared.leaky);
        let profile = findings.profile;
        let (scope, verdict) = match (check, leaky) {
            (CheckId::Rule(Rule::NewStartsOver), _) => {
                (scope_of(Rule::NewStartsOver), prepared.starts_over.clone())
            }
            (CheckId::Rule(rule), _) => {
                self.leaky = leaky;
                (scope_of(rule), self.rule(rule, findings)?)
            }
            (_, true) => (
                String::new(),
                Verdict::NotJudged {
                    rule: Rule::NewStartsOver,
                    because: "your program keeps state across `new` (see new-starts-over), so \
                              scripts played one after another cannot be judged"
                        .into(),
                },
            ),
            (CheckId::Random, false) => self.random(profile)?,
            (CheckId::Exhaustive, false) => self.exhaustive(profile)?,
            (CheckId::Chaos, false) => self.chaos(profile)?,
        };
        Ok(Outcome {
            check,
            words: words_of(check),
            scope,
            verdict,
        })
    }

    /// The command line that reruns `check` alone, with the settings it ran with.
    /// The command that runs this check again, with the options it ran under: the chaos seeds
    /// and the timeouts a slow program needed.
    fn replay(&self, check: CheckId) -> String {
        let seeds = self.plan.chaos_seeds.to_string();
        let seconds = |d: Duration| crate::sim::time::fmt_seconds(d.as_millis() as u64);
        let (timeout, startup) = (
            seconds(self.plan.timeouts.request),
            seconds(self.plan.timeouts.startup),
        );
        let defaults = Plan::default();
        let mut options = vec!["--only", check.id()];
        if check == CheckId::Chaos && self.plan.chaos_seeds != defaults.chaos_seeds {
            options.extend(["--seeds", &seeds]);
        }
        if self.plan.timeouts.request != defaults.timeouts.request {
            options.extend(["--timeout", &timeout]);
        }
        if self.plan.timeouts.startup != defaults.timeouts.startup {
            options.extend(["--startup-timeout", &startup]);
        }
        self.target.check_command(&options)
    }

    /// A rule's check: every aspect must hold, each shown by any of its paths.
    fn rule(&mut self, rule: Rule, findings: &Findings) -> Result<Verdict, ProtocolError> {
        let replay = self.replay(CheckId::Rule(rule));
        if rule == Rule::ClockOnly && findings.profile.clock_ignored {
            return Ok(Verdict::Failed(Box::new(Failure {
                rule,
                transcript: Mismatch::lines_of(&findings.clock_evidence),
                expected: findings.clock_sentence.clone(),
                hint: None,
                note: None,
                replay,
                watch: None,
                chaos_seed: None,
                played: findings.clock_evidence.clone(),
                lease_seconds: 5.0,
                first_token: 7,
                not_implemented: None,
            })));
        }
        let leaky = self.leaky;
        let mut not_judged = None;
        for aspect in rules::aspects_of(rule) {
            let mut shown = false;
            let mut unshown = None;
            for path in &aspect {
                // A program that keeps state across `new` plays each path fresh, unshrunk: every
                // replay in it would carry the calls before.
                if leaky {
                    self.fresh()?;
                }
                let verdict = if leaky {
                    fresh_path_verdict(rule, path, self.program(), findings.profile, &replay)?
                } else {
                    path_verdict(rule, path, self.program(), findings.profile, &replay)?
                };
                match verdict {
                    Verdict::Passed => shown = true,
                    failed @ Verdict::Failed(_) => return Ok(failed),
                    other => {
                        unshown.get_or_insert(other);
                    }
                }
            }
            if !shown {
                not_judged = not_judged.or(unshown);
            }
        }
        Ok(not_judged.unwrap_or(Verdict::Passed))
    }

    /// A difference found by a broad check, shrunk, charged to the rule it breaks.
    fn broad_failure(
        &mut self,
        check: CheckId,
        script: Script,
        found: Mismatch,
        profile: Profile,
    ) -> Result<Verdict, ProtocolError> {
        let replay = self.replay(check);
        let any = |_: &Mismatch| true;
        let program = self.program();
        let (script, found) = confirm(script, found, Scope::All, program, profile)?;
        let shrunk = explore::shrink(script, found, Scope::All, &any, program, profile)?;
        Ok(Verdict::Failed(match shrunk {
            Shrunk::Minimal(s, m) => {
                let (s, m) = confirm(s, m, Scope::All, program, profile)?;
                let mut f = failure(&m, &s, replay);
                f.note = Some(shrunk_note(&s));
                f
            }
            Shrunk::Unstable(s, m) => {
                let mut f = failure(&m, &s, replay);
                f.rule = unstable_rule(profile);
                f.note = Some(UNSTABLE.into());
                f
            }
        }))
    }

    fn random(&mut self, profile: Profile) -> Result<(String, Verdict), ProtocolError> {
        let bounds = self.plan.bounds;
        let scope = format!(
            "{} of {} steps, seed {}",
            counted(bounds.random_scripts as u64, "script", "scripts"),
            bounds.random_steps,
            bounds.seed
        );
        let verdict = match explore::random(self.program(), bounds, profile)? {
            None => Verdict::Passed,
            Some((script, m)) => self.broad_failure(CheckId::Random, script, m, profile)?,
        };
        Ok((scope, verdict))
    }

    fn exhaustive(&mut self, profile: Profile) -> Result<(String, Verdict), ProtocolError> {
        let length = self.plan.bounds.exhaustive_length;
        let all = (explore::alphabet().len() as u64).pow(length);
        let (judged, found) = explore::exhaustive(self.program(), length, profile)?;
        let scope = match found {
            None => format!(
                "{} of {length} calls, {} distinct",
                counted(all, "script", "scripts"),
                crate::sim::text::thousands(judged)
            ),
            Some(_) => format!(
                "failed at its distinct script number {judged}, of {} in all",
                crate::sim::text::thousands(all)
            ),
        };
        let verdict = match found {
            None => Verdict::Passed,
            Some((script, m)) => self.broad_failure(CheckId::Exhaustive, script, m, profile)?,
        };
        Ok((scope, verdict))
    }

    fn chaos(&mut self, profile: Profile) -> Result<(String, Verdict), ProtocolError> {
        let seeds = self.plan.chaos_seeds;
        let found = chaos::check(self.program(), seeds, profile)?;
        let w = found.writes;
        let writes = format!(
            "the seed's rule accepts {} and rejects {}; your storage accepted {} and rejected {}",
            crate::sim::text::thousands(w.seed_accepts),
            crate::sim::text::thousands(w.seed_rejects),
            crate::sim::text::thousands(w.student_accepts),
            crate::sim::text::thousands(w.student_rejects),
        );
        let mut scope = format!(
            "{} of 60.0 s, {}",
            counted(seeds, "seed", "seeds"),
            counted(found.calls, "call", "calls")
        );
        if found.unclear > 0 {
            scope.push_str(&format!(
                "; {} judged up to where float rounding decided a lease's end",
                counted(found.unclear, "seed", "seeds")
            ));
        }
        let Some((seed, m)) = found.difference else {
            return Ok((scope, Verdict::Passed));
        };
        let chaos = crate::sim::Scenario::built_in("chaos").expect("chaos is built in");
        let mut failure = self.chaos_case(&m, chaos.lease_seconds, chaos.first_token, profile)?;
        // How the storage did says something only where its code ran and the seed's run did.
        let storage_ran = w.student_accepts + w.student_rejects > 0 && !m.constructor_failed();
        let run_note = storage_ran
            .then(|| format!("seed {seed}: of its writes and the seeds' before it, {writes}"));
        failure.note = match (failure.note.take(), run_note) {
            (Some(shrunk), Some(run)) => Some(format!("{run}; {shrunk}")),
            (shrunk, run) => run.or(shrunk),
        }
        .filter(|_| failure.not_implemented.is_none());
        failure.replay = self.replay(CheckId::Chaos);
        failure.watch = Some(self.target.lesson_command("chaos", seed));
        failure.chaos_seed = Some(seed);
        Ok((scope, Verdict::Failed(failure)))
    }
}

impl Run<'_> {
    /// A chaos run's difference as a case to read: its calls made a script and shrunk while it
    /// breaks the same rule; where that cannot be (a case that does not repeat), the calls just
    /// before the one that differs, after a mark of those before.
    fn chaos_case(
        &mut self,
        m: &Mismatch,
        lease_seconds: f64,
        first_token: u64,
        profile: Profile,
    ) -> Result<Box<Failure>, ProtocolError> {
        let rule = m.rule();
        let same_rule = move |found: &Mismatch| found.rule() == rule;
        if let Some(script) = explore::script_of(&m.transcript, lease_seconds, first_token) {
            let program = self.program();
            if let Shrunk::Minimal(s, shrunk) =
                explore::shrink(script, m.clone(), Scope::All, &same_rule, program, profile)?
            {
                let mut f = failure(&shrunk, &s, String::new());
                f.note = Some(shrunk_note(&s));
                return Ok(f);
            }
        }
        let mut f = failure(m, &Script::new(None, None, Vec::new()), String::new());
        let before = f.transcript.len().saturating_sub(8);
        f.transcript.drain(..before);
        if before > 0 {
            let earlier = counted(before as u64, "call", "calls");
            f.transcript.insert(0, format!("… ({earlier} before)"));
        }
        f.played = Vec::new();
        f.lease_seconds = lease_seconds;
        f.first_token = first_token;
        Ok(f)
    }
}

/// One path of a rule's check: passed, failed on this rule, or not judged because another rule
/// broke first (confirmed on its minimal case).
fn path_verdict(
    rule: Rule,
    script: &Script,
    subject: &mut dyn Subject,
    profile: Profile,
    replay: &str,
) -> Result<Verdict, ProtocolError> {
    let scope = Scope::Only(rule);
    let Some(found) = play(script, scope, subject, profile)? else {
        return Ok(Verdict::Passed);
    };
    let fails = |m: &Mismatch| m.rule() == rule || m.divergence.not_implemented.is_some();
    let (script, found) = confirm(script.clone(), found, scope, subject, profile)?;
    let any = |_: &Mismatch| true;
    let keep: &dyn Fn(&Mismatch) -> bool = if fails(&found) { &fails } else { &any };
    Ok(
        match explore::shrink(script, found, scope, keep, subject, profile)? {
            Shrunk::Minimal(s, m) => {
                let (s, m) = confirm(s, m, scope, subject, profile)?;
                if fails(&m) {
                    let mut f = failure(&m, &s, replay.to_owned());
                    // A method still to write fails the check it is needed by.
                    f.rule = rule;
                    Verdict::Failed(f)
                } else {
                    Verdict::NotJudged {
                        rule: m.rule(),
                        because: breaks_first(&m),
                    }
                }
            }
            Shrunk::Unstable(s, m) if rule == Rule::NewStartsOver => {
                let mut f = failure(&m, &s, replay.to_owned());
                f.note = Some(UNSTABLE.into());
                Verdict::Failed(f)
            }
            Shrunk::Unstable(..) => Verdict::NotJudged {
                rule: unstable_rule(profile),
                because: UNSTABLE.into(),
            },
        },
    )
}

/// One path on a fresh program that keeps state across `new`: judged as first played.
fn fresh_path_verdict(
    rule: Rule,
    script: &Script,
    subject: &mut dyn Subject,
    profile: Profile,
    replay: &str,
) -> Result<Verdict, ProtocolError> {
    Ok(match play(script, Scope::Only(rule), subject, profile)? {
        None => Verdict::Passed,
        Some(m) if m.rule() == rule || m.divergence.not_implemented.is_some() => {
            let mut f = failure(&m, script, replay.to_owned());
            f.rule = rule;
            Verdict::Failed(f)
        }
        Some(m) => Verdict::NotJudged {
            rule: m.rule(),
            because: breaks_first(&m),
        },
    })
}

/// A difference charged to the expiry boundary is played again one grid step (1/8 s) later:
/// if the call still differs there, the boundary was not the cause, and the later case (with its
/// own rule) is the one to show, its times still on the grid.
fn confirm(
    script: Script,
    found: Mismatch,
    scope: Scope,
    subject: &mut dyn Subject,
    profile: Profile,
) -> Result<(Script, Mismatch), ProtocolError> {
    if found.rule() != Rule::ExpiryBoundary || found.steps_played == 0 {
        return Ok((script, found));
    }
    let mut later = script.clone();
    later.steps.insert(
        found.steps_played - 1,
        super::script::Step::Advance(rules::GRID),
    );
    // Every rule counts here: a step later the call may differ on another rule's account.
    let _ = scope;
    match play(&later, Scope::All, subject, profile)? {
        Some(m) if m.steps_played == found.steps_played + 1 => Ok((later, m)),
        _ => Ok((script, found)),
    }
}

/// What a rule's check plays.
fn scope_of(rule: Rule) -> String {
    let aspects = rules::aspects_of(rule);
    let paths: usize = aspects.iter().map(Vec::len).sum();
    let steps = counted(rules::steps_of(rule) as u64, "step", "steps");
    if paths == 1 {
        steps
    } else {
        format!("{steps} on {paths} paths")
    }
}

/// The rule a program whose answers change between plays is charged to.
fn unstable_rule(profile: Profile) -> Rule {
    if profile.clock_ignored {
        Rule::ClockOnly
    } else {
        Rule::NewStartsOver
    }
}

/// "step 3, acquire(file, client-2), breaks lease-live first".
fn breaks_first(m: &Mismatch) -> String {
    let call = m
        .transcript
        .last()
        .map(|p| super::wire::one_line(&p.request.call()))
        .unwrap_or_default();
    format!(
        "step {}, {call}, breaks {} first",
        m.steps_played.max(1),
        m.rule()
    )
}

fn failure(m: &Mismatch, script: &Script, replay: String) -> Box<Failure> {
    Box::new(Failure {
        rule: m.rule(),
        transcript: m.lines(),
        expected: m.divergence.expected.clone(),
        hint: m.divergence.hint.clone(),
        note: None,
        replay,
        watch: None,
        chaos_seed: None,
        played: m.transcript.clone(),
        lease_seconds: script.lease_seconds.unwrap_or(crate::DEFAULT_LEASE_SECONDS),
        first_token: script.first_token.unwrap_or(crate::DEFAULT_FIRST_TOKEN),
        not_implemented: m.divergence.not_implemented.clone(),
    })
}

fn shrunk_note(script: &Script) -> String {
    format!(
        "shrunk: no call can go, and simpler names, clients, tokens, lease and clock moves were \
         tried; lease {}, first token {}",
        script
            .lease_seconds
            .map_or("10.0 s (the default)".into(), |l| format!(
                "{} s",
                super::wire::fmt_time(l)
            )),
        script
            .first_token
            .map_or("1 (the default)".into(), |t| t.to_string())
    )
}

#[cfg(test)]
mod tests;
