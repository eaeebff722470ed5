//! Shrinking a difference to a minimal case: chunks of steps, then single steps, then simpler
//! values, again while either changes.

use super::simplify::simpler;
use crate::lab::judge::Profile;
use crate::lab::script::{play, Mismatch, Scope, Script, Subject};
use crate::lab::wire::ProtocolError;

/// What shrinking a difference found.
#[derive(Clone, Debug, PartialEq)]
pub enum Shrunk {
    /// A case no step or value can be removed or simplified from, and its difference.
    Minimal(Script, Mismatch),
    /// Played again, the case answered otherwise: the program's answers depend on more than the
    /// calls (state kept across `new`, the real clock).
    Unstable(Script, Mismatch),
    /// The program stopped answering at the difference: not shrunk, since every smaller case
    /// tried could wait its whole timeout again (the case ends at the call it stopped at).
    Stopped(Script, Mismatch),
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
    shrink_within(MAX_PLAYS, script, found, scope, keep, student, profile)
}

/// [`shrink`], in at most `max_plays` plays.
pub(super) fn shrink_within(
    max_plays: usize,
    script: Script,
    found: Mismatch,
    scope: Scope,
    keep: &dyn Fn(&Mismatch) -> bool,
    student: &mut dyn Subject,
    profile: Profile,
) -> Result<Shrunk, ProtocolError> {
    if found.transcript.last().is_some_and(|p| p.got.is_stop()) {
        let mut script = script;
        script.steps.truncate(found.steps_played);
        return Ok(Shrunk::Stopped(script, found));
    }
    let mut shrinker = Shrinker {
        plays: 0,
        max_plays,
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
        // Out of plays, neither changes anything, and the loop ends here too.
        if script == before {
            break;
        }
    }
    Ok(Shrunk::Minimal(script, failure))
}

struct Shrinker<'a> {
    plays: usize,
    max_plays: usize,
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
        // Out of plays, nothing is removed, and the chunks halve down to one and stop.
        loop {
            let mut removed = false;
            let mut start = 0;
            while start < script.steps.len() && self.has_plays_left() {
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
        while simplified && self.has_plays_left() {
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

    fn has_plays_left(&self) -> bool {
        self.plays < self.max_plays
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
