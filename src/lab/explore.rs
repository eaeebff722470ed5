//! Beyond the named rules: random scripts, and every script up to a small length over an
//! alphabet of calls and times that straddle each boundary (random tests pass wrong code; small
//! scopes do not). Scripts stream to the program many at a time; the first that differs is
//! shrunk, steps first and then values, to a minimal case.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::judge::Profile;
use super::program::ProtocolError;
use super::rules::GRID;
use super::script::{
    judge_replies, plan, play, Call, Mismatch, Planner, Scope, Script, Step, Subject, TokenOf,
};
use super::wire::Request;

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
            let last = depth + 1 == self.length;
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

    /// A script's requests, kept with the lowest number of a script that sends them.
    fn keep(&mut self, lines: Vec<u8>, number: u64) {
        let kept = self.first.entry(lines).or_insert(number);
        *kept = (*kept).min(number);
    }
}

/// Plans the exhaustive scripts of `length` on another thread, while a program starts.
pub fn plan_ahead(length: u32) {
    std::thread::spawn(move || distinct_scripts(length));
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

/// What shrinking a difference found.
#[derive(Clone, Debug, PartialEq)]
pub enum Shrunk {
    /// A case no step or value can be removed or simplified from, and its difference.
    Minimal(Script, Mismatch),
    /// Played again, the case answered otherwise: the program's answers depend on more than the
    /// calls (state kept across `new`, the real clock).
    Unstable(Script, Mismatch),
}

/// The most plays a shrink may take: a program whose every answer differs cannot keep it busy
/// for long.
const MAX_PLAYS: usize = 2000;

/// Shrinks a script that differs (`found` is its difference) while it keeps differing as `keep`
/// asks: chunks of steps first, then single steps, then simpler values (the lesson's 10 s lease,
/// alone or with the clock moves scaled to it; first token 1, alone or with the tokens written
/// as numbers moved with it; smaller tokens; whole-second clock moves; the lock and key `file`
/// and `client-1`, in one call or renamed everywhere).
pub fn shrink(
    script: Script,
    found: Mismatch,
    scope: Scope,
    keep: &dyn Fn(&Mismatch) -> bool,
    student: &mut dyn Subject,
    profile: Profile,
) -> Result<Shrunk, ProtocolError> {
    let mut shrinker = Shrinker {
        plays: 0,
        scope,
        keep,
        profile,
    };
    let Some(mut failure) = shrinker.attempt(&script, student)? else {
        return Ok(Shrunk::Unstable(script, found));
    };
    let mut script = script;
    script.steps.truncate(failure.steps_played);
    // Steps, then values, again while either changes: a simpler value can make a step needless.
    loop {
        let before = script.clone();
        shrinker.remove_steps(&mut script, &mut failure, student)?;
        shrinker.simplify_values(&mut script, &mut failure, student)?;
        if script == before || shrinker.plays >= MAX_PLAYS {
            break;
        }
    }
    Ok(Shrunk::Minimal(script, failure))
}

struct Shrinker<'a> {
    plays: usize,
    scope: Scope,
    keep: &'a dyn Fn(&Mismatch) -> bool,
    profile: Profile,
}

