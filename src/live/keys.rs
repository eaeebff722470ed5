//! Where a run keeps its state in etcd: every key under one prefix of its own,
//! `fencing-lab/<run id>/`, so a run on a shared cluster touches nothing else and can be found
//! (and removed) whole.
//!
//! - `lock/<lock>`: the lock, held while it exists; its value is the holder's name, it is
//!   attached to the holder's lease, and its `create_revision` is the fencing token.
//! - `data/<key>`: the storage's value for `key`.
//! - `highest/<key>`: the highest token `key` has accepted, as 20 decimal digits, so that
//!   etcd's byte-wise comparison of values orders tokens as numbers.
//! - `writer/<key>`: who wrote the value now in `data/<key>`, and with which token (JSON).

/// Digits of a stored token: `u64::MAX` has 20.
pub const TOKEN_DIGITS: usize = 20;

/// `token` as stored: zero-padded to [`TOKEN_DIGITS`], so equal lengths compare as numbers.
pub fn padded(token: u64) -> String {
    format!("{token:0TOKEN_DIGITS$}")
}

/// A stored token back as a number.
pub fn unpadded(text: &str) -> Option<u64> {
    (text.len() == TOKEN_DIGITS && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// A run id: the start's Unix time and this process's id, unique on one machine and readable.
pub fn run_id() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!("{secs}-{}", std::process::id())
}

/// The keys of one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    prefix: String,
}

impl Layout {
    /// The keys of run `run_id`.
    pub fn new(run_id: &str) -> Layout {
        Layout {
            prefix: format!("fencing-lab/{run_id}/"),
        }
    }

    /// A layout under any prefix (which must end in `/`).
    pub fn under(prefix: &str) -> Layout {
        Layout {
            prefix: prefix.to_owned(),
        }
    }

    /// `fencing-lab/<run id>/`.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The end of the run's key range: the prefix with its last byte raised by one (etcd's
    /// `range_end` for "every key with this prefix").
    pub fn prefix_end(&self) -> String {
        range_end(&self.prefix)
    }

    pub fn lock(&self, lock: &str) -> String {
        format!("{}lock/{lock}", self.prefix)
    }

    /// Every lock key: `lock/` and its range end.
    pub fn locks(&self) -> (String, String) {
        let start = format!("{}lock/", self.prefix);
        let end = range_end(&start);
        (start, end)
    }

    pub fn data(&self, key: &str) -> String {
        format!("{}data/{key}", self.prefix)
    }

    pub fn highest(&self, key: &str) -> String {
        format!("{}highest/{key}", self.prefix)
    }

    pub fn writer(&self, key: &str) -> String {
        format!("{}writer/{key}", self.prefix)
    }
}

/// The smallest key after every key that starts with `prefix` (its last byte raised; prefixes
/// here end in `/`, which becomes `0`).
fn range_end(prefix: &str) -> String {
    let mut bytes = prefix.as_bytes().to_vec();
    while let Some(last) = bytes.pop() {
        if last < 0x7f {
            bytes.push(last + 1);
            break;
        }
    }
    String::from_utf8(bytes).expect("ASCII stays ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_stored_so_that_bytes_compare_as_numbers() {
        assert_eq!(padded(2), "00000000000000000002");
        assert_eq!(padded(u64::MAX), "18446744073709551615");
        assert!(
            padded(9) < padded(10),
            "as strings 9 > 10; padded they are in order"
        );
        assert!(padded(99) < padded(100));
        assert_eq!(unpadded(&padded(12345)), Some(12345));
        assert_eq!(unpadded("12345"), None, "only the stored form");
        assert_eq!(unpadded("0000000000000000000x"), None);
    }

    #[test]
    fn a_run_keeps_every_key_under_its_own_prefix() {
        let layout = Layout::new("1733-42");
        assert_eq!(layout.prefix(), "fencing-lab/1733-42/");
        assert_eq!(layout.prefix_end(), "fencing-lab/1733-420");
        assert_eq!(
            layout.lock("file-lock"),
            "fencing-lab/1733-42/lock/file-lock"
        );
        assert_eq!(layout.data("file"), "fencing-lab/1733-42/data/file");
        assert_eq!(layout.highest("file"), "fencing-lab/1733-42/highest/file");
        assert_eq!(layout.writer("file"), "fencing-lab/1733-42/writer/file");
        let (start, end) = layout.locks();
        assert_eq!(
            (start.as_str(), end.as_str()),
            ("fencing-lab/1733-42/lock/", "fencing-lab/1733-42/lock0")
        );
        for key in [layout.lock("a"), layout.data("b"), layout.writer("c")] {
            assert!(key.as_str() >= layout.prefix() && key < layout.prefix_end());
        }
        assert!(run_id().ends_with(&format!("-{}", std::process::id())));
    }
}
