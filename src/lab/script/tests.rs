use super::planning::{resolve, round_ms, Grants};
use super::*;
use crate::lab::judge::Profile;
use crate::lab::testing::{Mistake, Student};

fn acquire(name: &'static str, client: &'static str) -> Step {
    Step::Acquire { name, client }
}

fn script(steps: Vec<Step>) -> Script {
    Script::new(Some(10.0), Some(1), steps)
}

fn mismatch_of(script: &Script, mistake: Mistake) -> Option<Mismatch> {
    play(
        script,
        Scope::All,
        &mut Student::new(mistake),
        Profile::default(),
    )
    .unwrap()
}

fn requests(script: &Script) -> Vec<String> {
    plan(script).iter().map(|c| c.request.call()).collect()
}

#[test]
fn a_mismatch_reads_as_a_transcript_ending_in_the_call_that_differs() {
    let s = script(vec![
        Step::Advance(2.0),
        acquire("file", "client-1"),
        Step::Advance(10.5),
        Step::Holder { name: "file" },
        acquire("file", "client-2"),
    ]);
    let m = mismatch_of(&s, Mistake::HolderIgnoresExpiry).expect("a mismatch");
    // The clock steps are in the time column, not lines of their own.
    assert_eq!(
        m.lines(),
        [
            "t=0.0    new LockService(clock, 10.0, 1) -> ok",
            "t=2.0    acquire(file, client-1) -> lease token 1 (expires 12.0)",
            "t=12.5   holder(file) -> \"client-1\"",
        ]
    );
    assert_eq!(m.rule(), Rule::Holder);
    assert_eq!(
        m.divergence.expected,
        "the seed gives none: client-1's lease token 1 ran out at 12.0"
    );
    assert_eq!(m.steps_played, 4);
    assert_eq!(
        m.transcript.len(),
        5,
        "the clock calls are in the transcript"
    );
    assert!(mismatch_of(&s, Mistake::Correct).is_none());
}

#[test]
fn a_differing_clock_call_is_shown_though_clock_lines_are_not() {
    struct RefusesTheClock(Student);
    impl Subject for RefusesTheClock {
        fn send(&mut self, request: &Request) -> Result<(), ProtocolError> {
            self.0.send(request)
        }
        fn receive(&mut self) -> Result<Reply, ProtocolError> {
            let reply = self.0.receive()?;
            Ok(if reply == Reply::Done && self.0.calls > 1 {
                Reply::Refused("no".into())
            } else {
                reply
            })
        }
        fn in_flight(&self) -> usize {
            self.0.in_flight()
        }
        fn language(&self) -> &str {
            "sh"
        }
        fn answered(&self) -> u64 {
            self.0.answered()
        }
    }
    let s = script(vec![acquire("file", "client-1"), Step::Advance(1.5)]);
    let mut student = RefusesTheClock(Student::new(Mistake::Correct));
    let m = play(&s, Scope::All, &mut student, Profile::default())
        .unwrap()
        .unwrap();
    assert_eq!(
        m.lines().last().unwrap(),
        "t=1.5    clock = 1.5 -> refused (\"no\")"
    );
    assert_eq!(m.rule(), Rule::ClockOnly);
    // Every reply was read, the ones after the difference too.
    assert_eq!(student.in_flight(), 0);
}

/// Every request of a script is written before the first reply is read.
#[test]
fn a_scripts_requests_are_all_written_before_its_replies_are_read() {
    struct Counting(Student, Vec<usize>);
    impl Subject for Counting {
        fn send(&mut self, request: &Request) -> Result<(), ProtocolError> {
            self.0.send(request)
        }
        fn receive(&mut self) -> Result<Reply, ProtocolError> {
            self.1.push(self.0.in_flight());
            self.0.receive()
        }
        fn in_flight(&self) -> usize {
            self.0.in_flight()
        }
        fn language(&self) -> &str {
            "sh"
        }
        fn answered(&self) -> u64 {
            self.0.answered()
        }
    }
    let s = script(vec![
        acquire("file", "client-1"),
        Step::Holder { name: "file" },
    ]);
    let mut student = Counting(Student::new(Mistake::Correct), Vec::new());
    assert_eq!(
        play(&s, Scope::All, &mut student, Profile::default()).unwrap(),
        None
    );
    assert_eq!(student.1, [3, 2, 1]);
}

