//! The lab protocol's lines (docs/lab-protocol.md): requests as fencing-lab writes them, and
//! replies read under the one convention every language shares. An adapter only reports what a
//! method did (`returned`, `threw`); this module decides what that means, so the same code gets
//! the same verdict in every language.

use serde_json::{Map, Value};

use crate::sim::text::printable;

mod fault;

pub use fault::{ProtocolError, Timeouts, DEFAULT_STARTUP, DEFAULT_TIMEOUT};

/// The largest token the protocol carries: JSON numbers are exact up to 2^53 - 1 in every
/// language a student writes.
pub const MAX_TOKEN: u64 = (1 << 53) - 1;

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

/// A reply's top-level field: absent, or given (`null` included, which means something).
#[derive(Default)]
enum Field {
    #[default]
    Absent,
    Given(Value),
}

impl<'de> serde::Deserialize<'de> for Field {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(Field::Given)
    }
}

impl Field {
    fn get(&self) -> Option<&Value> {
        match self {
            Field::Absent => None,
            Field::Given(v) => Some(v),
        }
    }

    fn escape(&mut self) {
        if let Field::Given(v) = self {
            *v = escaped(std::mem::take(v));
        }
    }
}

/// A reply line's fields, read straight into place: no map is built for the reply itself, only
/// for a returned object (a lease). Fields of neither version are ignored.
#[derive(serde::Deserialize)]
struct Fields {
    #[serde(default)]
    id: Field,
    #[serde(default)]
    threw: Field,
    #[serde(default)]
    refused: Field,
    #[serde(default)]
    not_implemented: Field,
    #[serde(default)]
    hello: Field,
    #[serde(default)]
    language: Field,
    #[serde(default)]
    done: Field,
    #[serde(default)]
    returned: Field,
    #[serde(default)]
    shown: Field,
    #[serde(default)]
    lease: Field,
    #[serde(default)]
    holder: Field,
    #[serde(default)]
    value: Field,
    #[serde(default)]
    token: Field,
}

impl Fields {
    fn escape(&mut self) {
        for field in [
            &mut self.threw,
            &mut self.refused,
            &mut self.not_implemented,
            &mut self.language,
            &mut self.returned,
            &mut self.shown,
            &mut self.lease,
            &mut self.holder,
            &mut self.value,
        ] {
            field.escape();
        }
    }
}

/// Parses a reply to `request`. `Err` says what is wrong with the line: a protocol error.
pub fn parse_reply(line: &str, id: u64, request: &Request) -> Result<Reply, String> {
    // A byte-order mark (C# on Windows writes one first) is no part of the JSON.
    let line = line.strip_prefix('\u{feff}').unwrap_or(line);
    // Read into fields, an array would pass for an object: only an object is a reply.
    let an_object = line.trim_start().starts_with('{');
    let mut object: Fields = serde_json::from_str(line).map_err(|e| match e.classify() {
        serde_json::error::Category::Data if an_object => {
            // A field given twice, say: serde's words, without its line and column.
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message);
            format!("is not a reply ({})", one_line(message))
        }
        serde_json::error::Category::Data => "is not a JSON object".to_owned(),
        _ => "is not JSON (print debugging output on stderr, never on stdout)".to_owned(),
    })?;
    if !an_object {
        return Err("is not a JSON object".to_owned());
    }
    // What the program sends is shown, never obeyed: every string in it escaped where it enters,
    // so no report, lesson or event passes a control character on.
    if !is_plain(line) {
        object.escape();
    }
    match object.id.get().and_then(Value::as_u64) {
        Some(got) if got == id => {}
        Some(got) => return Err(format!("carries id {got} instead of {id}")),
        None => return Err("has no numeric `id`".to_owned()),
    }
    let text_of = |value: &Value| value.as_str().map_or(value.to_string(), str::to_owned);
    if let Some(message) = object.threw.get().or_else(|| object.refused.get()) {
        return Ok(Reply::Refused(text_of(message)));
    }
    if let Some(method) = object.not_implemented.get() {
        return Ok(Reply::NotImplemented(text_of(method)));
    }
    let expected = |what: &str| format!("is not a reply to {} (expected {what})", request.op());
    match request {
        Request::Hello => match object.hello.get() {
            Some(_) => Ok(Reply::Hello {
                language: object
                    .language
                    .get()
                    .and_then(Value::as_str)
                    .unwrap_or("an unnamed language")
                    .to_owned(),
            }),
            None => Err(expected("`hello`")),
        },
        Request::New { .. } | Request::Clock { .. } => match object.done.get() {
            Some(Value::Bool(true)) => Ok(Reply::Done),
            _ => Err(expected("`done: true` or `threw`")),
        },
        _ => {
            let shown = object.shown.get().and_then(Value::as_str);
            match returned(&object, request) {
                Some(value) => Ok(interpret(request, value, shown)),
                None => Err(expected("`returned` or `threw`")),
            }
        }
    }
}

