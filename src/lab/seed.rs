//! The seed's rules as data: what a check is named after and what every failure is charged to.
//! Each rule's words are the seed's own where it has them (docs/lab-rules.md lists them all).

use std::fmt;

/// One rule of the seed. Every divergence between a student's code and the seed is charged to
/// exactly one of them, and each has a named check of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    NewStartsOver,
    Defaults,
    LeaseLive,
    ExpiryBoundary,
    OneCounter,
    RefusedAcquireNoToken,
    HolderAcquireNone,
    RenewKeepsToken,
    RenewExtendsFromNow,
    ExpiredNoRenew,
    LateRenew,
    ReleaseFrees,
    ExpiredNoRelease,
    LateRelease,
    Holder,
    WriteAccepts,
    WriteEqualToken,
    WriteStaleRejected,
    RejectedChangesNothing,
    PerKey,
    NeverWritten,
    ClockOnly,
}

impl Rule {
    /// Every rule, in the order `check` runs and reports them: whether `new` starts over first,
    /// since every later check starts with a `new`; then the seed's order.
    pub const ALL: [Rule; 22] = [
        Rule::NewStartsOver,
        Rule::Defaults,
        Rule::LeaseLive,
        Rule::ExpiryBoundary,
        Rule::OneCounter,
        Rule::RefusedAcquireNoToken,
        Rule::HolderAcquireNone,
        Rule::RenewKeepsToken,
        Rule::RenewExtendsFromNow,
        Rule::ExpiredNoRenew,
        Rule::LateRenew,
        Rule::ReleaseFrees,
        Rule::ExpiredNoRelease,
        Rule::LateRelease,
        Rule::Holder,
        Rule::WriteAccepts,
        Rule::WriteEqualToken,
        Rule::WriteStaleRejected,
        Rule::RejectedChangesNothing,
        Rule::PerKey,
        Rule::NeverWritten,
        Rule::ClockOnly,
    ];

