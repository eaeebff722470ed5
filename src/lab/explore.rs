//! Beyond the named rules: random scripts, and every script up to a small length over an
//! alphabet of calls and times that straddle each boundary (random tests pass wrong code; small
//! scopes do not). Scripts stream to the program many at a time; the first that differs is
//! shrunk, steps first and then values, to a minimal case.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::judge::Profile;
use super::rules::GRID;
use super::script::{
    judge_replies, plan, Call, Mismatch, Planner, Scope, Script, Step, Subject, TokenOf,
};
use super::wire::ProtocolError;
use super::wire::Request;

mod shrinking;
mod simplify;

pub use shrinking::{shrink, Shrunk};

const NAMES: [&str; 2] = ["file", "log"];
const CLIENTS: [&str; 3] = ["client-1", "client-2", "client-3"];
const VALUES: [&str; 3] = ["a", "b", "c"];

/// How many requests may be in flight while scripts stream: enough to keep the program busy,
/// few enough that little is wasted after a difference.
const WINDOW: usize = 512;

/// The random and exhaustive bounds, stated in the report.
#[derive(Clone, Copy, Debug, PartialEq)]
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

fn pick<T: Copy>(rng: &mut ChaCha8Rng, from: &[T]) -> T {
    from[rng.random_range(0..from.len())]
}

fn random_step(rng: &mut ChaCha8Rng, lease: f64) -> Step {
    let name = pick(rng, &NAMES);
    let client = pick(rng, &CLIENTS);
    match rng.random_range(0..14) {
        0 => Step::Advance(pick(rng, &[GRID, 0.5, 1.0, lease / 2.0])),
        1 => Step::ToExpiry {
            offset: pick(rng, &[-GRID, 0.0, GRID]),
        },
        2 | 3 => Step::Acquire { name, client },
        4 | 5 => Step::Renew {
            name,
            client,
            token: pick(
                rng,
                &[
                    TokenOf::Own,
                    TokenOf::Own,
                    TokenOf::OwnEarlier,
                    TokenOf::Holders,
                ],
            ),
        },
        6 => Step::Release {
            name,
            client,
            token: pick(
                rng,
                &[
                    TokenOf::Own,
                    TokenOf::Own,
                    TokenOf::Own,
                    TokenOf::OwnEarlier,
                    TokenOf::Holders,
                ],
            ),
        },
        7 => Step::Holder { name },
        8 | 9 => Step::Write {
            key: name,
            value: pick(rng, &VALUES),
            // Half the writes send the latest token, a quarter the previous one, a quarter a
            // small number.
            token: match rng.random_range(0..4) {
                1 => TokenOf::Previous,
                2 => TokenOf::Exactly(rng.random_range(0..4)),
                _ => TokenOf::Latest,
            },
        },
        10 => Step::Read { key: name },
        11 => Step::Highest { key: name },
        _ => Step::Advance(lease),
    }
}

/// A random script. A sixth of them use the constructor's defaults.
pub fn random_script(rng: &mut ChaCha8Rng, steps: usize) -> Script {
    let (lease_seconds, first_token) = match rng.random_range(0..6) {
        0 => (None, None),
        _ => (
            Some(pick(rng, &[10.0, 3.0, 2.5, 0.5])),
            Some(pick(rng, &[1, 1, 7, 100])),
        ),
    };
    let lease = lease_seconds.unwrap_or(crate::DEFAULT_LEASE_SECONDS);
    Script::new(
        lease_seconds,
        first_token,
        (0..steps).map(|_| random_step(rng, lease)).collect(),
    )
}

/// A script with the calls it makes on the seed.
pub type Planned = Arc<(Script, Vec<Call>)>;