/// What each token choice resolves to, after client-1 got 1 (expired), client-2 got 2 and
/// client-1 got 3 on another lock.
#[test]
fn tokens_resolve_against_what_the_seed_granted() {
    let grants = Grants {
        leases: vec![
            ("file".into(), "client-1".into(), 1, 10.0),
            ("file".into(), "client-2".into(), 2, 21.0),
            ("log".into(), "client-1".into(), 3, 22.0),
            ("file".into(), "client-1".into(), 4, 25.0),
        ],
    };
    let renew = |client, token| {
        resolve(
            &Step::Renew {
                name: "file",
                client,
                token,
            },
            11.0,
            &grants,
        )
    };
    let token_of = |r: Option<Request>| match r {
        Some(Request::Renew { token, .. }) => Some(token),
        _ => None,
    };
    assert_eq!(token_of(renew("client-1", TokenOf::Own)), Some(4));
    assert_eq!(token_of(renew("client-1", TokenOf::OwnEarlier)), Some(1));
    assert_eq!(token_of(renew("client-2", TokenOf::Own)), Some(2));
    assert_eq!(token_of(renew("client-2", TokenOf::OwnEarlier)), None);
    assert_eq!(token_of(renew("client-3", TokenOf::Own)), None);
    assert_eq!(token_of(renew("client-2", TokenOf::Holders)), Some(4));
    // The holder sending the holder's token is not someone else's lock: skipped.
    assert_eq!(token_of(renew("client-1", TokenOf::Holders)), None);
    assert_eq!(token_of(renew("client-1", TokenOf::Latest)), Some(4));
    assert_eq!(token_of(renew("client-1", TokenOf::Previous)), Some(3));
    assert_eq!(token_of(renew("client-1", TokenOf::Exactly(9))), Some(9));
    // A write's own token is the latest grant on the lock named like its key.
    let write = |key, token| match resolve(
        &Step::Write {
            key,
            value: "v",
            token,
        },
        0.0,
        &grants,
    ) {
        Some(Request::Write { token, .. }) => Some(token),
        _ => None,
    };
    assert_eq!(write("file", TokenOf::Own), Some(4));
    assert_eq!(write("log", TokenOf::Own), Some(3));
    assert_eq!(write("other", TokenOf::Own), None);
    // The clock: forward by a step, or to the latest expiry plus an offset, never back.
    let clock = |step: Step, now: f64| match resolve(&step, now, &grants) {
        Some(Request::Clock { now }) => Some(now),
        _ => None,
    };
    assert_eq!(clock(Step::Advance(0.25), 11.0), Some(11.25));
    assert_eq!(clock(Step::ToExpiry { offset: -0.001 }, 11.0), Some(24.999));
    assert_eq!(clock(Step::ToExpiry { offset: 0.5 }, 11.0), Some(25.5));
    assert_eq!(clock(Step::ToExpiry { offset: 0.0 }, 25.0), None);
    assert_eq!(clock(Step::ToExpiry { offset: 0.0 }, 24.0), Some(25.0));
    let none = Grants::default();
    assert_eq!(resolve(&Step::ToExpiry { offset: 0.0 }, 0.0, &none), None);
    assert_eq!(
        resolve(&Step::Highest { key: "log" }, 0.0, &none),
        Some(Request::HighestToken { key: "log".into() })
    );
}

