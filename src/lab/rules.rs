//! The seed's rules, one named script each. A script asks what its rule decides and keeps far
//! from every other rule's edges (times well clear of expiries, one lock name where tokens are
//! compared), so a bug elsewhere does not show in it; where one still does, the check says
//! "not judged" and names the rule that broke first.

use super::script::{Script, Step, TokenOf};
use super::seed::Rule;

mod leases;
mod ownership;
mod storage;
mod tokens;

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

/// One path for each of `ends`, after `prefix`.
fn paths(prefix: Vec<Step>, ends: &[Step]) -> Aspect {
    ends.iter()
        .map(|end| script([prefix.clone(), vec![end.clone()]].concat()))
        .collect()
}

/// A script on the constructor's default settings.
fn defaulted(steps: Vec<Step>) -> Script {
    Script::new(None, None, steps)
}

/// Every aspect of `rule`'s named check, each with its paths; each family of rules in a file.
pub fn aspects_of(rule: Rule) -> Vec<Aspect> {
    match rule {
        Rule::NewStartsOver => leases::new_starts_over(),
        Rule::Defaults => leases::defaults(),
        Rule::LeaseLive => leases::lease_live(),
        Rule::ExpiryBoundary => leases::expiry_boundary(),
        Rule::ClockOnly => leases::clock_only(),
        Rule::OneCounter => tokens::one_counter(),
        Rule::RefusedAcquireNoToken => tokens::refused_acquire_no_token(),
        Rule::HolderAcquireNone => tokens::holder_acquire_none(),
        Rule::RenewKeepsToken => tokens::renew_keeps_token(),
        Rule::RenewExtendsFromNow => ownership::renew_extends_from_now(),
        Rule::ExpiredNoRenew => ownership::expired_no_renew(),
        Rule::LateRenew => ownership::late_renew(),
        Rule::ReleaseFrees => ownership::release_frees(),
        Rule::ExpiredNoRelease => ownership::expired_no_release(),
        Rule::LateRelease => ownership::late_release(),
        Rule::Holder => ownership::who_holds(),
        Rule::WriteAccepts => storage::write_accepts(),
        Rule::WriteEqualToken => storage::write_equal_token(),
        Rule::WriteStaleRejected => storage::write_stale_rejected(),
        Rule::RejectedChangesNothing => storage::rejected_changes_nothing(),
        Rule::PerKey => storage::per_key(),
        Rule::NeverWritten => storage::never_written(),
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
