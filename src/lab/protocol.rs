//! The lab protocol's client: one request a line to a student's program, one reply a line back
//! (docs/lab-protocol.md). Everything that can go wrong with the program (garbage, the wrong id,
//! silence, an exit, a huge line) becomes a [`ProtocolError`] naming the request, what came back
//! and the end of the program's stderr.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use crate::sim::text::printable;

/// The longest reply line read; a longer one is a protocol error, not a memory hog.
pub const MAX_LINE: usize = 1024 * 1024;

/// How long a program may take to answer one request, unless `--timeout` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// How many of the program's last stderr lines a failure shows.
const STDERR_TAIL: usize = 5;

/// One call to the student's code.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    Hello,
    New {
        lease_seconds: Option<f64>,
        first_token: Option<u64>,
    },
    Clock {
        now: f64,
    },
    Acquire {
        name: String,
        client_id: String,
    },
    Renew {
        name: String,
        client_id: String,
        token: u64,
    },
    Release {
        name: String,
        client_id: String,
        token: u64,
    },
    Holder {
        name: String,
    },
    Write {
        key: String,
        value: String,
        token: u64,
    },
    Read {
        key: String,
    },
    HighestToken {
        key: String,
    },
}

impl Request {
    /// The request as one protocol line (without the newline).
    pub fn to_line(&self, id: u64) -> String {
        let mut body = match self {
            Request::Hello => json!({"op": "hello"}),
            Request::New {
                lease_seconds,
                first_token,
            } => {
                let mut v = json!({"op": "new"});
                if let Some(l) = lease_seconds {
                    v["lease_seconds"] = json!(l);
                }
                if let Some(t) = first_token {
                    v["first_token"] = json!(t);
                }
                v
            }
            Request::Clock { now } => json!({"op": "clock", "now": now}),
            Request::Acquire { name, client_id } => {
                json!({"op": "acquire", "name": name, "client_id": client_id})
            }
            Request::Renew {
                name,
                client_id,
                token,
            } => json!({"op": "renew", "name": name, "client_id": client_id, "token": token}),
            Request::Release {
                name,
                client_id,
                token,
            } => json!({"op": "release", "name": name, "client_id": client_id, "token": token}),
            Request::Holder { name } => json!({"op": "holder", "name": name}),
            Request::Write { key, value, token } => {
                json!({"op": "write", "key": key, "value": value, "token": token})
            }
            Request::Read { key } => json!({"op": "read", "key": key}),
            Request::HighestToken { key } => json!({"op": "highest_token", "key": key}),
        };
        body["id"] = json!(id);
        body.to_string()
    }

    /// The call as a student writes it: `acquire(file, client-2)`.
    pub fn call(&self) -> String {
        match self {
            Request::Hello => "hello".into(),
            Request::New {
                lease_seconds,
                first_token,
            } => {
                let mut args = vec!["clock".to_owned()];
                args.extend(lease_seconds.map(fmt_time));
                args.extend(first_token.map(|t| t.to_string()));
                format!("new LockService({})", args.join(", "))
            }
            Request::Clock { now } => format!("clock = {}", fmt_time(*now)),
            Request::Acquire { name, client_id } => format!("acquire({name}, {client_id})"),
            Request::Renew {
                name,
                client_id,
                token,
            } => format!("renew({name}, {client_id}, {token})"),
            Request::Release {
                name,
                client_id,
                token,
            } => format!("release({name}, {client_id}, {token})"),
            Request::Holder { name } => format!("holder({name})"),
            Request::Write { key, value, token } => format!("write({key}, \"{value}\", {token})"),
            Request::Read { key } => format!("read({key})"),
            Request::HighestToken { key } => format!("highest_token({key})"),
        }
    }

    fn op(&self) -> &'static str {
        match self {
            Request::Hello => "hello",
            Request::New { .. } => "new",
            Request::Clock { .. } => "clock",
            Request::Acquire { .. } => "acquire",
            Request::Renew { .. } => "renew",
            Request::Release { .. } => "release",
            Request::Holder { .. } => "holder",
            Request::Write { .. } => "write",
            Request::Read { .. } => "read",
            Request::HighestToken { .. } => "highest_token",
        }
    }
}

/// A lease as the student's code returned it.
#[derive(Clone, Debug, PartialEq)]
pub struct LeaseReply {
    pub token: u64,
    /// `None` when the student's lease object has no expiry field.
    pub expires_at: Option<f64>,
}

/// What the student's code did with one request.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Hello {
        language: String,
    },
    Done,
    Lease(Option<LeaseReply>),
    Holder(Option<String>),
    Value(Option<String>),
    Token(Option<u64>),
    /// It threw, raised or returned a refusal value, with its message.
    Refused(String),
    /// The starter's "not implemented yet", naming the method.
    NotImplemented(String),
}

