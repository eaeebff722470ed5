use super::simplify::simpler;
use super::*;
use crate::lab::script::play;
use crate::lab::seed::Rule;
use crate::lab::testing::{Mistake, Student};
use crate::lab::wire::Reply;

/// Seed 1's random scripts use every kind of call, every token choice, every clock step and
/// every setting, the defaults among them, so the random check can reach every rule.
#[test]
fn random_scripts_use_the_whole_alphabet() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let scripts: Vec<Script> = (0..200).map(|_| random_script(&mut rng, 24)).collect();
    let seen = |want: &dyn Fn(&Script, &Step) -> bool| {
        scripts
            .iter()
            .any(|s| s.steps.iter().any(|step| want(s, step)))
    };
    let leases: std::collections::BTreeSet<String> = scripts
        .iter()
        .map(|s| format!("{:?}", s.lease_seconds))
        .collect();
    assert_eq!(
        leases,
        ["None", "Some(0.5)", "Some(10.0)", "Some(2.5)", "Some(3.0)"]
            .map(str::to_owned)
            .into()
    );
    // The defaults come together: a constructor without arguments.
    assert!(scripts
        .iter()
        .all(|s| s.lease_seconds.is_none() == s.first_token.is_none()));
    for first in [1, 7, 100] {
        assert!(scripts.iter().any(|s| s.first_token == Some(first)));
    }
    assert!(scripts.iter().all(|s| s.steps.len() == 24 && !s.repeat));
    for by in [GRID, 0.5, 1.0] {
        assert!(seen(&|_, step| *step == Step::Advance(by)), "Advance({by})");
    }
    // The clock moves by those, or by half the script's lease or a whole one, and by nothing else.
    let lease = |s: &Script| s.lease_seconds.unwrap_or(crate::DEFAULT_LEASE_SECONDS);
    for fraction in [0.5, 1.0] {
        assert!(
            seen(&|s, step| lease(s) == 10.0 && *step == Step::Advance(10.0 * fraction)),
            "Advance({fraction} of a lease of 10 s)"
        );
    }
    assert!(!seen(&|s, step| match step {
        Step::Advance(by) => ![GRID, 0.5, 1.0, lease(s) / 2.0, lease(s)].contains(by),
        _ => false,
    }));
    for offset in [-GRID, 0.0, GRID] {
        assert!(seen(&|_, step| *step == Step::ToExpiry { offset }));
    }
    let kinds: std::collections::BTreeSet<&str> = scripts
        .iter()
        .flat_map(|s| &s.steps)
        .map(|step| match step {
            Step::New { .. } => "new",
            Step::Advance(_) => "advance",
            Step::ToExpiry { .. } => "to-expiry",
            Step::Acquire { .. } => "acquire",
            Step::Renew { .. } => "renew",
            Step::Release { .. } => "release",
            Step::Holder { .. } => "holder",
            Step::Write { .. } => "write",
            Step::Read { .. } => "read",
            Step::Highest { .. } => "highest",
        })
        .collect();
    assert_eq!(kinds.len(), 9, "{kinds:?}");
    for token in [TokenOf::Own, TokenOf::OwnEarlier, TokenOf::Holders] {
        assert!(seen(
            &|_, s| matches!(s, Step::Renew { token: t, .. } if *t == token)
        ));
        assert!(seen(
            &|_, s| matches!(s, Step::Release { token: t, .. } if *t == token)
        ));
    }
    for token in [TokenOf::Latest, TokenOf::Previous] {
        assert!(seen(
            &|_, s| matches!(s, Step::Write { token: t, .. } if *t == token)
        ));
    }
    for t in 0..4 {
        assert!(seen(
            &|_, s| matches!(s, Step::Write { token: TokenOf::Exactly(x), .. } if *x == t)
        ));
    }
}

fn differs(script: &Script, mistake: Mistake) -> Option<Mismatch> {
    play(
        script,
        Scope::All,
        &mut Student::new(mistake),
        Profile::default(),
    )
    .unwrap()
}

fn is_one_minimal(script: &Script, mistake: Mistake) -> bool {
    (0..script.steps.len()).all(|i| {
        let mut fewer = script.clone();
        fewer.steps.remove(i);
        differs(&fewer, mistake).is_none()
    })
}

