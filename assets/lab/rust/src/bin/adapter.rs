//! DO NOT EDIT. fencing-lab's adapter for Rust (`fencing-lab lab init rust` wrote it).
//!
//! `fencing-lab check .` builds this crate and runs this binary, which answers the checker's
//! requests on stdin, one JSON object a line, with one JSON reply a line on stdout (the protocol:
//! docs/lab-protocol.md in fencing-lab), calling your `LockService` and `FencedStorage` in
//! src/lib.rs. It has its own small JSON reader and writer, so the crate needs no dependencies.
//!
//! It reports what each method did and judges nothing: `Err(..)` is a refusal (`threw`, with
//! the error's text), `None` from acquire is no lease, and `Ok(..)` is what it returned. A
//! `todo!()` still in your code is reported as "not implemented yet"; any other panic is reported
//! as a refusal with its message, and the adapter carries on. Your debugging output, `println!`
//! and `eprintln!` alike, goes to stderr: the replies go out on a copy of stdout of their own.

use std::cell::RefCell;
use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};

use lab_solution::{
    FencedStorage, Lease, LockService, ManualClock, DEFAULT_FIRST_TOKEN, DEFAULT_LEASE_SECONDS,
};

/// Where the replies go: the real stdout, kept apart, while file descriptor 1 is pointed at
/// stderr, so your `println!` is debugging output (as `print` is in Python), not a broken
/// protocol.
fn replies_out() -> Box<dyn Write> {
    #[cfg(unix)]
    {
        use std::os::unix::io::FromRawFd;
        extern "C" {
            fn dup(fd: i32) -> i32;
            fn dup2(from: i32, to: i32) -> i32;
        }
        // SAFETY: dup and dup2 only copy descriptors; the copy of stdout is owned by the File.
        unsafe {
            let replies = dup(1);
            if replies >= 0 {
                if dup2(2, 1) >= 0 {
                    return Box::new(io::BufWriter::new(std::fs::File::from_raw_fd(replies)));
                }
                let _ = std::fs::File::from_raw_fd(replies);
            }
        }
    }
    Box::new(io::stdout())
}

fn main() {
    // Panics are reported in the replies, not on stderr; the hook only notes where they happened.
    panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
        PANIC_AT.with(|cell| *cell.borrow_mut() = at);
    }));

    let mut state = State {
        clock: ManualClock::new(0.0),
        service: None,
        storage: None,
        new_failed: "no `new` request yet",
    };
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = replies_out();
    let mut raw = Vec::new();
    loop {
        raw.clear();
        match input.read_until(b'\n', &mut raw) {
            Ok(0) => return, // EOF: the checker is done
            Ok(_) => {}
            Err(err) => {
                eprintln!("adapter: cannot read stdin: {err}");
                std::process::exit(1);
            }
        }
        let line = String::from_utf8_lossy(&raw);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let reply = match parse(line) {
            Ok(Json::Object(request)) => {
                let id = get(&request, "id").map_or_else(|| "null".to_owned(), to_json);
                let body = match answer(&request, &mut state) {
                    Ok(body) | Err(body) => body,
                };
                format!("{{\"id\":{id},{body}}}")
            }
            Ok(_) => refused_reply("adapter: request is not a JSON object"),
            Err(err) => {
                eprintln!("adapter: request is not JSON: {line}");
                refused_reply(&format!("adapter: request is not JSON: {err}"))
            }
        };
        // One write a reply: the checker reads a line as it comes, whole.
        let line = reply + "\n";
        if out
            .write_all(line.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            return; // the checker went away: nothing left to answer
        }
    }
}

