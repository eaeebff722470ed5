//! The lesson's operations as etcd requests (see `docs/live.md`): acquire is a lease grant and
//! a transaction that creates the lock key only if it does not exist; the fencing token is that
//! key's `create_revision`; renew is a keep-alive, release a revoke; a fenced write is one
//! transaction that refuses a token lower than the key's highest, an unfenced one a plain put.

use serde_json::{json, Value};

use super::gateway::{int, Etcd, EtcdError};
use super::keys::{padded, unpadded, Layout};
use super::txn::{Compare, Op, Txn};
use crate::sim::base64;

/// A key and what etcd keeps with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kv {
    pub key: String,
    pub value: String,
    pub create_revision: u64,
    pub mod_revision: u64,
    /// The lease it is attached to (0: none).
    pub lease: i64,
}

fn b64(text: &str) -> String {
    base64::encode(text.as_bytes())
}

fn garbled(what: &str) -> EtcdError {
    EtcdError::Garbled(format!("{what} is missing or malformed"))
}

fn kv_of(value: &Value) -> Result<Kv, EtcdError> {
    let text = |field: &str| -> Result<String, EtcdError> {
        match value.get(field).and_then(Value::as_str) {
            // etcd leaves an empty value out.
            None => Ok(String::new()),
            Some(coded) => base64::decode_text(coded).map_err(EtcdError::Garbled),
        }
    };
    let number = |field: &str| value.get(field).and_then(int).unwrap_or(0);
    Ok(Kv {
        key: text("key")?,
        value: text("value")?,
        create_revision: number("create_revision").max(0) as u64,
        mod_revision: number("mod_revision").max(0) as u64,
        lease: number("lease"),
    })
}

/// The keys of a range answer (none when etcd leaves `kvs` out).
pub fn kvs(range: &Value) -> Result<Vec<Kv>, EtcdError> {
    match range.get("kvs") {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items.iter().map(kv_of).collect(),
        Some(_) => Err(garbled("a range's kvs")),
    }
}

/// The revision of etcd's store after an answer (its header's).
pub fn revision(answer: &Value) -> u64 {
    answer
        .pointer("/header/revision")
        .and_then(int)
        .unwrap_or(0)
        .max(0) as u64
}

/// A transaction's answer: whether its compares held, its store revision, and the answer of
/// each operation of the branch it ran.
struct Answer {
    succeeded: bool,
    revision: u64,
    responses: Vec<Value>,
}

fn txn(etcd: &mut Etcd, txn: &Txn) -> Result<Answer, EtcdError> {
    let answer = etcd.call("/v3/kv/txn", &txn.body())?;
    let responses = match answer.get("responses") {
        None => Vec::new(),
        Some(Value::Array(items)) => items.clone(),
        Some(_) => return Err(garbled("a transaction's responses")),
    };
    Ok(Answer {
        // etcd leaves `succeeded` out when it is false.
        succeeded: answer.get("succeeded").and_then(Value::as_bool) == Some(true),
        revision: revision(&answer),
        responses,
    })
}

fn response<'a>(txn: &'a Answer, index: usize, kind: &str) -> Result<&'a Value, EtcdError> {
    txn.responses
        .get(index)
        .and_then(|r| r.get(kind))
        .ok_or_else(|| garbled(&format!("a transaction's {kind} number {}", index + 1)))
}

/// A lease granted: its id and the TTL etcd granted (whole seconds, at least etcd's minimum).
pub fn grant(etcd: &mut Etcd, ttl: i64) -> Result<(i64, i64), EtcdError> {
    let answer = etcd.call("/v3/lease/grant", &json!({ "TTL": ttl }))?;
    let id = answer
        .get("ID")
        .and_then(int)
        .ok_or_else(|| garbled("a grant's ID"))?;
    let granted = answer
        .get("TTL")
        .and_then(int)
        .ok_or_else(|| garbled("a grant's TTL"))?;
    Ok((id, granted))
}

/// What an acquire came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Acquired {
    /// The lock key was created with this lease: the token is its `create_revision`.
    Granted { token: u64, lease: i64, ttl: i64 },
    /// The lock key exists: who holds it, with which token.
    Held { holder: String, token: u64 },
}

/// The acquire's transaction: create the lock key with `lease` only if it does not exist
/// (`create_revision == 0`), and read it either way.
pub fn acquire_txn(layout: &Layout, lock: &str, client: &str, lease: i64) -> Txn {
    let key = layout.lock(lock);
    Txn {
        compare: vec![Compare::Absent(key.clone())],
        success: vec![
            Op::Put {
                key: key.clone(),
                value: client.to_owned(),
                lease,
                prev_kv: false,
            },
            Op::Get(key.clone()),
        ],
        failure: vec![Op::Get(key)],
    }
}

