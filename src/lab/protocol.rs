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
}