impl Reply {
    /// The reply as a transcript says it: `null`, `lease token 2 (expires 20.0)`, `refused ("...")`.
    pub fn describe(&self) -> String {
        match self {
            Reply::Hello { language } => format!("hello from {language}"),
            Reply::Done => "ok".into(),
            Reply::Lease(None) => "null".into(),
            Reply::Lease(Some(l)) => match l.expires_at {
                Some(e) => format!("lease token {} (expires {})", l.token, fmt_time(e)),
                None => format!("lease token {}", l.token),
            },
            Reply::Holder(h) | Reply::Value(h) => match h {
                Some(h) => format!("\"{h}\""),
                None => "null".into(),
            },
            Reply::Token(t) => t.map_or("null".into(), |t| t.to_string()),
            Reply::Refused(m) => format!("refused (\"{}\")", crate::sim::text::one_line(m)),
            Reply::NotImplemented(m) => format!("not implemented yet ({m})"),
        }
    }

    /// Whether the call was refused (the starter's "not implemented" counts: it did not succeed).
    pub fn is_refusal(&self) -> bool {
        matches!(self, Reply::Refused(_) | Reply::NotImplemented(_))
    }
}

/// The program broke the protocol; the whole check stops (exit 2).
#[derive(Clone, Debug, PartialEq)]
pub struct ProtocolError {
    pub sentence: String,
}

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.sentence)
    }
}

enum Line {
    Text(String),
    TooLong,
    Closed,
}

/// A running program that speaks the protocol.
pub struct Program {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    next_id: u64,
    timeout: Duration,
    /// Requests answered, for the report.
    pub calls: u64,
    /// What the program said it is in its `hello` reply.
    pub language: String,
    broken: Option<ProtocolError>,
}

impl Program {
    /// Starts `command` in `dir` and greets it. Fails if it cannot start or does not say hello.
    pub fn start(mut command: Command, timeout: Duration) -> Result<Program, ProtocolError> {
        let shown = describe_command(&command);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        super::cpu::pin_this_thread();
        let mut child = command.spawn().map_err(|e| ProtocolError {
            sentence: format!("could not start {shown}: {e}"),
        })?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || read_lines(stdout, send));
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let keep = Arc::clone(&tail);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut tail = keep.lock().unwrap_or_else(|e| e.into_inner());
                if tail.len() == STDERR_TAIL {
                    tail.pop_front();
                }
                tail.push_back(line.trim().chars().take(300).collect());
            }
        });
        let mut program = Program {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: tail,
            next_id: 0,
            timeout,
            calls: 0,
            language: String::new(),
            broken: None,
        };
        match program.call(&Request::Hello)? {
            Reply::Hello { language } => program.language = language,
            other => {
                return Err(program.fail(
                    &Request::Hello,
                    format!("answered hello with {}", other.describe()),
                ))
            }
        }
        Ok(program)
    }

    /// Sends one request and waits for its reply.
    pub fn call(&mut self, request: &Request) -> Result<Reply, ProtocolError> {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        let id = self.next_id;
        self.next_id += 1;
        let line = request.to_line(id);
        let sent = self
            .stdin
            .as_mut()
            .map(|stdin| writeln!(stdin, "{line}").and_then(|()| stdin.flush()));
        if !matches!(sent, Some(Ok(()))) {
            return Err(self.exited(request, id));
        }
        let received = match self.lines.recv_timeout(self.timeout) {
            Ok(Line::Text(text)) => text,
            Ok(Line::TooLong) => {
                return Err(self.fail_id(
                    request,
                    id,
                    format!("replied with a line longer than {} MiB", MAX_LINE >> 20),
                ))
            }
            Ok(Line::Closed) | Err(RecvTimeoutError::Disconnected) => {
                return Err(self.exited(request, id))
            }
            Err(RecvTimeoutError::Timeout) => {
                return Err(self.fail_id(
                    request,
                    id,
                    format!(
                        "did not answer within {} s",
                        fmt_time(self.timeout.as_secs_f64())
                    ),
                ))
            }
        };
        let reply = parse_reply(&received, id, request).map_err(|what| {
            self.fail_id(
                request,
                id,
                format!("replied '{}', which {what}", shorten(&received)),
            )
        })?;
        self.calls += 1;
        Ok(reply)
    }

    /// The last lines the program wrote to stderr.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr
            .lock()
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default()
    }

    fn fail(&mut self, request: &Request, what: String) -> ProtocolError {
        let id = self.next_id.saturating_sub(1);
        self.fail_id(request, id, what)
    }

    fn fail_id(&mut self, request: &Request, id: u64, what: String) -> ProtocolError {
        // The stderr reader may still be catching up with the program's last words.
        std::thread::sleep(Duration::from_millis(50));
        let error = ProtocolError {
            sentence: format!(
                "the program {what} at request {id} ({}){}",
                request.call(),
                self.stderr_clause()
            ),
        };
        self.stop();
        self.broken = Some(error.clone());
        error
    }

    fn exited(&mut self, request: &Request, id: u64) -> ProtocolError {
        let status = (0..40).find_map(|_| match self.child.try_wait() {
            Ok(Some(status)) => Some(status),
            _ => {
                std::thread::sleep(Duration::from_millis(25));
                None
            }
        });
        let how = match status.and_then(|s| s.code()) {
            Some(code) => format!("exited with status {code}"),
            None => match status {
                Some(_) => "was killed by a signal".to_owned(),
                None => "closed its output".to_owned(),
            },
        };
        self.fail_id(request, id, format!("{how} before answering"))
    }

    fn stderr_clause(&self) -> String {
        let tail = self.stderr_tail();
        if tail.is_empty() {
            "; it wrote nothing on stderr".into()
        } else {
            format!("; its stderr ends: {}", tail.join(" | "))
        }
    }

    fn stop(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A time in seconds as the transcript shows it: to the millisecond when that is exact (`10.0`),
/// else every digit, so that a student's `10.000000001` is not shown as `10.0`.
pub fn fmt_time(seconds: f64) -> String {
    let ms = (seconds * 1000.0).round();
    if ms / 1000.0 == seconds {
        crate::sim::time::fmt_service_seconds(seconds)
    } else {
        format!("{seconds}")
    }
}

fn describe_command(command: &Command) -> String {
    let mut words = vec![command.get_program().to_string_lossy().into_owned()];
    words.extend(command.get_args().map(|a| a.to_string_lossy().into_owned()));
    printable(&words.join(" ")).into_owned()
}

fn shorten(line: &str) -> String {
    let line = printable(line);
    if line.chars().count() > 120 {
        format!("{}…", line.chars().take(120).collect::<String>())
    } else {
        line.into_owned()
    }
}

/// Reads stdout a line at a time, never holding more than [`MAX_LINE`] bytes of one line.
fn read_lines(stdout: impl Read, send: mpsc::Sender<Line>) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        let (consumed, done) = match reader.fill_buf() {
            Ok([]) | Err(_) => {
                let _ = send.send(Line::Closed);
                return;
            }
            Ok(chunk) => match chunk.iter().position(|&b| b == b'\n') {
                Some(end) => {
                    line.extend_from_slice(&chunk[..end]);
                    (end + 1, true)
                }
                None => {
                    line.extend_from_slice(chunk);
                    (chunk.len(), false)
                }
            },
        };
        reader.consume(consumed);
        if line.len() > MAX_LINE {
            let _ = send.send(Line::TooLong);
            return;
        }
        if done {
            let text = String::from_utf8_lossy(&line)
                .trim_end_matches('\r')
                .to_owned();
            line.clear();
            if send.send(Line::Text(text)).is_err() {
                return;
            }
        }
    }
}

