//! The candidates one value simpler than a script (two clock moves in a row as one, then lease,
//! first token, tokens, clock moves, names and clients), simplest first, for the shrinker to try.

use crate::lab::script::{plan, Script, Step, TokenOf};
use crate::lab::wire::Request;

/// Every script one value simpler than `script`, simplest change first: two clock moves in a
/// row made one (the same times, a step fewer), then one value at a time.
pub(super) fn simpler(script: &Script) -> Vec<Script> {
    let mut out = Vec::new();
    let with = |f: &dyn Fn(&mut Script)| {
        let mut s = script.clone();
        f(&mut s);
        s
    };
    // A chaos run moves the clock between most calls; no single move can go without moving
    // every call after it, but two in a row can be one.
    for i in 1..script.steps.len() {
        let merged = match (&script.steps[i - 1], &script.steps[i]) {
            (Step::Advance(a), Step::Advance(b)) => Step::Advance(a + b),
            (Step::ToExpiry { offset }, Step::Advance(b)) => Step::ToExpiry { offset: offset + b },
            _ => continue,
        };
        out.push(with(&|s| {
            s.steps.splice(i - 1..=i, [merged.clone()]);
        }));
    }
    if script.lease_seconds.is_some_and(|l| l != 10.0) {
        out.push(with(&|s| s.lease_seconds = Some(10.0)));
        if let Some(l) = script
            .lease_seconds
            .filter(|l| l.round() != *l && l.round() > 0.0)
        {
            out.push(with(&|s| s.lease_seconds = Some(l.round())));
        }
    }
    if let Some(first) = script.first_token.filter(|&t| t != 1) {
        out.push(with(&|s| s.first_token = Some(1)));
        // The same grants numbered from 1: every token written as a number moves with them.
        out.push(with(&|s| {
            s.first_token = Some(1);
            shift_tokens(s, first, 1);
        }));
    }
    out.extend(scaled_to_lesson_lease(script));
    out.extend(renamed(script));
    out.extend(smaller_tokens(script));
    for (i, step) in script.steps.iter().enumerate() {
        for simpler_step in simpler_step(step) {
            out.push(with(&|s| s.steps[i] = simpler_step.clone()));
        }
    }
    out.extend(tokens_as_numbers(script));
    out
}

/// Each token number written as a number, made smaller everywhere it is written.
fn smaller_tokens(script: &Script) -> Vec<Script> {
    let mut out = Vec::new();
    let with = |f: &dyn Fn(&mut Script)| {
        let mut s = script.clone();
        f(&mut s);
        s
    };
    // A token number, smaller everywhere it is written: two writes with token 3 become two with
    // token 1, which one change at a time could not keep.
    let mut tokens: Vec<u64> = script
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Write {
                token: TokenOf::Exactly(t),
                ..
            } if *t > 1 => Some(*t),
            _ => None,
        })
        .collect();
    tokens.sort_unstable();
    tokens.dedup();
    for t in tokens {
        // 1 first, then halfway and one less: a token that must stay above another still shrinks.
        let mut smaller = vec![1, t / 2, t - 1];
        smaller.dedup();
        // Each is at least 1 and below `t`, which is at least 2.
        for to in smaller {
            out.push(with(&|s| {
                for step in &mut s.steps {
                    if let Step::Write { token, .. } = step {
                        if *token == TokenOf::Exactly(t) {
                            *token = TokenOf::Exactly(to);
                        }
                    }
                }
            }));
        }
    }
    out
}

/// Each token the seed granted and a step names by role, written as its number instead.
fn tokens_as_numbers(script: &Script) -> Vec<Script> {
    let mut out = Vec::new();
    let with = |f: &dyn Fn(&mut Script)| {
        let mut s = script.clone();
        f(&mut s);
        s
    };
    // A token named by what the seed granted (the latest, the holder's...) as its number: the
    // grants it was read from may then go.
    for call in plan(script) {
        let (Some(i), Some(token)) = (call.step, token_sent(&call.request)) else {
            continue;
        };
        let mut replaced = script.steps[i].clone();
        match replaced.token_mut() {
            Some(t) if *t != TokenOf::Exactly(token) => *t = TokenOf::Exactly(token),
            _ => continue,
        }
        out.push(with(&|s| s.steps[i] = replaced.clone()));
    }
    out
}

/// The token a request sends, if it sends one.
fn token_sent(request: &Request) -> Option<u64> {
    match request {
        Request::Write { token, .. }
        | Request::Renew { token, .. }
        | Request::Release { token, .. } => Some(*token),
        _ => None,
    }
}

