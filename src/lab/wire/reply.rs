//! A reply line read under the one convention (docs/lab-protocol.md): its JSON taken apart
//! into the fields of both protocol versions, its strings escaped where they enter, and what the
//! method returned interpreted for the request it answers.

use serde_json::{Map, Value};

use super::{as_token, one_line, LeaseReply, LeaseSays, Reply, Request};
use crate::sim::text::printable;

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