/// A renew updates its lease in place: the token before the latest is still the previous
/// grant's, not the renewed lease's own again.
#[test]
fn a_renewed_lease_is_one_grant_not_two() {
    let s = script(vec![
        acquire("file", "client-1"),
        Step::Advance(10.0),
        acquire("file", "client-2"),
        Step::Renew {
            name: "file",
            client: "client-2",
            token: TokenOf::Own,
        },
        Step::Write {
            key: "file",
            value: "a",
            token: TokenOf::Previous,
        },
        Step::ToExpiry { offset: 0.0 },
    ]);
    assert_eq!(
        requests(&s),
        [
            "new LockService(clock, 10.0, 1)",
            "acquire(file, client-1)",
            "clock = 10.0",
            "acquire(file, client-2)",
            "renew(file, client-2, 2)",
            "write(file, \"a\", 1)",
            "clock = 20.0",
        ]
    );
    assert_eq!(mismatch_of(&s, Mistake::Correct), None);
}

/// A repeated script's leak is shown as a judged script's difference is: the second `new` at
/// 0, each clock move at the time it sets, and the steps played up to the one that differs.
#[test]
fn a_repeated_scripts_leak_is_shown_at_the_times_of_the_pass_it_is_in() {
    let s = Script {
        repeat: true,
        ..script(vec![Step::Advance(4.0), acquire("file", "client-1")])
    };
    let mut student = Student::new(Mistake::KeepsCounterAcrossNew);
    let leak = repeat_differs(&s, &mut student).unwrap().leak.unwrap();
    assert_eq!(
        leak.lines(),
        [
            "t=0.0    new LockService(clock, 10.0, 1) -> ok",
            "t=4.0    acquire(file, client-1) -> lease token 1 (expires 14.0)",
            "t=0.0    new LockService(clock, 10.0, 1) -> ok",
            "t=4.0    acquire(file, client-1) -> lease token 2 (expires 14.0)",
        ]
    );
    assert_eq!(leak.steps_played, 2);
}

/// A renewed lease stays one grant for its client too: the client's earlier token is still
/// its previous lease's, not the renewed one's again.
#[test]
fn a_renewed_lease_leaves_the_clients_earlier_token_as_it_was() {
    let s = script(vec![
        acquire("file", "client-1"),
        Step::Advance(10.0),
        acquire("file", "client-1"),
        Step::Renew {
            name: "file",
            client: "client-1",
            token: TokenOf::Own,
        },
        Step::Renew {
            name: "file",
            client: "client-1",
            token: TokenOf::OwnEarlier,
        },
    ]);
    assert_eq!(
        requests(&s)[4..],
        ["renew(file, client-1, 2)", "renew(file, client-1, 1)"]
    );
}

/// A repeated script plays its steps twice with a `new` between; the second pass must answer
/// as the first did.
#[test]
fn a_repeated_script_is_played_twice_and_its_second_pass_compared_with_the_first() {
    let s = Script {
        repeat: true,
        ..script(vec![
            acquire("file", "client-1"),
            Step::Holder { name: "file" },
        ])
    };
    assert_eq!(
        requests(&s),
        [
            "new LockService(clock, 10.0, 1)",
            "acquire(file, client-1)",
            "holder(file)",
            "new LockService(clock, 10.0, 1)",
            "acquire(file, client-1)",
            "holder(file)",
        ]
    );
    let calls = plan(&s);
    let repeats: Vec<Option<usize>> = calls.iter().map(|c| c.repeats).collect();
    assert_eq!(repeats, [None, None, None, Some(0), Some(1), Some(2)]);
    assert_eq!(mismatch_of(&s, Mistake::Correct), None);
    // A counter kept across `new` answers the second acquire otherwise than the first.
    let m = mismatch_of(&s, Mistake::KeepsCounterAcrossNew).unwrap();
    assert_eq!(m.rule(), Rule::NewStartsOver);
    assert_eq!(
        m.divergence.expected,
        "the seed gives token 1: the first grant gets first_token, 1; before `new`, the same \
         call answered lease token 1 (expires 10.0)"
    );
    // The same wrong answer twice is the wrong answer's rule, not new-starts-over's.
    let m = mismatch_of(&s, Mistake::HolderReturnsNumber).unwrap();
    assert_eq!(m.rule(), Rule::Holder);
}

