//! Scripts planned on the seed a step at a time: each step's request, its tokens resolved
//! against what the seed granted, and the seed's decision on it.

use super::{Call, Script, Step, TokenOf};
use crate::lab::reference::{Decision, Reference, Seed};
use crate::lab::wire::Request;

/// A lock's grants as the seed made them: (lock, client, token, expires_at), in grant order.
#[derive(Clone, Default)]
pub(super) struct Grants {
    pub(super) leases: Vec<(String, String, u64, f64)>,
}

impl Grants {
    /// The client's tokens on the lock, latest first.
    fn of<'a>(&'a self, name: &'a str, client: &'a str) -> impl Iterator<Item = u64> + 'a {
        self.leases
            .iter()
            .rev()
            .filter(move |(n, c, ..)| n == name && c == client)
            .map(|l| l.2)
    }

    fn holder_of(&self, name: &str) -> Option<&str> {
        self.leases
            .iter()
            .rev()
            .find(|l| l.0 == name)
            .map(|l| l.1.as_str())
    }

    fn token(&self, token: TokenOf, name: &str, client: &str, is_write: bool) -> Option<u64> {
        match token {
            TokenOf::Own if is_write => self.leases.iter().rev().find(|l| l.0 == name).map(|l| l.2),
            TokenOf::Own => self.of(name, client).next(),
            TokenOf::OwnEarlier => self.of(name, client).nth(1),
            TokenOf::Holders => {
                let holder = self.holder_of(name)?;
                (holder != client).then(|| self.of(name, holder).next())?
            }
            TokenOf::Latest => self.leases.iter().map(|l| l.2).max(),
            TokenOf::Previous => {
                let mut tokens: Vec<u64> = self.leases.iter().map(|l| l.2).collect();
                tokens.sort_unstable();
                tokens.dedup();
                tokens.iter().rev().nth(1).copied()
            }
            TokenOf::Exactly(t) => Some(t),
        }
    }
}

/// The request a step makes now, or `None` when it makes no sense here (a token never granted,
/// a clock move that would not move forward).
pub(super) fn resolve(step: &Step, now: f64, grants: &Grants) -> Option<Request> {
    Some(match *step {
        Step::New {
            lease_seconds,
            first_token,
        } => Request::New {
            lease_seconds,
            first_token,
        },
        Step::Advance(by) => Request::Clock {
            now: round_ms(now + by),
        },
        Step::ToExpiry { offset } => {
            let expiry = grants.leases.iter().map(|l| l.3).fold(f64::NAN, f64::max);
            let to = round_ms(expiry + offset);
            if to.is_nan() || to <= now {
                return None;
            }
            Request::Clock { now: to }
        }
        Step::Acquire { name, client } => Request::Acquire {
            name: name.into(),
            client_id: client.into(),
        },
        Step::Renew {
            name,
            client,
            token,
        } => Request::Renew {
            name: name.into(),
            client_id: client.into(),
            token: grants.token(token, name, client, false)?,
        },
        Step::Release {
            name,
            client,
            token,
        } => Request::Release {
            name: name.into(),
            client_id: client.into(),
            token: grants.token(token, name, client, false)?,
        },
        Step::Holder { name } => Request::Holder { name: name.into() },
        Step::Write { key, value, token } => Request::Write {
            key: key.into(),
            value: value.into(),
            token: grants.token(token, key, "", true)?,
        },
        Step::Read { key } => Request::Read { key: key.into() },
        Step::Highest { key } => Request::HighestToken { key: key.into() },
    })
}

/// The roles a token can be named by, most telling first.
const ROLES: [TokenOf; 5] = [
    TokenOf::Own,
    TokenOf::OwnEarlier,
    TokenOf::Holders,
    TokenOf::Latest,
    TokenOf::Previous,
];

/// `step` sending `token` instead, if it sends one.
fn with_token(step: &Step, token: TokenOf) -> Option<Step> {
    let mut step = step.clone();
    *step.token_mut()? = token;
    Some(step)
}

/// Times stay on a millisecond grid, as the reference and every language add them alike.
pub(super) fn round_ms(t: f64) -> f64 {
    (t * 1000.0).round() / 1000.0
}

/// A script planned on the seed a step at a time: the seed's state, the grants its tokens are
/// read from, and the time. Cloned, it tries the next step of many scripts that share a start.
#[derive(Clone)]
pub struct Planner {
    reference: Reference,
    grants: Grants,
    now: f64,
}

impl Planner {
    /// A fresh seed, before the script's `new`.
    pub fn new() -> Planner {
        Planner {
            reference: Reference::default(),
            grants: Grants::default(),
            now: 0.0,
        }
    }

    /// The request `step` makes now, if it makes one (a renew with no grant to name makes none).
    pub fn request(&self, step: &Step) -> Option<Request> {
        resolve(step, self.now, &self.grants)
    }

    /// `step` with the token it sends named by the first role that gives the same number now (the
    /// client's own, its earlier, the holder's, the latest, the one before), or as it is: a chaos
    /// run's calls made a script then keep their meaning when the shrinker takes away the grants
    /// before them.
    pub fn by_role(&self, step: Step) -> Step {
        let sent = self.request(&step);
        ROLES
            .into_iter()
            .filter_map(|role| with_token(&step, role))
            .find(|candidate| self.request(candidate) == sent)
            .unwrap_or(step)
    }

    /// The seed's decision on `request`, with the facts it rested on.
    pub fn decide(&mut self, request: &Request) -> Decision {
        self.before(request);
        let decision = self.reference.decide(request);
        self.after(request, &decision.seed);
        decision
    }

    /// The seed's answer alone, for telling scripts apart.
    pub fn answer(&mut self, request: &Request) -> Seed {
        self.before(request);
        let seed = self.reference.seed_of(request);
        self.after(request, &seed);
        seed
    }

    fn before(&mut self, request: &Request) {
        match request {
            Request::Clock { now: t } => self.now = *t,
            Request::New { .. } => {
                self.now = 0.0;
                self.grants = Grants::default();
            }
            _ => {}
        }
    }

    fn after(&mut self, request: &Request, seed: &Seed) {
        if let (
            Request::Acquire { name, client_id }
            | Request::Renew {
                name, client_id, ..
            },
            Seed::Granted(l) | Seed::Renewed(l),
        ) = (request, seed)
        {
            self.grants
                .leases
                .retain(|g| !(g.0 == *name && g.2 == l.token));
            self.grants
                .leases
                .push((name.clone(), client_id.clone(), l.token, l.expires_at));
        }
    }
}

impl Default for Planner {
    fn default() -> Self {
        Planner::new()
    }
}

/// The script's requests, each with the seed's decision: its `new`, then each step that makes a
/// request (twice over, with a `new` between, for a repeated script).
pub fn plan(script: &Script) -> Vec<Call> {
    let mut planner = Planner::new();
    let mut calls = Vec::new();
    let passes = if script.repeat { 2 } else { 1 };
    for pass in 0..passes {
        let new = Request::New {
            lease_seconds: script.lease_seconds,
            first_token: script.first_token,
        };
        let first_of_pass = calls.len();
        let steps = script
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| (Some(i), Some(s)));
        for (step, what) in std::iter::once((None, None)).chain(steps) {
            let request = match what {
                None => new.clone(),
                Some(s) => match planner.request(s) {
                    Some(r) => r,
                    None => continue,
                },
            };
            let decision = planner.decide(&request);
            let repeats = (pass == 1).then(|| calls.len() - first_of_pass);
            calls.push(Call {
                step,
                request,
                decision,
                repeats,
            });
        }
    }
    calls
}
