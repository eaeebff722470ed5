//! etcd's v3 API through its JSON gateway (`POST /v3/...`), over one or more endpoints: a call
//! that cannot reach a member, or that a member cannot serve for want of a leader, goes to the
//! next endpoint until one answers or the call's patience runs out. A cluster that answers
//! "no leader" is electing one and is waited for; one where no endpoint answers at all may be
//! given up on sooner (its silence).

use std::fmt;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::http::{Connection, Url};

/// gRPC's codes for "try again, maybe elsewhere": UNAVAILABLE and DEADLINE_EXCEEDED (etcd's "no
/// leader", "leader changed", "request timed out"), and CANCELLED, which a member being shut
/// down (SIGTERM, `systemctl stop`) answers ("grpc: the client connection is closing"): the
/// lesson cancels no request of its own.
const RETRYABLE: [i64; 3] = [14, 4, 1];

/// Why a call failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EtcdError {
    /// No endpoint answered in time; the last reason.
    Unreachable(String),
    /// etcd answered, and refused: its gRPC code and message.
    Refused { code: i64, message: String },
    /// The answer was not what etcd's gateway sends.
    Garbled(String),
}

impl fmt::Display for EtcdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EtcdError::Unreachable(why) => write!(f, "no etcd endpoint answered ({why})"),
            EtcdError::Refused { message, .. } => write!(f, "etcd refused it: {message}"),
            EtcdError::Garbled(why) => write!(f, "etcd's answer made no sense: {why}"),
        }
    }
}

/// A client of one etcd cluster, through one of its endpoints at a time.
pub struct Etcd {
    conns: Vec<Connection>,
    current: usize,
    patience: Duration,
    /// How long a call waits when no endpoint answers anything at all (at most `patience`).
    silence: Duration,
    /// Why the last call left an endpoint for another, until taken.
    moved: Option<String>,
}

impl Etcd {
    /// A client of the cluster at `urls` (tried in order); each request waits at most
    /// `timeout` on one endpoint, and a call tries endpoints for at most `patience`.
    pub fn new(urls: &[Url], timeout: Duration, patience: Duration) -> Etcd {
        assert!(!urls.is_empty(), "an etcd client needs an endpoint");
        Etcd {
            conns: urls
                .iter()
                .map(|u| Connection::new(u.clone(), timeout))
                .collect(),
            current: 0,
            patience,
            silence: patience,
            moved: None,
        }
    }

    /// The same client, giving a call up after `silence` when no endpoint has answered it at
    /// all (refused connections, timeouts), while one that answers "no leader yet" is still
    /// waited for up to its patience.
    pub fn with_silence(mut self, silence: Duration) -> Etcd {
        self.silence = silence.min(self.patience);
        self
    }

    /// The endpoint in use now.
    pub fn endpoint(&self) -> String {
        self.conns[self.current].url().to_string()
    }

    /// When the last calls moved to another endpoint: the one in use now, and why the one
    /// before failed.
    pub fn take_move(&mut self) -> Option<(String, String)> {
        let why = self.moved.take()?;
        Some((self.endpoint(), why))
    }

    /// `POST path` with `body`; etcd's answer (the first object of a streamed one).
    pub fn call(&mut self, path: &str, body: &Value) -> Result<Value, EtcdError> {
        let bytes = body.to_string().into_bytes();
        let started = Instant::now();
        let mut tried = 0;
        let mut last_why = String::new();
        // Whether any endpoint answered this call (even "no leader yet").
        let mut heard = false;
        loop {
            let conn = &mut self.conns[self.current];
            let why = match conn.request("POST", path, &bytes) {
                Ok(response) => match answer(response.status, &response.body) {
                    Ok(value) => {
                        if tried > 0 {
                            self.moved = Some(last_why);
                        }
                        return Ok(value);
                    }
                    Err(EtcdError::Refused { code, message }) if RETRYABLE.contains(&code) => {
                        heard = true;
                        format!("{}: {message}", conn.url())
                    }
                    Err(EtcdError::Unreachable(why)) => format!("{}: {why}", conn.url()),
                    Err(refused) => return Err(refused),
                },
                Err(e) => {
                    conn.close();
                    format!("{}: {e}", conn.url())
                }
            };
            tried += 1;
            let waited = if heard { self.patience } else { self.silence };
            if started.elapsed() >= waited {
                return Err(EtcdError::Unreachable(why));
            }
            last_why = why;
            self.current = (self.current + 1) % self.conns.len();
            if tried % self.conns.len() == 0 {
                // Every endpoint failed once: give the cluster a moment (an election).
                std::thread::sleep(Duration::from_millis(150));
            }
        }
    }
}