    /// The stable id `check` prints and `--only` takes.
    pub fn id(self) -> &'static str {
        match self {
            Rule::Defaults => "defaults",
            Rule::NewStartsOver => "new-starts-over",
            Rule::LeaseLive => "lease-live",
            Rule::ExpiryBoundary => "expiry-boundary",
            Rule::OneCounter => "one-counter",
            Rule::RefusedAcquireNoToken => "refused-acquire-no-token",
            Rule::HolderAcquireNone => "holder-acquire-none",
            Rule::RenewKeepsToken => "renew-keeps-token",
            Rule::RenewExtendsFromNow => "renew-extends-from-now",
            Rule::ExpiredNoRenew => "expired-no-renew",
            Rule::LateRenew => "late-renew",
            Rule::ReleaseFrees => "release-frees",
            Rule::ExpiredNoRelease => "expired-no-release",
            Rule::LateRelease => "late-release",
            Rule::Holder => "holder",
            Rule::WriteAccepts => "write-accepts",
            Rule::WriteEqualToken => "write-equal-token",
            Rule::WriteStaleRejected => "write-stale-rejected",
            Rule::RejectedChangesNothing => "rejected-changes-nothing",
            Rule::PerKey => "per-key",
            Rule::NeverWritten => "never-written",
            Rule::ClockOnly => "clock-only",
        }
    }

    /// The rule in words, the seed's where it says it.
    pub fn words(self) -> &'static str {
        match self {
            Rule::Defaults => {
                "LockService(clock, lease_seconds=10.0, first_token=1): made without them, its \
                 leases last 10 seconds and its first grant gets token 1."
            }
            Rule::NewStartsOver => {
                "Each new LockService and FencedStorage starts from nothing: no lease, no key, and \
                 its first grant gets first_token. State kept outside the objects (a global, a \
                 class attribute, a static, a mutable default argument) is \
                 shared by every service."
            }
            Rule::LeaseLive => {
                "A lease granted at time t is live while now < t + lease_seconds (its expires_at; \
                 its name, client_id and granted_at, where it has them, are the lock's, the \
                 caller's and t): until then another client's acquire returns None, and once it \
                 has expired the lock is free."
            }
            Rule::ExpiryBoundary => {
                "At exactly t + lease_seconds the lease has expired and the lock is free."
            }
            Rule::OneCounter => {
                "One counter for the whole service: the first grant gets first_token, every later \
                 grant (of any lock name) gets the next integer. A token is never handed out twice."
            }
            Rule::RefusedAcquireNoToken => {
                "Only a grant uses a token: a refused acquire leaves the counter as it was."
            }
            Rule::HolderAcquireNone => {
                "acquire on a lock with a live lease returns None, even when the caller is the \
                 holder (use renew to keep a lock)."
            }
            Rule::RenewKeepsToken => {
                "renew keeps the token (and the lease stays the caller's lease of that lock); \
                 only a new grant makes a new one."
            }
            Rule::RenewExtendsFromNow => {
                "renew by the holder of a live lease, with its token, extends it: after a renew at \
                 time t it is live while now < t + lease_seconds."
            }
            Rule::ExpiredNoRenew => {
                "An expired lease can't be renewed, even if nobody has taken the lock since: the \
                 client must acquire again and gets a new token."
            }
            Rule::LateRenew => {
                "renew needs the caller's live lease and its token: a renew of another client's \
                 lock, or with the caller's token of a lease that has ended, is refused and \
                 changes nothing."
            }
            Rule::ReleaseFrees => {
                "release by the holder of a live lease, with its token, frees the lock: from then \
                 on holder(name) is None and the next acquire is granted."
            }
            Rule::ExpiredNoRelease => {
                "An expired lease can't be released, even if nobody has taken the lock since: the \
                 release refuses (throws or returns false)."
            }
            Rule::LateRelease => {
                "A late release must never free someone else's lock, nor the caller's own newer \
                 grant: a release with a token the caller does not hold now frees nothing."
            }
            Rule::Holder => {
                "holder(name) is the client of the lock's live lease, and None when the lock was \
                 never granted or its lease has expired."
            }
            Rule::WriteAccepts => {
                "A write is accepted when token >= highest_token(key), or when the key was never \
                 written, and then the key's value and highest token are updated."
            }
            Rule::WriteEqualToken => {
                "A write with token == highest_token(key) is accepted: the holder may write several \
                 times with its token."
            }
            Rule::WriteStaleRejected => {
                "The storage rejects any write whose token is lower than the highest it has \
                 already accepted for the key."
            }
            Rule::RejectedChangesNothing => {
                "A rejected write changes nothing: the key keeps its value and its highest token."
            }
            Rule::PerKey => {
                "Each key keeps its own highest token, like the lesson's fence_token column \
                 (section 2.2): a write is compared only with its own key's highest."
            }
            Rule::NeverWritten => {
                "read(key) and highest_token(key) are None for a key that was never written."
            }
            Rule::ClockOnly => {
                "Read time only through clock.now() (seconds), never the system's own clock."
            }
        }
    }

    /// The rule's words as a student of `language` (what its program says in its greeting:
    /// `java 17`, `node 20`) reads them: Java's and JavaScript's names (`expiresAt`,
    /// `leaseSeconds`) and their none, `null`. Python's and Rust's are the seed's own.
    pub fn words_for(self, language: &str) -> String {
        let language = language.to_ascii_lowercase();
        let camel = ["java", "node", "javascript", "typescript", "deno", "bun"]
            .iter()
            .any(|l| language.starts_with(l));
        if !camel {
            return self.words().to_owned();
        }
        [
            ("lease_seconds", "leaseSeconds"),
            ("first_token", "firstToken"),
            ("client_id", "clientId"),
            ("granted_at", "grantedAt"),
            ("expires_at", "expiresAt"),
            ("highest_token", "highestToken"),
            ("None", "null"),
        ]
        .iter()
        .fold(self.words().to_owned(), |w, (seed, theirs)| {
            w.replace(seed, theirs)
        })
    }

    /// The methods the rule is about, as the protocol's `op`s: a method still to write fails
    /// the checks of the rules about it, and leaves the others not judged where they cannot be
    /// shown without it. `new-starts-over` and `clock-only` are about every method alike, so
    /// about none alone.
    pub fn about(self) -> &'static [&'static str] {
        match self {
            Rule::NewStartsOver | Rule::ClockOnly => &[],
            Rule::Defaults
            | Rule::LeaseLive
            | Rule::ExpiryBoundary
            | Rule::OneCounter
            | Rule::RefusedAcquireNoToken
            | Rule::HolderAcquireNone => &["acquire"],
            Rule::RenewKeepsToken
            | Rule::RenewExtendsFromNow
            | Rule::ExpiredNoRenew
            | Rule::LateRenew => &["renew"],
            Rule::ReleaseFrees | Rule::ExpiredNoRelease | Rule::LateRelease => &["release"],
            Rule::Holder => &["holder"],
            Rule::WriteAccepts | Rule::RejectedChangesNothing => {
                &["write", "read", "highest_token"]
            }
            Rule::WriteEqualToken | Rule::WriteStaleRejected | Rule::PerKey => &["write"],
            Rule::NeverWritten => &["read", "highest_token"],
        }
    }

    /// The rule with this id.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.id() == id)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Java and JavaScript students read their own names and their none; Python and Rust
    /// students the seed's.
    #[test]
    fn a_rules_words_are_in_the_students_language() {
        for rule in Rule::ALL {
            for language in ["java 17.0.15", "node 20.20.2"] {
                // The lesson's `fence_token` column is a column's name, not the student's.
                let words = rule.words_for(language).replace("fence_token", "");
                for seed in ["_seconds", "_token", "_id", "_at", "None"] {
                    assert!(!words.contains(seed), "{rule} in {language}: {words}");
                }
            }
            for language in ["python 3.11.7", "rust 1.95"] {
                assert_eq!(rule.words_for(language), rule.words());
            }
        }
        assert_eq!(
            Rule::NeverWritten.words_for("java 17"),
            "read(key) and highestToken(key) are null for a key that was never written."
        );
    }

    #[test]
    fn every_rule_has_one_id_and_its_own_words() {
        let ids: std::collections::BTreeSet<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
        assert_eq!(ids.len(), Rule::ALL.len());
        for rule in Rule::ALL {
            assert_eq!(Rule::from_id(rule.id()), Some(rule));
            assert!(rule.words().ends_with('.'), "{rule}");
            assert_eq!(rule.to_string(), rule.id());
        }
        assert_eq!(Rule::from_id("random"), None);
        // The seed's order: the ALL list is sorted as the enum is declared.
        let mut sorted = Rule::ALL;
        sorted.sort();
        assert_eq!(sorted, Rule::ALL);
    }
}
