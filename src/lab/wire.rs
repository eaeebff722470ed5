//! The lab protocol's lines (docs/lab-protocol.md): requests as fencing-lab writes them, and
//! replies read under the one convention every language shares. An adapter only reports what a
//! method did (`returned`, `threw`); this module decides what that means, so the same code gets
//! the same verdict in every language.

use serde_json::Value;

use crate::sim::text::printable;

mod fault;
mod reply;

pub use fault::{ProtocolError, Timeouts, DEFAULT_STARTUP, DEFAULT_TIMEOUT};
pub use reply::parse_reply;

/// The largest token the protocol carries (a scenario's limit too).
pub use crate::sim::scenario::MAX_TOKEN;

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
    /// The request's `op`, as the protocol names it.
    pub fn op(&self) -> &'static str {
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

    /// The request as one protocol line (without the newline).
    pub fn to_line(&self, id: u64) -> String {
        let mut line = Vec::new();
        self.write_line(id, &mut line);
        String::from_utf8(line).expect("JSON is UTF-8")
    }

    /// Appends the request's line (without the newline) to `out`: its `op`, its fields in the
    /// order docs/lab-protocol.md gives them, then its `id`. Written field by field, since a
    /// whole check writes tens of thousands of them.
    pub fn write_line(&self, id: u64, out: &mut Vec<u8>) {
        fn field(out: &mut Vec<u8>, name: &str, value: &impl serde::Serialize) {
            out.extend_from_slice(b",\"");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\":");
            serde_json::to_writer(&mut *out, value).expect("a string or number serializes");
        }
        out.extend_from_slice(b"{\"op\":\"");
        out.extend_from_slice(self.op().as_bytes());
        out.push(b'"');
        match self {
            Request::Hello => {}
            Request::New {
                lease_seconds,
                first_token,
            } => {
                if let Some(l) = lease_seconds {
                    field(out, "lease_seconds", l);
                }
                if let Some(t) = first_token {
                    field(out, "first_token", t);
                }
            }
            Request::Clock { now } => field(out, "now", now),
            Request::Acquire { name, client_id } => {
                field(out, "name", name);
                field(out, "client_id", client_id);
            }
            Request::Renew {
                name,
                client_id,
                token,
            }
            | Request::Release {
                name,
                client_id,
                token,
            } => {
                field(out, "name", name);
                field(out, "client_id", client_id);
                field(out, "token", token);
            }
            Request::Holder { name } => field(out, "name", name),
            Request::Write { key, value, token } => {
                field(out, "key", key);
                field(out, "value", value);
                field(out, "token", token);
            }
            Request::Read { key } | Request::HighestToken { key } => field(out, "key", key),
        }
        field(out, "id", &id);
        out.push(b'}');
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
}

/// A lease as the student's code returned it.
#[derive(Clone, Debug, PartialEq)]
pub struct LeaseReply {
    pub token: u64,
    /// `None` when the student's lease object has no expiry field.
    pub expires_at: Option<f64>,
    /// What else the lease says of itself, where its object has the field.
    pub says: Box<LeaseSays>,
}

impl LeaseReply {
    /// A lease that says only its token and expiry.
    pub fn new(token: u64, expires_at: Option<f64>) -> LeaseReply {
        LeaseReply {
            token,
            expires_at,
            says: Box::default(),
        }
    }
}

/// A lease object's other fields, each as it came (`null` included) where the object has it,
/// `None` where it has no such field: the protocol asks only for the token and the expiry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LeaseSays {
    pub name: Option<Value>,
    pub client_id: Option<Value>,
    pub granted_at: Option<Value>,
    /// An expiry that is not a number of seconds (a date, a string), as it came: the lease is
    /// judged as one that says no expiry, and the experiments tell this once.
    pub expiry_not_seconds: Option<String>,
}

/// What the student's code did with one request, read under the one convention.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Hello {
        language: String,
    },
    /// `new` or `clock` worked.
    Done,
    /// A release or write succeeded. `none` holds how the language wrote the none it returned
    /// (`None`, `undefined`), which also counts as success.
    Succeeded {
        none: Option<String>,
    },
    /// acquire or renew: a lease, or none ("no lease").
    Lease(Option<LeaseReply>),
    Holder(Option<String>),
    Value(Option<String>),
    Token(Option<u64>),
    /// It threw or raised (the error's text), or returned false.
    Refused(String),
    /// It returned something of another type: what came back and what was expected.
    Strange(String),
    /// The starter's "not implemented yet", naming the method.
    NotImplemented(String),
    /// No answer: the program stopped (a call that never returned, an exit) and was started
    /// again; how it stopped.
    Stopped(String),
}

impl Reply {
    /// The reply as a transcript says it: `none`, `lease token 2 (expires 20.0)`, `refused ("...")`.
    /// A none is `none` in every language: the seed's word for it.
    pub fn describe(&self) -> String {
        match self {
            Reply::Hello { language } => format!("hello from {}", one_line(language)),
            Reply::Done | Reply::Succeeded { none: None } => "ok".into(),
            Reply::Succeeded { none: Some(word) } => format!("ok (returned {})", one_line(word)),
            Reply::Lease(None) => "none".into(),
            Reply::Lease(Some(l)) => match (l.expires_at, &l.says.expiry_not_seconds) {
                (Some(e), _) => format!("lease token {} (expires {})", l.token, fmt_time(e)),
                (None, Some(shown)) => format!(
                    "lease token {} (expires {}, not a number of seconds)",
                    l.token,
                    one_line(shown)
                ),
                (None, None) => format!("lease token {}", l.token),
            },
            Reply::Holder(h) | Reply::Value(h) => match h {
                Some(h) => format!("\"{}\"", one_line(h)),
                None => "none".into(),
            },
            Reply::Token(t) => t.map_or("none".into(), |t| t.to_string()),
            Reply::Refused(m) => format!("refused (\"{}\")", one_line(m)),
            Reply::Strange(what) => one_line(what),
            Reply::NotImplemented(m) => format!("not implemented yet ({})", one_line(m)),
            Reply::Stopped(how) => format!("no answer: it {}", one_line(how)),
        }
    }

    /// Whether the program stopped answering instead (and was started again).
    pub fn is_stop(&self) -> bool {
        matches!(self, Reply::Stopped(_))
    }

    /// Whether nothing a caller could use came back: a value of another type, or no answer.
    pub fn is_unusable(&self) -> bool {
        matches!(self, Reply::Strange(_) | Reply::Stopped(_))
    }

    /// Whether the call did not do what was asked: refused, no lease, or not written yet.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            Reply::Refused(_) | Reply::NotImplemented(_) | Reply::Lease(None)
        )
    }
}

/// A student's text made safe for a terminal, one line, at most 200 characters.
pub fn one_line(text: &str) -> String {
    let flat = crate::sim::text::one_line(text);
    let safe = printable(&flat);
    if safe.chars().count() > 200 {
        format!("{}…", safe.chars().take(200).collect::<String>())
    } else {
        safe.into_owned()
    }
}

/// A token: a whole number from 0 to 2^53 - 1, even when a language prints it as `2.0`.
pub fn as_token(value: &Value) -> Option<u64> {
    let token = value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= MAX_TOKEN as f64)
            .map(|f| f as u64)
    })?;
    (token <= MAX_TOKEN).then_some(token)
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

/// A reply line quoted in an error, made printable and cut at 120 characters.
pub fn shorten(line: &str) -> String {
    let line = printable(line);
    if line.chars().count() > 120 {
        format!("{}…", line.chars().take(120).collect::<String>())
    } else {
        line.into_owned()
    }
}

#[cfg(test)]
mod tests;