/// Every mistake the random check finds shrinks to a minimal case that ends at its difference:
/// no step can go and no value can be made simpler (the lesson's 10 s lease, first token 1,
/// whole seconds, `file`, `client-1`) while it still differs.
#[test]
fn a_random_failure_is_shrunk_to_a_minimal_case_with_simple_values() {
    let profile = Profile::default();
    let mut correct = Student::new(Mistake::Correct);
    assert!(random(&mut correct, Bounds::default(), profile)
        .unwrap()
        .is_none());
    // Every script was played in full: `new` and 24 steps, some skipped.
    assert!(
        correct.calls > 200 * 12 && correct.calls <= 200 * 25,
        "{}",
        correct.calls
    );
    // A program that keeps state across `new` cannot be replayed in one process: the check
    // judges it apart (check.rs).
    let leaky = |m: Mistake| m.breaks() == Some(Rule::NewStartsOver);
    for mistake in Mistake::wrong().filter(|m| !leaky(*m)) {
        let mut student = Student::new(mistake);
        let Some((script, found)) = random(&mut student, Bounds::default(), profile).unwrap()
        else {
            continue;
        };
        let any = |_: &Mismatch| true;
        let Shrunk::Minimal(script, mismatch) =
            shrink(script, found, Scope::All, &any, &mut student, profile).unwrap()
        else {
            panic!("{mistake:?} does not shrink");
        };
        assert!(is_one_minimal(&script, mistake), "{mistake:?}: {script:?}");
        assert_eq!(mismatch.steps_played, script.steps.len(), "{mistake:?}");
        assert!(script.steps.len() <= 7, "{mistake:?}: {script:?}");
        // The mismatch is the shrunk script's own.
        assert_eq!(
            differs(&script, mistake),
            Some(mismatch.clone()),
            "{mistake:?}"
        );
        // And no value can be made simpler while it still differs.
        for simpler in simpler(&script) {
            assert_eq!(differs(&simpler, mistake), None, "{mistake:?}: {simpler:?}");
        }
    }
}

#[test]
fn shrinking_halves_its_chunks_before_it_tries_single_steps() {
    // A 24-step script whose difference needs only 2 steps: halving finds them in far fewer
    // plays than removing one step at a time.
    let mut steps = vec![Step::Holder { name: "log" }; 24];
    steps[5] = Step::Write {
        key: "file",
        value: "a",
        token: TokenOf::Exactly(3),
    };
    steps[17] = Step::Write {
        key: "file",
        value: "b",
        token: TokenOf::Exactly(3),
    };
    let script = Script::new(Some(10.0), Some(1), steps);
    let mut student = Student::new(Mistake::WriteStrict);
    let found = differs(&script, Mistake::WriteStrict).unwrap();
    let any = |_: &Mismatch| true;
    let Shrunk::Minimal(shrunk, m) = shrink(
        script,
        found,
        Scope::All,
        &any,
        &mut student,
        Profile::default(),
    )
    .unwrap() else {
        panic!("a strict storage differs every time");
    };
    assert_eq!(shrunk.steps.len(), 2);
    assert_eq!(m.rule(), Rule::WriteEqualToken);
    // Values too: the token 3 becomes 1.
    assert!(shrunk.steps.iter().all(|s| matches!(
        s,
        Step::Write {
            token: TokenOf::Exactly(1),
            ..
        }
    )));
    assert!(student.calls < 400, "{} calls", student.calls);
}

/// A shrink keeps only the differences it is asked to keep.
#[test]
fn shrinking_keeps_the_difference_it_is_asked_to() {
    let script = Script::new(
        Some(10.0),
        Some(1),
        vec![
            Step::Write {
                key: "file",
                value: "a",
                token: TokenOf::Exactly(2),
            },
            Step::Write {
                key: "file",
                value: "b",
                token: TokenOf::Exactly(2),
            },
            Step::Highest { key: "log" },
        ],
    );
    let both = Mistake::WriteStrict;
    let found = differs(&script, both).unwrap();
    let never = |m: &Mismatch| m.rule() == Rule::NeverWritten;
    let kept = shrink(
        script.clone(),
        found.clone(),
        Scope::All,
        &never,
        &mut Student::new(both),
        Profile::default(),
    )
    .unwrap();
    // The strict storage never differs on never-written: the first play keeps nothing.
    assert!(matches!(kept, Shrunk::Unstable(..)));
}

#[test]
fn every_short_script_is_tried_in_order_until_one_differs() {
    let profile = Profile::default();
    let mut correct = Student::new(Mistake::Correct);
    let (judged, found) = exhaustive(&mut correct, 2, profile).unwrap();
    assert_eq!(found, None);
    // 169 scripts of 2 letters, but only 23 make requests no script before them made: a renew
    // or release with no grant to name makes no request, and clock moves with no grant neither.
    assert_eq!(judged, 23);
    assert_eq!(exhaustive_scripts(2).count(), 169);
    assert_eq!(exhaustive(&mut correct, 0, profile).unwrap(), (1, None));
    // An unchecked storage differs at its first stale write: a grant, a write with it, a write
    // with token 0.
    let mut unchecked = Student::new(Mistake::WriteUnchecked);
    let (_, found) = exhaustive(&mut unchecked, 3, profile).unwrap();
    let (script, mismatch) = found.expect("an unchecked storage differs");
    assert_eq!(mismatch.rule(), Rule::WriteStaleRejected);
    assert_eq!(script.steps.len(), 3 + 3, "three letters and the observers");
}

