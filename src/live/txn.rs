//! One etcd transaction, made once and told two ways: the JSON body the gateway is sent
//! (`POST /v3/kv/txn`), and the same request as `etcdctl txn` reads it, for a student to paste
//! into a shell and send again.

use serde_json::{json, Value};

use crate::sim::base64;

/// A compare of a transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compare {
    /// The key does not exist: its `create_revision` is 0.
    Absent(String),
    /// The key's value is greater than this one (bytewise). etcd fails it on a missing key.
    ValueGreater(String, String),
}

/// An operation of a transaction's branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Puts `value` at `key`, attached to `lease` (0: none); with `prev_kv` etcd also answers
    /// with what the key held before.
    Put {
        key: String,
        value: String,
        lease: i64,
        prev_kv: bool,
    },
    /// Reads `key`.
    Get(String),
}

/// A transaction: if every compare holds, the success branch runs, else the failure branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Txn {
    pub compare: Vec<Compare>,
    pub success: Vec<Op>,
    pub failure: Vec<Op>,
}

fn b64(text: &str) -> String {
    base64::encode(text.as_bytes())
}

impl Op {
    pub fn put(key: &str, value: &str) -> Op {
        Op::Put {
            key: key.to_owned(),
            value: value.to_owned(),
            lease: 0,
            prev_kv: false,
        }
    }

    /// A put that also answers with the key's value before it.
    pub fn put_prev(key: &str, value: &str) -> Op {
        Op::Put {
            key: key.to_owned(),
            value: value.to_owned(),
            lease: 0,
            prev_kv: true,
        }
    }

    fn body(&self) -> Value {
        match self {
            Op::Put {
                key,
                value,
                lease,
                prev_kv,
            } => {
                let mut put = json!({"key": b64(key), "value": b64(value)});
                if *lease != 0 {
                    put["lease"] = json!(lease.to_string());
                }
                if *prev_kv {
                    put["prev_kv"] = json!(true);
                }
                json!({ "request_put": put })
            }
            Op::Get(key) => json!({"request_range": {"key": b64(key)}}),
        }
    }

    /// As `etcdctl txn` reads it: `put KEY "VALUE" [--lease=ID] [--prev-kv]`, `get KEY`.
    fn etcdctl(&self) -> String {
        match self {
            Op::Put {
                key,
                value,
                lease,
                prev_kv,
            } => {
                let mut line = format!("put {} {}", quoted(key), quoted(value));
                if *lease != 0 {
                    line.push_str(&format!(" --lease={lease:x}"));
                }
                if *prev_kv {
                    line.push_str(" --prev-kv");
                }
                line
            }
            Op::Get(key) => format!("get {}", quoted(key)),
        }
    }
}

impl Compare {
    fn body(&self) -> Value {
        match self {
            Compare::Absent(key) => json!(
                {"key": b64(key), "target": "CREATE", "result": "EQUAL", "create_revision": "0"}
            ),
            Compare::ValueGreater(key, value) => json!(
                {"key": b64(key), "target": "VALUE", "result": "GREATER", "value": b64(value)}
            ),
        }
    }

    fn etcdctl(&self) -> String {
        match self {
            Compare::Absent(key) => format!("create({}) = \"0\"", quoted(key)),
            Compare::ValueGreater(key, value) => {
                format!("value({}) > {}", quoted(key), quoted(value))
            }
        }
    }
}

impl Txn {
    /// The body of `POST /v3/kv/txn`.
    pub fn body(&self) -> Value {
        let ops = |ops: &[Op]| ops.iter().map(Op::body).collect::<Vec<_>>();
        let mut body = json!({
            "compare": self.compare.iter().map(Compare::body).collect::<Vec<_>>(),
            "success": ops(&self.success),
        });
        if !self.failure.is_empty() {
            body["failure"] = json!(ops(&self.failure));
        }
        body
    }

    /// The same transaction as a shell command: `etcdctl txn` reads the compares, the success
    /// branch and the failure branch from its input, each ended by a blank line.
    pub fn etcdctl(&self, endpoints: &str) -> String {
        let lines = |items: Vec<String>| items.join("\n");
        format!(
            "etcdctl --endpoints={endpoints} txn <<'EOF'\n{}\n\n{}\n\n{}\n\nEOF",
            lines(self.compare.iter().map(Compare::etcdctl).collect()),
            lines(self.success.iter().map(Op::etcdctl).collect()),
            lines(self.failure.iter().map(Op::etcdctl).collect()),
        )
    }
}

/// A string as etcdctl reads a quoted argument (Go's `%q`): in double quotes, with `"`, `\`
/// and control characters escaped.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                for byte in c.to_string().bytes() {
                    out.push_str(&format!("\\x{byte:02x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fenced() -> Txn {
        Txn {
            compare: vec![Compare::ValueGreater("p/highest/file".into(), "007".into())],
            success: vec![Op::Get("p/highest/file".into())],
            failure: vec![
                Op::put("p/data/file", "client 1's \"data\"\n"),
                Op::put_prev("p/highest/file", "007"),
            ],
        }
    }

    #[test]
    fn a_transaction_is_told_to_etcdctl_as_it_is_sent_to_the_gateway() {
        assert_eq!(
            fenced().etcdctl("http://e:2379"),
            "etcdctl --endpoints=http://e:2379 txn <<'EOF'\n\
             value(\"p/highest/file\") > \"007\"\n\
             \n\
             get \"p/highest/file\"\n\
             \n\
             put \"p/data/file\" \"client 1's \\\"data\\\"\\n\"\n\
             put \"p/highest/file\" \"007\" --prev-kv\n\
             \n\
             EOF"
        );
        let body = fenced().body();
        assert_eq!(body["compare"][0]["result"], "GREATER");
        assert_eq!(body["compare"][0]["value"], b64("007"));
        assert_eq!(body["failure"][1]["request_put"]["prev_kv"], true);
        assert!(body["failure"][0]["request_put"].get("prev_kv").is_none());
        let lease = Op::Put {
            key: "p/lock/l".into(),
            value: "client-1".into(),
            lease: 255,
            prev_kv: false,
        };
        assert_eq!(lease.etcdctl(), "put \"p/lock/l\" \"client-1\" --lease=ff");
        assert_eq!(lease.body()["request_put"]["lease"], "255");
        assert_eq!(
            Compare::Absent("k".into()).etcdctl(),
            "create(\"k\") = \"0\""
        );
        assert_eq!(quoted("a\u{1}b\\"), "\"a\\x01b\\\\\"");
    }
}
