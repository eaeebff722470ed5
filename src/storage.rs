//! The resource the lock protects: a key-value store that compares fencing tokens.
//!
//! The storage knows nothing about the lock service; it only compares numbers. Every write gets
//! one [`Verdict`], made here from the check the storage applies, and everything that shows a
//! write (marks, panels, captions, transcripts, JSON, counts) reads that verdict.

use std::collections::HashMap;
use std::fmt;

/// A write refused because its token is older than one the key already accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleToken {
    /// The key written.
    pub key: String,
    /// The token the write carried.
    pub token: u64,
    /// The highest token the key had accepted (always above `token`).
    pub highest: u64,
}

impl fmt::Display for StaleToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let StaleToken {
            key,
            token,
            highest,
        } = self;
        write!(
            f,
            "token {token} is older than token {highest}, the highest key '{key}' has accepted"
        )
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
    /// Accept when `token >=` the highest token of any key: refuses writes that their own key
    /// would accept.
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

    /// Whether this check lets `token` through, given the highest token the key has accepted
    /// and the highest any key has accepted (`None`: nothing accepted yet). The rules, once.
    pub fn admits(self, token: u64, key_highest: Option<u64>, any_highest: Option<u64>) -> bool {
        match self {
            FenceCheck::PerKey => key_highest.is_none_or(|h| token >= h),
            FenceCheck::Unchecked => true,
            FenceCheck::Strict => key_highest.is_none_or(|h| token > h),
            FenceCheck::Global => any_highest.is_none_or(|h| token >= h),
        }
    }
}

/// Who judged a write: one of this library's checks, or a storage it did not write (a
/// student's, checked by the lab), whose rule it can only observe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Judge {
    /// A [`CheckedStorage`] applying this check.
    Check(FenceCheck),
    /// Another implementation: only its answer is known.
    External,
}

/// What a write's verdict means for the lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// Applied, and its token was not older than the key's highest.
    Accepted,
    /// Refused; nothing changed.
    Rejected,
    /// Applied although its token was older than one the key had already accepted: the one
    /// meaning of CORRUPTED DATA! (the seed's invariant, broken).
    Corrupted,
}

/// The storage's answer to one write, with the comparison its check really made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Verdict {
    /// The rule that decided.
    pub judge: Judge,
    /// The token the write carried.
    pub token: u64,
    /// The highest token the key had accepted before this write (`None`: never written).
    pub key_highest: Option<u64>,
    /// The highest token any key had accepted before this write: what the global check
    /// compares against.
    pub any_highest: Option<u64>,
    /// Whether the write was applied.
    pub accepted: bool,
    /// The token of the value an accepted write replaced (`None`: the key was new, or refused).
    pub replaced_token: Option<u64>,
}

impl Verdict {
    /// The verdict of `check` on a write of `token`: the one place a check's rule is applied.
    pub fn judge(
        check: FenceCheck,
        token: u64,
        key_highest: Option<u64>,
        any_highest: Option<u64>,
    ) -> Verdict {
        Verdict {
            judge: Judge::Check(check),
            token,
            key_highest,
            any_highest,
            accepted: check.admits(token, key_highest, any_highest),
            replaced_token: None,
        }
    }

    /// The verdict of a storage this library did not write, from its observed answer.
    pub fn observed(
        token: u64,
        key_highest: Option<u64>,
        any_highest: Option<u64>,
        accepted: bool,
    ) -> Verdict {
        Verdict {
            judge: Judge::External,
            token,
            key_highest,
            any_highest,
            accepted,
            replaced_token: None,
        }
    }

    /// Whether the token is older than one the key had already accepted.
    pub fn is_stale(&self) -> bool {
        self.key_highest.is_some_and(|h| self.token < h)
    }

    /// Accepted, rejected or corrupted.
    pub fn outcome(&self) -> Outcome {
        match (self.accepted, self.is_stale()) {
            (false, _) => Outcome::Rejected,
            (true, true) => Outcome::Corrupted,
            (true, false) => Outcome::Accepted,
        }
    }

    /// The seed's rule applied to the same write: what [`FenceCheck::PerKey`] would decide.
    pub fn seed_rule_accepts(&self) -> bool {
        FenceCheck::PerKey.admits(self.token, self.key_highest, self.any_highest)
    }

    /// The comparison that decided, short, for a panel: `t1 < t2`, `t1 is not > t1`,
    /// `t2 < t3 (any key)`, `t2 >= t2`, `new key`, `no check` (`no check, t1 < t2` when the
    /// write was stale). For an external storage, the seed's comparison where it answered as
    /// the seed's rule does; where it did not, whose rule decided and what the seed's says:
    /// `your rule, seed: t1 >= t1 accepts` (never "REJECTED t1 >= t1").
    pub fn comparison(&self) -> String {
        if self.judge == Judge::External && self.accepted != self.seed_rule_accepts() {
            let seed = Verdict {
                judge: Judge::Check(FenceCheck::PerKey),
                ..*self
            };
            let does = if self.accepted { "rejects" } else { "accepts" };
            return format!("{YOUR_RULE}, seed: {} {does}", seed.comparison());
        }
        let t = self.token;
        let check = match self.judge {
            Judge::Check(check) => check,
            Judge::External => FenceCheck::PerKey,
        };
        match check {
            FenceCheck::Unchecked => match self.key_highest {
                Some(h) if t < h => format!("no check, t{t} < t{h}"),
                _ => "no check".to_owned(),
            },
            FenceCheck::PerKey => match self.key_highest {
                None => "new key".to_owned(),
                Some(h) if t >= h => format!("t{t} >= t{h}"),
                Some(h) => format!("t{t} < t{h}"),
            },
            FenceCheck::Strict => match self.key_highest {
                None => "new key".to_owned(),
                Some(h) if t > h => format!("t{t} > t{h}"),
                Some(h) => format!("t{t} is not > t{h}"),
            },
            FenceCheck::Global => match self.any_highest {
                None => "first write".to_owned(),
                Some(h) if t >= h => format!("t{t} >= t{h} (any key)"),
                Some(h) => format!("t{t} < t{h} (any key)"),
            },
        }
    }