#[test]
fn the_alphabet_covers_every_way_a_call_can_be_refused() {
    let letters = alphabet();
    assert_eq!(letters.len(), 13);
    for offset in [-GRID, 0.0] {
        assert!(letters.contains(&Step::ToExpiry { offset }));
    }
    for token in [TokenOf::Own, TokenOf::OwnEarlier, TokenOf::Holders] {
        assert!(letters
            .iter()
            .any(|s| matches!(s, Step::Renew { token: t, .. } if *t == token)));
    }
    for token in [TokenOf::Own, TokenOf::OwnEarlier, TokenOf::Holders] {
        assert!(letters
            .iter()
            .any(|s| matches!(s, Step::Release { token: t, .. } if *t == token)));
    }
    let writes = letters
        .iter()
        .filter(|s| matches!(s, Step::Write { .. }))
        .count();
    assert_eq!(writes, 3);
}

/// Many scripts stream with requests in flight, and the first that differs is the one reported,
/// with the replies after it read and dropped.
#[test]
fn scripts_stream_many_at_a_time_and_the_first_difference_stops_them() {
    let script = |value: &'static str, token| {
        Script::new(
            Some(10.0),
            Some(1),
            vec![
                Step::Write {
                    key: "file",
                    value,
                    token: TokenOf::Exactly(token),
                },
                Step::Write {
                    key: "file",
                    value,
                    token: TokenOf::Exactly(token),
                },
            ],
        )
    };
    let scripts = (0..300).map(|i| {
        script(
            if i == 250 { "x" } else { "a" },
            if i < 250 { 0 } else { 2 },
        )
    });
    let mut strict = Student::new(Mistake::WriteStrict);
    // Token 0 twice is refused by a strict storage too: every script differs. The first one is
    // reported.
    let (judged, found) = play_many(scripts, &mut strict, Profile::default()).unwrap();
    assert_eq!(judged, 1);
    assert!(found.is_some());
    assert_eq!(strict.in_flight(), 0);
    let mut correct = Student::new(Mistake::Correct);
    let scripts = (0..300).map(|_| script("a", 1));
    assert_eq!(
        play_many(scripts, &mut correct, Profile::default()).unwrap(),
        (300, None)
    );
    assert_eq!(correct.calls, 300 * 3);
}

/// At most [`WINDOW`] requests wait for their replies: scripts are sent while fewer are in
/// flight, so with scripts of two calls (`new` and a write) the peak is the window exactly.
#[test]
fn no_more_requests_than_the_window_wait_for_their_replies() {
    let write = Step::Write {
        key: "file",
        value: "a",
        token: TokenOf::Exactly(1),
    };
    let scripts = (0..1_000).map(|_| Script::new(None, None, vec![write.clone()]));
    let mut student = Student::new(Mistake::Correct);
    assert_eq!(
        play_many(scripts, &mut student, Profile::default()).unwrap(),
        (1_000, None)
    );
    assert_eq!(student.most_in_flight, WINDOW);
    assert_eq!(student.in_flight(), 0);
}

/// A script whose only difference float rounding decides (a renew at the very instant the lease
/// ends, measured as elapsed time) is not a difference: the rest of its replies are read and
/// dropped, and the scripts after it are judged as usual.
#[test]
fn a_script_that_rounding_decides_is_skipped_and_the_next_ones_judged() {
    // 6.4 + 10 - 6.4 is just under 10: a lease measured as elapsed time is still live at the
    // instant the seed's `now < expires_at` ends it.
    let unclear = Script::new(
        Some(10.0),
        Some(1),
        vec![
            Step::Advance(6.4),
            Step::Acquire {
                name: "file",
                client: "client-1",
            },
            Step::ToExpiry { offset: 0.0 },
            Step::Renew {
                name: "file",
                client: "client-1",
                token: TokenOf::Own,
            },
            Step::Holder { name: "file" },
            Step::Write {
                key: "file",
                value: "a",
                token: TokenOf::Own,
            },
        ],
    );
    // Its renew is where the elapsed-time student and the seed part, by rounding alone.
    let calls = plan(&unclear);
    let mut elapsed = Student::new(Mistake::Correct).measuring_elapsed();
    for call in &calls {
        elapsed.send(&call.request).unwrap();
    }
    let found =
        crate::lab::script::judge_replies(&calls, Scope::All, &mut elapsed, Profile::default())
            .unwrap()
            .expect("the renew differs");
    assert_eq!(found.divergence.kind, crate::lab::judge::Kind::Unclear);
    assert_eq!(
        found.transcript.len(),
        5,
        "new, clock, acquire, clock, renew"
    );
    let later = Script::new(
        Some(10.0),
        Some(1),
        vec![
            Step::Acquire {
                name: "file",
                client: "client-2",
            },
            Step::Write {
                key: "file",
                value: "b",
                token: TokenOf::Own,
            },
            Step::Read { key: "file" },
        ],
    );
    let scripts = std::iter::once(unclear).chain(std::iter::repeat_n(later, 5));
    let mut elapsed = Student::new(Mistake::Correct).measuring_elapsed();
    assert_eq!(
        play_many(scripts, &mut elapsed, Profile::default()).unwrap(),
        (6, None)
    );
    assert_eq!(elapsed.in_flight(), 0);
}