/// What a reply means: etcd's answer, its refusal, or neither.
fn answer(status: u16, body: &[u8]) -> Result<Value, EtcdError> {
    let text = String::from_utf8_lossy(body);
    // A streamed answer (lease keep-alive) is one JSON object a line; the first is ours.
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let value: Value = match serde_json::from_str(first) {
        Ok(value) => value,
        Err(_) if status >= 500 => {
            return Err(EtcdError::Unreachable(format!("HTTP {status}")));
        }
        Err(_) => {
            return Err(EtcdError::Garbled(format!(
                "HTTP {status} with a body that is not JSON"
            )))
        }
    };
    // A streamed call wraps its answer in "result", or its failure in "error".
    let value = match value {
        Value::Object(mut obj) if obj.contains_key("result") => obj.remove("result").unwrap(),
        Value::Object(mut obj) if obj.get("error").is_some_and(Value::is_object) => {
            obj.remove("error").unwrap()
        }
        other => other,
    };
    let code = value.get("code").and_then(int);
    let message = value
        .get("message")
        .or_else(|| value.get("error"))
        .and_then(Value::as_str);
    match (status, code, message) {
        (200, None, _) => Ok(value),
        (_, Some(code), Some(message)) => Err(EtcdError::Refused {
            code,
            message: message.to_owned(),
        }),
        (503, _, _) => Err(EtcdError::Refused {
            code: 14,
            message: "HTTP 503, service unavailable".into(),
        }),
        (status, _, _) => Err(EtcdError::Garbled(format!(
            "HTTP {status} without etcd's error fields"
        ))),
    }
}

/// An integer as the gateway writes one: a string of digits (int64) or a number.
pub fn int(value: &Value) -> Option<i64> {
    match value {
        Value::String(s) => s.parse().ok(),
        Value::Number(n) => n.as_i64(),
        _ => None,
    }
}