/// Grants a lease of `ttl` seconds and creates the lock key with it, only if the key does not
/// exist (`create_revision == 0`). A refused acquire revokes the lease it did not use.
pub fn acquire(
    etcd: &mut Etcd,
    layout: &Layout,
    lock: &str,
    client: &str,
    ttl: i64,
) -> Result<Acquired, EtcdError> {
    let (lease, granted) = grant(etcd, ttl)?;
    let answer = txn(etcd, &acquire_txn(layout, lock, client, lease))?;
    let range = if answer.succeeded { 1 } else { 0 };
    let kv = kvs(response(&answer, range, "response_range")?)?
        .into_iter()
        .next()
        .ok_or_else(|| garbled("the lock key in a transaction's range"))?;
    // A transaction sent again after a broken connection finds the key its first try made.
    if answer.succeeded || kv.lease == lease {
        return Ok(Acquired::Granted {
            token: kv.create_revision,
            lease,
            ttl: granted,
        });
    }
    let _ = release(etcd, lease);
    Ok(Acquired::Held {
        holder: kv.value,
        token: kv.create_revision,
    })
}

/// A keep-alive of `lease`: the TTL it now has, or `None` when etcd no longer has it.
pub fn renew(etcd: &mut Etcd, lease: i64) -> Result<Option<i64>, EtcdError> {
    let answer = etcd.call("/v3/lease/keepalive", &json!({ "ID": lease.to_string() }))?;
    Ok(answer.get("TTL").and_then(int).filter(|ttl| *ttl > 0))
}

