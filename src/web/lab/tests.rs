use super::*;

/// A host whose code answers every request with the reply `answer` makes of it.
struct Scripted {
    answer: fn(&serde_json::Value) -> serde_json::Value,
    started: u32,
    numbers: Vec<u64>,
}

impl Host for Scripted {
    fn start(&mut self) -> Result<(), String> {
        self.started += 1;
        Ok(())
    }
    fn call(&mut self, number: u64, line: &str) -> String {
        self.numbers.push(number);
        let request: serde_json::Value = serde_json::from_str(line).unwrap();
        let mut reply = (self.answer)(&request);
        reply["id"] = request["id"].clone();
        reply.to_string()
    }
}

fn greeting(request: &serde_json::Value) -> serde_json::Value {
    match request["op"].as_str() {
        Some("hello") => serde_json::json!({"hello": "fencing-lab-adapter", "language": "a page"}),
        _ => serde_json::json!({"done": true}),
    }
}

/// The host's code is greeted, each call numbered over the whole check, and a call the page
/// saw never return is answered "no answer" without reaching the code, the code started again.
#[test]
fn calls_are_numbered_and_a_stopped_one_is_answered_without_the_code() {
    let host = Arc::new(Mutex::new(Scripted {
        answer: greeting,
        started: 0,
        numbers: Vec::new(),
    }));
    let stops = Arc::new(Stops {
        at: vec![2],
        waited_ms: 2000,
    });
    let counter = Arc::new(AtomicU64::new(0));
    let mut program = HostProgram::start(host.clone(), counter, stops).unwrap();
    assert_eq!(program.language(), "a page");
    let new = Request::New {
        lease_seconds: None,
        first_token: None,
    };
    program.send(&new).unwrap();
    program.send(&new).unwrap();
    program.send(&new).unwrap();
    assert_eq!(program.receive().unwrap(), Reply::Done);
    let stopped = program.receive().unwrap_err();
    assert_eq!(
        stopped.stopped.as_deref(),
        Some("did not answer within 2.0 s")
    );
    // Stopped, it answers nothing more, as a process that stopped answering does not.
    assert_eq!(program.receive().unwrap_err(), stopped);
    assert_eq!(
        host.lock().unwrap().numbers,
        [0, 1],
        "calls 2 and 3 never reached the code"
    );
}

/// A program that does not answer as the protocol says is one sentence, quoting it.
#[test]
fn a_reply_that_is_no_reply_is_one_sentence() {
    let host = Arc::new(Mutex::new(Scripted {
        answer: |_| serde_json::json!({"nonsense": 1}),
        started: 0,
        numbers: Vec::new(),
    }));
    let error = HostProgram::start(host, Arc::default(), Arc::default())
        .err()
        .unwrap();
    assert!(
        error
            .sentence
            .starts_with("your code replied '{\"nonsense\":1,\"id\":0}', which"),
        "{}",
        error.sentence
    );
    assert!(
        error.sentence.ends_with("at request 0 (hello)"),
        "{}",
        error.sentence
    );
}