/// An unsigned integer as the gateway writes one (uint64, a string of digits): a member id may
/// pass i64's range.
pub fn uint(value: &Value) -> Option<u64> {
    match value {
        Value::String(s) => s.parse().ok(),
        Value::Number(n) => n.as_u64(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_refusals_and_streams_are_told_apart() {
        let ok = answer(200, br#"{"header":{"revision":"4"},"ID":"7","TTL":"10"}"#).unwrap();
        assert_eq!(ok["TTL"], json!("10"));
        let streamed = answer(200, b"{\"result\":{\"ID\":\"7\",\"TTL\":\"3\"}}\n\n").unwrap();
        assert_eq!(int(&streamed["TTL"]), Some(3));
        let gone = answer(
            404,
            br#"{"error":"etcdserver: requested lease not found","message":"etcdserver: requested lease not found","code":5}"#,
        );
        assert_eq!(
            gone,
            Err(EtcdError::Refused {
                code: 5,
                message: "etcdserver: requested lease not found".into()
            })
        );
        let stream_error = answer(
            200,
            br#"{"error":{"grpc_code":14,"code":14,"message":"etcdserver: no leader"}}"#,
        );
        assert!(matches!(
            stream_error,
            Err(EtcdError::Refused { code: 14, .. })
        ));
        assert!(matches!(answer(200, b"<html>"), Err(EtcdError::Garbled(_))));
        assert!(matches!(
            answer(502, b"bad gateway"),
            Err(EtcdError::Unreachable(_))
        ));
        assert_eq!(int(&json!("-1")), Some(-1));
        assert_eq!(int(&json!(12)), Some(12));
        assert_eq!(int(&json!(null)), None);
    }

    #[test]
    fn a_call_fails_over_and_gives_up_when_its_patience_runs_out() {
        // Two ports nobody listens on: the call tries both, then says why.
        let closed = |_| {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let port = l.local_addr().unwrap().port();
            Url::parse(&format!("http://127.0.0.1:{port}")).unwrap()
        };
        let urls: Vec<Url> = (0..2).map(closed).collect();
        let mut etcd = Etcd::new(
            &urls,
            Duration::from_millis(200),
            Duration::from_millis(300),
        );
        let started = Instant::now();
        let failed = etcd.call("/v3/kv/range", &json!({})).unwrap_err();
        assert!(matches!(failed, EtcdError::Unreachable(_)), "{failed}");
        assert!(started.elapsed() < Duration::from_secs(3));
    }

    /// A member that answers, one HTTP/1.0 reply per connection: "no leader" to the first
    /// `electing` requests, then an answer.
    fn electing_member(electing: usize) -> Url {
        member(
            electing,
            "503 Service Unavailable",
            r#"{"error":"etcdserver: no leader","message":"etcdserver: no leader","code":14}"#,
        )
    }

    /// A member that answers the first `failing` requests with `status` and `failure`, and
    /// then with an answer.
    fn member(failing: usize, status: &'static str, failure: &'static str) -> Url {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for n in 0.. {
                let Ok((mut socket, _)) = listener.accept() else {
                    return;
                };
                let mut request = [0; 4096];
                let _ = socket.read(&mut request);
                let (status, body) = if n < failing {
                    (status, failure)
                } else {
                    ("200 OK", r#"{"header":{"revision":"9"}}"#)
                };
                let reply = format!("HTTP/1.0 {status}\r\n\r\n{body}");
                let _ = socket.write_all(reply.as_bytes());
            }
        });
        Url::parse(&format!("http://127.0.0.1:{port}")).unwrap()
    }

    #[test]
    fn a_cluster_electing_a_leader_is_waited_for_and_a_silent_one_is_not() {
        let closed = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let port = l.local_addr().unwrap().port();
            Url::parse(&format!("http://127.0.0.1:{port}")).unwrap()
        };
        let timeout = Duration::from_millis(200);
        // Nobody listens: given up after its silence, long before its patience.
        let mut silent = Etcd::new(
            std::slice::from_ref(&closed),
            timeout,
            Duration::from_secs(20),
        )
        .with_silence(Duration::from_millis(300));
        let started = Instant::now();
        assert!(silent.call("/v3/kv/range", &json!({})).is_err());
        let took = started.elapsed();
        assert!(took < Duration::from_secs(2), "gave up after {took:?}");
        // "No leader" for well past the silence: waited for, and the answer comes.
        let mut electing = Etcd::new(
            &[closed, electing_member(8)],
            timeout,
            Duration::from_secs(20),
        )
        .with_silence(Duration::from_millis(300));
        let started = Instant::now();
        let answer = electing.call("/v3/kv/range", &json!({})).unwrap();
        assert_eq!(revision_of(&answer), Some(9));
        assert!(started.elapsed() > Duration::from_millis(300));
    }

    /// A member being shut down answers CANCELLED ("the client connection is closing"): the
    /// call goes to the next member, as for any failover, and is answered there.
    #[test]
    fn a_member_shutting_down_sends_the_call_to_the_next() {
        let closing = member(
            usize::MAX,
            "503 Service Unavailable",
            r#"{"error":"grpc: the client connection is closing","message":"grpc: the client connection is closing","code":1}"#,
        );
        let timeout = Duration::from_millis(200);
        let mut etcd = Etcd::new(
            &[closing, member(0, "", "")],
            timeout,
            Duration::from_secs(5),
        );
        let answer = etcd.call("/v3/kv/range", &json!({})).unwrap();
        assert_eq!(revision_of(&answer), Some(9));
        assert!(etcd.moved.is_some(), "the move is told");
    }

    fn revision_of(answer: &Value) -> Option<i64> {
        answer.pointer("/header/revision").and_then(int)
    }
}
