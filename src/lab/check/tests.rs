use std::sync::Mutex;

use super::*;
use crate::lab::explore::Bounds;
use crate::lab::testing::{Mistake, Student};
use crate::lab::wire::{Reply, Request};

fn plan() -> Plan {
    Plan::default()
}

/// The whole check on `first`; a fresh program is what `fresh` makes.
fn check_with(
    first: Box<dyn Subject>,
    fresh: &mut dyn FnMut() -> Box<dyn Subject>,
    plan: &Plan,
) -> (Vec<Outcome>, u64, Option<String>) {
    let mut start = || -> Result<Box<dyn Subject>, ProtocolError> { Ok(fresh()) };
    let target = Target::Folder("student".into());
    let found = run_on(first, &mut start, &target, plan, &mut |_| {}, &mut |_| {});
    (found.outcomes, found.calls, found.error)
}

/// The whole check on the double with `mistake`.
/// Worked out once for all the tests that read it: the zoo's tests read every mistake's.
fn outcomes(mistake: Mistake) -> Vec<Outcome> {
    static WORKED_OUT: Mutex<Vec<(Mistake, Vec<Outcome>)>> = Mutex::new(Vec::new());
    let known = WORKED_OUT
        .lock()
        .unwrap()
        .iter()
        .find(|(m, _)| *m == mistake)
        .map(|(_, out)| out.clone());
    if let Some(out) = known {
        return out;
    }
    let (outcomes, _, error) = check_with(
        Box::new(Student::new(mistake)),
        &mut || Box::new(Student::new(mistake)),
        &plan(),
    );
    assert_eq!(error, None, "{mistake:?}");
    WORKED_OUT.lock().unwrap().push((mistake, outcomes.clone()));
    outcomes
}

fn verdict_of(outcomes: &[Outcome], check: CheckId) -> &Verdict {
    &outcomes.iter().find(|o| o.check == check).unwrap().verdict
}

/// Named checks a mistake leaves not judged, because their every path needs what it breaks.
fn not_judged_by(mistake: Mistake) -> &'static [Rule] {
    use Rule::*;
    match mistake {
        // A renew that hands out a new token leaves the lease's token unlike the seed's, and a
        // renew is what renew-extends-from-now is about.
        Mistake::RenewNewToken => &[RenewExtendsFromNow],
        // Nothing can be written: no storage rule can be seen.
        Mistake::WriteRefusesNewKey => &[
            NewStartsOver,
            WriteEqualToken,
            WriteStaleRejected,
            RejectedChangesNothing,
            PerKey,
            NeverWritten,
        ],
        // Nothing is ever rejected, so what a rejected write leaves cannot be seen.
        Mistake::WriteUnchecked | Mistake::WriteReturnsNoneToRefuse => &[RejectedChangesNothing],
        // A clock that never moves: a lease never runs out, so nothing about expiry shows.
        Mistake::OwnClock => &[
            Defaults,
            LeaseLive,
            ExpiryBoundary,
            RenewExtendsFromNow,
            ExpiredNoRenew,
            ExpiredNoRelease,
            Holder,
        ],
        // A lease a second longer than the seed's shows in every check of when a lease ends.
        Mistake::LeaseOneSecondLonger => &[
            Defaults,
            ExpiryBoundary,
            RenewExtendsFromNow,
            Holder,
            ClockOnly,
        ],
        // Each path of release-frees acquires again after the release, and the grant's token
        // shows the token the release used up first.
        Mistake::ReleaseBumpsCounter => &[ReleaseFrees],
        // holder() is one of the two ways a release is seen to free the lock.
        Mistake::HolderReturnsNumber => &[ReleaseFrees],
        // write-equal-token reads back what the holder's second write stored.
        Mistake::WriteKeepsOldValue => &[WriteEqualToken],
        // write-accepts reads back what a write with the key's own highest token stored, which
        // a storage that refuses it cannot show.
        Mistake::WriteStrict => &[WriteAccepts],
        _ => &[],
    }
}

/// Broad checks a mistake is out of reach of, and why: they pass it.
fn out_of_reach(mistake: Mistake, check: CheckId) -> bool {
    use Mistake::*;
    match check {
        // Every exhaustive script and chaos run names its settings (first token 1, what a
        // program that ignores the one given starts from anyway); one lock, one key.
        CheckId::Exhaustive => matches!(
            mistake,
            DefaultLease30
                | DefaultFirstToken0
                | FirstTokenIgnored
                | CounterPerLock
                | GlobalHighest
        ),
        // The chaos clients only acquire, write with their own token and release it, on one
        // lock, never reading back or renewing.
        CheckId::Chaos => matches!(
            mistake,
            DefaultLease30
                | DefaultFirstToken0
                | FirstTokenIgnored
                | CounterPerLock
                | RenewNewToken
                | RenewBumpsCounter
                | RenewFromOldExpiry
                | RenewKeepsExpiry
                | RenewExpired
                | RenewAnyToken
                | RenewAnyClient
                | ReleaseAnyToken
                | HolderIgnoresExpiry
                | HolderAfterRelease
                | WriteKeepsOldValue
                | RejectedWriteKeepsValue
                | HighestZeroForNew
                | ReadEmptyForNew
        ),
        // Random scripts rarely make a client release its older token while it holds a newer
        // grant; the exhaustive check does.
        CheckId::Random => matches!(mistake, ReleaseAnyToken),
        CheckId::Rule(_) => false,
    }
}