/// A repeated script's second pass starts where `new` starts: at time 0, its clock moves
/// made again from there.
#[test]
fn a_repeated_scripts_second_pass_starts_its_clock_at_zero() {
    let s = Script {
        repeat: true,
        ..script(vec![acquire("file", "client-1"), Step::Advance(4.0)])
    };
    assert_eq!(
        requests(&s),
        [
            "new LockService(clock, 10.0, 1)",
            "acquire(file, client-1)",
            "clock = 4.0",
            "new LockService(clock, 10.0, 1)",
            "acquire(file, client-1)",
            "clock = 4.0",
        ]
    );
}

/// A named check reads past only what cannot change what it judges: a lease's own value (its
/// expiry) of another rule, where the check is not about time. An observer's answer, or a
/// differing grant or verdict, stops any check.
#[test]
fn a_scope_of_one_rule_reads_past_only_a_lease_value_of_another() {
    let s = script(vec![
        acquire("file", "client-1"),
        Step::Advance(15.0),
        Step::Holder { name: "file" },
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
    ]);
    let scoped = |rule, mistake| {
        play(
            &s,
            Scope::Only(rule),
            &mut Student::new(mistake),
            Profile::default(),
        )
        .unwrap()
        .map(|m| m.rule())
    };
    // A lease a second too long: its expiry is read past by a storage check...
    let longer = Mistake::LeaseOneSecondLonger;
    assert_eq!(scoped(Rule::WriteEqualToken, longer), None);
    // ...not by a check about time.
    assert_eq!(scoped(Rule::ExpiryBoundary, longer), Some(Rule::LeaseLive));
    // An observer's answer is what a check looks at: it stops every check.
    let holder = Mistake::HolderIgnoresExpiry;
    assert_eq!(scoped(Rule::WriteEqualToken, holder), Some(Rule::Holder));
    assert_eq!(scoped(Rule::Holder, holder), Some(Rule::Holder));
    // A verdict stops any check.
    assert_eq!(
        scoped(Rule::Holder, Mistake::WriteStrict),
        Some(Rule::WriteEqualToken)
    );
}

#[test]
fn times_stay_on_the_millisecond_grid() {
    assert_eq!(round_ms(0.1 + 0.2), 0.3);
    assert_eq!(round_ms(12.0004), 12.0);
    assert_eq!(round_ms(12.0006), 12.001);
    assert_eq!(round_ms(-0.0015), -0.002);
    assert_eq!(round_ms(2.5), 2.5);
}

/// The student's program, asked as any subject is: the language its greeting named, its
/// answers counted without the greeting, and a flush that hands it its requests before any
/// reply is awaited.
#[test]
fn a_program_as_a_subject_is_asked_as_itself() {
    use crate::lab::program::Program;
    use crate::lab::testing::{first_request, recording_first_request, PATIENTLY};
    let (folder, command) =
        recording_first_request(r#"read l; echo '{"id":2,"done":true}'; exec sleep 5"#);
    let mut program = Program::start(command, PATIENTLY).unwrap();
    let subject: &mut dyn Subject = &mut program;
    assert_eq!(subject.language(), "sh");
    assert_eq!(subject.answered(), 0, "the greeting is not an answer");
    subject.send(&Request::Clock { now: 1.0 }).unwrap();
    subject.flush().unwrap();
    assert_eq!(
        first_request(&folder),
        "{\"op\":\"clock\",\"now\":1.0,\"id\":1}\n"
    );
    assert_eq!(subject.receive(), Ok(Reply::Done));
    assert_eq!(subject.answered(), 1);
    subject.send(&Request::Clock { now: 2.0 }).unwrap();
    assert_eq!(subject.receive(), Ok(Reply::Done));
    assert_eq!(subject.answered(), 2);
}
