//! The rules of the token counter: one counter for the service, no token for a refused acquire
//! or for the holder asking again, and a renew keeping its token.

use super::{acquire, after_client_1, release, renew, script, Aspect, C1, C2, C3};
use crate::lab::script::Script;
use crate::lab::script::Step::Advance;
use crate::lab::script::TokenOf::Own;

/// One counter for the whole service, from the first token given, across locks and clients.
pub(super) fn one_counter() -> Vec<Aspect> {
    vec![
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
    ]
}

/// Refused acquires use no token: the next grant, on this lock or another, shows it.
pub(super) fn refused_acquire_no_token() -> Vec<Aspect> {
    let refused = vec![
        acquire("file", C1),
        acquire("file", C2),
        acquire("file", C3),
    ];
    let mut paths = after_client_1(refused.clone(), vec![acquire("file", C2)]);
    paths.push(script([refused, vec![acquire("log", C2)]].concat()));
    vec![paths]
}

/// The holder asking again while its lease is live gets none.
pub(super) fn holder_acquire_none() -> Vec<Aspect> {
    vec![vec![script(vec![
        acquire("file", C1),
        Advance(5.0),
        acquire("file", C1),
        Advance(1.0),
        acquire("file", C1),
    ])]]
}

/// Renews keep their token and use none: the next grant shows it.
pub(super) fn renew_keeps_token() -> Vec<Aspect> {
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