/// Every clock a script sets, random, exhaustive or a rule's, is on the 1/8 s grid, where a
/// lease's end is exact in binary.
#[test]
fn every_scripts_clock_is_on_the_grid() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let random: Vec<Script> = (0..200).map(|_| random_script(&mut rng, 24)).collect();
    let named = crate::lab::seed::Rule::ALL
        .into_iter()
        .flat_map(|r| crate::lab::rules::aspects_of(r).into_iter().flatten());
    for script in random.into_iter().chain(exhaustive_scripts(3)).chain(named) {
        for call in plan(&script) {
            if let super::super::wire::Request::Clock { now } = call.request {
                assert_eq!((now / GRID).fract(), 0.0, "{now} in {script:?}");
            }
        }
    }
}

/// A token named by a grant becomes its number, so the grant it came from can go.
#[test]
fn a_token_read_from_grants_becomes_its_number_and_the_grants_go() {
    let acquire = |client| Step::Acquire {
        name: "log",
        client,
    };
    let script = Script::new(
        Some(10.0),
        Some(1),
        vec![
            acquire("client-1"),
            acquire("client-2"),
            Step::Advance(20.0),
            acquire("client-3"),
            Step::Write {
                key: "file",
                value: "a",
                token: TokenOf::Latest,
            },
            Step::Write {
                key: "file",
                value: "b",
                token: TokenOf::Latest,
            },
        ],
    );
    let mistake = Mistake::WriteStrict;
    let found = differs(&script, mistake).unwrap();
    let any = |_: &Mismatch| true;
    let mut student = Student::new(mistake);
    let Shrunk::Minimal(shrunk, _) = shrink(
        script,
        found,
        Scope::All,
        &any,
        &mut student,
        Profile::default(),
    )
    .unwrap() else {
        panic!("a strict storage differs every time");
    };
    assert_eq!(
        shrunk.steps,
        [
            Step::Write {
                key: "file",
                value: "a",
                token: TokenOf::Exactly(1),
            },
            Step::Write {
                key: "file",
                value: "b",
                token: TokenOf::Exactly(1),
            },
        ]
    );
}

/// A call a chaos run made at the start, answered `done` (`script_of` reads only the calls).
fn played(request: Request) -> crate::lab::script::Played {
    crate::lab::script::Played {
        now: 0.0,
        request,
        got: Reply::Done,
    }
}

/// A chaos run's calls become a script of the same calls: names kept, clock settings made
/// moves, tokens their numbers, values one of a few; a name scripts do not know makes none.
#[test]
fn a_chaos_runs_calls_become_a_script_of_the_same_calls() {
    let s = |text: &str| text.to_owned();
    let calls = vec![
        played(Request::New {
            lease_seconds: Some(10.0),
            first_token: Some(1),
        }),
        played(Request::Clock { now: 1.5 }),
        // The same time again, then an earlier one (a chaos clock jump back): no move.
        played(Request::Clock { now: 1.5 }),
        played(Request::Acquire {
            name: s("log"),
            client_id: s("client-2"),
        }),
        played(Request::Clock { now: 4.0 }),
        played(Request::Renew {
            name: s("log"),
            client_id: s("client-2"),
            token: 4,
        }),
        played(Request::Write {
            key: s("other"),
            value: s("chaos value"),
            token: 4,
        }),
        played(Request::Clock { now: 1.0 }),
        played(Request::Release {
            name: s("file"),
            client_id: s("client-3"),
            token: 3,
        }),
        played(Request::Holder { name: s("lock") }),
        played(Request::Read { key: s("file") }),
        played(Request::HighestToken { key: s("other") }),
    ];
    let script = script_of(&calls, 10.0, 1).expect("every name is known");
    assert_eq!(
        script.steps,
        [
            Step::Advance(1.5),
            Step::Acquire {
                name: "log",
                client: "client-2",
            },
            Step::Advance(2.5),
            Step::Renew {
                name: "log",
                client: "client-2",
                token: TokenOf::Exactly(4),
            },
            Step::Write {
                key: "other",
                value: "a",
                token: TokenOf::Exactly(4),
            },
            Step::Release {
                name: "file",
                client: "client-3",
                token: TokenOf::Exactly(3),
            },
            Step::Holder { name: "lock" },
            Step::Read { key: "file" },
            Step::Highest { key: "other" },
        ]
    );
    let mut unknown = calls.clone();
    unknown.push(played(Request::Read { key: s("stock") }));
    assert_eq!(script_of(&unknown, 10.0, 1), None);
    // A `new` after the first call has no step of its own either.
    let mut renewed = calls;
    renewed.push(played(Request::New {
        lease_seconds: None,
        first_token: None,
    }));
    assert_eq!(script_of(&renewed, 10.0, 1), None);
}