/// Plays scripts one after another with many requests in flight. Returns how many scripts were
/// judged and the first that differs, with its difference.
pub fn play_many(
    scripts: impl Iterator<Item = Script>,
    student: &mut dyn Subject,
    profile: Profile,
) -> Result<(u64, Option<(Script, Mismatch)>), ProtocolError> {
    let planned = scripts.map(|script| {
        let calls = plan(&script);
        Arc::new((script, calls))
    });
    play_planned(planned, student, profile)
}

/// [`play_many`] for scripts already planned.
fn play_planned(
    scripts: impl Iterator<Item = Planned>,
    student: &mut dyn Subject,
    profile: Profile,
) -> Result<(u64, Option<(Script, Mismatch)>), ProtocolError> {
    let mut scripts = scripts;
    let mut queue = VecDeque::new();
    let mut in_flight = 0;
    let mut judged = 0;
    loop {
        while in_flight < WINDOW {
            let Some(planned) = scripts.next() else { break };
            for call in &planned.1 {
                student.send(&call.request)?;
            }
            in_flight += planned.1.len();
            queue.push_back(planned);
        }
        let Some(planned) = queue.pop_front() else {
            return Ok((judged, None));
        };
        let (script, calls) = &*planned;
        in_flight -= calls.len();
        judged += 1;
        match judge_replies(calls, Scope::All, student, profile)? {
            // Rounding, not a rule, decides there: the rest of this script is not judged.
            Some(m) if m.divergence.kind == super::judge::Kind::Unclear => {
                let rest = calls.len() - m.transcript.len();
                for _ in 0..rest {
                    student.receive()?;
                }
            }
            Some(mismatch) => {
                student.drain()?;
                return Ok((judged, Some((script.clone(), mismatch))));
            }
            None => {}
        }
    }
}

/// Random scripts from the bounds' seed; the first that differs.
pub fn random(
    student: &mut dyn Subject,
    bounds: Bounds,
    profile: Profile,
) -> Result<Option<(Script, Mismatch)>, ProtocolError> {
    let mut rng = ChaCha8Rng::seed_from_u64(bounds.seed);
    let scripts =
        (0..bounds.random_scripts).map(move |_| random_script(&mut rng, bounds.random_steps));
    Ok(play_many(scripts, student, profile)?.1)
}

/// The alphabet of the exhaustive check: each call where it can go wrong (renew and release with
/// the current token, an older one and another client's; writes with the latest, the previous
/// and a stale token), and clock moves to just before and exactly at the latest expiry.
pub fn alphabet() -> Vec<Step> {
    let (c1, c2) = ("client-1", "client-2");
    let renew = |client, token| Step::Renew {
        name: "file",
        client,
        token,
    };
    let release = |client, token| Step::Release {
        name: "file",
        client,
        token,
    };
    let write = |value, token| Step::Write {
        key: "file",
        value,
        token,
    };
    vec![
        Step::Acquire {
            name: "file",
            client: c1,
        },
        Step::Acquire {
            name: "file",
            client: c2,
        },
        renew(c1, TokenOf::Own),
        renew(c1, TokenOf::OwnEarlier),
        renew(c2, TokenOf::Holders),
        release(c1, TokenOf::Own),
        release(c1, TokenOf::OwnEarlier),
        release(c2, TokenOf::Holders),
        write("a", TokenOf::Latest),
        write("b", TokenOf::Previous),
        write("c", TokenOf::Exactly(0)),
        Step::ToExpiry { offset: -GRID },
        Step::ToExpiry { offset: 0.0 },
    ]
}

/// The observers each exhaustive script ends with.
fn observers() -> [Step; 3] {
    [
        Step::Holder { name: "file" },
        Step::Read { key: "file" },
        Step::Highest { key: "file" },
    ]
}

/// Every script of exactly `length` letters (shorter ones are their prefixes, compared on the
/// way), each followed by the observers; scripts that make the same requests as one before them
/// are played once. Returns how many were judged and the first that differs.
pub fn exhaustive(
    student: &mut dyn Subject,
    length: u32,
    profile: Profile,
) -> Result<(u64, Option<(Script, Mismatch)>), ProtocolError> {
    let scripts = distinct_scripts(length);
    play_planned(scripts.iter().cloned(), student, profile)
}

