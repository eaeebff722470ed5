//! `fencing-lab check`: the experiments, every named rule, random and exhaustive scripts and the
//! seed's chaos test, run on the student's program; the result as data ([`Report`]), each check
//! handed on as soon as it is decided. `report` says it as text, JSON or for an autograder.

use std::time::Duration;
#[cfg(not(target_family = "wasm"))]
use std::time::Instant;

use super::chaos;
use super::explore::{self, Shrunk};
use super::judge::Profile;
use super::profile::{self, Findings};
#[cfg(not(target_family = "wasm"))]
use super::program::Program;
use super::rules;
use super::script::{Mismatch, Played, Scope, Script, Subject};
use super::seed::Rule;
#[cfg(not(target_family = "wasm"))]
use super::target::Target;
use super::wire::ProtocolError;
use crate::sim::text::counted;

mod outcome;
mod paths;
mod restart;

use outcome::{not_run, words_of};
pub use outcome::{CheckId, Failure, Outcome, Plan, Report, Verdict};
use paths::{
    breaks_first, confirm, failure, fresh_path_verdict, path_verdict, scope_of, shrunk_note,
    unstable_rule, NOT_SHRUNK,
};
use restart::Restarting;
pub use restart::{Stop, MOST_RESTARTS};

/// What a program whose answers change between two plays of the same calls is told.
pub const UNSTABLE: &str = "your program answers the same calls differently on a second run: \
                            does `new` start over, does it read the real clock?";

/// Runs the plan on a started program. Each check is handed to `decided` as soon as it is; a
/// protocol error ends the run, keeping every check decided before it.
#[cfg(not(target_family = "wasm"))]
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
#[cfg(not(target_family = "wasm"))]
pub fn run_watched(
    target: &Target,
    program: Program,
    plan: &Plan,
    starting: &mut dyn FnMut(CheckId),
    decided: &mut dyn FnMut(&Outcome),
) -> Report {
    run_named(target, target, program, plan, starting, decided)
}

/// [`run`], the report and its replay lines naming the program `named` (a submission by its
/// folder's name in its class) while a fresh program, where one stops, is started from `real`.
#[cfg(not(target_family = "wasm"))]
pub fn run_as(
    named: &Target,
    real: &Target,
    program: Program,
    plan: &Plan,
    decided: &mut dyn FnMut(&Outcome),
) -> Report {
    run_named(named, real, program, plan, &mut |_| {}, decided)
}

#[cfg(not(target_family = "wasm"))]
fn run_named(
    target: &Target,
    real: &Target,
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
        let mut fresh = real.start(plan.timeouts)?;
        fresh.set_deadline(started, plan.deadline);
        Ok(Box::new(fresh))
    };
    let found = run_on(
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
        outcomes: found.outcomes,
        calls: found.calls,
        seconds: started.elapsed().as_secs_f64(),
        error: found.error,
        stderr: found.stderr,
        stops: found.stops,
    }
}

/// Starts a fresh program, for a program that keeps state across `new`.
pub type Start<'a> = dyn FnMut() -> Result<Box<dyn Subject>, ProtocolError> + 'a;

/// What [`run_on`] found.
pub struct Found {
    pub outcomes: Vec<Outcome>,
    /// Requests answered, the greetings aside.
    pub calls: u64,
    /// The protocol error that ended the run, if one did.
    pub error: Option<String>,
    /// The last program's last stderr lines.
    pub stderr: Vec<String>,
    /// Each time the program stopped answering and was started again.
    pub stops: Vec<Stop>,
}

/// What a check names the program it checks by, in the commands its report prints: a folder or
/// a command after `--` natively, the page's own file in a browser.
pub trait Named {
    /// `fencing-lab check` with `options`, on this program.
    fn check_command(&self, options: &[&str]) -> String;
    /// The lesson `scenario` (seed `seed`) played on this program.
    fn lesson_command(&self, scenario: &str, seed: u64) -> String;
}

#[cfg(not(target_family = "wasm"))]
impl Named for Target {
    fn check_command(&self, options: &[&str]) -> String {
        Target::check_command(self, options)
    }
    fn lesson_command(&self, scenario: &str, seed: u64) -> String {
        Target::lesson_command(self, scenario, seed)
    }
}

