//! The resource the lock protects: a key-value store that compares fencing tokens.
//!
//! The storage knows nothing about the lock service; it only compares numbers.

use std::collections::HashMap;
use std::fmt;

/// A write refused because its token is older than one the key already accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleToken {
    /// The key written.
    pub key: String,
    /// The token the write carried.
    pub token: u64,
    /// The highest token the key had accepted (or, for the stricter checks, the one it had to beat).
    pub highest: u64,
}

impl fmt::Display for StaleToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let StaleToken {
            key,
            token,
            highest,
        } = self;
        if token < highest {
            write!(
                f,
                "token {token} is older than token {highest}, the highest key '{key}' has accepted"
            )
        } else {
            write!(
                f,
                "token {token} is not newer than token {highest}, which key '{key}' has already accepted"
            )
        }
    }
}

impl std::error::Error for StaleToken {}

/// Which rule the storage applies to a write's token. The seed's rule is [`FenceCheck::PerKey`];
/// the others exist so a lesson can show what each part of that rule is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum FenceCheck {
    /// Accept when `token >= highest_token(key)`: the seed's rule, one `fence_token` per key.
    #[default]
    PerKey,
    /// Accept every write: last writer wins (fencing off).
    Unchecked,
    /// Accept only when `token > highest_token(key)`: refuses the holder's own second write.
    Strict,
    /// Accept when `token >=` the highest token of any key: refuses honest writes to other keys.
    Global,
}

impl FenceCheck {
    /// Every check, the seed's first.
    pub const ALL: [FenceCheck; 4] = [
        FenceCheck::PerKey,
        FenceCheck::Unchecked,
        FenceCheck::Strict,
        FenceCheck::Global,
    ];

    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            FenceCheck::PerKey => "per-key",
            FenceCheck::Unchecked => "none",
            FenceCheck::Strict => "strict",
            FenceCheck::Global => "global",
        }
    }

    /// The rule as a student would write it.
    pub fn rule(self) -> &'static str {
        match self {
            FenceCheck::PerKey => "token >= highest(key)",
            FenceCheck::Unchecked => "no check",
            FenceCheck::Strict => "token > highest(key)",
            FenceCheck::Global => "token >= highest(any key)",
        }
    }

    /// The check named `name`, as [`name`](Self::name) spells it.
    pub fn from_name(name: &str) -> Option<FenceCheck> {
        FenceCheck::ALL
            .into_iter()
            .find(|check| check.name() == name)
    }
}

/// What a key holds now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredValue {
    /// The value of the last accepted write.
    pub value: String,
    /// The token of the write that left `value` (lower than `highest` only after a stale write
    /// was let through).
    pub value_token: u64,
    /// The highest token this key has accepted: the lesson's `fence_token` column.
    pub highest: u64,
}

/// The storage's answer to one write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteReceipt {
    /// Whether the write was applied.
    pub accepted: bool,
    /// The key's highest token before this write (`None`: never written).
    pub highest_before: Option<u64>,
    /// The token of the data this write replaced, if it replaced any.
    pub replaced_token: Option<u64>,
    /// The token the check compared against, when it refused the write.
    pub refused_against: Option<u64>,
}

impl WriteReceipt {
    /// An accepted write whose token is lower than one the key had already accepted.
    pub fn is_stale_accepted(&self, token: u64) -> bool {
        self.accepted && self.highest_before.is_some_and(|highest| token < highest)
    }

    /// An accepted write that replaced data written under a higher token: corruption.
    pub fn is_corruption(&self, token: u64) -> bool {
        self.accepted && self.replaced_token.is_some_and(|replaced| token < replaced)
    }
}

/// A key-value store with a selectable [`FenceCheck`]: the fenced storage and its unfenced twin.
///
/// ```
/// use fencing_lab::{CheckedStorage, FenceCheck};
/// let mut storage = CheckedStorage::new(FenceCheck::Unchecked);
/// storage.write("file", "client 2's data", 2);
/// let receipt = storage.write("file", "client 1's data", 1);
/// assert!(receipt.accepted && receipt.is_corruption(1));
/// ```
#[derive(Clone, Debug, Default)]
pub struct CheckedStorage {
    check: FenceCheck,
    entries: HashMap<String, StoredValue>,
    global_highest: Option<u64>,
}