/// The scripts of `length` letters that make different calls on the seed (many make the same:
/// a refused renew changes nothing), planned once a process: the list depends on nothing but
/// the length, and grading a class checks many programs with it. A caller that asks while
/// another thread plans them waits for that plan.
fn distinct_scripts(length: u32) -> Arc<Vec<Planned>> {
    type Once = Arc<OnceLock<Arc<Vec<Planned>>>>;
    static DISTINCT: OnceLock<Mutex<HashMap<u32, Once>>> = OnceLock::new();
    let once: Once = Arc::clone(
        DISTINCT
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(length)
            .or_default(),
    );
    let distinct = once.get_or_init(|| {
        let letters = alphabet();
        let mut first = HashMap::new();
        let mut start = Planner::new();
        let new = exhaustive_script(&letters, 0, 0);
        let new = Request::New {
            lease_seconds: new.lease_seconds,
            first_token: new.first_token,
        };
        start.answer(&new);
        let mut lines = Vec::new();
        new.write_line(0, &mut lines);
        lines.push(b'\n');
        let mut walk = Walk {
            letters: &letters,
            length,
            first: &mut first,
        };
        walk.from(0, 0, 1, &start, &lines);
        let mut numbers: Vec<u64> = first.into_values().collect();
        numbers.sort_unstable();
        let planned = numbers.into_iter().map(|n| {
            let script = exhaustive_script(&letters, length, n);
            let calls = plan(&script);
            Arc::new((script, calls))
        });
        Arc::new(planned.collect())
    });
    Arc::clone(distinct)
}

/// The exhaustive scripts walked as a tree of their starts: each start is planned on the seed
/// once and cloned for every letter that follows it that sends a request, and each way of
/// calling the seed keeps the first script (in counting order) that calls it so. The last
/// letter's request is all a script adds to its start: the observers after it send the same
/// lines after every script, so they need no planning to tell scripts apart.
struct Walk<'a> {
    letters: &'a [Step],
    length: u32,
    /// The requests a script sends before its observers, as lines, with the number of the first
    /// script sending them.
    first: &'a mut HashMap<Vec<u8>, u64>,
}

impl Walk<'_> {
    /// Every script that starts with the `depth` letters planned in `planner` (whose requests
    /// are `lines`); `number` is what they add to a script's number, `place` what the next
    /// letter's index is worth (the first letter varies fastest).
    fn from(&mut self, depth: u32, number: u64, place: u64, planner: &Planner, lines: &[u8]) {
        if depth == self.length {
            self.keep(lines.to_vec(), number);
            return;
        }
        let size = self.letters.len() as u64;
        for (i, letter) in self.letters.iter().enumerate() {
            let number = number + i as u64 * place;
            let request = planner.request(letter);
            let last = self.is_last(depth);
            match request {
                // A letter that sends nothing leaves the start as it was.
                None if last => self.keep(lines.to_vec(), number),
                None => self.from(depth + 1, number, place * size, planner, lines),
                Some(request) => {
                    let mut more = lines.to_vec();
                    request.write_line(0, &mut more);
                    more.push(b'\n');
                    if last {
                        self.keep(more, number);
                    } else {
                        let mut next = planner.clone();
                        next.answer(&request);
                        self.from(depth + 1, number, place * size, &next, &more);
                    }
                }
            }
        }
    }

    /// Whether the letter after `depth` letters is a script's last.
    fn is_last(&self, depth: u32) -> bool {
        depth + 1 == self.length
    }

    /// A script's requests, kept with the lowest number of a script that sends them.
    fn keep(&mut self, lines: Vec<u8>, number: u64) {
        let kept = self.first.entry(lines).or_insert(number);
        *kept = (*kept).min(number);
    }
}