impl Shrinker<'_> {
    /// Removes steps, halves first, then quarters, ... then one at a time, until no removal
    /// keeps the difference.
    fn remove_steps(
        &mut self,
        script: &mut Script,
        failure: &mut Mismatch,
        student: &mut dyn Subject,
    ) -> Result<(), ProtocolError> {
        let mut chunk = script.steps.len().div_ceil(2).max(1);
        while self.plays < MAX_PLAYS {
            let mut removed = false;
            let mut start = 0;
            while start < script.steps.len() && self.plays < MAX_PLAYS {
                let mut candidate = script.clone();
                let end = (start + chunk).min(candidate.steps.len());
                candidate.steps.drain(start..end);
                match self.attempt(&candidate, student)? {
                    Some(m) => {
                        *script = candidate;
                        script.steps.truncate(m.steps_played);
                        *failure = m;
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
        Ok(())
    }

    /// Makes values simpler, one change at a time, while the difference stays.
    fn simplify_values(
        &mut self,
        script: &mut Script,
        failure: &mut Mismatch,
        student: &mut dyn Subject,
    ) -> Result<(), ProtocolError> {
        let mut simplified = true;
        while simplified && self.plays < MAX_PLAYS {
            simplified = false;
            for candidate in simpler(script) {
                if let Some(m) = self.attempt(&candidate, student)? {
                    *script = candidate;
                    script.steps.truncate(m.steps_played);
                    *failure = m;
                    simplified = true;
                    break;
                }
            }
        }
        Ok(())
    }

    /// The candidate's difference, if it still has one that counts.
    fn attempt(
        &mut self,
        candidate: &Script,
        student: &mut dyn Subject,
    ) -> Result<Option<Mismatch>, ProtocolError> {
        self.plays += 1;
        let found = play(candidate, self.scope, student, self.profile)?;
        Ok(found.filter(|m| (self.keep)(m)))
    }
}

/// Every script one value simpler than `script`, simplest change first.
fn simpler(script: &Script) -> Vec<Script> {
    let mut out = Vec::new();
    let with = |f: &dyn Fn(&mut Script)| {
        let mut s = script.clone();
        f(&mut s);
        s
    };
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
        for to in smaller.into_iter().filter(|&to| to >= 1 && to < t) {
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
    for (i, step) in script.steps.iter().enumerate() {
        for simpler_step in simpler_step(step) {
            out.push(with(&|s| s.steps[i] = simpler_step.clone()));
        }
    }
    // A token named by what the seed granted (the latest, the holder's...) as its number: the
    // grants it was read from may then go.
    for call in plan(script) {
        let (Some(i), Some(token)) = (call.step, token_sent(&call.request)) else {
            continue;
        };
        let exactly = |t: &TokenOf| *t != TokenOf::Exactly(token);
        let replaced = match &script.steps[i] {
            Step::Write {
                key,
                value,
                token: t,
            } if exactly(t) => Step::Write {
                key,
                value,
                token: TokenOf::Exactly(token),
            },
            Step::Renew {
                name,
                client,
                token: t,
            } if exactly(t) => Step::Renew {
                name,
                client,
                token: TokenOf::Exactly(token),
            },
            Step::Release {
                name,
                client,
                token: t,
            } if exactly(t) => Step::Release {
                name,
                client,
                token: TokenOf::Exactly(token),
            },
            _ => continue,
        };
        out.push(with(&|s| s.steps[i] = replaced.clone()));
    }
    out
}

/// The calls a chaos run made, up to the one that differs, as a script the shrinker can work
/// on: clock settings become moves, tokens their numbers, and each write's value one of a few
/// (chaos never reads a value back, so which one is shown decides nothing). `None` where a call
/// has no step of its own (a name the scripts do not know).
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
    for p in played {
        let step = match &p.request {
            Request::Hello => continue,
            Request::New { .. } if steps.is_empty() => continue,
            Request::New { .. } => return None,
            &Request::Clock { now: to } => {
                if to > now {
                    steps.push(Step::Advance(to - now));
                    now = to;
                }
                continue;
            }
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
        steps.push(step);
    }
    Some(Script::new(Some(lease_seconds), Some(first_token), steps))
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
        if let Step::Write { token, .. } | Step::Renew { token, .. } | Step::Release { token, .. } =
            step
        {
            if let TokenOf::Exactly(t) = token {
                if *t >= from {
                    *t = *t - from + to;
                }
            }
        }
    }
}

/// The script with the lesson's 10 s lease and every clock move scaled with it, where the moves
/// stay on the grid: a lease of 0.5 s with a move of 0.25 s reads as 10 s and 5 s.
fn scaled_to_lesson_lease(script: &Script) -> Option<Script> {
    let lease = script.lease_seconds.filter(|&l| l != 10.0)?;
    let factor = 10.0 / lease;
    let on_grid = |x: f64| (x / super::rules::GRID).fract() == 0.0;
    let mut scaled = script.clone();
    scaled.lease_seconds = Some(10.0);
    for step in &mut scaled.steps {
        match step {
            Step::Advance(by) => *by *= factor,
            Step::ToExpiry { offset } => *offset *= factor,
            _ => continue,
        }
        let (Step::Advance(x) | Step::ToExpiry { offset: x }) = step else {
            unreachable!("only clock moves are scaled")
        };
        if !x.is_finite() || !on_grid(*x) {
            return None;
        }
    }
    Some(scaled)
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

#[cfg(test)]
mod tests;