thread_local! {
    static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

struct State {
    clock: ManualClock,
    service: Option<LockService<ManualClock>>,
    storage: Option<FencedStorage>,
    new_failed: &'static str,
}

/// A reply's fields after the id: `Ok` for an answer, `Err` for a refusal or a missing method.
type Body = Result<String, String>;

fn refused(message: &str) -> String {
    format!("\"threw\":{}", quote(message))
}

/// What a method returned: its JSON, and how Rust shows it.
fn returned(json: &str, shown: &str) -> String {
    let shown: String = shown.chars().take(200).collect();
    format!("\"returned\":{json},\"shown\":{}", quote(&shown))
}

fn refused_reply(message: &str) -> String {
    format!("{{\"id\":null,{}}}", refused(message))
}

/// Runs one of your methods; a panic becomes a `not_implemented` or `refused` body.
fn call<T>(method: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    PANIC_AT.with(|cell| *cell.borrow_mut() = None);
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_owned());
        // todo!("x") panics with "not yet implemented: x"; the starter's x is
        // "not implemented yet: LockService::acquire".
        let todo = message.strip_prefix("not yet implemented");
        let rest = todo
            .unwrap_or(&message)
            .trim_start_matches(':')
            .trim_start();
        if let Some(name) = rest.strip_prefix("not implemented yet") {
            let name = name.trim_start_matches(':').trim();
            let name = if name.is_empty() { method } else { name };
            format!("\"not_implemented\":{}", quote(name))
        } else if todo.is_some() {
            format!("\"not_implemented\":{}", quote(method))
        } else {
            let at = PANIC_AT.with(|cell| cell.borrow_mut().take());
            let at = at.map(|at| format!(" at {at}")).unwrap_or_default();
            refused(&format!("{method} panicked{at}: {message}"))
        }
    })
}

fn answer(request: &[(String, Json)], state: &mut State) -> Body {
    let op = match get(request, "op") {
        Some(Json::String(op)) => op.as_str(),
        other => {
            let op = other.map_or_else(|| "nothing".to_owned(), to_json);
            return Err(refused(&format!("adapter: unknown op {op}")));
        }
    };
    match op {
        "hello" => Ok("\"hello\":\"fencing-lab-adapter\",\"language\":\"rust\"".to_owned()),
        "new" => {
            state.clock.set(0.0);
            state.service = None;
            state.storage = None;
            let lease_seconds = optional(request, "lease_seconds", number)?;
            let first_token = optional(request, "first_token", integer)?;
            state.new_failed = "the last `new` failed";
            let clock = state.clock.clone();
            let service = call("LockService::new", move || {
                if lease_seconds.is_none() && first_token.is_none() {
                    LockService::with_defaults(clock)
                } else {
                    LockService::new(
                        clock,
                        lease_seconds.unwrap_or(DEFAULT_LEASE_SECONDS),
                        first_token.unwrap_or(DEFAULT_FIRST_TOKEN),
                    )
                }
            })?;
            let storage = call("FencedStorage::new", FencedStorage::new)?;
            state.service = Some(service);
            state.storage = Some(storage);
            Ok("\"done\":true".to_owned())
        }
        "clock" => {
            let now = required(request, "now", number)?;
            state.clock.set(now);
            Ok("\"done\":true".to_owned())
        }
        "acquire" => {
            let name = required(request, "name", string)?;
            let client_id = required(request, "client_id", string)?;
            let service = service(state)?;
            match call("LockService::acquire", || service.acquire(name, client_id))? {
                Some(lease) => Ok(returned(&lease_json(&lease), &format!("Some({lease:?})"))),
                None => Ok(returned("null", "None")),
            }
        }
        "renew" => {
            let name = required(request, "name", string)?;
            let client_id = required(request, "client_id", string)?;
            let token = required(request, "token", integer)?;
            let service = service(state)?;
            match call("LockService::renew", || {
                service.renew(name, client_id, token)
            })? {
                Ok(lease) => Ok(returned(&lease_json(&lease), &format!("Ok({lease:?})"))),
                Err(err) => Err(refused(&err.to_string())),
            }
        }
        "release" => {
            let name = required(request, "name", string)?;
            let client_id = required(request, "client_id", string)?;
            let token = required(request, "token", integer)?;
            let service = service(state)?;
            match call("LockService::release", || {
                service.release(name, client_id, token)
            })? {
                Ok(()) => Ok(returned("null", "Ok(())")),
                Err(err) => Err(refused(&err.to_string())),
            }
        }
        "holder" => {
            let name = required(request, "name", string)?;
            let service = service(state)?;
            let holder = call("LockService::holder", || service.holder(name).map(str::to_owned))?;
            Ok(returned(
                &holder.as_deref().map_or_else(|| "null".to_owned(), quote),
                &format!("{holder:?}"),
            ))
        }
        "write" => {
            let key = required(request, "key", string)?;
            let value = required(request, "value", string)?;
            let token = required(request, "token", integer)?;
            let storage = storage(state)?;
            match call("FencedStorage::write", || storage.write(key, value, token))? {
                Ok(()) => Ok(returned("null", "Ok(())")),
                Err(err) => Err(refused(&err.to_string())),
            }
        }
        "read" => {
            let key = required(request, "key", string)?;
            let storage = storage(state)?;
            let value = call("FencedStorage::read", || storage.read(key).map(str::to_owned))?;
            Ok(returned(
                &value.as_deref().map_or_else(|| "null".to_owned(), quote),
                &format!("{value:?}"),
            ))
        }
        "highest_token" => {
            let key = required(request, "key", string)?;
            let storage = storage(state)?;
            let token = call("FencedStorage::highest_token", || {
                storage.highest_token(key)
            })?;
            Ok(returned(
                &token.map_or_else(|| "null".to_owned(), |t| t.to_string()),
                &format!("{token:?}"),
            ))
        }
        other => Err(refused(&format!("unknown op {other}"))),
    }
}