/// Plans the exhaustive scripts of `length` on another thread, while a program starts.
/// Without a thread to spare, they are planned when first asked for instead.
pub fn plan_ahead(length: u32) {
    let _ = std::thread::Builder::new().spawn(move || distinct_scripts(length));
}

/// Every script of `length` letters, in counting order (the first letter varying fastest).
pub fn exhaustive_scripts(length: u32) -> impl Iterator<Item = Script> {
    let letters = alphabet();
    let count = (letters.len() as u64).pow(length);
    (0..count).map(move |n| exhaustive_script(&letters, length, n))
}

/// Script number `n` of `length` letters: its letters are `n`'s digits in base `letters.len()`,
/// the first the lowest; then the observers.
fn exhaustive_script(letters: &[Step], length: u32, n: u64) -> Script {
    let mut steps = Vec::with_capacity(length as usize + 3);
    let mut rest = n;
    for _ in 0..length {
        steps.push(letters[(rest % letters.len() as u64) as usize].clone());
        rest /= letters.len() as u64;
    }
    steps.extend(observers());
    Script::new(Some(2.5), Some(1), steps)
}

/// The calls a chaos run made, up to the one that differs, as a script the shrinker can work
/// on: clock settings become moves, tokens are named by role where one gives the number sent
/// (the client's own, ...) and are their numbers otherwise, and each write's value is one of a
/// few (chaos never reads a value back, so which one is shown decides nothing). `None` where a
/// call has no step of its own (a name the scripts do not know).
///
/// A token named by role stays the client's own when the shrinker removes the grants before
/// it; as a number it would name a grant that no longer comes, and no earlier call could go.
pub fn script_of(
    played: &[super::script::Played],
    lease_seconds: f64,
    first_token: u64,
) -> Option<Script> {
    let known = |name: &str| -> Option<&'static str> {
        [
            "lock", "file", "log", "other", "client-1", "client-2", "client-3",
        ]
        .into_iter()
        .find(|&k| k == name)
    };
    const VALUES: [&str; 3] = ["a", "b", "c"];
    let mut steps = Vec::new();
    let mut now = 0.0;
    let mut writes = 0;
    // The seed planned along, as the script will be played: the grants the roles are read from.
    let mut planner = Planner::new();
    planner.answer(&Request::New {
        lease_seconds: Some(lease_seconds),
        first_token: Some(first_token),
    });
    for p in played {
        let step = match &p.request {
            Request::Hello => continue,
            Request::New { .. } if steps.is_empty() => continue,
            Request::New { .. } => return None,
            &Request::Clock { now: to } if to > now => {
                let by = to - now;
                now = to;
                Step::Advance(by)
            }
            Request::Clock { .. } => continue,
            Request::Acquire { name, client_id } => Step::Acquire {
                name: known(name)?,
                client: known(client_id)?,
            },
            Request::Renew {
                name,
                client_id,
                token,
            } => Step::Renew {
                name: known(name)?,
                client: known(client_id)?,
                token: TokenOf::Exactly(*token),
            },
            Request::Release {
                name,
                client_id,
                token,
            } => Step::Release {
                name: known(name)?,
                client: known(client_id)?,
                token: TokenOf::Exactly(*token),
            },
            Request::Holder { name } => Step::Holder { name: known(name)? },
            Request::Write { key, token, .. } => {
                writes += 1;
                Step::Write {
                    key: known(key)?,
                    value: VALUES[(writes - 1) % VALUES.len()],
                    token: TokenOf::Exactly(*token),
                }
            }
            Request::Read { key } => Step::Read { key: known(key)? },
            Request::HighestToken { key } => Step::Highest { key: known(key)? },
        };
        let step = planner.by_role(step);
        if let Some(request) = planner.request(&step) {
            planner.answer(&request);
        }
        steps.push(step);
    }
    Some(Script::new(Some(lease_seconds), Some(first_token), steps))
}

#[cfg(test)]
mod tests;
