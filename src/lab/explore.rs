//! Beyond the named rules: random scripts compared with the reference (a failure shrunk to a
//! minimal script), and every script up to a small length over an alphabet of calls and times
//! that straddle each boundary (random tests pass wrong code; small scopes do not).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng as StdRng;

use super::protocol::ProtocolError;
use super::script::{play, Mismatch, Script, Step, Subject, TokenOf};

const NAMES: [&str; 2] = ["file", "log"];
const CLIENTS: [&str; 3] = ["client-1", "client-2", "client-3"];
const VALUES: [&str; 3] = ["a", "b", "c"];

/// The random and exhaustive bounds, stated in the report.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    pub random_scripts: usize,
    pub random_steps: usize,
    pub exhaustive_length: u32,
    pub seed: u64,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            random_scripts: 200,
            random_steps: 24,
            exhaustive_length: 4,
            seed: 1,
        }
    }
}

fn random_step(rng: &mut StdRng, lease: f64) -> Step {
    let name = NAMES[rng.random_range(0..NAMES.len())];
    let client = CLIENTS[rng.random_range(0..CLIENTS.len())];
    let token = match rng.random_range(0..4) {
        0 => TokenOf::Latest,
        1 => TokenOf::Previous,
        2 => TokenOf::Exactly(rng.random_range(0..4)),
        _ => TokenOf::Latest,
    };
    match rng.random_range(0..12) {
        0 => Step::Advance([0.001, 0.5, 1.0, lease / 2.0][rng.random_range(0..4)]),
        1 => Step::ToExpiry {
            offset: [-0.001, 0.0, 0.001][rng.random_range(0..3)],
        },
        2 | 3 => Step::Acquire { name, client },
        4 => Step::Renew {
            name,
            client,
            token: TokenOf::Own,
        },
        5 => Step::Release {
            name,
            client,
            token: if rng.random_bool(0.8) {
                TokenOf::Own
            } else {
                TokenOf::Holders
            },
        },
        6 => Step::Holder { name },
        7 | 8 => Step::Write {
            key: name,
            value: VALUES[rng.random_range(0..VALUES.len())],
            token,
        },
        9 => Step::Read { key: name },
        10 => Step::Highest { key: name },
        _ => Step::Advance(lease),
    }
}

fn random_script(rng: &mut StdRng, steps: usize) -> Script {
    let lease = [10.0, 3.0, 2.5, 0.5][rng.random_range(0..4)];
    let first_token = [1, 1, 7, 100][rng.random_range(0..4)];
    Script {
        lease_seconds: Some(lease),
        first_token: Some(first_token),
        steps: (0..steps).map(|_| random_step(rng, lease)).collect(),
        judge_expiry: true,
    }
}

/// Random scripts; the first that fails, shrunk.
pub fn random(
    student: &mut dyn Subject,
    bounds: Bounds,
    calls: &mut u64,
) -> Result<Option<(Script, Mismatch)>, ProtocolError> {
    let mut rng = StdRng::seed_from_u64(bounds.seed);
    for _ in 0..bounds.random_scripts {
        let script = random_script(&mut rng, bounds.random_steps);
        if play(&script, student, calls)?.is_some() {
            return shrink(script, student, calls).map(Some);
        }
    }
    Ok(None)
}

/// Removes steps while the script still fails: chunks first, then single steps, until no
/// removal keeps the failure (a 1-minimal script).
pub fn shrink(
    mut script: Script,
    student: &mut dyn Subject,
    calls: &mut u64,
) -> Result<(Script, Mismatch), ProtocolError> {
    let mut failure = play(&script, student, calls)?.expect("shrink starts from a failing script");
    // Steps after the failing call cannot matter.
    script.steps.truncate(failure.steps_played);
    let mut chunk = script.steps.len().div_ceil(2).max(1);
    loop {
        let mut removed = false;
        let mut start = 0;
        while start < script.steps.len() {
            let mut candidate = script.clone();
            let end = (start + chunk).min(candidate.steps.len());
            candidate.steps.drain(start..end);
            match play(&candidate, student, calls)? {
                Some(m) => {
                    script = candidate;
                    script.steps.truncate(m.steps_played);
                    failure = m;
                    removed = true;
                }
                None => start += chunk,
            }
        }
        if chunk == 1 && !removed {
            break;
        }
        if !removed {
            chunk = (chunk / 2).max(1);
        }
    }
    Ok((script, failure))
}

/// The alphabet of the exhaustive check: each call where it can go wrong, and clock moves to
/// just before and exactly at the latest expiry.
pub fn alphabet() -> Vec<Step> {
    vec![
        Step::Acquire {
            name: "file",
            client: "client-1",
        },
        Step::Acquire {
            name: "file",
            client: "client-2",
        },
        Step::Renew {
            name: "file",
            client: "client-1",
            token: TokenOf::Own,
        },
        Step::Release {
            name: "file",
            client: "client-1",
            token: TokenOf::Own,
        },
        Step::Write {
            key: "file",
            value: "a",
            token: TokenOf::Latest,
        },
        Step::Write {
            key: "file",
            value: "b",
            token: TokenOf::Previous,
        },
        Step::ToExpiry { offset: -0.001 },
        Step::ToExpiry { offset: 0.0 },
    ]
}

/// Every script of exactly `length` letters (shorter ones are their prefixes, compared on the
/// way), each followed by the observers. Returns how many were tried and the first failure.
pub fn exhaustive(
    student: &mut dyn Subject,
    length: u32,
    calls: &mut u64,
) -> Result<(u64, Option<(Script, Mismatch)>), ProtocolError> {
    let letters = alphabet();
    let count = (letters.len() as u64).pow(length);
    for n in 0..count {
        let mut steps = Vec::with_capacity(length as usize + 3);
        let mut rest = n;
        for _ in 0..length {
            steps.push(letters[(rest % letters.len() as u64) as usize].clone());
            rest /= letters.len() as u64;
        }
        steps.extend([
            Step::Holder { name: "file" },
            Step::Read { key: "file" },
            Step::Highest { key: "file" },
        ]);
        let script = Script {
            lease_seconds: Some(2.5),
            first_token: Some(1),
            steps,
            judge_expiry: true,
        };
        if play(&script, student, calls)?.is_some() {
            let shrunk = shrink(script, student, calls)?;
            return Ok((n + 1, Some(shrunk)));
        }
    }
    Ok((count, None))
}