fn service(state: &mut State) -> Result<&mut LockService<ManualClock>, String> {
    let why = state.new_failed;
    state
        .service
        .as_mut()
        .ok_or_else(|| refused(&format!("no LockService: {why}")))
}

fn storage(state: &mut State) -> Result<&mut FencedStorage, String> {
    let why = state.new_failed;
    state
        .storage
        .as_mut()
        .ok_or_else(|| refused(&format!("no FencedStorage: {why}")))
}

fn lease_json(lease: &Lease) -> String {
    format!(
        "{{\"name\":{},\"client_id\":{},\"token\":{},\"granted_at\":{},\"expires_at\":{}}}",
        quote(&lease.name),
        quote(&lease.client_id),
        lease.token,
        float(lease.granted_at),
        float(lease.expires_at)
    )
}

/// A JSON number that reads back as the same f64 (JSON has no NaN or infinity: null).
fn float(x: f64) -> String {
    if x.is_finite() {
        format!("{x:?}")
    } else {
        "null".to_owned()
    }
}

// ---- request fields ----

static NULL: Json = Json::Null;

/// A field that must be there.
fn required<'a, T>(
    request: &'a [(String, Json)],
    name: &str,
    extract: fn(&'a Json) -> Result<T, &'static str>,
) -> Result<T, String> {
    let value = get(request, name).unwrap_or(&NULL);
    extract(value).map_err(|kind| bad_field(name, kind, value))
}

/// A field that may be absent (or null): then `None`.
fn optional<'a, T>(
    request: &'a [(String, Json)],
    name: &str,
    extract: fn(&'a Json) -> Result<T, &'static str>,
) -> Result<Option<T>, String> {
    match get(request, name) {
        None | Some(Json::Null) => Ok(None),
        Some(value) => extract(value)
            .map(Some)
            .map_err(|kind| bad_field(name, kind, value)),
    }
}

fn bad_field(name: &str, kind: &str, value: &Json) -> String {
    let got = match value {
        Json::Null => "nothing".to_owned(),
        other => to_json(other),
    };
    refused(&format!(
        "adapter: request field '{name}' must be {kind}, got {got}"
    ))
}

fn string(value: &Json) -> Result<&str, &'static str> {
    match value {
        Json::String(s) => Ok(s),
        _ => Err("a string"),
    }
}

fn number(value: &Json) -> Result<f64, &'static str> {
    match value {
        Json::Number(raw) => raw.parse::<f64>().map_err(|_| "a number"),
        _ => Err("a number"),
    }
}