/// [`run`] on any subject. `target` only names the check in its replay lines.
pub fn run_on(
    subject: Box<dyn Subject>,
    start: &mut Start,
    target: &dyn Named,
    plan: &Plan,
    starting: &mut dyn FnMut(CheckId),
    decided: &mut dyn FnMut(&Outcome),
) -> Found {
    let mut run = Run {
        target,
        plan,
        program: Restarting::new(subject, start),
        leaky: false,
        started: crate::realtime::now_ms(),
    };
    let checks: Vec<CheckId> = match plan.only {
        Some(only) => vec![only],
        None => CheckId::all(),
    };
    let mut outcomes = Vec::new();
    // What ended the run, if anything did; its stderr lines stand for a program that is gone.
    let mut error: Option<ProtocolError> = None;
    run.program.during = "the experiments before the checks".into();
    let prepared = run
        .prepare()
        .map_err(|mut e| {
            e.sentence = format!(
                "in the experiments run before the checks (which ask what one call cannot \
                 tell: which clock your program reads, whether it honours its settings, which \
                 calls use up a token), {}",
                e.sentence
            );
            error = Some(e);
        })
        .ok();
    for check in checks {
        run.program.during = check.id().into();
        let outcome = match &prepared {
            _ if run.deadline_passed() => {
                if error.is_none() {
                    error = Some(ProtocolError::new(out_of_time(plan, check)));
                }
                not_run(check, "the check ran out of time before it")
            }
            Some(prepared) if error.is_none() => {
                starting(check);
                match run.check(check, prepared) {
                    Ok(outcome) => outcome,
                    Err(e) => {
                        error = Some(e);
                        let why = if run.deadline_passed() {
                            "the check ran out of time during it"
                        } else {
                            "the program stopped answering during it"
                        };
                        not_run(check, why)
                    }
                }
            }
            _ => not_run(check, "the program stopped answering before it"),
        };
        decided(&outcome);
        outcomes.push(outcome);
    }
    // A program that broke the protocol and is gone (a fresh one that did not start) cannot be
    // asked for its last words: the error kept them.
    let stderr = match (run.program.is_running(), &error) {
        (true, _) => run.program.last_words(),
        (false, Some(e)) => e.stderr.clone(),
        (false, None) => Vec::new(),
    };
    run.program.retire();
    Found {
        outcomes,
        calls: run.program.answered_before,
        error: error.map(|e| e.sentence),
        stderr,
        stops: run.program.stops,
    }
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
    target: &'a dyn Named,
    plan: &'a Plan,
    /// The program checks run on, started again when it stops answering.
    program: Restarting<'a>,
    /// The program keeps state across `new`: each path runs on a fresh one.
    leaky: bool,
    /// When the run began, in the real milliseconds `realtime` reads.
    started: f64,
}

