//! The seed's rules, one named script each, in the seed's own words. Each script asks only what
//! its rule decides; [`script::play`](super::script::play) judges the replies.

use super::script::{Script, Step, TokenOf};

/// A rule the tests check.
pub struct Rule {
    /// A stable id, for `--only` and the JSON report.
    pub id: &'static str,
    /// The rule as the seed states it.
    pub words: &'static str,
    pub script: Script,
}

const C1: &str = "client-1";
const C2: &str = "client-2";
const C3: &str = "client-3";

fn acquire(name: &'static str, client: &'static str) -> Step {
    Step::Acquire { name, client }
}

fn renew(client: &'static str) -> Step {
    Step::Renew {
        name: "file",
        client,
        token: TokenOf::Own,
    }
}

fn release(client: &'static str, token: TokenOf) -> Step {
    Step::Release {
        name: "file",
        client,
        token,
    }
}

fn write(key: &'static str, value: &'static str, token: u64) -> Step {
    Step::Write {
        key,
        value,
        token: TokenOf::Exactly(token),
    }
}

fn holder() -> Step {
    Step::Holder { name: "file" }
}

fn script(lease: f64, steps: Vec<Step>) -> Script {
    Script {
        lease_seconds: Some(lease),
        first_token: Some(1),
        steps,
        judge_expiry: true,
    }
}