/// A chaos run's tokens are named by the role that gives the number sent, the client's own
/// first, as the seed grants them when the script plays; a number no role gives stays a number.
/// So the shrinker can take away the grants before a call and the call still sends its own token.
#[test]
fn a_chaos_runs_tokens_are_named_by_role_where_one_gives_the_number() {
    let acquire = |client: &str| {
        played(Request::Acquire {
            name: "file".into(),
            client_id: client.into(),
        })
    };
    let release = |client: &str, token| {
        played(Request::Release {
            name: "file".into(),
            client_id: client.into(),
            token,
        })
    };
    let write = |token| {
        played(Request::Write {
            key: "file".into(),
            value: "chaos value".into(),
            token,
        })
    };
    let calls = vec![
        acquire("client-1"),
        release("client-1", 5),
        release("client-1", 5),
        played(Request::Clock { now: 12.0 }),
        acquire("client-2"),
        write(6),
        write(5),
        release("client-1", 6),
        release("client-2", 5),
        played(Request::Clock { now: 24.0 }),
        acquire("client-1"),
        release("client-1", 5),
        write(9),
    ];
    let script = script_of(&calls, 10.0, 5).expect("every name is known");
    let tokens: Vec<TokenOf> = script
        .steps
        .iter()
        .filter_map(|step| match step {
            Step::Release { token, .. } | Step::Write { token, .. } => Some(*token),
            _ => None,
        })
        .collect();
    use TokenOf::*;
    assert_eq!(
        tokens,
        [
            Own,
            Own,
            Own,
            Previous,
            Holders,
            Previous,
            OwnEarlier,
            Exactly(9)
        ]
    );
    // Played, the script sends the very tokens the chaos run sent.
    let sent: Vec<u64> = plan(&script)
        .iter()
        .filter_map(|call| match call.request {
            Request::Release { token, .. } | Request::Write { token, .. } => Some(token),
            _ => None,
        })
        .collect();
    assert_eq!(sent, [5, 5, 6, 5, 6, 5, 5, 9]);
}

/// The tree walk keeps exactly the scripts the plain way keeps: every script of the length in
/// counting order, each kept where its requests were not made by a script before it.
#[test]
fn the_distinct_scripts_are_the_first_of_each_way_of_calling_the_seed() {
    let length = 3;
    let mut seen = std::collections::HashSet::new();
    let plainly: Vec<Script> = exhaustive_scripts(length)
        .filter(|script| {
            let mut lines = Vec::new();
            for call in plan(script) {
                call.request.write_line(0, &mut lines);
                lines.push(b'\n');
            }
            seen.insert(lines)
        })
        .collect();
    let walked: Vec<Script> = distinct_scripts(length)
        .iter()
        .map(|planned| planned.0.clone())
        .collect();
    assert_eq!(walked.len(), plainly.len());
    assert!(walked == plainly, "the same scripts, in the same order");
    // And each comes planned as `plan` plans it.
    for planned in distinct_scripts(length).iter() {
        let requests =
            |calls: &[Call]| -> Vec<_> { calls.iter().map(|c| c.request.clone()).collect() };
        assert_eq!(requests(&planned.1), requests(&plan(&planned.0)));
    }
}

/// Correct, except that it answers the last call of a play wrong while the play has at least
/// `shortest - 1` calls (its `new` counted); `ratchet` lowers `shortest` to each play that
/// differed.
struct HoldsTheShrink {
    student: Student,
    shortest: usize,
    ratchet: bool,
    plays: usize,
    sent: usize,
}

impl HoldsTheShrink {
    fn new(shortest: usize, ratchet: bool) -> HoldsTheShrink {
        HoldsTheShrink {
            student: Student::new(Mistake::Correct),
            shortest,
            ratchet,
            plays: 0,
            sent: 0,
        }
    }
}

