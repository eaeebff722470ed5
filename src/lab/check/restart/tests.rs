use super::*;
use crate::lab::testing::HangsWhenHeld;

fn acquire(client: &str) -> Request {
    Request::Acquire {
        name: "file".into(),
        client_id: client.into(),
    }
}

fn new() -> Request {
    Request::New {
        lease_seconds: None,
        first_token: None,
    }
}

/// Requests sent ahead of a call the program stops at: those before the next `new` are lost
/// with it, and those from the `new` on are answered by a fresh program, in order.
#[test]
fn a_stop_is_one_answer_and_the_requests_from_the_next_new_go_to_a_fresh_program() {
    let started = std::cell::Cell::new(0);
    let mut start = || -> Result<Box<dyn Subject>, ProtocolError> {
        started.set(started.get() + 1);
        Ok(Box::new(HangsWhenHeld::new()))
    };
    let mut program = Restarting::new(Box::new(HangsWhenHeld::new()), &mut start);
    program.during = "lease-live".into();
    let requests = [
        new(),
        acquire("client-1"),
        acquire("client-2"),
        Request::Holder {
            name: "file".into(),
        },
        new(),
        acquire("client-3"),
        Request::Holder {
            name: "file".into(),
        },
    ];
    for r in &requests {
        program.send(r).unwrap();
    }
    assert_eq!(program.in_flight(), 7);
    let replies: Vec<String> = (0..7)
        .map(|_| program.receive().unwrap().describe())
        .collect();
    assert_eq!(
        replies,
        [
            "ok",
            "lease token 1 (expires 10.0)",
            "no answer: it did not answer within 2.0 s",
            "no answer: it stopped at an earlier call, so this one was never answered",
            "ok",
            "lease token 1 (expires 10.0)",
            "\"client-3\"",
        ]
    );
    assert_eq!(program.in_flight(), 0);
    assert_eq!(
        program.stops,
        [Stop {
            call: "acquire(file, client-2)".into(),
            how: "did not answer within 2.0 s".into(),
            during: "lease-live".into(),
        }]
    );
    assert_eq!(started.get(), 1);
    // Both programs' answers are counted: two before the stop, three after.
    assert_eq!(program.answered(), 5);
}

/// A program that stops again and again ends the check once it has been started again
/// [`MOST_RESTARTS`] times, saying so.
#[test]
fn a_program_that_keeps_stopping_ends_the_check_after_its_restarts() {
    let mut start =
        || -> Result<Box<dyn Subject>, ProtocolError> { Ok(Box::new(HangsWhenHeld::new())) };
    let mut program = Restarting::new(Box::new(HangsWhenHeld::new()), &mut start);
    for round in 0..=MOST_RESTARTS {
        for r in [new(), acquire("client-1"), acquire("client-2")] {
            program.send(&r).unwrap();
        }
        program.receive().unwrap();
        program.receive().unwrap();
        let third = program.receive();
        if round < MOST_RESTARTS {
            assert!(matches!(third, Ok(Reply::Stopped(_))), "round {round}");
        } else {
            let error = third.unwrap_err();
            assert!(
                error.sentence.ends_with(
                    "(it had stopped answering 24 times before, and was started again each time)"
                ),
                "{}",
                error.sentence
            );
        }
    }
    assert_eq!(program.stops.len(), MOST_RESTARTS);
}

/// Any other protocol error (a garbled reply) still ends the check at once.
#[test]
fn a_garbled_reply_is_not_a_stop() {
    struct Garbles;
    impl Subject for Garbles {
        fn send(&mut self, _: &Request) -> Result<(), ProtocolError> {
            Ok(())
        }
        fn receive(&mut self) -> Result<Reply, ProtocolError> {
            Err(ProtocolError::new(
                "the program replied 'hello', which is not JSON",
            ))
        }
        fn in_flight(&self) -> usize {
            1
        }
        fn language(&self) -> &str {
            "a test double"
        }
        fn answered(&self) -> u64 {
            0
        }
    }
    let mut start = || -> Result<Box<dyn Subject>, ProtocolError> { Ok(Box::new(Garbles)) };
    let mut program = Restarting::new(Box::new(Garbles), &mut start);
    program.send(&new()).unwrap();
    assert!(program.receive().is_err());
    assert!(program.stops.is_empty());
}

/// A program that stops and then cannot be started again ends the check, saying both.
#[test]
fn a_program_that_cannot_be_started_again_ends_the_check_saying_why() {
    let mut start = || -> Result<Box<dyn Subject>, ProtocolError> {
        Err(ProtocolError::new(
            "the program exited with status 4 before answering hello",
        ))
    };
    let mut program = Restarting::new(Box::new(HangsWhenHeld::new()), &mut start);
    for r in [new(), acquire("client-1"), acquire("client-2")] {
        program.send(&r).unwrap();
    }
    program.receive().unwrap();
    program.receive().unwrap();
    let error = program.receive().unwrap_err();
    assert_eq!(
        error.sentence,
        "the program did not answer within 2.0 s at request 3, and it could not be started \
         again: the program exited with status 4 before answering hello"
    );
}