/// A token: a non-negative integer (below 2^53 when written with a fraction or exponent).
fn integer(value: &Json) -> Result<u64, &'static str> {
    const KIND: &str = "a non-negative integer";
    match value {
        Json::Number(raw) => raw.parse::<u64>().or_else(|_| {
            let x = raw.parse::<f64>().map_err(|_| KIND)?;
            if x >= 0.0 && x.fract() == 0.0 && x <= 9_007_199_254_740_992.0 {
                Ok(x as u64)
            } else {
                Err(KIND)
            }
        }),
        _ => Err(KIND),
    }
}

// ---- JSON ----

/// A parsed JSON value; a number keeps its text, so integers stay exact.
#[derive(Debug)]
enum Json {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

fn get<'a>(object: &'a [(String, Json)], key: &str) -> Option<&'a Json> {
    object.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// `s` as a JSON string.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn to_json(value: &Json) -> String {
    match value {
        Json::Null => "null".to_owned(),
        Json::Bool(b) => b.to_string(),
        Json::Number(raw) => raw.clone(),
        Json::String(s) => quote(s),
        Json::Array(items) => {
            let items: Vec<String> = items.iter().map(to_json).collect();
            format!("[{}]", items.join(","))
        }
        Json::Object(fields) => {
            let fields: Vec<String> = fields
                .iter()
                .map(|(k, v)| format!("{}:{}", quote(k), to_json(v)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
    }
}

/// Parses one JSON text (RFC 8259), nested at most 64 deep.
fn parse(text: &str) -> Result<Json, String> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        pos: 0,
    };
    let value = parser.value(0)?;
    parser.space();
    if parser.pos < parser.bytes.len() {
        return Err(parser.error("text after the JSON value"));
    }
    Ok(value)
}

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> String {
        format!("{what} at byte {}", self.pos)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        self.space();
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected '{}'", byte as char)))
        }
    }

    fn literal(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error("unexpected character"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > 64 {
            return Err(self.error("nested too deep"));
        }
        self.space();
        match self.peek() {
            None => Err(self.error("unexpected end")),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'"') => self.string().map(Json::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.space();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.space();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Json::Array(items));
                        }
                        _ => return Err(self.error("expected ',' or ']'")),
                    }
                }
            }
            Some(b'{') => {
                self.pos += 1;
                let mut fields = Vec::new();
                self.space();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                    return Ok(Json::Object(fields));
                }
                loop {
                    self.space();
                    if self.peek() != Some(b'"') {
                        return Err(self.error("expected a string key"));
                    }
                    let key = self.string()?;
                    self.expect(b':')?;
                    fields.push((key, self.value(depth + 1)?));
                    self.space();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return Ok(Json::Object(fields));
                        }
                        _ => return Err(self.error("expected ',' or '}'")),
                    }
                }
            }
            Some(_) => Err(self.error("unexpected character")),
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error("bad number")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error("bad number"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("bad number"));
            }
        }
        let raw = &self.bytes[start..self.pos];
        Ok(Json::Number(String::from_utf8_lossy(raw).into_owned()))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let hex = self
            .bytes
            .get(self.pos..self.pos + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.error("bad \\u escape"))?;
        self.pos += 4;
        Ok(hex)
    }

    fn string(&mut self) -> Result<String, String> {
        self.pos += 1; // the opening quote
        let mut out: Vec<u8> = Vec::new();
        loop {
            match self.peek() {
                None => return Err(self.error("unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    // Only whole UTF-8 sequences were copied, so this cannot fail.
                    return String::from_utf8(out).map_err(|_| self.error("bad UTF-8"));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let escaped = self.peek().ok_or_else(|| self.error("bad escape"))?;
                    self.pos += 1;
                    let c = match escaped {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let high = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&high)
                                && self.bytes[self.pos..].starts_with(b"\\u")
                            {
                                let save = self.pos;
                                self.pos += 2;
                                let low = self.hex4()?;
                                if (0xDC00..0xE000).contains(&low) {
                                    0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                                } else {
                                    self.pos = save; // a lone high surrogate
                                    0xFFFD
                                }
                            } else {
                                high
                            };
                            char::from_u32(code).unwrap_or('\u{FFFD}')
                        }
                        _ => return Err(self.error("bad escape")),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                Some(byte) => {
                    out.push(byte);
                    self.pos += 1;
                }
            }
        }
    }
}
