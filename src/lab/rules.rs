//! The seed's rules, one named script each. A script asks what its rule decides and keeps far
//! from every other rule's edges (times well clear of expiries, one lock name where tokens are
//! compared), so a bug elsewhere does not show in it; where one still does, the check says
//! "not judged" and names the rule that broke first.

use super::script::{Script, Step, TokenOf};
use super::seed::Rule;

/// The smallest step of a script's clock: 1/8 s. Times on it are exact in binary, so a lease's
/// end is the same whether a student compares `now < expires_at` or `now - granted_at <
/// lease_seconds`, and only the rule decides.
pub const GRID: f64 = 0.125;

const C1: &str = "client-1";
const C2: &str = "client-2";
const C3: &str = "client-3";

fn acquire(name: &'static str, client: &'static str) -> Step {
    Step::Acquire { name, client }
}

fn renew(client: &'static str, token: TokenOf) -> Step {
    Step::Renew {
        name: "file",
        client,
        token,
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

fn holder(name: &'static str) -> Step {
    Step::Holder { name }
}

fn read(key: &'static str) -> Step {
    Step::Read { key }
}

fn highest(key: &'static str) -> Step {
    Step::Highest { key }
}

/// A lease of 10 s, first token 1.
fn script(steps: Vec<Step>) -> Script {
    Script::new(Some(10.0), Some(1), steps)
}

/// One aspect of a rule, shown by any of its paths: a path that depends on nothing broken shows
/// the aspect holds; a path that breaks the rule shows it does not.
pub type Aspect = Vec<Script>;

/// Ways to move a lock from client 1, after `first`, to `next`: its lease runs out, or it is
/// released. Each is a path of its own, so a bug in one does not hide the aspect.
fn after_client_1(first: Vec<Step>, next: Vec<Step>) -> Aspect {
    let moves = [vec![Step::Advance(30.0)], vec![release(C1, TokenOf::Own)]];
    moves
        .into_iter()
        .map(|middle| script([first.clone(), middle, next.clone()].concat()))
        .collect()
}

/// Whether `client` still holds the lock, seen by acquire (another client's is refused) or by
/// holder: two paths.
fn held_by(name: &'static str, client: &'static str) -> [Step; 2] {
    let other = if client == C3 { C2 } else { C3 };
    [acquire(name, other), holder(name)]
}

/// Every aspect of `rule`'s named check, each with its paths.
pub fn aspects_of(rule: Rule) -> Vec<Aspect> {
    use Step::{Advance, ToExpiry};
    use TokenOf::{Holders, Own, OwnEarlier};
    let paths = |prefix: Vec<Step>, ends: &[Step]| -> Aspect {
        ends.iter()
            .map(|end| script([prefix.clone(), vec![end.clone()]].concat()))
            .collect()
    };
    let defaulted = |steps: Vec<Step>| Script::new(None, None, steps);
    match rule {
        Rule::NewStartsOver => vec![vec![Script {
            repeat: true,
            ..script(vec![
                holder("file"),
                read("file"),
                highest("file"),
                acquire("file", C1),
                Step::Write {
                    key: "file",
                    value: "a",
                    token: Own,
                },
                Advance(1.0),
                holder("file"),
                read("file"),
                highest("file"),
            ])
        }]],
        Rule::Defaults => vec![
            // The first token, and the expiry the lease reports.
            vec![defaulted(vec![acquire("file", C1)])],
            // The settings may be given, as the defaults' own values.
            vec![script(vec![acquire("file", C1)])],
            // Live at 9.5 s, free at 10.5 s, seen by acquire or by holder.
            vec![
                defaulted(vec![acquire("file", C1), Advance(9.5), acquire("file", C2)]),
                defaulted(vec![acquire("file", C1), Advance(9.5), holder("file")]),
            ],
            vec![
                defaulted(vec![
                    acquire("file", C1),
                    Advance(10.5),
                    acquire("file", C2),
                ]),
                defaulted(vec![acquire("file", C1), Advance(10.5), holder("file")]),
            ],
        ],
        // A lease of 4 s, not the default 10: the length given is the one that counts.
        Rule::LeaseLive => vec![
            vec![Script::new(
                Some(4.0),
                Some(1),
                vec![
                    Advance(3.0),
                    acquire("file", C1),
                    Advance(2.0),
                    acquire("file", C2),
                ],
            )],
            vec![Script::new(
                Some(4.0),
                Some(1),
                vec![
                    Advance(3.0),
                    acquire("file", C1),
                    Advance(5.0),
                    acquire("file", C2),
                ],
            )],
        ],
        Rule::ExpiryBoundary => {
            let boundary = |offset, end: Step| {
                Script::new(
                    Some(2.5),
                    Some(1),
                    vec![Advance(1.0), acquire("file", C1), ToExpiry { offset }, end],
                )
            };
            vec![
                vec![
                    boundary(-GRID, acquire("file", C2)),
                    boundary(-GRID, holder("file")),
                ],
                vec![
                    boundary(0.0, acquire("file", C2)),
                    boundary(0.0, holder("file")),
                ],
            ]
        }
        Rule::OneCounter => vec![
            vec![Script::new(
                Some(10.0),
                Some(7),
                vec![
                    acquire("file", C1),
                    acquire("log", C2),
                    acquire("other", C3),
                ],
            )],
            after_client_1(vec![acquire("file", C1)], vec![acquire("file", C2)])
                .into_iter()
                .map(|s| Script {
                    first_token: Some(7),
                    ..s
                })
                .collect(),
            // The same client, asking again once its lease is over, gets the next token too.
            after_client_1(vec![acquire("file", C1)], vec![acquire("file", C1)])
                .into_iter()
                .map(|s| Script {
                    first_token: Some(7),
                    ..s
                })
                .collect(),
        ],
        Rule::RefusedAcquireNoToken => {
            let refused = vec![
                acquire("file", C1),
                acquire("file", C2),
                acquire("file", C3),
            ];
            let mut paths = after_client_1(refused.clone(), vec![acquire("file", C2)]);
            paths.push(script([refused, vec![acquire("log", C2)]].concat()));
            vec![paths]
        }
        Rule::HolderAcquireNone => vec![vec![script(vec![
            acquire("file", C1),
            Advance(5.0),
            acquire("file", C1),
            Advance(1.0),
            acquire("file", C1),
        ])]],
        Rule::RenewKeepsToken => {
            let renewed = vec![
                acquire("file", C1),
                Advance(4.0),
                renew(C1, Own),
                Advance(2.0),
                renew(C1, Own),
            ];
            // The next grant shows whether the renews used tokens up.
            let mut next = vec![
                script([renewed.clone(), vec![Advance(100.0), acquire("file", C2)]].concat()),
                script([renewed.clone(), vec![release(C1, Own), acquire("file", C2)]].concat()),
            ];
            next.push(script([renewed.clone(), vec![acquire("log", C2)]].concat()));
            vec![vec![script(renewed)], next]
        }
        Rule::RenewExtendsFromNow => {
            let renewed = vec![acquire("file", C1), Advance(4.0), renew(C1, Own)];
            vec![
                // Still live just before the new expiry...
                paths(
                    [renewed.clone(), vec![Advance(9.5)]].concat(),
                    &held_by("file", C1),
                ),
                // ...and free just after it.
                paths(
                    [renewed, vec![Advance(10.5)]].concat(),
                    &[acquire("file", C2), holder("file")],
                ),
            ]
        }
        Rule::ExpiredNoRenew => vec![vec![script(vec![
            acquire("file", C1),
            Advance(30.0),
            renew(C1, Own),
        ])]],
        Rule::LateRenew => vec![
            // Another client, with the holder's token.
            vec![script(vec![acquire("file", C1), renew(C2, Holders)])],
            // The caller's own older token, against its newer grant.
            after_client_1(
                vec![acquire("file", C1)],
                vec![acquire("file", C1), renew(C1, OwnEarlier)],
            ),
            // The caller's token, its lease over, against another client's lock.
            after_client_1(
                vec![acquire("file", C1)],
                vec![acquire("file", C2), renew(C1, Own)],
            ),
        ],
        Rule::ReleaseFrees => {
            let released = vec![acquire("file", C1), Advance(2.0), release(C1, Own)];
            vec![
                vec![script([released.clone(), vec![holder("file")]].concat())],
                vec![script([released, vec![acquire("file", C2)]].concat())],
            ]
        }
        Rule::ExpiredNoRelease => vec![vec![script(vec![
            acquire("file", C1),
            Advance(30.0),
            release(C1, Own),
        ])]],
        Rule::LateRelease => {
            let observe = |steps: Vec<Step>, holder_now: &'static str| -> Aspect {
                held_by("file", holder_now)
                    .iter()
                    .map(|end| script([steps.clone(), vec![end.clone()]].concat()))
                    .collect()
            };
            let mut newer = Vec::new();
            for s in after_client_1(vec![acquire("file", C1)], vec![acquire("file", C1)]) {
                newer.extend(observe(
                    [s.steps, vec![release(C1, OwnEarlier)]].concat(),
                    C1,
                ));
            }
            let mut others = Vec::new();
            for s in after_client_1(vec![acquire("file", C1)], vec![acquire("file", C2)]) {
                others.extend(observe([s.steps, vec![release(C1, Own)]].concat(), C2));
            }
            vec![
                // Someone else's live lock, with its holder's token.
                observe(vec![acquire("file", C1), release(C3, Holders)], C1),
                newer,
                others,
            ]
        }
        Rule::Holder => vec![
            vec![script(vec![holder("other")])],
            vec![script(vec![
                acquire("file", C1),
                holder("file"),
                Advance(9.5),
                holder("file"),
            ])],
            vec![script(vec![
                acquire("file", C1),
                Advance(10.5),
                holder("file"),
            ])],
        ],
        Rule::WriteAccepts => vec![
            vec![script(vec![
                write("file", "one", 1),
                read("file"),
                highest("file"),
                write("file", "two", 2),
                read("file"),
                highest("file"),
            ])],
            // Every accepted write updates the value, one with the key's own highest token too.
            vec![script(vec![
                write("file", "one", 1),
                write("file", "again", 1),
                read("file"),
            ])],
        ],
        Rule::WriteEqualToken => vec![vec![script(vec![
            write("file", "first", 1),
            write("file", "second", 1),
            read("file"),
            write("file", "third", 2),
            write("file", "fourth", 2),
            read("file"),
        ])]],
        // The verdict alone: what a rejected write leaves is rejected-changes-nothing's.
        Rule::WriteStaleRejected => vec![vec![script(vec![
            write("file", "client 2's data", 2),
            write("file", "client 1's data", 1),
        ])]],
        Rule::RejectedChangesNothing => vec![vec![script(vec![
            write("file", "five", 5),
            highest("file"),
            write("file", "three", 3),
            read("file"),
            highest("file"),
            write("file", "four", 4),
        ])]],
        Rule::PerKey => vec![vec![script(vec![
            write("file", "five", 5),
            write("log", "one", 1),
            highest("log"),
            highest("file"),
            read("log"),
            write("log", "two", 2),
        ])]],
        Rule::NeverWritten => vec![vec![script(vec![
            read("log"),
            highest("log"),
            write("file", "five", 5),
            read("log"),
            highest("log"),
        ])]],
        // Judged by the experiment before the checks (profile.rs); these paths show, where it
        // could not be run, that a lease still ends when the clock says.
        Rule::ClockOnly => vec![paths(
            vec![acquire("file", C1), Advance(5000.0)],
            &[acquire("file", C2), holder("file")],
        )],
    }
}

/// How many steps a rule's check plays, over all its paths.
pub fn steps_of(rule: Rule) -> usize {
    aspects_of(rule)
        .iter()
        .flatten()
        .map(|s| s.steps.len() * if s.repeat { 2 } else { 1 })
        .sum()
}

#[cfg(test)]
mod tests;