/// Revokes `lease`, which deletes the lock key attached to it; `false` when etcd had no such
/// lease (it expired).
pub fn release(etcd: &mut Etcd, lease: i64) -> Result<bool, EtcdError> {
    match etcd.call("/v3/lease/revoke", &json!({ "ID": lease.to_string() })) {
        Ok(_) => Ok(true),
        Err(EtcdError::Refused { code: 5, .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// The lock key of `lock`, if it exists.
pub fn holder(etcd: &mut Etcd, layout: &Layout, lock: &str) -> Result<Option<Kv>, EtcdError> {
    let answer = etcd.call("/v3/kv/range", &json!({"key": b64(&layout.lock(lock))}))?;
    Ok(kvs(&answer)?.into_iter().next())
}

/// Who wrote a value, and with which token, as `writer/<key>` keeps it.
fn writer_value(client: &str, token: u64) -> String {
    json!({"client": client, "token": token}).to_string()
}

fn writer_of(text: &str) -> Option<(String, u64)> {
    let value: Value = serde_json::from_str(text).ok()?;
    Some((
        value.get("client")?.as_str()?.to_owned(),
        value.get("token")?.as_u64()?,
    ))
}

/// A write as etcd decided it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// Whether the value was put.
    pub accepted: bool,
    /// The key's highest token before the write, as the transaction saw it.
    pub key_highest: Option<u64>,
    /// Who wrote the value it replaced, and with which token (accepted writes only).
    pub replaced: Option<(String, u64)>,
    /// The store's revision after the transaction.
    pub revision: u64,
}

/// A fenced write: one transaction. If `highest/<key>` is greater than `token`, refuse (and
/// read the highest); otherwise (it is `<=` the token, or missing, since etcd fails a value
/// compare on a missing key) put the value, the token as the new highest, and the writer.
pub fn fenced_write(
    etcd: &mut Etcd,
    layout: &Layout,
    key: &str,
    value: &str,
    token: u64,
    client: &str,
) -> Result<Written, EtcdError> {
    let answer = txn(etcd, &write_txn(layout, key, value, token, client, true))?;
    if answer.succeeded {
        let kv = kvs(response(&answer, 0, "response_range")?)?
            .into_iter()
            .next();
        let key_highest = kv.as_ref().and_then(|kv| unpadded(&kv.value));
        if key_highest.is_none() {
            return Err(garbled("the highest token of a refused write"));
        }
        return Ok(Written {
            accepted: false,
            key_highest,
            replaced: None,
            revision: answer.revision,
        });
    }
    let previous = |i: usize| -> Result<Option<String>, EtcdError> {
        match response(&answer, i, "response_put")?.get("prev_kv") {
            None => Ok(None),
            Some(kv) => kv_of(kv).map(|kv| Some(kv.value)),
        }
    };
    Ok(Written {
        accepted: true,
        key_highest: previous(1)?.as_deref().and_then(unpadded),
        replaced: previous(2)?.as_deref().and_then(writer_of),
        revision: answer.revision,
    })
}

/// A write's transaction. Fenced: if `highest/<key>` is greater than `token`, refuse and read
/// it; otherwise (it is `<=` the token, or missing, since etcd fails a value compare on a
/// missing key) put the value, the token as the new highest, and the writer. Unfenced (no
/// check): the value and the writer are put whichever way the compare goes; the compare only
/// keeps `highest/<key>` for the lesson's count of stale writes that landed.
pub fn write_txn(
    layout: &Layout,
    key: &str,
    value: &str,
    token: u64,
    client: &str,
    fenced: bool,
) -> Txn {
    let highest = layout.highest(key);
    let put_value = [
        Op::put(&layout.data(key), value),
        Op::put_prev(&layout.writer(key), &writer_value(client, token)),
    ];
    let raise = Op::put_prev(&highest, &padded(token));
    let compare = vec![Compare::ValueGreater(highest.clone(), padded(token))];
    if fenced {
        let [data, writer] = put_value;
        return Txn {
            compare,
            success: vec![Op::Get(highest)],
            failure: vec![data, raise, writer],
        };
    }
    let mut success = put_value.to_vec();
    success.push(Op::Get(highest));
    let mut failure = put_value.to_vec();
    failure.push(raise);
    Txn {
        compare,
        success,
        failure,
    }
}

/// An unfenced write: the value put whatever the token (see [`write_txn`]); the same
/// transaction reads the key's highest token, or raises it when this token is higher, so that
/// the lesson can tell a stale write that landed.
pub fn unfenced_write(
    etcd: &mut Etcd,
    layout: &Layout,
    key: &str,
    value: &str,
    token: u64,
    client: &str,
) -> Result<Written, EtcdError> {
    let answer = txn(etcd, &write_txn(layout, key, value, token, client, false))?;
    let replaced = match response(&answer, 1, "response_put")?.get("prev_kv") {
        None => None,
        Some(kv) => writer_of(&kv_of(kv)?.value),
    };
    let key_highest = if answer.succeeded {
        kvs(response(&answer, 2, "response_range")?)?
            .first()
            .and_then(|kv| unpadded(&kv.value))
    } else {
        match response(&answer, 2, "response_put")?.get("prev_kv") {
            None => None,
            Some(kv) => unpadded(&kv_of(kv)?.value),
        }
    };
    Ok(Written {
        accepted: true,
        key_highest,
        replaced,
        revision: answer.revision,
    })
}

/// What etcd holds for one key of the storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored {
    pub key: String,
    pub value: Option<String>,
    pub highest: Option<u64>,
    /// Who wrote the value, and with which token.
    pub writer: Option<(String, u64)>,
}

/// Every key of the run's storage, read in one range at one revision, sorted by key.
pub fn storage(etcd: &mut Etcd, layout: &Layout) -> Result<Vec<Stored>, EtcdError> {
    let answer = etcd.call(
        "/v3/kv/range",
        &json!({"key": b64(layout.prefix()), "range_end": b64(&layout.prefix_end())}),
    )?;
    let mut rows: std::collections::BTreeMap<String, Stored> = Default::default();
    for kv in kvs(&answer)? {
        let rest = &kv.key[layout.prefix().len()..];
        let Some((kind, key)) = rest.split_once('/') else {
            continue;
        };
        let row = || Stored {
            key: key.to_owned(),
            value: None,
            highest: None,
            writer: None,
        };
        match kind {
            "data" => rows.entry(key.to_owned()).or_insert_with(row).value = Some(kv.value),
            "highest" => {
                rows.entry(key.to_owned()).or_insert_with(row).highest = unpadded(&kv.value)
            }
            "writer" => {
                rows.entry(key.to_owned()).or_insert_with(row).writer = writer_of(&kv.value)
            }
            _ => {}
        }
    }
    Ok(rows.into_values().collect())
}

/// Every key of the run with its value, as `etcdctl get --prefix` shows them.
pub fn dump(etcd: &mut Etcd, layout: &Layout) -> Result<Vec<(String, String)>, EtcdError> {
    let answer = etcd.call(
        "/v3/kv/range",
        &json!({"key": b64(layout.prefix()), "range_end": b64(&layout.prefix_end())}),
    )?;
    Ok(kvs(&answer)?
        .into_iter()
        .map(|kv| (kv.key, kv.value))
        .collect())
}

/// Deletes every key of the run; how many there were.
pub fn delete_run(etcd: &mut Etcd, layout: &Layout) -> Result<u64, EtcdError> {
    let answer = etcd.call(
        "/v3/kv/deleterange",
        &json!({"key": b64(layout.prefix()), "range_end": b64(&layout.prefix_end())}),
    )?;
    Ok(answer.get("deleted").and_then(int).unwrap_or(0).max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_value_is_read_as_the_gateway_writes_it() {
        let kv = kv_of(&json!({
            "key": "eC9sb2NrL2ZpbGUtbG9jaw==", "create_revision": "2", "mod_revision": "3",
            "version": "1", "value": "Y2xpZW50LTE=", "lease": "4111120454440326153"
        }))
        .unwrap();
        assert_eq!(kv.key, "x/lock/file-lock");
        assert_eq!(kv.value, "client-1");
        assert_eq!((kv.create_revision, kv.mod_revision), (2, 3));
        assert_eq!(kv.lease, 4111120454440326153);
        let empty = kv_of(&json!({"key": "eA==", "create_revision": "5"})).unwrap();
        assert_eq!((empty.value.as_str(), empty.lease), ("", 0));
        assert_eq!(kvs(&json!({"header": {}})).unwrap(), Vec::new());
    }

    #[test]
    fn the_writer_is_kept_as_json() {
        let text = writer_value("client-2", 7);
        assert_eq!(text, r#"{"client":"client-2","token":7}"#);
        assert_eq!(writer_of(&text), Some(("client-2".to_owned(), 7)));
        assert_eq!(writer_of("garbage"), None);
    }
}
