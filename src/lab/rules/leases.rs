//! The service's own rules and a lease's life: `new` starts over, the defaults, a lease live
//! for its length and over at its end, and the clock the only source of time.

use super::{acquire, defaulted, highest, holder, paths, read, script, Aspect, C1, C2, GRID};
use crate::lab::script::Step::{Advance, ToExpiry};
use crate::lab::script::TokenOf::Own;
use crate::lab::script::{Script, Step};

/// Played twice with a `new` between: the second pass answers as the first did.
pub(super) fn new_starts_over() -> Vec<Aspect> {
    vec![vec![Script {
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
    }]]
}

/// The constructor's defaults, first token 1 and a 10 s lease, left out or given.
pub(super) fn defaults() -> Vec<Aspect> {
    vec![
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
    ]
}

/// A lease of 4 s, not the default 10: the length given is the one that counts.
pub(super) fn lease_live() -> Vec<Aspect> {
    vec![
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
    ]
}

/// Live just before its expiry, over at exactly its expiry.
pub(super) fn expiry_boundary() -> Vec<Aspect> {
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

/// Judged by the experiment before the checks (profile.rs); these paths show, where it
/// could not be run, that a lease still ends when the clock says.
pub(super) fn clock_only() -> Vec<Aspect> {
    vec![paths(
        vec![acquire("file", C1), Advance(5000.0)],
        &[acquire("file", C2), holder("file")],
    )]
}