    /// Why the storage answered as it did, as a clause a student reads, for a write to `key`:
    /// "token 1 < 2, the highest token 'file' has accepted".
    pub fn reason(&self, key: &str) -> String {
        let t = self.token;
        let seed = |h: Option<u64>| match h {
            None => format!("'{key}' was never written"),
            Some(h) if t >= h => {
                format!("token {t} >= {h}, the highest token '{key}' has accepted")
            }
            Some(h) => format!("token {t} < {h}, the highest token '{key}' has accepted"),
        };
        match self.judge {
            Judge::External if self.accepted == self.seed_rule_accepts() => {
                let rule = if self.accepted { "accepts" } else { "rejects" };
                format!("{}; the seed's rule {rule} it", seed(self.key_highest))
            }
            Judge::External => {
                let (did, rule) = if self.accepted {
                    ("took", "rejects")
                } else {
                    ("refused", "accepts")
                };
                format!(
                    "your storage {did} it, though {}: the seed's rule {rule} it",
                    seed(self.key_highest)
                )
            }
            Judge::Check(FenceCheck::PerKey) => seed(self.key_highest),
            Judge::Check(FenceCheck::Unchecked) => match self.key_highest {
                Some(h) if t < h => format!(
                    "no check, although token {t} < {h}, the highest token '{key}' had accepted"
                ),
                _ => format!("no check ({})", seed(self.key_highest)),
            },
            Judge::Check(FenceCheck::Strict) => match self.key_highest {
                None => format!("'{key}' was never written"),
                Some(h) if t > h => format!("token {t} > {h}, the highest token '{key}' has accepted"),
                Some(h) if t == h => format!(
                    "the strict check wants a token above {h}, and {t} is not > {h}: it refuses the holder's own second write, which is why the seed's rule is >="
                ),
                Some(h) => format!("token {t} is not > {h}, the highest token '{key}' has accepted"),
            },
            Judge::Check(FenceCheck::Global) => match self.any_highest {
                None => "nothing was written yet".to_owned(),
                Some(g) if t >= g => format!("token {t} >= {g}, the highest token of any key"),
                Some(g) if !self.is_stale() => format!(
                    "token {t} < {g}, the highest token of any key; '{key}' itself has seen {}, so a per-key check would accept it",
                    self.key_highest.map_or_else(|| "no token".to_owned(), |h| format!("only token {h}"))
                ),
                Some(g) => format!("token {t} < {g}, the highest token of any key"),
            },
        }
    }
}

/// How a comparison begins where a student's storage, not the seed's rule, decided otherwise.
pub const YOUR_RULE: &str = "your rule";

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

/// A key-value store with a selectable [`FenceCheck`]: the fenced storage and its unfenced twin.
///
/// ```
/// use fencing_lab::{CheckedStorage, FenceCheck, Outcome};
/// let mut storage = CheckedStorage::new(FenceCheck::Unchecked);
/// storage.write("file", "client 2's data", 2);
/// let verdict = storage.write("file", "client 1's data", 1);
/// assert_eq!(verdict.outcome(), Outcome::Corrupted);
/// ```
#[derive(Clone, Debug, Default)]
pub struct CheckedStorage {
    check: FenceCheck,
    entries: HashMap<String, StoredValue>,
    any_highest: Option<u64>,
}

impl CheckedStorage {
    /// An empty store applying `check`.
    pub fn new(check: FenceCheck) -> Self {
        CheckedStorage {
            check,
            entries: HashMap::new(),
            any_highest: None,
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

    /// Writes `value` under `key` if the check lets `token` through, and says why.
    pub fn write(&mut self, key: &str, value: impl Into<String>, token: u64) -> Verdict {
        let entry = self.entries.get_mut(key);
        let key_highest = entry.as_ref().map(|e| e.highest);
        let mut verdict = Verdict::judge(self.check, token, key_highest, self.any_highest);
        if !verdict.accepted {
            return verdict;
        }
        verdict.replaced_token = match entry {
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
        self.any_highest = Some(self.any_highest.map_or(token, |h| h.max(token)));
        verdict
    }

    /// The value stored under `key`, if it was ever written.
    pub fn read(&self, key: &str) -> Option<&str> {
        self.entries.get(key).map(|e| e.value.as_str())
    }

    /// The highest token `key` has accepted (`None`: never written).
    pub fn highest_token(&self, key: &str) -> Option<u64> {
        self.entries.get(key).map(|e| e.highest)
    }

    /// The highest token any key has accepted.
    pub fn any_highest(&self) -> Option<u64> {
        self.any_highest
    }

    /// Everything stored under `key`.
    pub fn entry(&self, key: &str) -> Option<&StoredValue> {
        self.entries.get(key)
    }

    /// Whether no key was ever written.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many keys were written.
    pub fn len(&self) -> usize {
        self.entries.len()
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
        let verdict = self.inner.write(key, value, token);
        match (verdict.accepted, verdict.key_highest) {
            (true, _) => Ok(()),
            (false, Some(highest)) => Err(StaleToken {
                key: key.to_owned(),
                token,
                highest,
            }),
            (false, None) => unreachable!("the seed's rule accepts any write to a new key"),
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
