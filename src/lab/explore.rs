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
    // Half the writes send the latest token (0 and 3), a quarter the previous one, a quarter
    // a small number.
    let token = match rng.random_range(0..4) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::script::double::{Mistake, Student};

    /// Seed 1's random scripts use every kind of call, every token choice, every clock step and
    /// every setting, so the random check can reach every rule.
    #[test]
    fn random_scripts_use_the_whole_alphabet() {
        let mut rng = StdRng::seed_from_u64(1);
        let scripts: Vec<Script> = (0..200).map(|_| random_script(&mut rng, 24)).collect();
        let seen = |want: &dyn Fn(&Script, &Step) -> bool| {
            scripts
                .iter()
                .any(|s| s.steps.iter().any(|step| want(s, step)))
        };
        let leases: std::collections::BTreeSet<String> = scripts
            .iter()
            .map(|s| format!("{:?}", s.lease_seconds))
            .collect();
        assert_eq!(
            leases,
            ["Some(0.5)", "Some(10.0)", "Some(2.5)", "Some(3.0)"]
                .map(str::to_owned)
                .into()
        );
        for first in [1, 7, 100] {
            assert!(scripts.iter().any(|s| s.first_token == Some(first)));
        }
        assert!(scripts
            .iter()
            .all(|s| s.steps.len() == 24 && s.judge_expiry));
        for by in [0.001, 0.5, 1.0] {
            assert!(seen(&|_, step| *step == Step::Advance(by)), "Advance({by})");
        }
        for lease in [0.5, 2.5, 3.0, 10.0] {
            let of = |s: &Script| s.lease_seconds == Some(lease);
            assert!(seen(&|s, step| of(s) && *step == Step::Advance(lease)));
            assert!(seen(&|s, step| of(s) && *step == Step::Advance(lease / 2.0)));
        }
        for offset in [-0.001, 0.0, 0.001] {
            assert!(seen(&|_, step| *step == Step::ToExpiry { offset }));
        }
        let kinds: std::collections::BTreeSet<&str> = scripts
            .iter()
            .flat_map(|s| &s.steps)
            .map(|step| match step {
                Step::Advance(_) => "advance",
                Step::ToExpiry { .. } => "to-expiry",
                Step::Acquire { .. } => "acquire",
                Step::Renew { .. } => "renew",
                Step::Release { .. } => "release",
                Step::Holder { .. } => "holder",
                Step::Write { .. } => "write",
                Step::Read { .. } => "read",
                Step::Highest { .. } => "highest",
            })
            .collect();
        assert_eq!(kinds.len(), 9, "{kinds:?}");
        let write_token = |t: TokenOf| move |_: &Script, step: &Step| matches!(step, Step::Write { token, .. } if *token == t);
        assert!(seen(&write_token(TokenOf::Latest)));
        assert!(seen(&write_token(TokenOf::Previous)));
        for t in 0..4 {
            assert!(seen(&write_token(TokenOf::Exactly(t))));
        }
        let release_token = |t: TokenOf| move |_: &Script, step: &Step| matches!(step, Step::Release { token, .. } if *token == t);
        assert!(seen(&release_token(TokenOf::Own)));
        assert!(seen(&release_token(TokenOf::Holders)));
        // Half the writes send the latest token.
        let writes: Vec<TokenOf> = scripts
            .iter()
            .flat_map(|s| &s.steps)
            .filter_map(|step| match step {
                Step::Write { token, .. } => Some(*token),
                _ => None,
            })
            .collect();
        let latest = writes.iter().filter(|t| **t == TokenOf::Latest).count();
        let share = latest as f64 / writes.len() as f64;
        assert!((0.45..0.55).contains(&share), "{share}");
    }

    fn is_one_minimal(script: &Script, mistake: Mistake) -> bool {
        (0..script.steps.len()).all(|i| {
            let mut fewer = script.clone();
            fewer.steps.remove(i);
            play(&fewer, &mut Student::new(mistake), &mut 0)
                .unwrap()
                .is_none()
        })
    }

    #[test]
    fn a_random_failure_is_shrunk_to_a_one_minimal_script_that_ends_at_its_failure() {
        let mut correct = Student::new(Mistake::Correct);
        let mut calls = 0;
        assert!(random(&mut correct, Bounds::default(), &mut calls)
            .unwrap()
            .is_none());
        // Every script was played in full: `new` and 24 steps, some skipped.
        assert!(calls > 200 * 12 && calls <= 200 * 25, "{calls}");
        assert_eq!(calls, correct.calls);
        for mistake in Mistake::ALL_WRONG {
            if mistake == Mistake::DefaultLease30 {
                // Random scripts always name a lease: only the `defaults` rule sees this one.
                continue;
            }
            let mut student = Student::new(mistake);
            let (script, mismatch) = random(&mut student, Bounds::default(), &mut 0)
                .unwrap()
                .unwrap_or_else(|| panic!("{mistake:?} passes the random check"));
            assert!(is_one_minimal(&script, mistake), "{mistake:?}: {script:?}");
            assert_eq!(mismatch.steps_played, script.steps.len(), "{mistake:?}");
            assert!(script.steps.len() <= 6, "{mistake:?}: {script:?}");
            // The mismatch is the shrunk script's own.
            assert_eq!(
                play(&script, &mut Student::new(mistake), &mut 0).unwrap(),
                Some(mismatch)
            );
        }
    }

    #[test]
    fn shrinking_halves_its_chunks_before_it_tries_single_steps() {
        // A 24-step script whose failure needs only 2 steps: halving finds them in far fewer
        // plays than removing one step at a time.
        let mut steps = vec![Step::Holder { name: "log" }; 24];
        steps[5] = Step::Write {
            key: "file",
            value: "a",
            token: TokenOf::Exactly(3),
        };
        steps[17] = Step::Write {
            key: "file",
            value: "b",
            token: TokenOf::Exactly(3),
        };
        let script = Script {
            lease_seconds: Some(10.0),
            first_token: Some(1),
            steps,
            judge_expiry: true,
        };
        let mut student = Student::new(Mistake::WriteStrict);
        let (shrunk, _) = shrink(script, &mut student, &mut 0).unwrap();
        assert_eq!(shrunk.steps.len(), 2);
        // 131 calls here; removing one step at a time from the start takes 226.
        assert!(student.calls < 160, "{} calls", student.calls);
    }

    #[test]
    fn every_short_script_is_tried_in_order_until_one_fails() {
        let mut calls = 0;
        let mut correct = Student::new(Mistake::Correct);
        assert_eq!(exhaustive(&mut correct, 2, &mut calls).unwrap(), (64, None));
        assert_eq!(exhaustive(&mut correct, 0, &mut calls).unwrap(), (1, None));
        assert_eq!(calls, correct.calls);
        // The first script in counting order (the first letter varying fastest) with two
        // writes of the latest token after a grant: acquire, write, write is number 288.
        let mut strict = Student::new(Mistake::WriteStrict);
        let (tried, found) = exhaustive(&mut strict, 3, &mut 0).unwrap();
        let (script, mismatch) = found.expect("a strict storage fails");
        assert_eq!(tried, 289);
        let letters = alphabet();
        assert_eq!(
            script.steps,
            [letters[0].clone(), letters[4].clone(), letters[4].clone()],
            "{script:?}"
        );
        assert_eq!(mismatch.steps_played, 3);
        assert_eq!(
            mismatch.lines().last().unwrap(),
            "t=0.0    write(file, \"a\", 1) -> refused (\"token 1 is stale\"), but the seed accepts it"
        );
    }

    #[test]
    fn the_alphabet_straddles_each_boundary() {
        let letters = alphabet();
        assert_eq!(letters.len(), 8);
        assert!(letters.contains(&Step::ToExpiry { offset: -0.001 }));
        assert!(letters.contains(&Step::ToExpiry { offset: 0.0 }));
        assert_eq!(
            letters
                .iter()
                .filter(|s| matches!(s, Step::Write { .. }))
                .count(),
            2
        );
    }
}