impl CheckedStorage {
    /// An empty store applying `check`.
    pub fn new(check: FenceCheck) -> Self {
        CheckedStorage {
            check,
            entries: HashMap::new(),
            global_highest: None,
        }
    }

    /// The rule applied to writes.
    pub fn check(&self) -> FenceCheck {
        self.check
    }

    /// Applies `check` to every later write; what is stored stays.
    pub fn set_check(&mut self, check: FenceCheck) {
        self.check = check;
    }

    /// Writes `value` under `key` if the check lets `token` through.
    pub fn write(&mut self, key: &str, value: impl Into<String>, token: u64) -> WriteReceipt {
        let entry = self.entries.get_mut(key);
        let highest_before = entry.as_ref().map(|e| e.highest);
        let refused_against = match self.check {
            FenceCheck::PerKey => highest_before.filter(|&h| token < h),
            FenceCheck::Unchecked => None,
            FenceCheck::Strict => highest_before.filter(|&h| token <= h),
            FenceCheck::Global => self.global_highest.filter(|&h| token < h),
        };
        if refused_against.is_some() {
            return WriteReceipt {
                accepted: false,
                highest_before,
                replaced_token: None,
                refused_against,
            };
        }
        let replaced_token = match entry {
            Some(entry) => {
                let replaced = entry.value_token;
                entry.value = value.into();
                entry.value_token = token;
                entry.highest = entry.highest.max(token);
                Some(replaced)
            }
            None => {
                self.entries.insert(
                    key.to_owned(),
                    StoredValue {
                        value: value.into(),
                        value_token: token,
                        highest: token,
                    },
                );
                None
            }
        };
        self.global_highest = Some(self.global_highest.map_or(token, |h| h.max(token)));
        WriteReceipt {
            accepted: true,
            highest_before,
            replaced_token,
            refused_against: None,
        }
    }

    /// The value stored under `key`, if it was ever written.
    pub fn read(&self, key: &str) -> Option<&str> {
        self.entries.get(key).map(|e| e.value.as_str())
    }

    /// The highest token `key` has accepted (`None`: never written).
    pub fn highest_token(&self, key: &str) -> Option<u64> {
        self.entries.get(key).map(|e| e.highest)
    }

    /// Everything stored under `key`.
    pub fn entry(&self, key: &str) -> Option<&StoredValue> {
        self.entries.get(key)
    }

    /// Whether no key was ever written.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every key with what it holds, in key order.
    pub fn entries(&self) -> Vec<(&str, &StoredValue)> {
        let mut all: Vec<_> = self.entries.iter().map(|(k, v)| (k.as_str(), v)).collect();
        all.sort_by(|a, b| a.0.cmp(b.0));
        all
    }
}

/// The seed's storage: accepts a write when `token >= highest_token(key)` or the key is new.
///
/// ```
/// use fencing_lab::FencedStorage;
/// let mut storage = FencedStorage::new();
/// storage.write("file", "client 2's data", 2).unwrap();
/// let refused = storage.write("file", "client 1's data", 1).unwrap_err();
/// assert_eq!(refused.to_string(),
///            "token 1 is older than token 2, the highest key 'file' has accepted");
/// assert_eq!(storage.read("file"), Some("client 2's data"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct FencedStorage {
    inner: CheckedStorage,
}

impl FencedStorage {
    /// An empty store.
    pub fn new() -> Self {
        FencedStorage::default()
    }

    /// Writes `value` under `key` with fencing token `token`.
    ///
    /// # Errors
    /// [`StaleToken`] when `token` is lower than the key's highest token; nothing changes then.
    pub fn write(
        &mut self,
        key: &str,
        value: impl Into<String>,
        token: u64,
    ) -> Result<(), StaleToken> {
        let receipt = self.inner.write(key, value, token);
        match receipt.refused_against {
            None => Ok(()),
            Some(highest) => Err(StaleToken {
                key: key.to_owned(),
                token,
                highest,
            }),
        }
    }

    /// The value of the last accepted write to `key`.
    pub fn read(&self, key: &str) -> Option<&str> {
        self.inner.read(key)
    }

    /// The highest token `key` has accepted (`None`: never written).
    pub fn highest_token(&self, key: &str) -> Option<u64> {
        self.inner.highest_token(key)
    }
}