impl Run<'_> {
    fn deadline_passed(&self) -> bool {
        self.plan
            .deadline
            .is_some_and(|d| crate::realtime::now_ms() - self.started >= d.as_secs_f64() * 1000.0)
    }

    fn program(&mut self) -> &mut dyn Subject {
        &mut self.program
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
        let findings = profile::measure(self.program(), &crate::realtime::pause)?;
        let replay = self.replay(CheckId::Rule(Rule::NewStartsOver));
        let leaky = leak.is_some();
        let starts_over = match leak {
            Some(m) => Verdict::Failed(failure(&m, &script, replay)),
            None => match made_state(&calls, &played, findings.profile, &language) {
                None => Verdict::Passed,
                Some(m) => paths::unwritten_elsewhere(Rule::NewStartsOver, &m).unwrap_or(
                    Verdict::NotJudged {
                        rule: Some(m.rule()),
                        because: breaks_first(&m),
                    },
                ),
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
        self.program.fresh()
    }

    fn check(&mut self, check: CheckId, prepared: &Prepared) -> Result<Outcome, ProtocolError> {
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
                    rule: Some(Rule::NewStartsOver),
                    because: "your program keeps state across `new` (see new-starts-over), so \
                              scripts played one after another cannot be judged"
                        .into(),
                },
            ),
            (CheckId::Random, false) => self.random(profile)?,
            (CheckId::Exhaustive, false) => self.exhaustive(profile)?,
            (CheckId::Chaos, false) => self.chaos(profile)?,
        };
        // Every rule's words in the student's language, whatever the verdict came from.
        let language = self.program.language().to_owned();
        let mut verdict = verdict;
        if let Verdict::Failed(f) = &mut verdict {
            f.rule_words = f.rule.words_for(&language);
        }
        let words = match check {
            CheckId::Rule(rule) => rule.words_for(&language),
            _ => words_of(check),
        };
        Ok(Outcome {
            check,
            words,
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
        let found = match rule {
            Rule::ClockOnly => findings.clock.as_ref(),
            Rule::LeaseLive => findings.expiry.as_ref(),
            _ => None,
        };
        if let Some(evidence) = found {
            return Ok(Verdict::Failed(Box::new(Failure {
                rule,
                transcript: Mismatch::lines_of(&evidence.calls),
                expected: evidence.sentence.clone(),
                hint: None,
                note: None,
                replay,
                watch: None,
                chaos_seed: None,
                played: evidence.calls.clone(),
                lease_seconds: evidence.lease_seconds,
                first_token: evidence.first_token,
                not_implemented: None,
                rule_words: rule.words().into(),
            })));
        }
        let (leaky, profile) = (self.leaky, findings.profile);
        let mut not_judged = None;
        for aspect in rules::aspects_of(rule) {
            let mut shown = false;
            let mut unshown = None;
            for path in &aspect {
                let verdict = if leaky {
                    self.program.retire();
                    let Restarting {
                        start,
                        answered_before,
                        ..
                    } = &mut self.program;
                    fresh_path_verdict(rule, path, *start, answered_before, profile, &replay)?
                } else {
                    path_verdict(rule, path, self.program(), profile, &replay)?
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
        let (script, found) = confirm(script, found, program, profile)?;
        let shrunk = explore::shrink(script, found, Scope::All, &any, program, profile)?;
        Ok(Verdict::Failed(match shrunk {
            Shrunk::Minimal(s, m) => {
                let (s, m) = confirm(s, m, program, profile)?;
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
            Shrunk::Stopped(s, m) => {
                let mut f = failure(&m, &s, replay);
                f.note = Some(NOT_SHRUNK.into());
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
        let found = chaos::check(self.program(), 1..=seeds, profile)?;
        let scope = chaos_scope(seeds, &found);
        let Some((seed, m)) = found.difference else {
            return Ok((scope, Verdict::Passed));
        };
        let chaos = crate::sim::Scenario::built_in("chaos").expect("chaos is built in");
        let mut failure = self.chaos_case(&m, chaos.lease_seconds, chaos.first_token, profile)?;
        let run_note = storage_note(seeds, &found.writes, &m).filter(|_| !found.cut_short);
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

/// What the chaos check covered: its seeds and calls, and the seeds judged only up to where
/// float rounding decided a lease's end.
fn chaos_scope(seeds: u64, found: &chaos::Found) -> String {
    let mut scope = format!(
        "{} of 60.0 s, {}",
        counted(seeds, "seed", "seeds"),
        counted(found.calls, "call", "calls")
    );
    if found.cut_short {
        scope = format!(
            "{} of {} of 60.0 s, {}; the program stopped answering in seed {}, and the seeds \
             after it were not played",
            found.played,
            counted(seeds, "seed", "seeds"),
            counted(found.calls, "call", "calls"),
            found.played
        );
    }
    if found.unclear > 0 {
        scope.push_str(&format!(
            "; {} judged up to where float rounding decided a lease's end",
            counted(found.unclear, "seed", "seeds")
        ));
    }
    scope
}

/// How the storage did over all the chaos runs (the writes of every seed are counted, those
/// after the difference too), for a failure's note. It says something only where the storage's
/// code ran (some write had an answer other than "not implemented") and the seed's constructor
/// did.
fn storage_note(seeds: u64, w: &chaos::Writes, m: &Mismatch) -> Option<String> {
    let storage_ran = w.student_accepts + w.student_rejects > 0 && !m.constructor_failed();
    storage_ran.then(|| {
        format!(
            "over {}, the seed's rule accepts {} writes and rejects {}; your storage accepted {} \
             and rejected {}",
            counted(seeds, "chaos run", "chaos runs"),
            crate::sim::text::thousands(w.seed_accepts),
            crate::sim::text::thousands(w.seed_rejects),
            crate::sim::text::thousands(w.student_accepts),
            crate::sim::text::thousands(w.student_rejects),
        )
    })
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
        Ok(last_calls(m, lease_seconds, first_token))
    }
}

/// A chaos difference that cannot be made a script: the calls just before the one that
/// differs, after a mark of how many came before them.
fn last_calls(m: &Mismatch, lease_seconds: f64, first_token: u64) -> Box<Failure> {
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
    f
}

#[cfg(test)]
mod tests;