impl Subject for HoldsTheShrink {
    fn send(&mut self, request: &Request) -> Result<(), ProtocolError> {
        if matches!(request, Request::New { .. }) {
            self.plays += 1;
            self.sent = 0;
        }
        self.sent += 1;
        self.student.send(request)
    }
    fn receive(&mut self) -> Result<Reply, ProtocolError> {
        // The last reply of a play (every call is sent before the first reply is read).
        let last = self.student.in_flight() == 1;
        let reply = self.student.receive()?;
        if last && self.sent + 1 >= self.shortest {
            if self.ratchet {
                self.shortest = self.shortest.min(self.sent);
            }
            return Ok(Reply::Strange("42".into()));
        }
        Ok(reply)
    }
    fn in_flight(&self) -> usize {
        self.student.in_flight()
    }
    fn language(&self) -> &str {
        "python 3"
    }
    fn answered(&self) -> u64 {
        self.student.answered()
    }
}

/// A program that holds a shrink to one step at a time stops it at its bound of plays: it
/// differs only while a play is at most one call shorter than the shortest that differed yet,
/// so halving never helps: a 40-step case spends about 40 plays halving and would spend 40 more
/// one step at a time, against a bound of 50.
#[test]
fn a_shrink_stops_at_its_bound_of_plays() {
    let script = Script::new(Some(10.0), Some(1), vec![Step::Holder { name: "file" }; 40]);
    // `new` and 40 calls: the first play differs.
    let mut program = HoldsTheShrink::new(41, true);
    let profile = Profile::default();
    let found = play(&script, Scope::All, &mut program, profile)
        .unwrap()
        .unwrap();
    assert_eq!(found.steps_played, 40);
    let any = |_: &Mismatch| true;
    let shrunk =
        shrinking::shrink_within(50, script, found, Scope::All, &any, &mut program, profile);
    let Shrunk::Minimal(script, _) = shrunk.unwrap() else {
        panic!("it differs on every play it is asked to");
    };
    assert_eq!(program.plays, 1 + 50);
    // Halving tried every chunk in vain; single steps were being taken off when it stopped.
    assert!(
        script.steps.len() < 40 && script.steps.len() > 20,
        "{} steps",
        script.steps.len()
    );
}

/// Simplifying values stops at the bound of plays too: a program that differs only with all its
/// calls makes every removal fail (about 100 plays) and lets each of 30 clock moves (a holder
/// after each, so that no two are made one) be made a second, one a play, against a bound of 110.
#[test]
fn simplifying_stops_at_the_bound_of_plays() {
    let steps = [Step::Advance(3.0), Step::Holder { name: "file" }]
        .iter()
        .cycle()
        .take(60)
        .cloned()
        .collect();
    let script = Script::new(Some(10.0), Some(1), steps);
    // `new`, and 30 clock moves each with its `holder`.
    let mut program = HoldsTheShrink::new(62, false);
    let profile = Profile::default();
    let found = play(&script, Scope::All, &mut program, profile)
        .unwrap()
        .unwrap();
    let any = |_: &Mismatch| true;
    let shrunk =
        shrinking::shrink_within(110, script, found, Scope::All, &any, &mut program, profile);
    let Shrunk::Minimal(script, _) = shrunk.unwrap() else {
        panic!("it differs on every play with all its calls");
    };
    assert_eq!(program.plays, 1 + 110);
    let made_a_second = script
        .steps
        .iter()
        .filter(|s| **s == Step::Advance(1.0))
        .count();
    assert!(made_a_second > 0 && made_a_second < 30, "{made_a_second}");
}

/// A lease is made the lesson's 10 s, and a lease of a fraction also its whole seconds (never
/// 0 s); a whole lease has only the lesson's to go to.
#[test]
fn a_lease_is_simplified_to_the_lessons_then_to_whole_seconds() {
    let other_leases = |lease: f64| -> Vec<f64> {
        let script = Script::new(Some(lease), Some(1), vec![Step::Holder { name: "file" }]);
        let leases = simpler(&script).into_iter().map(|s| s.lease_seconds);
        let offered: Vec<f64> = leases.map(Option::unwrap).collect();
        assert!(offered.contains(&10.0), "{lease}: {offered:?}");
        offered.into_iter().filter(|l| *l != 10.0).collect()
    };
    assert_eq!(other_leases(12.5), [13.0]);
    assert_eq!(other_leases(0.75), [1.0]);
    assert_eq!(other_leases(12.0), Vec::<f64>::new());
    assert_eq!(other_leases(0.25), Vec::<f64>::new());
}