fn simpler_step(step: &Step) -> Vec<Step> {
    let mut out = Vec::new();
    match step {
        Step::Advance(by) => {
            if by.round() != *by && by.round() > 0.0 {
                out.push(Step::Advance(by.round()));
            }
            // Rounded up too: a move just past an expiry stays past it.
            if by.ceil() != by.round() {
                out.push(Step::Advance(by.ceil()));
            }
            if *by > 1.0 {
                out.push(Step::Advance(1.0));
            }
        }
        Step::ToExpiry { offset } if *offset != 0.0 => out.push(Step::ToExpiry { offset: 0.0 }),
        Step::Acquire { name, client } => {
            out.extend(simpler_name(name).map(|name| Step::Acquire { name, client }));
            out.extend(simpler_client(client).map(|client| Step::Acquire { name, client }));
        }
        Step::Write { key, value, token } => {
            out.extend(simpler_name(key).map(|key| Step::Write {
                key,
                value,
                token: *token,
            }));
            if let TokenOf::Exactly(t) = token {
                if *t > 1 {
                    out.push(Step::Write {
                        key,
                        value,
                        token: TokenOf::Exactly(1),
                    });
                }
            }
        }
        Step::Renew {
            name,
            client,
            token,
        } => {
            out.extend(simpler_name(name).map(|name| Step::Renew {
                name,
                client,
                token: *token,
            }));
            out.extend(simpler_client(client).map(|client| Step::Renew {
                name,
                client,
                token: *token,
            }));
        }
        Step::Release {
            name,
            client,
            token,
        } => {
            out.extend(simpler_name(name).map(|name| Step::Release {
                name,
                client,
                token: *token,
            }));
            out.extend(simpler_client(client).map(|client| Step::Release {
                name,
                client,
                token: *token,
            }));
        }
        Step::Holder { name } => out.extend(simpler_name(name).map(|name| Step::Holder { name })),
        Step::Read { key } => out.extend(simpler_name(key).map(|key| Step::Read { key })),
        Step::Highest { key } => out.extend(simpler_name(key).map(|key| Step::Highest { key })),
        _ => {}
    }
    out
}

/// Every token written as a number from `from` up moved down to start at `to`, as the grants'
/// tokens move when the first token does.
fn shift_tokens(script: &mut Script, from: u64, to: u64) {
    for step in &mut script.steps {
        if let Some(TokenOf::Exactly(t)) = step.token_mut() {
            if *t >= from {
                *t = *t - from + to;
            }
        }
    }
}

/// The script with the lesson's 10 s lease and every clock move scaled with it: a lease of
/// 0.5 s with a move of 0.25 s reads as 10 s and 5 s. A move the scaling takes off the grid the
/// scripts' clocks keep (a chaos run's 3.038 s of a 3 s lease) is put back on it, to the nearest
/// grid point and to the next one up, each tried: a move just past an expiry stays past it.
fn scaled_to_lesson_lease(script: &Script) -> Vec<Script> {
    let Some(lease) = script.lease_seconds.filter(|&l| l != 10.0) else {
        return Vec::new();
    };
    let factor = 10.0 / lease;
    let grid = crate::lab::rules::GRID;
    let mut out: Vec<Script> = Vec::new();
    for to_grid in [f64::round, f64::ceil] {
        let mut scaled = script.clone();
        scaled.lease_seconds = Some(10.0);
        for step in &mut scaled.steps {
            let (Step::Advance(x) | Step::ToExpiry { offset: x }) = step else {
                continue;
            };
            let exact = *x * factor;
            *x = if on_the_grid(exact) {
                exact
            } else {
                to_grid(exact / grid) * grid
            };
            if !x.is_finite() {
                return Vec::new();
            }
        }
        if !out.contains(&scaled) {
            out.push(scaled);
        }
    }
    out
}

/// The script with one lock name, key or client renamed everywhere to the simplest one not
/// already in use in that role: a rename of one call alone would break the calls that follow it.
fn renamed(script: &Script) -> Vec<Script> {
    let mut out = Vec::new();
    let mut names: Vec<&'static str> = Vec::new();
    let mut clients: Vec<&'static str> = Vec::new();
    for step in &script.steps {
        let (name, client) = match step {
            Step::Acquire { name, client }
            | Step::Renew { name, client, .. }
            | Step::Release { name, client, .. } => (Some(*name), Some(*client)),
            Step::Holder { name } => (Some(*name), None),
            Step::Write { key, .. } | Step::Read { key } | Step::Highest { key } => {
                (Some(*key), None)
            }
            _ => (None, None),
        };
        names.extend(name.filter(|n| !names.contains(n)));
        clients.extend(client.filter(|c| !clients.contains(c)));
    }
    // Locks and keys are named apart, but one name for both reads simplest: rename across both.
    for &name in names
        .iter()
        .filter(|&&n| n != "file" && !names.contains(&"file"))
    {
        out.push(rename(
            script,
            |n| if n == name { "file" } else { n },
            |c| c,
        ));
    }
    // Clients numbered in the order they first appear: a permutation keeps every call's meaning,
    // and once in that order there is nothing simpler to try.
    const IN_ORDER: [&str; 3] = ["client-1", "client-2", "client-3"];
    let canonical = |c: &'static str| {
        clients
            .iter()
            .position(|&k| k == c)
            .and_then(|i| IN_ORDER.get(i).copied())
            .unwrap_or(c)
    };
    if clients.iter().any(|&c| canonical(c) != c) {
        out.push(rename(script, |n| n, canonical));
    }
    out
}

fn rename(
    script: &Script,
    name: impl Fn(&'static str) -> &'static str,
    client: impl Fn(&'static str) -> &'static str,
) -> Script {
    let mut out = script.clone();
    for step in &mut out.steps {
        match step {
            Step::Acquire { name: n, client: c }
            | Step::Renew {
                name: n, client: c, ..
            }
            | Step::Release {
                name: n, client: c, ..
            } => {
                *n = name(n);
                *c = client(c);
            }
            Step::Holder { name: n }
            | Step::Write { key: n, .. }
            | Step::Read { key: n }
            | Step::Highest { key: n } => *n = name(n),
            _ => {}
        }
    }
    out
}

fn simpler_name(name: &str) -> Option<&'static str> {
    (name != "file").then_some("file")
}

fn simpler_client(client: &str) -> Option<&'static str> {
    (client != "client-1").then_some("client-1")
}

/// Whether a clock move lies on the scripts' grid of 1/8 s.
fn on_the_grid(x: f64) -> bool {
    (x / crate::lab::rules::GRID).fract() == 0.0
}