#[test]
fn a_correct_implementation_passes_every_check_and_each_was_tried() {
    let out = outcomes(Mistake::Correct);
    assert_eq!(out.len(), Rule::ALL.len() + 3);
    for o in &out {
        assert_eq!(o.verdict, Verdict::Passed, "{}", o.id());
        assert!(!o.scope.is_empty(), "{} says what it tried", o.id());
    }
    let ids: Vec<&str> = out.iter().map(Outcome::id).collect();
    let all: Vec<&str> = CheckId::all().iter().map(|c| c.id()).collect();
    assert_eq!(ids, all);
}

/// The verdict matrix: every one-rule mistake fails its rule's check, charged to that rule; no
/// other named check fails; the broad checks fail charged to the same rule or, out of their
/// reach, pass; and nothing else is left not judged than the table above says, with its reason.
#[test]
fn each_mistake_fails_exactly_its_rule_and_every_failure_is_charged_to_it() {
    let mut wrong = Vec::new();
    for mistake in Mistake::wrong().filter(|m| m.breaks().is_some()) {
        let broken = mistake.breaks().unwrap();
        let out = outcomes(mistake);
        let leaky = broken == Rule::NewStartsOver;
        for o in &out {
            let id = o.id();
            let ok = match (o.check, &o.verdict) {
                (CheckId::Rule(r), Verdict::Failed(f)) => r == broken && f.rule == broken,
                (CheckId::Rule(r), Verdict::Passed) => {
                    r != broken && !not_judged_by(mistake).contains(&r)
                }
                (CheckId::Rule(r), Verdict::NotJudged { .. }) => {
                    not_judged_by(mistake).contains(&r)
                }
                (_, Verdict::Failed(f)) => f.rule == broken,
                (check, Verdict::Passed) => out_of_reach(mistake, check),
                (_, Verdict::NotJudged { rule, .. }) => leaky && *rule == Some(Rule::NewStartsOver),
                (_, Verdict::NotRun(_)) => false,
            };
            if !ok {
                wrong.push(format!("{mistake:?} {id}: {:?}", o.verdict));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The out-of-reach table is no wider than it must be: every entry in it passes.
#[test]
fn the_out_of_reach_table_names_only_mistakes_that_pass() {
    for mistake in Mistake::wrong() {
        let out = outcomes(mistake);
        for check in [CheckId::Random, CheckId::Exhaustive, CheckId::Chaos] {
            if out_of_reach(mistake, check) {
                assert_eq!(
                    verdict_of(&out, check),
                    &Verdict::Passed,
                    "{mistake:?} {check:?}"
                );
            }
        }
    }
}

/// For any seed of the random check, the rule named on a mistake's shrunk case is the rule the
/// mistake breaks.
#[test]
fn whatever_the_seed_random_failures_are_charged_to_the_broken_rule() {
    for seed in 2..=25 {
        let plan = Plan {
            bounds: Bounds {
                seed,
                ..Bounds::default()
            },
            only: Some(CheckId::Random),
            ..Plan::default()
        };
        for mistake in Mistake::wrong().filter(|m| m.breaks().is_some()) {
            if mistake.breaks() == Some(Rule::NewStartsOver) {
                continue;
            }
            let (out, _, error) = check_with(
                Box::new(Student::new(mistake)),
                &mut || Box::new(Student::new(mistake)),
                &plan,
            );
            assert_eq!(error, None);
            if let Verdict::Failed(f) = &out[0].verdict {
                assert_eq!(Some(f.rule), mistake.breaks(), "seed {seed}, {mistake:?}");
            }
        }
    }
}

/// The named checks a method still to write leaves not judged: those with an aspect that no
/// path shows without it. Written out by hand, so that a change in what the checks need is seen.
fn unwritten_leaves_not_judged(op: &str) -> &'static [Rule] {
    use Rule::*;
    match op {
        "acquire" => &[
            NewStartsOver,
            RenewKeepsToken,
            RenewExtendsFromNow,
            ExpiredNoRenew,
            LateRenew,
            ReleaseFrees,
            ExpiredNoRelease,
            LateRelease,
            Holder,
            ClockOnly,
        ],
        "renew" | "release" => &[],
        "holder" => &[NewStartsOver, ReleaseFrees],
        "write" => &[NewStartsOver, NeverWritten],
        "read" => &[NewStartsOver, WriteEqualToken, PerKey],
        "highest_token" => &[NewStartsOver, PerKey],
        other => panic!("no method {other}"),
    }
}

/// A method still to write costs only the rules about it: their checks fail, as not
/// implemented, under their own rule; every other named check passes, or, where it cannot be
/// shown without the method, is not judged and says so. The broad checks, which call every
/// method, fail.
#[test]
fn a_method_not_written_yet_costs_only_the_rules_about_it() {
    let mut wrong = Vec::new();
    for op in Mistake::METHODS {
        let out = outcomes(Mistake::NotWritten(op));
        let not_judged = unwritten_leaves_not_judged(op);
        for o in &out {
            let ok = match (o.check, &o.verdict) {
                (CheckId::Rule(rule), Verdict::Failed(f)) if rule.about().contains(&op) => {
                    f.rule == rule
                        && f.not_implemented.is_some()
                        && f.expected == "the seed's rules need it: write it next"
                        && f.transcript
                            .last()
                            .unwrap()
                            .contains("not implemented yet (")
                }
                (CheckId::Rule(rule), _) if rule.about().contains(&op) => false,
                (
                    CheckId::Rule(rule),
                    Verdict::NotJudged {
                        rule: None,
                        because,
                    },
                ) => {
                    not_judged.contains(&rule)
                        && because.ends_with(", not written yet")
                        && because.contains(&format!(".{op}, not"))
                }
                (CheckId::Rule(rule), Verdict::Passed) => !not_judged.contains(&rule),
                (CheckId::Rule(_), _) => false,
                (_, Verdict::Failed(f)) => f.not_implemented.is_some(),
                // The chaos runs' clients never renew and never read back.
                (CheckId::Chaos, Verdict::Passed) => {
                    matches!(op, "renew" | "read" | "highest_token")
                }
                (_, _) => false,
            };
            if !ok {
                wrong.push(format!("{op} unwritten, {}: {:?}", o.id(), o.verdict));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A program that answers every call with a refusal passes nothing: every check fails or is
/// not judged, and the chaos check says how many writes its storage turned away.
#[test]
fn a_program_that_refuses_everything_passes_nothing() {
    struct Refuser(Student);
    impl Subject for Refuser {
        fn send(&mut self, request: &Request) -> Result<(), ProtocolError> {
            match request {
                Request::New { .. } | Request::Clock { .. } => self.0.send(request),
                _ => self.0.send(&Request::Hello),
            }
        }
        fn receive(&mut self) -> Result<Reply, ProtocolError> {
            self.0.receive().map(|r| match r {
                Reply::Hello { .. } => Reply::Refused("no".into()),
                other => other,
            })
        }
        fn in_flight(&self) -> usize {
            self.0.in_flight()
        }
        fn language(&self) -> &str {
            "javascript"
        }
        fn answered(&self) -> u64 {
            self.0.answered()
        }
    }
    let make = || Box::new(Refuser(Student::new(Mistake::Correct))) as Box<dyn Subject>;
    let (out, _, error) = check_with(make(), &mut || make(), &plan());
    assert_eq!(error, None);
    for o in &out {
        assert!(!o.passed(), "{} passes", o.id());
    }
    let Verdict::Failed(chaos) = verdict_of(&out, CheckId::Chaos) else {
        panic!("chaos must fail");
    };
    let note = chaos.note.as_deref().unwrap();
    assert!(note.starts_with("over 20 chaos runs, "), "{note}");
    assert!(
        note.contains("your storage accepted 0 and rejected"),
        "{note}"
    );
}

/// Every broad check's failure, over the zoo, is shrunk like any other: a few calls, not the
/// hundreds a script or a chaos run made before it, and a case --tui can show. (A chaos run's
/// late release once kept its 60 calls: its tokens were numbers, so no grant before it could go.)
#[test]
fn every_broad_failure_is_shrunk_to_a_few_calls() {
    let mut long = Vec::new();
    // (A method not written yet fails at its first call, with nothing to shrink.)
    for mistake in Mistake::wrong().filter(|m| m.breaks().is_some()) {
        let out = outcomes(mistake);
        for check in [CheckId::Random, CheckId::Exhaustive, CheckId::Chaos] {
            let Verdict::Failed(f) = verdict_of(&out, check) else {
                continue;
            };
            let note = f.note.as_deref().unwrap_or_default();
            // `new` and five calls at most.
            let shrunk = f.transcript.len() <= 6
                && f.transcript.iter().all(|l| !l.starts_with('…'))
                && note.contains("shrunk: ")
                && (check != CheckId::Chaos || note.starts_with("over 20 chaos runs, "))
                && plays_as_shown(&f.played, f.transcript.len());
            if !shrunk {
                let requests: Vec<&Request> = f.played.iter().map(|p| &p.request).collect();
                let id = check.id();
                long.push(format!(
                    "{mistake:?} {id}: {:#?} {note} {requests:?}",
                    f.transcript
                ));
            }
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
}

/// A case `--tui` can show as it reads: the transcript's calls, and fewer clock moves than calls
/// (a chaos run's dozens of small moves made one; a boundary difference confirmed a grid step
/// later adds a move of its own).
fn plays_as_shown(played: &[Played], lines: usize) -> bool {
    let moves = played
        .iter()
        .filter(|p| matches!(p.request, Request::Clock { .. }))
        .count();
    played.len() - moves == lines && moves < lines
}

/// A constructor that fails leaves nothing for the storage to answer: the chaos note does not
/// count the refusals of objects that were never made.
#[test]
fn a_failed_constructor_is_not_counted_as_a_storage_that_refuses() {
    struct NoSettings(Student);
    impl Subject for NoSettings {
        fn send(&mut self, request: &Request) -> Result<(), ProtocolError> {
            match request {
                Request::Clock { .. } => self.0.send(request),
                _ => self.0.send(&Request::Hello),
            }
        }
        fn receive(&mut self) -> Result<Reply, ProtocolError> {
            // `new` throws, and so does every call on the objects it never made.
            self.0.receive().map(|r| match r {
                Reply::Hello { .. } => Reply::Refused("TypeError: takes 2 arguments".into()),
                other => other,
            })
        }
        fn in_flight(&self) -> usize {
            self.0.in_flight()
        }
        fn language(&self) -> &str {
            "python 3.11"
        }
        fn answered(&self) -> u64 {
            self.0.answered()
        }
    }
    let make = || Box::new(NoSettings(Student::new(Mistake::Correct))) as Box<dyn Subject>;
    let (out, _, _) = check_with(make(), &mut || make(), &plan());
    let Verdict::Failed(chaos) = verdict_of(&out, CheckId::Chaos) else {
        panic!("chaos must fail at its `new`");
    };
    assert_eq!(chaos.rule, Rule::Defaults);
    let note = chaos.note.as_deref().unwrap_or_default();
    assert!(!note.contains("your storage"), "{note}");
}

/// A program whose answers change between two plays of the same calls gets a verdict, not a
/// panic: the shrinker's replay does not reproduce it.
#[test]
fn a_difference_that_does_not_repeat_is_a_verdict() {
    /// Correct, except that the 40th grant it makes hands out token 999, once.
    struct Flaky(Student, u64);
    impl Subject for Flaky {
        fn send(&mut self, request: &Request) -> Result<(), ProtocolError> {
            self.0.send(request)
        }
        fn receive(&mut self) -> Result<Reply, ProtocolError> {
            let reply = self.0.receive()?;
            if let Reply::Lease(Some(mut l)) = reply {
                self.1 += 1;
                if self.1 == 40 {
                    l.token = 999;
                }
                return Ok(Reply::Lease(Some(l)));
            }
            Ok(reply)
        }
        fn in_flight(&self) -> usize {
            self.0.in_flight()
        }
        fn language(&self) -> &str {
            "python 3"
        }
        fn answered(&self) -> u64 {
            self.0.answered()
        }
    }
    let plan = Plan {
        only: Some(CheckId::Random),
        ..Plan::default()
    };
    let (out, _, _) = check_with(
        Box::new(Flaky(Student::new(Mistake::Correct), 0)),
        &mut || Box::new(Student::new(Mistake::Correct)),
        &plan,
    );
    let Verdict::Failed(f) = &out[0].verdict else {
        panic!("{:?}", out[0].verdict);
    };
    assert_eq!(f.rule, Rule::NewStartsOver);
    assert_eq!(f.note.as_deref(), Some(UNSTABLE));
}

/// A program that breaks the protocol ends the check there; every check decided before it is
/// kept, and the rest are reported as not run.
#[test]
fn a_protocol_error_keeps_the_checks_decided_before_it() {
    /// Correct until its `limit`-th request, then broken.
    struct Breaks(Student, u64);
    impl Subject for Breaks {
        fn send(&mut self, request: &Request) -> Result<(), ProtocolError> {
            self.0.send(request)
        }
        fn receive(&mut self) -> Result<Reply, ProtocolError> {
            if self.0.calls >= self.1 {
                return Err(ProtocolError::new("the program exited with status 3"));
            }
            self.0.receive()
        }
        fn in_flight(&self) -> usize {
            self.0.in_flight()
        }
        fn language(&self) -> &str {
            "node 20"
        }
        fn answered(&self) -> u64 {
            self.0.answered()
        }
    }
    let (out, calls, error) = check_with(
        Box::new(Breaks(Student::new(Mistake::Correct), 120)),
        &mut || Box::new(Student::new(Mistake::Correct)),
        &plan(),
    );
    assert_eq!(error.as_deref(), Some("the program exited with status 3"));
    assert_eq!(calls, 120);
    let passed = out.iter().take_while(|o| o.passed()).count();
    assert!(passed >= 2, "{out:?}");
    let Verdict::NotRun(during) = &out[passed].verdict else {
        panic!("{:?}", out[passed]);
    };
    assert_eq!(during, "the program stopped answering during it");
    for o in &out[passed + 1..] {
        assert_eq!(
            o.verdict,
            Verdict::NotRun("the program stopped answering before it".into())
        );
    }
    // Every check is reported, in order.
    assert_eq!(out.len(), CheckId::all().len());
}

/// A program that keeps state across `new` is started afresh for each rule; when a fresh one
/// does not start, the report's stderr is what that one wrote, as the error quotes it, since
/// no program is left to ask.
#[test]
fn a_fresh_program_that_does_not_start_leaves_its_stderr_in_the_report() {
    // The first few fresh programs start (those the experiments before the checks ask for,
    // then those of the first rules), and the next does not.
    for starts in 0..6 {
        let mut started = 0;
        let mut start = || -> Result<Box<dyn Subject>, ProtocolError> {
            started += 1;
            if started <= starts {
                return Ok(Box::new(Student::new(Mistake::KeepsCounterAcrossNew)));
            }
            Err(ProtocolError {
                stderr: vec!["Traceback".into(), "MemoryError".into()],
                ..ProtocolError::new(
                    "the program exited with status 1; its stderr ends: MemoryError",
                )
            })
        };
        let target = Target::Folder("student".into());
        let Found { error, stderr, .. } = run_on(
            Box::new(Student::new(Mistake::KeepsCounterAcrossNew)),
            &mut start,
            &target,
            &plan(),
            &mut |_| {},
            &mut |_| {},
        );
        assert!(error.unwrap().ends_with("MemoryError"), "{starts}");
        assert_eq!(stderr, ["Traceback", "MemoryError"], "{starts}");
    }
}

#[test]
fn once_the_deadline_has_passed_no_check_starts() {
    let plan = Plan {
        deadline: Some(Duration::ZERO),
        ..Plan::default()
    };
    let (out, _, error) = check_with(
        Box::new(Student::new(Mistake::Correct)),
        &mut || Box::new(Student::new(Mistake::Correct)),
        &plan,
    );
    let error = error.expect("a deadline that passed is the report's error");
    assert!(
        error.starts_with(
            "the check's deadline of 0.0 s passed (--deadline) before new-starts-over"
        ),
        "{error}"
    );
    for o in &out {
        assert_eq!(
            o.verdict,
            Verdict::NotRun("the check ran out of time before it".into())
        );
    }
}

/// Every id `check` prints is one `--only` takes, and `--only` runs just that check.
#[test]
fn every_printed_id_runs_alone_with_only() {
    for check in CheckId::all() {
        assert_eq!(CheckId::from_id(check.id()), Some(check));
        let plan = Plan {
            only: Some(check),
            ..Plan::default()
        };
        let (out, _, _) = check_with(
            Box::new(Student::new(Mistake::Correct)),
            &mut || Box::new(Student::new(Mistake::Correct)),
            &plan,
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].check, check);
        assert_eq!(out[0].verdict, Verdict::Passed);
    }
    assert_eq!(CheckId::from_id("nonsense"), None);
}

/// A failure's replay line reruns that check only, options before the program's `--`.
#[test]
fn a_failures_replay_line_names_its_check_before_the_command() {
    let target = Target::Command(vec![
        "java".into(),
        "-cp".into(),
        "c".into(),
        "Adapter".into(),
    ]);
    let mut start = || -> Result<Box<dyn Subject>, ProtocolError> {
        Ok(Box::new(Student::new(Mistake::WriteStrict)))
    };
    let Found { outcomes: out, .. } = run_on(
        Box::new(Student::new(Mistake::WriteStrict)),
        &mut start,
        &target,
        &plan(),
        &mut |_| {},
        &mut |_| {},
    );
    let failing: Vec<&Outcome> = out.iter().filter(|o| o.failure().is_some()).collect();
    assert!(failing.len() >= 2);
    for o in failing {
        assert_eq!(
            o.failure().unwrap().replay,
            format!("fencing-lab check --only {} -- java -cp c Adapter", o.id())
        );
    }
}

/// new-starts-over cannot be judged where its first pass already breaks another rule; it says
/// at which step of its script (holder, read, highest, acquire, write, ...) and which call.
#[test]
fn new_starts_over_not_judged_names_the_step_and_call_that_broke_first() {
    let out = outcomes(Mistake::WriteRefusesNewKey);
    match verdict_of(&out, CheckId::Rule(Rule::NewStartsOver)) {
        Verdict::NotJudged { because, .. } => assert_eq!(
            because,
            "step 5, write(file, \"a\", 1), breaks write-accepts first"
        ),
        other => panic!("{other:?}"),
    }
    // Only a difference in what the first pass made (a grant, an accepted write) stops it: an
    // observer's odd answer (a read of "") does not.
    let out = outcomes(Mistake::ReadEmptyForNew);
    assert_eq!(
        verdict_of(&out, CheckId::Rule(Rule::NewStartsOver)),
        &Verdict::Passed
    );
}

/// A failure's replay line runs that check again as it ran: `--seeds` only for chaos, and only
/// when the seeds were not the default.
#[test]
fn a_failures_replay_line_names_the_seeds_only_for_chaos_when_they_were_chosen() {
    let replays = |chaos_seeds: u64| -> Vec<(String, String)> {
        let plan = Plan {
            chaos_seeds,
            ..Plan::default()
        };
        let mistake = Mistake::WriteUnchecked;
        let (out, _, _) = check_with(
            Box::new(Student::new(mistake)),
            &mut || Box::new(Student::new(mistake)),
            &plan,
        );
        out.iter()
            .filter_map(|o| Some((o.id().to_owned(), o.failure()?.replay.clone())))
            .collect()
    };
    let chosen = replays(3);
    let default = replays(Plan::default().chaos_seeds);
    for (id, replay) in chosen.iter().chain(&default) {
        assert!(replay.contains(&format!("--only {id}")), "{replay}");
    }
    let chaos = |replays: &[(String, String)]| {
        replays
            .iter()
            .find(|(id, _)| id == "chaos")
            .unwrap()
            .1
            .clone()
    };
    assert!(
        chaos(&chosen).contains("--only chaos --seeds 3 "),
        "{}",
        chaos(&chosen)
    );
    assert!(!chaos(&default).contains("--seeds"), "{}", chaos(&default));
    let others = chosen.iter().filter(|(id, _)| id != "chaos");
    assert!(others.clone().count() > 0);
    for (_, replay) in others {
        assert!(!replay.contains("--seeds"), "{replay}");
    }
}

/// The chaos check's scope counts its seeds and calls, and mentions float rounding only where
/// it cut a seed short: never for a storage it judged to the end.
#[test]
fn the_chaos_scope_counts_seeds_and_calls_and_nothing_else_when_every_seed_was_judged() {
    let out = outcomes(Mistake::Correct);
    let chaos = out.iter().find(|o| o.check == CheckId::Chaos).unwrap();
    let calls: usize = (1..=Plan::default().chaos_seeds)
        .map(|s| {
            let scenario = std::sync::Arc::new(crate::sim::Scenario::built_in("chaos").unwrap());
            crate::lab::chaos::recorded_calls(&scenario, s).len()
        })
        .sum();
    assert_eq!(
        chaos.scope,
        format!(
            "{} seeds of 60.0 s, {} calls",
            Plan::default().chaos_seeds,
            crate::sim::text::thousands(calls as u64)
        )
    );
}

mod chaos_reports;

/// Answers as a student with `mistake` for one play of a script (its every request), then as a
/// correct one: a difference its next play does not repeat.
struct OnePlayWrong {
    wrong: Student,
    right: Student,
    sent: usize,
    requests_in_a_play: usize,
}

impl OnePlayWrong {
    fn new(mistake: Mistake, script: &Script) -> OnePlayWrong {
        let mut counter = Student::new(Mistake::Correct);
        let found = crate::lab::script::play(script, Scope::All, &mut counter, Profile::default());
        assert_eq!(found.unwrap(), None);
        OnePlayWrong {
            wrong: Student::new(mistake),
            right: Student::new(Mistake::Correct),
            sent: 0,
            requests_in_a_play: counter.answered() as usize,
        }
    }
}

impl Subject for OnePlayWrong {
    fn send(&mut self, request: &Request) -> Result<(), ProtocolError> {
        self.sent += 1;
        if self.sent > self.requests_in_a_play {
            self.right.send(request)
        } else {
            self.wrong.send(request)
        }
    }
    fn receive(&mut self) -> Result<Reply, ProtocolError> {
        if self.wrong.in_flight() > 0 {
            self.wrong.receive()
        } else {
            self.right.receive()
        }
    }
    fn in_flight(&self) -> usize {
        self.wrong.in_flight() + self.right.in_flight()
    }
    fn language(&self) -> &str {
        "python 3"
    }
    fn answered(&self) -> u64 {
        self.wrong.answered() + self.right.answered()
    }
}

/// The first path of `rule`'s check on which `mistake` differs.
fn a_path_it_fails(rule: Rule, mistake: Mistake) -> Script {
    rules::aspects_of(rule)
        .into_iter()
        .flatten()
        .find(|path| {
            let mut student = Student::new(mistake);
            let found =
                crate::lab::script::play(path, Scope::Only(rule), &mut student, Profile::default());
            found.unwrap().is_some()
        })
        .unwrap_or_else(|| panic!("{mistake:?} differs on no path of {rule}"))
}

/// The verdict on the first path of `rule` that `mistake` fails, of a program that answers one
/// play of it with the mistake and the next ones right.
fn unrepeated_verdict(rule: Rule, mistake: Mistake) -> Verdict {
    let path = a_path_it_fails(rule, mistake);
    let mut subject = OnePlayWrong::new(mistake, &path);
    paths::path_verdict(rule, &path, &mut subject, Profile::default(), "").unwrap()
}

/// A difference on a rule's path that the next play does not repeat is not charged to that
/// rule: it is left not judged, on the account of a program that does not start over.
#[test]
fn a_difference_that_does_not_repeat_on_a_rules_path_is_not_judged() {
    let verdict = unrepeated_verdict(Rule::ExpiredNoRenew, Mistake::RenewExpired);
    assert_eq!(
        verdict,
        Verdict::NotJudged {
            rule: Some(Rule::NewStartsOver),
            because: UNSTABLE.into()
        }
    );
}

/// On new-starts-over's own path, a difference that does not repeat is that rule's failure:
/// answers that change between plays are what it is about.
#[test]
fn a_difference_that_does_not_repeat_on_new_starts_overs_path_fails_it() {
    let verdict = unrepeated_verdict(Rule::NewStartsOver, Mistake::KeepsCounterAcrossNew);
    let Verdict::Failed(f) = verdict else {
        panic!("{verdict:?}");
    };
    assert_eq!(f.rule, Rule::NewStartsOver);
    assert_eq!(f.note.as_deref(), Some(UNSTABLE));
}

/// Each check says what it checks: a rule's check in the rule's words, the broad ones in theirs.
#[test]
fn each_check_says_what_it_checks() {
    for o in outcomes(Mistake::Correct) {
        let words = o.words.as_str();
        match o.check {
            CheckId::Rule(rule) => assert_eq!(words, rule.words()),
            CheckId::Random => {
                assert!(words.starts_with("Random calls and clock steps"), "{words}")
            }
            CheckId::Exhaustive => assert!(words.starts_with("Every script of "), "{words}"),
            CheckId::Chaos => assert!(words.starts_with("Three clients, one lock"), "{words}"),
        }
    }
}

/// A program that keeps state across `new` plays each path of a rule fresh, judged as first
/// played: over the whole zoo, every path of every rule fails only the check of the rule its
/// mistake breaks, and any other difference leaves the path not judged, charged to that rule. (An
/// acquire that ignores expiry was once charged to the expiry boundary here: a fresh path now
/// confirms such a difference a grid step later, as every other path does.) Each mistake is
/// judged under the profile measured on it, as the check does.
#[test]
fn a_fresh_path_is_failed_only_by_its_own_rules_mistake() {
    for mistake in Mistake::wrong() {
        let Some(broken) = mistake.breaks() else {
            continue;
        };
        let profile = profile::measure(&mut Student::new(mistake), &|_| {})
            .unwrap()
            .profile;
        let mut failed = false;
        for rule in Rule::ALL {
            for path in rules::aspects_of(rule).iter().flatten() {
                let mut start = || -> Result<Box<dyn Subject>, ProtocolError> {
                    Ok(Box::new(Student::new(mistake)))
                };
                let mut calls = 0;
                let verdict =
                    paths::fresh_path_verdict(rule, path, &mut start, &mut calls, profile, "")
                        .unwrap();
                assert!(calls > 0);
                match verdict {
                    Verdict::Passed => {}
                    Verdict::Failed(f) => {
                        assert_eq!((rule, f.rule), (broken, broken), "{mistake:?}");
                        failed = true;
                    }
                    Verdict::NotJudged { rule: charged, .. } => {
                        assert_ne!(rule, broken, "{mistake:?}");
                        assert_eq!(charged, Some(broken), "{mistake:?} on {rule}");
                    }
                    Verdict::NotRun(why) => panic!("{mistake:?} on {rule}: {why}"),
                }
            }
        }
        assert!(failed, "{mistake:?} fails no path of {broken}");
    }
}

/// Over the zoo and every rule's paths, confirming a difference a grid step later leaves a
/// difference that is not at the expiry boundary as it is, keeps a boundary difference the
/// boundary caused, and moves one the boundary did not cause to the rule the mistake breaks.
#[test]
fn confirming_a_step_later_keeps_only_what_the_boundary_caused() {
    let mut moved = 0;
    for mistake in Mistake::wrong() {
        let Some(broken) = mistake.breaks() else {
            continue;
        };
        for rule in Rule::ALL {
            for path in rules::aspects_of(rule).iter().flatten() {
                let profile = Profile::default();
                let mut student = Student::new(mistake);
                let play = crate::lab::script::play(path, Scope::Only(rule), &mut student, profile);
                let Some(found) = play.unwrap() else {
                    continue;
                };
                let mut student = Student::new(mistake);
                let confirmed = paths::confirm(path.clone(), found.clone(), &mut student, profile);
                let (script, m) = confirmed.unwrap();
                let at_the_boundary = found.rule() == Rule::ExpiryBoundary;
                if !at_the_boundary || broken == Rule::ExpiryBoundary {
                    assert_eq!((&script, &m), (path, &found), "{mistake:?} on {rule}");
                } else {
                    assert_eq!(m.rule(), broken, "{mistake:?} on {rule}");
                    assert_eq!(m.steps_played, found.steps_played + 1);
                    moved += 1;
                }
            }
        }
    }
    assert!(moved > 0, "no difference was moved off the boundary");
}

/// A rule's check says how much it plays: its steps, and its paths when it has more than one.
#[test]
fn a_rules_check_counts_its_steps_and_paths() {
    for rule in Rule::ALL {
        let paths: usize = rules::aspects_of(rule).iter().map(Vec::len).sum();
        let steps = rules::steps_of(rule);
        let scope = paths::scope_of(rule);
        assert!(
            scope.starts_with(&format!("{steps} step")),
            "{rule}: {scope}"
        );
        assert_eq!(
            scope.ends_with(&format!(" on {paths} paths")),
            paths > 1,
            "{rule}: {scope}"
        );
    }
}

/// A boundary difference is kept when, a grid step later, that call agrees, even if a later
/// call of the same script then differs at its own boundary: that is another case, not this one.
#[test]
fn a_boundary_difference_is_kept_when_only_a_later_call_differs_a_step_later() {
    use crate::lab::script::Step;
    let at_expiry = || Step::ToExpiry { offset: 0.0 };
    let acquire = |client| Step::Acquire {
        name: "file",
        client,
    };
    let script = Script::new(
        Some(10.0),
        Some(1),
        vec![
            acquire("client-1"),
            at_expiry(),
            acquire("client-2"),
            at_expiry(),
            acquire("client-3"),
        ],
    );
    let (mistake, profile) = (Mistake::ExpiryInclusive, Profile::default());
    let play = crate::lab::script::play(&script, Scope::All, &mut Student::new(mistake), profile);
    let found = play.unwrap().expect("a lease live at its expiry differs");
    assert_eq!(
        (found.rule(), found.steps_played),
        (Rule::ExpiryBoundary, 3)
    );
    let mut student = Student::new(mistake);
    let confirmed = paths::confirm(script.clone(), found.clone(), &mut student, profile);
    assert_eq!(confirmed.unwrap(), (script, found));
}

/// A program whose `acquire` of a held lock never returns is started again each time, and the
/// check goes on: the rules whose paths wait on such an acquire fail at it ("no answer"), the
/// storage's and the rest are judged as for a correct program, nothing is shrunk past the
/// stop, and the chaos runs end at the seed that stopped it.
#[test]
fn a_call_that_never_returns_costs_the_rules_it_breaks_and_the_check_goes_on() {
    use crate::lab::testing::HangsWhenHeld;
    let mut start =
        || -> Result<Box<dyn Subject>, ProtocolError> { Ok(Box::new(HangsWhenHeld::new())) };
    let target = Target::Folder("student".into());
    let found = run_on(
        Box::new(HangsWhenHeld::new()),
        &mut start,
        &target,
        &plan(),
        &mut |_| {},
        &mut |_| {},
    );
    assert_eq!(found.error, None);
    let failed: Vec<&str> = found
        .outcomes
        .iter()
        .filter(|o| o.failure().is_some())
        .map(|o| o.id())
        .collect();
    assert_eq!(
        failed,
        [
            "lease-live",
            "holder-acquire-none",
            "renew-extends-from-now",
            "late-release",
            "random",
            "exhaustive",
            "chaos"
        ]
    );
    for o in &found.outcomes {
        match &o.verdict {
            Verdict::Failed(f) => {
                let last = f.transcript.last().unwrap();
                assert!(
                    last.ends_with("-> no answer: it did not answer within 2.0 s"),
                    "{}: {last}",
                    o.id()
                );
                assert!(f.played.len() <= 25, "{}: not cut at the stop", o.id());
            }
            Verdict::Passed => {}
            Verdict::NotJudged { rule, .. } => assert_eq!(*rule, Some(Rule::LeaseLive)),
            other => panic!("{}: {other:?}", o.id()),
        }
        if let CheckId::Rule(rule) = o.check {
            if rule
                .about()
                .iter()
                .any(|op| ["write", "read", "highest_token"].contains(op))
            {
                assert!(o.passed(), "{}", o.id());
            }
        }
    }
    let chaos = found.outcomes.last().unwrap();
    assert!(
        chaos.scope.starts_with("1 of 20 seeds of 60.0 s")
            && chaos.scope.ends_with(
                "the program stopped answering in seed 1, and the seeds after it were not played"
            ),
        "{}",
        chaos.scope
    );
    let random = &found.outcomes[found.outcomes.len() - 3];
    assert_eq!(random.failure().unwrap().note.as_deref(), Some(NOT_SHRUNK));
    // One stop at most a check, and two in the experiments.
    assert!(found.stops.len() <= 20, "{:?}", found.stops);
    assert_eq!(found.stops[0].during, "the experiments before the checks");
    assert!(found
        .stops
        .iter()
        .all(|s| s.how == "did not answer within 2.0 s"));
}