/// A lease other than the lesson's is also offered as 10 s with every clock move scaled with it,
/// where the scaled moves stay on the grid: 0.5 s with moves of 0.25 s and 0.125 s reads as 10 s
/// with 5 s and 2.5 s.
#[test]
fn a_lease_is_offered_as_the_lessons_with_its_clock_moves_scaled() {
    let script = |lease, by, offset| {
        Script::new(
            Some(lease),
            Some(1),
            vec![
                Step::Acquire {
                    name: "file",
                    client: "client-1",
                },
                Step::Advance(by),
                Step::ToExpiry { offset },
            ],
        )
    };
    let with_lessons_lease = |s: &Script| -> Vec<Vec<Step>> {
        simpler(s)
            .into_iter()
            .filter(|c| c.lease_seconds == Some(10.0))
            .map(|c| c.steps)
            .collect()
    };
    assert_eq!(
        with_lessons_lease(&script(0.5, 0.25, 0.125)),
        [script(0.5, 0.25, 0.125).steps, script(10.0, 5.0, 2.5).steps]
    );
    // 3 s with a move of 1 s would need 3.33 s: put on the grid, to the nearest point and the
    // next one up, each tried as well as the lease alone.
    assert_eq!(
        with_lessons_lease(&script(3.0, 1.0, 0.0)),
        [script(3.0, 1.0, 0.0).steps, script(3.0, 3.375, 0.0).steps,]
    );
    assert_eq!(
        with_lessons_lease(&script(3.0, 3.038, 0.0)),
        [
            script(3.0, 3.038, 0.0).steps,
            script(3.0, 10.125, 0.0).steps,
            script(3.0, 10.25, 0.0).steps,
        ]
    );
}

/// A token written as a number is made 1, half of it and one less, everywhere it is written,
/// then 1 in one write at a time; a token of 1 is as small as a token gets.
#[test]
fn a_written_token_is_made_smaller_everywhere_down_to_1() {
    let write = |value, token| Step::Write {
        key: "file",
        value,
        token: TokenOf::Exactly(token),
    };
    let script = Script::new(
        Some(10.0),
        Some(1),
        vec![write("a", 1), write("b", 6), write("c", 6)],
    );
    let tokens: Vec<Vec<u64>> = simpler(&script)
        .iter()
        .map(|s| {
            s.steps
                .iter()
                .filter_map(|step| match step {
                    Step::Write {
                        token: TokenOf::Exactly(t),
                        ..
                    } => Some(*t),
                    _ => None,
                })
                .collect()
        })
        .filter(|written: &Vec<u64>| written != &[1, 6, 6])
        .collect();
    // Everywhere first (1, half, one less), then one write at a time to 1; never 0.
    assert_eq!(
        tokens,
        [[1, 1, 1], [1, 3, 3], [1, 5, 5], [1, 1, 6], [1, 6, 1]]
    );
}

/// Each step is offered one value simpler (whole or single seconds, the boundary itself, the
/// names `file` and `client-1`, token 1), and a token named by role is offered as the number
/// the seed granted.
#[test]
fn each_step_is_offered_one_value_simpler() {
    let script = Script::new(
        Some(10.0),
        Some(5),
        vec![
            Step::Acquire {
                name: "log",
                client: "client-2",
            },
            Step::Advance(2.5),
            Step::ToExpiry { offset: 0.5 },
            Step::Renew {
                name: "log",
                client: "client-2",
                token: TokenOf::Own,
            },
            Step::Write {
                key: "log",
                value: "a",
                token: TokenOf::Latest,
            },
            Step::Release {
                name: "log",
                client: "client-2",
                token: TokenOf::Own,
            },
            Step::Write {
                key: "other",
                value: "b",
                token: TokenOf::Exactly(7),
            },
            Step::Holder { name: "log" },
            Step::Read { key: "log" },
            Step::Highest { key: "log" },
        ],
    );
    let changes: Vec<String> = simpler(&script)
        .iter()
        .filter_map(|s| {
            let changed: Vec<usize> = (0..script.steps.len())
                .filter(|&i| s.steps[i] != script.steps[i])
                .collect();
            let [i] = changed[..] else {
                return None;
            };
            Some(format!("{i}: {:?}", s.steps[i]))
        })
        .collect();
    let expected = [
        // The first token made 1, the written 7 moved with the grants; the key named `file`
        // everywhere (it is written once); 7 made 1, half and one less.
        "6: Write { key: \"other\", value: \"b\", token: Exactly(3) }",
        "6: Write { key: \"file\", value: \"b\", token: Exactly(7) }",
        "6: Write { key: \"other\", value: \"b\", token: Exactly(1) }",
        "6: Write { key: \"other\", value: \"b\", token: Exactly(3) }",
        "6: Write { key: \"other\", value: \"b\", token: Exactly(6) }",
        // One step at a time.
        "0: Acquire { name: \"file\", client: \"client-2\" }",
        "0: Acquire { name: \"log\", client: \"client-1\" }",
        "1: Advance(3.0)",
        "1: Advance(1.0)",
        "2: ToExpiry { offset: 0.0 }",
        "3: Renew { name: \"file\", client: \"client-2\", token: Own }",
        "3: Renew { name: \"log\", client: \"client-1\", token: Own }",
        "4: Write { key: \"file\", value: \"a\", token: Latest }",
        "5: Release { name: \"file\", client: \"client-2\", token: Own }",
        "5: Release { name: \"log\", client: \"client-1\", token: Own }",
        "6: Write { key: \"file\", value: \"b\", token: Exactly(7) }",
        "6: Write { key: \"other\", value: \"b\", token: Exactly(1) }",
        "7: Holder { name: \"file\" }",
        "8: Read { key: \"file\" }",
        "9: Highest { key: \"file\" }",
        // A token named by role, as the number the seed granted (the first, 5).
        "3: Renew { name: \"log\", client: \"client-2\", token: Exactly(5) }",
        "4: Write { key: \"log\", value: \"a\", token: Exactly(5) }",
        "5: Release { name: \"log\", client: \"client-2\", token: Exactly(5) }",
    ];
    assert_eq!(changes, expected);
}