/// Parses a reply to `request`; the error says what is wrong with it.
fn parse_reply(line: &str, id: u64, request: &Request) -> Result<Reply, String> {
    let value: Value = serde_json::from_str(line).map_err(|_| {
        "is not JSON (print debugging output on stderr, never on stdout)".to_owned()
    })?;
    let object = value
        .as_object()
        .ok_or_else(|| "is not a JSON object".to_owned())?;
    match object.get("id").and_then(Value::as_u64) {
        Some(got) if got == id => {}
        Some(got) => return Err(format!("carries id {got} instead of {id}")),
        None => return Err("has no numeric `id`".to_owned()),
    }
    let field = |name: &str| object.get(name).filter(|v| !v.is_null());
    if let Some(message) = object.get("refused") {
        return Ok(Reply::Refused(
            message.as_str().map_or(message.to_string(), str::to_owned),
        ));
    }
    if let Some(method) = object.get("not_implemented") {
        return Ok(Reply::NotImplemented(
            method.as_str().map_or(method.to_string(), str::to_owned),
        ));
    }
    let present = |name: &str| object.contains_key(name);
    let expected = |what: &str| format!("is not a reply to {} (expected {what})", request.op());
    let text = |name: &str| -> Result<Option<String>, String> {
        match field(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("has a `{name}` that is not a string or null")),
        }
    };
    match request {
        Request::Hello => match object.get("hello") {
            Some(_) => Ok(Reply::Hello {
                language: object
                    .get("language")
                    .and_then(Value::as_str)
                    .unwrap_or("an unnamed language")
                    .to_owned(),
            }),
            None => Err(expected("`hello`")),
        },
        Request::New { .. }
        | Request::Clock { .. }
        | Request::Release { .. }
        | Request::Write { .. } => match object.get("done") {
            Some(Value::Bool(true)) => Ok(Reply::Done),
            _ => Err(expected("`done: true` or `refused`")),
        },
        Request::Acquire { .. } | Request::Renew { .. } => {
            if !present("lease") {
                return Err(expected("`lease`"));
            }
            match field("lease") {
                None => Ok(Reply::Lease(None)),
                Some(lease) => {
                    let token = lease
                        .get("token")
                        .and_then(as_token)
                        .ok_or("has a lease without a whole, non-negative `token`")?;
                    let expires_at = match lease.get("expires_at").filter(|v| !v.is_null()) {
                        None => None,
                        Some(e) => Some(
                            e.as_f64()
                                .filter(|e| e.is_finite())
                                .ok_or("has a lease whose `expires_at` is not a number")?,
                        ),
                    };
                    Ok(Reply::Lease(Some(LeaseReply { token, expires_at })))
                }
            }
        }
        Request::Holder { .. } if present("holder") => Ok(Reply::Holder(text("holder")?)),
        Request::Read { .. } if present("value") => Ok(Reply::Value(text("value")?)),
        Request::HighestToken { .. } if present("token") => match field("token") {
            None => Ok(Reply::Token(None)),
            Some(t) => Ok(Reply::Token(Some(
                as_token(t).ok_or("has a `token` that is not a whole, non-negative number")?,
            ))),
        },
        Request::Holder { .. } => Err(expected("`holder`")),
        Request::Read { .. } => Err(expected("`value`")),
        Request::HighestToken { .. } => Err(expected("`token`")),
    }
}