/// The method's return value: version 2's `returned`, or a version 1 field meaning the same.
fn returned<'a>(object: &'a Fields, request: &Request) -> Option<&'a Value> {
    const TRUE: Value = Value::Bool(true);
    if let Some(value) = object.returned.get() {
        return Some(value);
    }
    let legacy = match request {
        Request::Acquire { .. } | Request::Renew { .. } => &object.lease,
        Request::Release { .. } | Request::Write { .. } => {
            return matches!(object.done.get(), Some(Value::Bool(true))).then_some(&TRUE);
        }
        Request::Holder { .. } => &object.holder,
        Request::Read { .. } => &object.value,
        Request::HighestToken { .. } => &object.token,
        Request::Hello | Request::New { .. } | Request::Clock { .. } => return None,
    };
    legacy.get()
}

/// What a returned value means for this request, under the one convention: `false` refuses;
/// from acquire and renew a none is "no lease"; from release and write anything but `false`
/// succeeds; anything of another type is shown for what it is.
fn interpret(request: &Request, value: &Value, shown: Option<&str>) -> Reply {
    let shown_as = || shown.map_or_else(|| show(value), str::to_owned);
    let strange = |wanted: &str| Reply::Strange(format!("{}, not {wanted}", shown_as()));
    match request {
        Request::Acquire { .. } | Request::Renew { .. } => match value {
            Value::Null | Value::Bool(false) => Reply::Lease(None),
            Value::Object(lease) => match lease_of(lease) {
                Ok(lease) => Reply::Lease(Some(lease)),
                Err(why) => Reply::Strange(format!("{} ({why})", shown_as())),
            },
            _ => strange("a lease or none"),
        },
        Request::Release { .. } | Request::Write { .. } => match value {
            Value::Bool(false) => Reply::Refused(format!("returned {}", shown_as())),
            Value::Null => Reply::Succeeded {
                none: Some(shown.unwrap_or("null").to_owned()),
            },
            _ => Reply::Succeeded { none: None },
        },
        Request::Holder { .. } | Request::Read { .. } => {
            let text = match value {
                Value::Null => None,
                Value::String(s) => Some(s.clone()),
                _ => return strange("a string or none"),
            };
            if matches!(request, Request::Holder { .. }) {
                Reply::Holder(text)
            } else {
                Reply::Value(text)
            }
        }
        Request::HighestToken { .. } => match value {
            Value::Null => Reply::Token(None),
            _ => match as_token(value) {
                Some(t) => Reply::Token(Some(t)),
                None => strange("a whole number or none"),
            },
        },
        Request::Hello | Request::New { .. } | Request::Clock { .. } => Reply::Done,
    }
}

/// A lease object's field, however the language cases it: `expires_at`, `expiresAt` and Go's
/// or C#'s `ExpiresAt` are one field.
fn field<'a>(lease: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    let plain = |key: &str| -> String {
        key.chars()
            .filter(|c| *c != '_')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = plain(name);
    lease.get(name).or_else(|| {
        lease
            .iter()
            .find_map(|(key, value)| (plain(key) == wanted).then_some(value))
    })
}

/// A lease object's token and expiry.
fn lease_of(lease: &Map<String, Value>) -> Result<LeaseReply, &'static str> {
    let token = field(lease, "token")
        .ok_or("a lease needs a token field")
        .and_then(|t| as_token(t).ok_or("its token is not a whole number from 0 to 2^53 - 1"))?;
    let expiry = field(lease, "expires_at").filter(|v| !v.is_null());
    let seconds = expiry.and_then(Value::as_f64).filter(|e| e.is_finite());
    let says = LeaseSays {
        name: field(lease, "name").cloned(),
        client_id: field(lease, "client_id").cloned(),
        granted_at: field(lease, "granted_at").cloned(),
        expiry_not_seconds: expiry.filter(|_| seconds.is_none()).map(show),
    };
    let expires_at = seconds;
    Ok(LeaseReply {
        token,
        expires_at,
        says: Box::new(says),
    })
}

/// `value` with every string in it, keys included, made printable.
fn escaped(value: Value) -> Value {
    match value {
        Value::String(text) => match printable(&text) {
            std::borrow::Cow::Borrowed(_) => Value::String(text),
            std::borrow::Cow::Owned(safe) => Value::String(safe),
        },
        Value::Array(items) => Value::Array(items.into_iter().map(escaped).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .map(|(key, v)| (printable(&key).into_owned(), escaped(v)))
                .collect(),
        ),
        other => other,
    }
}

/// A line of plain ASCII with no JSON escape, the usual reply: it can hold no control
/// character, so it needs no escaping and is taken as it is.
fn is_plain(line: &str) -> bool {
    line.bytes()
        .all(|b| b.is_ascii() && b != b'\\' && !b.is_ascii_control())
}

/// A JSON value as the transcript shows a returned value with no `shown` of its own.
fn show(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
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
