//! The rules of who holds a lock: a renew extends from now and only while live and held, a
//! release frees only while live and held, and holder says who holds it.

use super::{
    acquire, after_client_1, held_by, holder, paths, release, renew, script, Aspect, C1, C2, C3,
};
use crate::lab::script::Step::{self, Advance};
use crate::lab::script::TokenOf::{Holders, Own, OwnEarlier};

/// A renew extends the lease from now by the lease's length.
pub(super) fn renew_extends_from_now() -> Vec<Aspect> {
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

/// A renew once the lease ran out is refused.
pub(super) fn expired_no_renew() -> Vec<Aspect> {
    vec![vec![script(vec![
        acquire("file", C1),
        Advance(30.0),
        renew(C1, Own),
    ])]]
}

/// A renew with a token that is not the caller's live lease is refused.
pub(super) fn late_renew() -> Vec<Aspect> {
    vec![
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
    ]
}

/// A release by the holder frees the lock at once.
pub(super) fn release_frees() -> Vec<Aspect> {
    let released = vec![acquire("file", C1), Advance(2.0), release(C1, Own)];
    vec![
        vec![script([released.clone(), vec![holder("file")]].concat())],
        vec![script([released, vec![acquire("file", C2)]].concat())],
    ]
}

/// A release once the lease ran out is refused.
pub(super) fn expired_no_release() -> Vec<Aspect> {
    vec![vec![script(vec![
        acquire("file", C1),
        Advance(30.0),
        release(C1, Own),
    ])]]
}

/// A release with a token that is not the caller's live lease frees nothing.
pub(super) fn late_release() -> Vec<Aspect> {
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

/// Holder names the live holder, and none once the lease is over or for a lock never granted.
pub(super) fn who_holds() -> Vec<Aspect> {
    vec![
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
    ]
}