/// Two clock moves in a row are offered as one, first of all: the same times with a step fewer,
/// which a chaos run's many small moves need (no one of them can go alone). A move to an expiry
/// takes the move after it into its offset; a move before it is not its to take.
#[test]
fn two_clock_moves_in_a_row_are_offered_as_one_first() {
    let holder = Step::Holder { name: "file" };
    let script = Script::new(
        Some(10.0),
        Some(1),
        vec![
            Step::Advance(0.5),
            Step::Advance(0.25),
            holder.clone(),
            Step::ToExpiry { offset: 0.125 },
            Step::Advance(0.375),
            Step::Advance(2.0),
            Step::ToExpiry { offset: 0.0 },
        ],
    );
    let firsts: Vec<Vec<Step>> = simpler(&script)
        .into_iter()
        .take(4)
        .map(|s| s.steps)
        .collect();
    let with = |i: usize, merged: Step| {
        let mut steps = script.steps.clone();
        steps.splice(i..=i + 1, [merged]);
        steps
    };
    assert_eq!(
        firsts,
        [
            with(0, Step::Advance(0.75)),
            with(3, Step::ToExpiry { offset: 0.5 }),
            with(4, Step::Advance(2.375)),
            // Then the values, one at a time: the first move made whole seconds.
            {
                let mut steps = script.steps.clone();
                steps[0] = Step::Advance(1.0);
                steps
            },
        ]
    );
}

/// A lock or key name is offered renamed `file` everywhere it is used, and the clients numbered
/// in the order they first appear, whichever calls name them: a rename of one call alone would
/// break the calls that follow it.
#[test]
fn a_name_and_a_client_are_renamed_everywhere_they_are_used() {
    let calls = |name, client| {
        vec![
            Step::Acquire { name, client },
            Step::Renew {
                name,
                client,
                token: TokenOf::Own,
            },
            Step::Release {
                name,
                client,
                token: TokenOf::Own,
            },
            Step::Holder { name },
        ]
    };
    let offered = |steps: Vec<Step>| -> Vec<Vec<Step>> {
        let script = Script::new(Some(10.0), Some(1), steps);
        simpler(&script).into_iter().map(|s| s.steps).collect()
    };
    let lock_calls = offered(calls("log", "client-2"));
    assert!(
        lock_calls.contains(&calls("file", "client-2")),
        "{lock_calls:?}"
    );
    assert!(
        lock_calls.contains(&calls("log", "client-1")),
        "{lock_calls:?}"
    );
    let holders = [
        Step::Holder { name: "other" },
        Step::Holder { name: "other" },
    ];
    assert!(offered(holders.to_vec()).contains(&vec![Step::Holder { name: "file" }; 2]));
    // Where `file` is in use already, another name is not made it: two locks would become one.
    let two_locks = [
        holders[0].clone(),
        holders[1].clone(),
        Step::Holder { name: "file" },
    ];
    let merged = vec![Step::Holder { name: "file" }; 3];
    assert!(!offered(two_locks.to_vec()).contains(&merged));
}

/// A clock move under half a second has no whole seconds to be made: 0 s is no move.
#[test]
fn a_clock_move_under_half_a_second_is_not_made_zero() {
    let script = Script::new(Some(10.0), Some(1), vec![Step::Advance(0.25)]);
    let moves: Vec<Vec<Step>> = simpler(&script).into_iter().map(|s| s.steps).collect();
    assert!(!moves.contains(&vec![Step::Advance(0.0)]), "{moves:?}");
}
