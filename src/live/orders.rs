//! What the conductor and a client process say to each other, one JSON object a line over the
//! client's standard input (orders) and standard output (replies).

use serde::{Deserialize, Serialize};

/// An order to a client process.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Order {
    /// Take `lock` with a lease of `ttl` whole seconds.
    Acquire { lock: String, ttl: i64 },
    /// Keep the lease on `lock` alive.
    Renew { lock: String },
    /// Give `lock` up.
    Release { lock: String },
    /// Write `value` to `key` with the token of the lease on `lock`; with `delay_ms`, hold the
    /// request that long before sending it.
    Write {
        lock: String,
        key: String,
        value: String,
        fenced: bool,
        delay_ms: Option<u64>,
    },
    /// Run the chaos scenario `scenario`'s jobs on `lock`, drawing from `seed`.
    Chaos {
        scenario: String,
        lock: String,
        ttl: i64,
        fenced: bool,
        seed: u64,
    },
    /// Carry on after a stall (the conductor stopped and resumed the process).
    Go,
    /// Stop.
    Quit,
}

/// A client process's answer, or something it did by itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Reply {
    /// The process is up and has read its settings.
    Ready {
        pid: u32,
    },
    Granted {
        lock: String,
        token: u64,
        lease: i64,
        ttl: i64,
    },
    /// The acquire's transaction found the lock key: who holds it.
    Refused {
        lock: String,
        holder: String,
        token: u64,
    },
    Renewed {
        lock: String,
        token: u64,
        ttl: i64,
    },
    /// etcd has no such lease any more; who holds the lock now, if anyone.
    RenewRefused {
        lock: String,
        token: u64,
        holder: Option<String>,
    },
    /// A chaos client is about to release `lock` on its own (sent before its revoke).
    Releasing {
        lock: String,
        token: u64,
    },
    Released {
        lock: String,
        token: u64,
        lease: i64,
    },
    /// etcd had no such lease any more.
    ReleaseRefused {
        lock: String,
        token: u64,
        holder: Option<String>,
    },
    /// The client believes it holds no lease on `lock`, so it sent nothing.
    NoLease {
        lock: String,
        what: String,
    },
    /// A delayed write left the client's hands; the network holds it for `delay_ms`.
    Sent {
        key: String,
        token: u64,
        delay_ms: u64,
    },
    /// A write as etcd decided it.
    Wrote {
        key: String,
        value: String,
        token: u64,
        fenced: bool,
        accepted: bool,
        key_highest: Option<u64>,
        replaced: Option<(String, u64)>,
        revision: u64,
        delayed: bool,
    },
    /// A chaos job stalls: stop this process for `ms`, then send `Go`.
    Stall {
        ms: u64,
    },
    /// A chaos job found, on the client's own clock, that its lease ran out: it forgot it.
    GaveUp {
        lock: String,
        token: u64,
    },
    /// The client's connection moved to another endpoint: which, and why the last one failed.
    Moved {
        endpoint: String,
        why: String,
    },
    /// A request failed: what the client was doing, and why.
    Failed {
        doing: String,
        error: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_and_replies_are_one_json_object_each() {
        let order = Order::Write {
            lock: "file-lock".into(),
            key: "file".into(),
            value: "client 1's data".into(),
            fenced: true,
            delay_ms: Some(12_000),
        };
        let line = serde_json::to_string(&order).unwrap();
        assert_eq!(
            line,
            r#"{"op":"write","lock":"file-lock","key":"file","value":"client 1's data","fenced":true,"delay_ms":12000}"#
        );
        assert_eq!(serde_json::from_str::<Order>(&line).unwrap(), order);
        let reply = Reply::Refused {
            lock: "file-lock".into(),
            holder: "client-1".into(),
            token: 8,
        };
        let line = serde_json::to_string(&reply).unwrap();
        assert_eq!(serde_json::from_str::<Reply>(&line).unwrap(), reply);
        assert_eq!(
            serde_json::to_string(&Order::Quit).unwrap(),
            r#"{"op":"quit"}"#
        );
    }
}