/// A token: a whole number, even when a language prints it as `2.0`.
fn as_token(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9.007_199_254_740_992e15)
            .map(|f| f as u64)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::script::double::{lab_path, PATIENT, SH_HELLO};

    #[test]
    fn replies_are_read_as_their_request_expects() {
        let acquire = Request::Acquire {
            name: "file".into(),
            client_id: "client-1".into(),
        };
        assert_eq!(
            parse_reply(
                r#"{"id":3,"lease":{"token":2.0,"expires_at":10}}"#,
                3,
                &acquire
            ),
            Ok(Reply::Lease(Some(LeaseReply {
                token: 2,
                expires_at: Some(10.0)
            })))
        );
        assert_eq!(
            parse_reply(r#"{"id":3,"lease":null}"#, 3, &acquire),
            Ok(Reply::Lease(None))
        );
        assert!(parse_reply(r#"{"id":4,"lease":null}"#, 3, &acquire)
            .unwrap_err()
            .contains("id 4 instead of 3"));
        assert!(parse_reply(r#"{"id":3,"done":true}"#, 3, &acquire)
            .unwrap_err()
            .contains("not a reply to acquire"));
        assert!(parse_reply(r#"{"id":3,"lease":{"token":1.5}}"#, 3, &acquire).is_err());
        assert_eq!(
            parse_reply(r#"{"id":3,"refused":"no"}"#, 3, &acquire),
            Ok(Reply::Refused("no".into()))
        );
    }

    #[test]
    fn requests_are_lines_with_their_id_and_calls_as_a_student_writes_them() {
        let (file, client) = ("file".to_owned(), "client-1".to_owned());
        let cases = [
            (Request::Hello, "hello", r#"{"op":"hello","id":0}"#, "hello"),
            (
                Request::New {
                    lease_seconds: Some(10.0),
                    first_token: Some(1),
                },
                "new",
                r#"{"op":"new","lease_seconds":10.0,"first_token":1,"id":1}"#,
                "new LockService(clock, 10.0, 1)",
            ),
            (
                Request::New {
                    lease_seconds: None,
                    first_token: None,
                },
                "new",
                r#"{"op":"new","id":2}"#,
                "new LockService(clock)",
            ),
            (
                Request::Clock { now: 2.5 },
                "clock",
                r#"{"op":"clock","now":2.5,"id":3}"#,
                "clock = 2.5",
            ),
            (
                Request::Acquire {
                    name: file.clone(),
                    client_id: client.clone(),
                },
                "acquire",
                r#"{"op":"acquire","name":"file","client_id":"client-1","id":4}"#,
                "acquire(file, client-1)",
            ),
            (
                Request::Renew {
                    name: file.clone(),
                    client_id: client.clone(),
                    token: 2,
                },
                "renew",
                r#"{"op":"renew","name":"file","client_id":"client-1","token":2,"id":5}"#,
                "renew(file, client-1, 2)",
            ),
            (
                Request::Release {
                    name: file.clone(),
                    client_id: client.clone(),
                    token: 3,
                },
                "release",
                r#"{"op":"release","name":"file","client_id":"client-1","token":3,"id":6}"#,
                "release(file, client-1, 3)",
            ),
            (
                Request::Holder { name: file.clone() },
                "holder",
                r#"{"op":"holder","name":"file","id":7}"#,
                "holder(file)",
            ),
            (
                Request::Write {
                    key: "k".into(),
                    value: "say \"hi\"".into(),
                    token: 4,
                },
                "write",
                r#"{"op":"write","key":"k","value":"say \"hi\"","token":4,"id":8}"#,
                r#"write(k, "say "hi"", 4)"#,
            ),
            (
                Request::Read { key: "k".into() },
                "read",
                r#"{"op":"read","key":"k","id":9}"#,
                "read(k)",
            ),
            (
                Request::HighestToken { key: "k".into() },
                "highest_token",
                r#"{"op":"highest_token","key":"k","id":10}"#,
                "highest_token(k)",
            ),
        ];
        for (id, (request, op, line, call)) in cases.into_iter().enumerate() {
            assert_eq!(request.op(), op);
            assert_eq!(request.to_line(id as u64), line);
            assert_eq!(request.call(), call);
        }
    }

    #[test]
    fn replies_are_described_as_a_transcript_says_them() {
        let lease = |token, expires_at| Reply::Lease(Some(LeaseReply { token, expires_at }));
        let cases = [
            (
                Reply::Hello {
                    language: "python 3.11".into(),
                },
                "hello from python 3.11",
                false,
            ),
            (Reply::Done, "ok", false),
            (Reply::Lease(None), "null", false),
            (lease(2, Some(20.0)), "lease token 2 (expires 20.0)", false),
            (
                lease(3, Some(20.0000001)),
                "lease token 3 (expires 20.0000001)",
                false,
            ),
            (lease(4, None), "lease token 4", false),
            (
                Reply::Holder(Some("client-1".into())),
                "\"client-1\"",
                false,
            ),
            (Reply::Holder(None), "null", false),
            (Reply::Value(Some("v".into())), "\"v\"", false),
            (Reply::Value(None), "null", false),
            (Reply::Token(Some(7)), "7", false),
            (Reply::Token(None), "null", false),
            (
                Reply::Refused("not\n  yours".into()),
                "refused (\"not yours\")",
                true,
            ),
            (
                Reply::NotImplemented("LockService.acquire".into()),
                "not implemented yet (LockService.acquire)",
                true,
            ),
        ];
        for (reply, described, refusal) in cases {
            assert_eq!(reply.describe(), described);
            assert_eq!(reply.is_refusal(), refusal, "{reply:?}");
        }
    }

    #[test]
    fn every_reply_field_is_read_strictly() {
        let file = || "file".to_owned();
        let acquire = Request::Acquire {
            name: file(),
            client_id: "client-1".into(),
        };
        let renew = Request::Renew {
            name: file(),
            client_id: "client-1".into(),
            token: 1,
        };
        let holder = Request::Holder { name: file() };
        let read = Request::Read { key: "k".into() };
        let highest = Request::HighestToken { key: "k".into() };
        let done_requests = [
            Request::New {
                lease_seconds: None,
                first_token: None,
            },
            Request::Clock { now: 1.0 },
            Request::Release {
                name: file(),
                client_id: "client-1".into(),
                token: 1,
            },
            Request::Write {
                key: "k".into(),
                value: "v".into(),
                token: 1,
            },
        ];
        let err = |what: &str| Err::<Reply, String>(what.to_owned());
        let lease = |token, expires_at| Ok(Reply::Lease(Some(LeaseReply { token, expires_at })));

        // The envelope: JSON, an object, the request's id; a refusal answers any request.
        assert_eq!(
            parse_reply("debug: here", 0, &holder),
            err("is not JSON (print debugging output on stderr, never on stdout)")
        );
        assert_eq!(parse_reply("[0]", 0, &holder), err("is not a JSON object"));
        assert_eq!(
            parse_reply(r#"{"holder":null}"#, 0, &holder),
            err("has no numeric `id`")
        );
        assert_eq!(
            parse_reply(r#"{"id":"5","holder":null}"#, 5, &holder),
            err("has no numeric `id`")
        );
        assert_eq!(
            parse_reply(r#"{"id":5,"holder":null}"#, 5, &holder),
            Ok(Reply::Holder(None))
        );
        assert_eq!(
            parse_reply(r#"{"id":6,"holder":null}"#, 5, &holder),
            err("carries id 6 instead of 5")
        );
        assert_eq!(
            parse_reply(r#"{"id":4,"holder":null}"#, 5, &holder),
            err("carries id 4 instead of 5")
        );
        assert_eq!(
            parse_reply(r#"{"id":0,"refused":{"why":1}}"#, 0, &holder),
            Ok(Reply::Refused(r#"{"why":1}"#.into()))
        );
        assert_eq!(
            parse_reply(
                r#"{"id":0,"not_implemented":"LockService.holder"}"#,
                0,
                &holder
            ),
            Ok(Reply::NotImplemented("LockService.holder".into()))
        );
        assert_eq!(
            parse_reply(r#"{"id":0,"not_implemented":2}"#, 0, &holder),
            Ok(Reply::NotImplemented("2".into()))
        );

        // hello
        assert_eq!(
            parse_reply(
                r#"{"id":0,"hello":"x","language":"rust"}"#,
                0,
                &Request::Hello
            ),
            Ok(Reply::Hello {
                language: "rust".into()
            })
        );
        assert_eq!(
            parse_reply(r#"{"id":0,"hello":"x"}"#, 0, &Request::Hello),
            Ok(Reply::Hello {
                language: "an unnamed language".into()
            })
        );
        assert_eq!(
            parse_reply(r#"{"id":0,"done":true}"#, 0, &Request::Hello),
            err("is not a reply to hello (expected `hello`)")
        );

        // new, clock, release, write: `done: true`
        for request in &done_requests {
            assert_eq!(
                parse_reply(r#"{"id":1,"done":true}"#, 1, request),
                Ok(Reply::Done)
            );
            for line in [r#"{"id":1,"done":false}"#, r#"{"id":1,"done":1}"#] {
                assert_eq!(
                    parse_reply(line, 1, request),
                    Err(format!(
                        "is not a reply to {} (expected `done: true` or `refused`)",
                        request.op()
                    ))
                );
            }
        }

        // acquire, renew: `lease`
        for request in [&acquire, &renew] {
            let op = request.op();
            let parse = |line: &str| parse_reply(line, 2, request);
            assert_eq!(
                parse(r#"{"id":2,"done":true}"#),
                Err(format!("is not a reply to {op} (expected `lease`)"))
            );
            assert_eq!(parse(r#"{"id":2,"lease":null}"#), Ok(Reply::Lease(None)));
            assert_eq!(
                parse(r#"{"id":2,"lease":{"token":3,"expires_at":10.5}}"#),
                lease(3, Some(10.5))
            );
            assert_eq!(parse(r#"{"id":2,"lease":{"token":3}}"#), lease(3, None));
            assert_eq!(
                parse(r#"{"id":2,"lease":{"token":3,"expires_at":null}}"#),
                lease(3, None)
            );
            assert_eq!(
                parse(r#"{"id":2,"lease":{"token":3,"expires_at":"soon"}}"#),
                err("has a lease whose `expires_at` is not a number")
            );
            for token in ["-1", "1.5", "\"3\"", "null"] {
                assert_eq!(
                    parse(&format!(r#"{{"id":2,"lease":{{"token":{token}}}}}"#)),
                    err("has a lease without a whole, non-negative `token`"),
                    "token {token}"
                );
            }
            assert_eq!(
                parse(r#"{"id":2,"lease":{"expires_at":1}}"#),
                err("has a lease without a whole, non-negative `token`")
            );
        }

        // holder, read: a string or null
        for (request, name) in [(&holder, "holder"), (&read, "value")] {
            let parse = |line: &str| parse_reply(line, 3, request);
            let wrap = |text: Option<&str>| {
                let text = text.map(str::to_owned);
                if name == "holder" {
                    Reply::Holder(text)
                } else {
                    Reply::Value(text)
                }
            };
            assert_eq!(
                parse(&format!(r#"{{"id":3,"{name}":"client-2"}}"#)),
                Ok(wrap(Some("client-2")))
            );
            assert_eq!(
                parse(&format!(r#"{{"id":3,"{name}":null}}"#)),
                Ok(wrap(None))
            );
            assert_eq!(
                parse(&format!(r#"{{"id":3,"{name}":7}}"#)),
                Err(format!("has a `{name}` that is not a string or null"))
            );
            assert_eq!(
                parse(r#"{"id":3}"#),
                Err(format!(
                    "is not a reply to {} (expected `{name}`)",
                    request.op()
                ))
            );
        }

        // highest_token: a token or null
        let parse = |line: &str| parse_reply(line, 4, &highest);
        assert_eq!(parse(r#"{"id":4,"token":9}"#), Ok(Reply::Token(Some(9))));
        assert_eq!(parse(r#"{"id":4,"token":9.0}"#), Ok(Reply::Token(Some(9))));
        assert_eq!(parse(r#"{"id":4,"token":null}"#), Ok(Reply::Token(None)));
        assert_eq!(
            parse(r#"{"id":4,"token":"9"}"#),
            err("has a `token` that is not a whole, non-negative number")
        );
        assert_eq!(
            parse(r#"{"id":4,"value":"9"}"#),
            err("is not a reply to highest_token (expected `token`)")
        );
    }

    #[test]
    fn tokens_are_whole_non_negative_numbers_below_2_to_the_53() {
        assert_eq!(as_token(&json!(3)), Some(3));
        assert_eq!(as_token(&json!(u64::MAX)), Some(u64::MAX));
        assert_eq!(as_token(&json!(2.0)), Some(2));
        assert_eq!(as_token(&json!(0.0)), Some(0));
        assert_eq!(
            as_token(&json!(9_007_199_254_740_991.0)),
            Some(9_007_199_254_740_991)
        );
        assert_eq!(as_token(&json!(9_007_199_254_740_992.0)), None);
        assert_eq!(as_token(&json!(1e300)), None);
        assert_eq!(as_token(&json!(1.5)), None);
        assert_eq!(as_token(&json!(-1.5)), None);
        assert_eq!(as_token(&json!(-1.0)), None);
        assert_eq!(as_token(&json!(-1)), None);
        assert_eq!(as_token(&json!("2")), None);
        assert_eq!(as_token(&Value::Null), None);
    }

    #[test]
    fn times_are_shown_to_the_millisecond_or_in_full() {
        assert_eq!(fmt_time(10.0), "10.0");
        assert_eq!(fmt_time(0.0), "0.0");
        assert_eq!(fmt_time(0.3), "0.3");
        assert_eq!(fmt_time(2.5), "2.5");
        assert_eq!(fmt_time(16.402), "16.402");
        assert_eq!(fmt_time(10.000000001), "10.000000001");
        assert_eq!(fmt_time(1.2345), "1.2345");
    }

    #[test]
    fn a_reply_is_quoted_up_to_120_characters() {
        let exactly = "x".repeat(120);
        assert_eq!(shorten(&exactly), exactly);
        assert_eq!(shorten(&"é".repeat(121)), format!("{}…", "é".repeat(120)));
        assert_eq!(shorten("abc"), "abc");
        assert_eq!(shorten(""), "");
        assert_eq!(shorten("a\u{7}b"), "a\\u{7}b");
    }

    /// Runs `script` with `sh -c`: a program that answers as scripted, whatever it is asked.
    fn sh(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.arg("-c").arg(script);
        command
    }

    fn acquire() -> Request {
        Request::Acquire {
            name: "file".into(),
            client_id: "client-1".into(),
        }
    }

    #[test]
    fn a_program_answers_each_request_in_turn_and_its_calls_are_counted() {
        let script = r#"read l; printf '{"id":0,"hello":"x","language":"sh"}\r\n'
            read l; echo '{"id":1,"done":true}'
            read l; echo '{"id":2,"lease":{"token":3,"expires_at":12.5}}'
            read l; echo '{"id":3,"holder":null}'
            exec sleep 5"#;
        let mut program = Program::start(sh(script), PATIENT).unwrap();
        assert_eq!(program.language, "sh");
        assert_eq!(program.calls, 1);
        assert_eq!(program.call(&Request::Clock { now: 1.0 }), Ok(Reply::Done));
        assert_eq!(program.calls, 2);
        assert_eq!(
            program.call(&acquire()),
            Ok(Reply::Lease(Some(LeaseReply {
                token: 3,
                expires_at: Some(12.5)
            })))
        );
        assert_eq!(
            program.call(&Request::Holder {
                name: "file".into()
            }),
            Ok(Reply::Holder(None))
        );
        assert_eq!(program.calls, 4);
        assert_eq!(program.stderr_tail(), Vec::<String>::new());
    }

    #[test]
    fn a_program_that_cannot_start_is_named_with_its_arguments() {
        let mut command = Command::new("/nonexistent/fencing-lab-student");
        command.args(["--serve", "a\u{7}b"]);
        let error = Program::start(command, PATIENT).err().unwrap();
        let sentence = "could not start /nonexistent/fencing-lab-student --serve a\\u{7}b: \
                        No such file or directory (os error 2)";
        assert_eq!(error.sentence, sentence);
        assert_eq!(error.to_string(), sentence);
    }

    #[test]
    fn a_reply_with_the_wrong_id_stops_the_program_and_fails_every_later_call() {
        let script = format!(r#"{SH_HELLO}; read l; echo '{{"id":0,"done":true}}'; exec sleep 5"#);
        let mut program = Program::start(sh(&script), PATIENT).unwrap();
        let error = program.call(&Request::Clock { now: 1.0 }).unwrap_err();
        let sentence = r#"the program replied '{"id":0,"done":true}', which carries id 0 instead of 1 at request 1 (clock = 1.0); it wrote nothing on stderr"#;
        assert_eq!(error.to_string(), sentence);
        // Stopped: no stdin, killed and reaped.
        assert!(program.stdin.is_none());
        assert!(program.child.try_wait().unwrap().is_some());
        // Latched: later calls fail the same way without a request.
        assert_eq!(program.call(&Request::Hello), Err(error));
        assert_eq!(program.next_id, 2);
        assert_eq!(program.calls, 1);
    }

    #[test]
    fn a_reply_that_is_not_json_is_quoted() {
        let script = format!("{SH_HELLO}; read l; echo 'acquiring the lock'; exec sleep 5");
        let mut program = Program::start(sh(&script), PATIENT).unwrap();
        assert_eq!(
            program.call(&acquire()).unwrap_err().sentence,
            "the program replied 'acquiring the lock', which is not JSON (print debugging output \
             on stderr, never on stdout) at request 1 (acquire(file, client-1)); it wrote nothing \
             on stderr"
        );
    }

    #[test]
    fn a_program_that_exits_shows_its_status_and_its_last_five_stderr_lines() {
        let script = format!(
            r#"for i in 1 2 3 4 5 6 7; do echo "  line $i  " >&2; done; {SH_HELLO}; read l; exit 3"#
        );
        let mut program = Program::start(sh(&script), PATIENT).unwrap();
        // However busy the machine, the stderr reader has caught up before the program fails.
        let started = std::time::Instant::now();
        while program.stderr_tail().last().map(String::as_str) != Some("line 7")
            && started.elapsed() < PATIENT
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(
            program.call(&acquire()).unwrap_err().sentence,
            "the program exited with status 3 before answering at request 1 \
             (acquire(file, client-1)); its stderr ends: line 3 | line 4 | line 5 | line 6 | line 7"
        );
        assert_eq!(
            program.stderr_tail(),
            ["line 3", "line 4", "line 5", "line 6", "line 7"]
        );
    }

    #[test]
    fn a_program_killed_by_a_signal_says_so() {
        let script = format!("{SH_HELLO}; read l; kill -9 $$");
        let mut program = Program::start(sh(&script), PATIENT).unwrap();
        assert_eq!(
            program
                .call(&Request::Clock { now: 2.0 })
                .unwrap_err()
                .sentence,
            "the program was killed by a signal before answering at request 1 (clock = 2.0); \
             it wrote nothing on stderr"
        );
    }

    #[test]
    fn a_program_that_does_not_answer_in_time_is_stopped() {
        let script = format!("{SH_HELLO}; read l; exec sleep 5");
        let mut program = Program::start(sh(&script), PATIENT).unwrap();
        program.timeout = Duration::from_millis(300);
        assert_eq!(
            program.call(&acquire()).unwrap_err().sentence,
            "the program did not answer within 0.3 s at request 1 (acquire(file, client-1)); \
             it wrote nothing on stderr"
        );
        assert!(program.child.try_wait().unwrap().is_some());
    }

    /// A program whose hello reply is one line of `length` bytes, newline aside.
    fn hello_of_length(length: usize) -> Command {
        let start = r#"{"id":0,"hello":"x","language":"sh","padding":""#;
        let padding = length - start.len() - 2;
        sh(&format!(
            r#"read l; printf '%s' '{start}'; head -c {padding} /dev/zero | tr '\0' x; printf '"}}\n'; exec sleep 5"#
        ))
    }

    #[test]
    fn a_reply_line_of_one_mib_is_read_and_a_longer_one_is_refused() {
        let program = Program::start(hello_of_length(MAX_LINE), PATIENT).unwrap();
        assert_eq!(program.language, "sh");
        assert_eq!(
            Program::start(hello_of_length(MAX_LINE + 1), PATIENT)
                .err()
                .unwrap()
                .sentence,
            "the program replied with a line longer than 1 MiB at request 0 (hello); \
             it wrote nothing on stderr"
        );
    }

    #[test]
    fn hello_answered_with_anything_else_fails_at_request_0() {
        let script = r#"read l; echo '{"id":0,"refused":"not today"}'; exec sleep 5"#;
        assert_eq!(
            Program::start(sh(script), PATIENT).err().unwrap().sentence,
            "the program answered hello with refused (\"not today\") at request 0 (hello); \
             it wrote nothing on stderr"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn dropping_a_program_kills_it() {
        let program = Program::start(sh(&format!("{SH_HELLO}; exec sleep 5")), PATIENT).unwrap();
        let pid = program.child.id();
        let proc = std::path::PathBuf::from(format!("/proc/{pid}"));
        assert!(proc.exists());
        drop(program);
        assert!(!proc.exists(), "{pid} still runs");
    }

    #[test]
    fn the_python_adapter_understands_every_request() {
        if !crate::lab::script::double::python3() {
            return;
        }
        let mut command = Command::new("python3");
        command.arg(lab_path("correct/python/adapter.py"));
        let mut program = Program::start(command, PATIENT).unwrap();
        assert!(
            program.language.starts_with("python 3."),
            "{}",
            program.language
        );
        let renew = |client: &str| Request::Renew {
            name: "file".into(),
            client_id: client.into(),
            token: 5,
        };
        let release = |client: &str| Request::Release {
            name: "file".into(),
            client_id: client.into(),
            token: 5,
        };
        let write = |value: &str, token| Request::Write {
            key: "k".into(),
            value: value.into(),
            token,
        };
        let lease = |token, expires_at| Reply::Lease(Some(LeaseReply { token, expires_at }));
        let refused = |message: &str| Reply::Refused(message.into());
        let held = "lock 'file' is held by client-1, not by client-2";
        let calls = [
            (
                Request::New {
                    lease_seconds: Some(8.0),
                    first_token: Some(5),
                },
                Reply::Done,
            ),
            (Request::Clock { now: 1.5 }, Reply::Done),
            (acquire(), lease(5, Some(9.5))),
            (
                Request::Acquire {
                    name: "file".into(),
                    client_id: "client-2".into(),
                },
                Reply::Lease(None),
            ),
            (
                Request::Holder {
                    name: "file".into(),
                },
                Reply::Holder(Some("client-1".into())),
            ),
            (Request::Clock { now: 2.0 }, Reply::Done),
            (renew("client-1"), lease(5, Some(10.0))),
            (renew("client-2"), refused(held)),
            (release("client-2"), refused(held)),
            (release("client-1"), Reply::Done),
            (
                Request::Holder {
                    name: "file".into(),
                },
                Reply::Holder(None),
            ),
            (write("v", 5), Reply::Done),
            (
                write("w", 4),
                refused("token 4 is older than token 5, the highest key 'k' has accepted"),
            ),
            (
                Request::Read { key: "k".into() },
                Reply::Value(Some("v".into())),
            ),
            (
                Request::HighestToken { key: "k".into() },
                Reply::Token(Some(5)),
            ),
            (Request::Read { key: "j".into() }, Reply::Value(None)),
            (
                Request::HighestToken { key: "j".into() },
                Reply::Token(None),
            ),
        ];
        for (request, reply) in &calls {
            assert_eq!(
                program.call(request).as_ref(),
                Ok(reply),
                "{}",
                request.call()
            );
        }
        assert_eq!(program.calls, 1 + calls.len() as u64);
    }
}