/// Every rule, in the order the seed gives them.
pub fn all() -> Vec<Rule> {
    use Step::{Advance, Highest, Read, ToExpiry};
    vec![
        Rule {
            id: "defaults",
            words: "LockService(clock, lease_seconds=10.0, first_token=1)",
            script: Script {
                lease_seconds: None,
                first_token: None,
                steps: vec![
                    acquire("file", C1),
                    Advance(9.9),
                    acquire("file", C2),
                    Advance(0.6),
                    acquire("file", C2),
                ],
                judge_expiry: true,
            },
        },
        Rule {
            id: "expiry-boundary",
            words: "A lease granted at time t is live while now < t + lease_seconds. At exactly \
                    t + lease_seconds it has expired and the lock is free.",
            script: script(
                2.5,
                vec![
                    Advance(0.1),
                    acquire("file", C1),
                    ToExpiry { offset: -0.001 },
                    acquire("file", C2),
                    holder(),
                    ToExpiry { offset: 0.0 },
                    holder(),
                    acquire("file", C2),
                ],
            ),
        },
        Rule {
            id: "one-counter",
            words: "One counter for the whole service: the first grant gets first_token, every \
                    later grant (of any lock name) gets the next integer.",
            script: Script {
                lease_seconds: Some(10.0),
                first_token: Some(7),
                steps: vec![
                    acquire("file", C1),
                    acquire("log", C2),
                    acquire("other", C3),
                    Advance(10.5),
                    acquire("file", C2),
                ],
                judge_expiry: true,
            },
        },
        Rule {
            id: "refused-acquire-no-token",
            words: "A token is never handed out twice; only a new grant makes a new one (a \
                    refused acquire uses no token).",
            script: script(
                10.0,
                vec![
                    acquire("file", C1),
                    acquire("file", C2),
                    acquire("file", C3),
                    acquire("log", C2),
                ],
            ),
        },
        Rule {
            id: "holder-acquire-none",
            words: "acquire on a lock with a live lease returns None, even when the caller is \
                    the holder (use renew to keep a lock).",
            script: script(
                10.0,
                vec![
                    acquire("file", C1),
                    Advance(5.0),
                    acquire("file", C1),
                    holder(),
                    acquire("log", C1),
                ],
            ),
        },
        Rule {
            id: "renew-keeps-token",
            words: "renew keeps the token; only a new grant makes a new one.",
            // Tokens only: how far a renew extends is renew-extends-from-now's rule.
            script: Script {
                judge_expiry: false,
                ..script(
                    10.0,
                    vec![
                        acquire("file", C1),
                        Advance(4.0),
                        renew(C1),
                        Advance(2.0),
                        renew(C1),
                    ],
                )
            },
        },
        Rule {
            id: "renew-extends-from-now",
            words: "A lease is live while now < t + lease_seconds: a renew at time t extends \
                    the lease to t + lease_seconds.",
            script: script(
                10.0,
                vec![
                    acquire("file", C1),
                    Advance(4.0),
                    renew(C1),
                    Advance(9.5),
                    acquire("file", C2),
                    Advance(1.0),
                    acquire("file", C2),
                ],
            ),
        },
        Rule {
            id: "expired-no-renew",
            words: "An expired lease can't be renewed, even if nobody has taken the lock since: \
                    the client must acquire again and gets a new token.",
            script: script(
                10.0,
                vec![
                    acquire("file", C1),
                    Advance(10.5),
                    renew(C1),
                    holder(),
                    acquire("file", C1),
                ],
            ),
        },
        Rule {
            id: "expired-no-release",
            words: "An expired lease can't be released, even if nobody has taken the lock since.",
            script: script(
                10.0,
                vec![
                    acquire("file", C1),
                    Advance(12.0),
                    release(C1, TokenOf::Own),
                    acquire("file", C2),
                ],
            ),
        },
        Rule {
            id: "late-release",
            words: "A late release must never free someone else's lock.",
            script: script(
                10.0,
                vec![
                    acquire("file", C1),
                    Advance(10.5),
                    acquire("file", C2),
                    release(C1, TokenOf::Previous),
                    holder(),
                    release(C3, TokenOf::Holders),
                    holder(),
                    Advance(10.5),
                    acquire("file", C1),
                    // Client 1's first token, long expired, against its own newer grant.
                    release(C1, TokenOf::Exactly(1)),
                    holder(),
                    acquire("file", C3),
                ],
            ),
        },
        Rule {
            id: "write-equal-token",
            words: "A write is accepted when token >= highest_token(key) (the holder may write \
                    several times with its token).",
            script: script(
                10.0,
                vec![
                    write("file", "first", 1),
                    write("file", "second", 1),
                    Read { key: "file" },
                    write("file", "third", 2),
                    write("file", "fourth", 2),
                    Read { key: "file" },
                ],
            ),
        },
        Rule {
            id: "write-stale-rejected",
            words: "The storage rejects any write whose token is lower than the highest it has \
                    already accepted.",
            script: script(
                10.0,
                vec![
                    write("file", "client 2's data", 2),
                    write("file", "client 1's data", 1),
                    Read { key: "file" },
                ],
            ),
        },
        Rule {
            id: "rejected-changes-nothing",
            words: "A write is accepted when token >= highest_token(key), and then the key's \
                    value and highest token are updated. A rejected write changes nothing.",
            script: script(
                10.0,
                vec![
                    write("file", "five", 5),
                    Highest { key: "file" },
                    write("file", "three", 3),
                    Read { key: "file" },
                    Highest { key: "file" },
                    write("file", "four", 4),
                    Read { key: "file" },
                ],
            ),
        },
        Rule {
            id: "per-key",
            words: "Each key keeps its own highest token, like the lesson's fence_token column \
                    (section 2.2).",
            script: script(
                10.0,
                vec![
                    Read { key: "log" },
                    Highest { key: "log" },
                    write("file", "five", 5),
                    write("log", "one", 1),
                    Highest { key: "log" },
                    Highest { key: "file" },
                    Read { key: "log" },
                ],
            ),
        },
        Rule {
            id: "holder",
            words: "Once a lease has expired the lock is free: holder(name) is none.",
            script: script(
                10.0,
                vec![
                    Step::Holder { name: "other" },
                    acquire("file", C1),
                    holder(),
                    Advance(9.5),
                    holder(),
                    Advance(1.0),
                    holder(),
                ],
            ),
        },
        Rule {
            id: "clock-only",
            words: "Read time only through clock.now() (seconds).",
            script: script(
                10.0,
                vec![
                    Advance(5000.0),
                    acquire("file", C1),
                    Advance(10.5),
                    acquire("file", C2),
                    Advance(3.0),
                    holder(),
                ],
            ),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::script::double::{Mistake, Student};
    use crate::lab::script::play;

    fn failing(mistake: Mistake) -> Vec<&'static str> {
        let mut calls = 0;
        all()
            .into_iter()
            .filter(|rule| {
                play(&rule.script, &mut Student::new(mistake), &mut calls)
                    .unwrap()
                    .is_some()
            })
            .map(|rule| rule.id)
            .collect()
    }

    #[test]
    fn the_rules_are_the_seeds_in_its_order() {
        let ids: Vec<&str> = all().iter().map(|r| r.id).collect();
        assert_eq!(
            ids,
            [
                "defaults",
                "expiry-boundary",
                "one-counter",
                "refused-acquire-no-token",
                "holder-acquire-none",
                "renew-keeps-token",
                "renew-extends-from-now",
                "expired-no-renew",
                "expired-no-release",
                "late-release",
                "write-equal-token",
                "write-stale-rejected",
                "rejected-changes-nothing",
                "per-key",
                "holder",
                "clock-only",
            ]
        );
    }

    #[test]
    fn a_correct_implementation_passes_every_rule() {
        assert_eq!(failing(Mistake::Correct), Vec::<&str>::new());
    }

    /// Each mistake is caught by the rule about it, and a rule about tokens is not also failed
    /// by a wrong expiry (`judge_expiry` off).
    #[test]
    fn each_mistake_fails_the_rule_it_breaks() {
        for mistake in Mistake::ALL_WRONG {
            let failed = failing(mistake);
            assert!(
                failed.contains(&mistake.breaks()),
                "{mistake:?} should fail {}, failed {failed:?}",
                mistake.breaks()
            );
        }
        let renewing_from_the_old_expiry = failing(Mistake::RenewFromOldExpiry);
        assert!(!renewing_from_the_old_expiry.contains(&"renew-keeps-token"));
        assert_eq!(failing(Mistake::DefaultLease30), ["defaults"]);
        assert_eq!(failing(Mistake::WriteStrict), ["write-equal-token"]);
        assert_eq!(
            failing(Mistake::GlobalHighest),
            ["per-key"],
            "only the per-key rule writes to two keys"
        );
    }
}
