//! A script's token numbers under a system that numbers every change (`--as etcd`): the script
//! counts grants 1, 2, 3, while etcd's revisions jump. Each grant of the plain reference run is
//! paired with the same grant under the system's numbers, and the sentence says those.

use crate::sim::event::{Event, EventKind};

/// The token each plain number stands for, grant by grant.
pub(super) struct Renumbering(Vec<(u64, u64)>);

/// Words after which a number is never a token: a client, a section, a day, a time, a count.
const NOT_A_TOKEN_AFTER: [&str; 14] = [
    "client", "section", "day", "at", "until", "after", "for", "every", "from", "in", "beat",
    "clients", "by", "of",
];

impl Renumbering {
    /// The grants of `plain` paired in order with those of `numbered` (the same script, so the
    /// same grants, under other numbers).
    pub(super) fn between(plain: &[Event], numbered: &[Event]) -> Renumbering {
        let grants = |events: &[Event]| -> Vec<u64> {
            events
                .iter()
                .filter_map(|e| match e.kind {
                    EventKind::Grant { token, .. } => Some(token),
                    _ => None,
                })
                .collect()
        };
        let pairs = grants(plain).into_iter().zip(grants(numbered)).collect();
        Renumbering(pairs)
    }

    /// The number plain token `plain` stands for, if the other run had that grant.
    pub(super) fn of(&self, plain: u64) -> Option<u64> {
        self.0.iter().find(|(p, _)| *p == plain).map(|&(_, n)| n)
    }

    /// `text` with each token number in the system's numbers. A number is a token's unless it
    /// is part of a decimal, a time ("5 s", "10-second"), or follows a word that names
    /// something else ("client 1", "section 2.1").
    pub(super) fn apply(&self, text: &str) -> String {
        self.rewrite(text, false).unwrap_or_else(|| text.to_owned())
    }

    /// [`Renumbering::apply`], or `None` if a number in a token's place has no counterpart:
    /// the other run has not had that grant, so the sentence cannot be said of it.
    pub(super) fn apply_all(&self, text: &str) -> Option<String> {
        self.rewrite(text, true)
    }

    fn rewrite(&self, text: &str, every_token: bool) -> Option<String> {
        let mut out = String::with_capacity(text.len() + 8);
        let mut rest = text;
        while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
            let (before, from) = rest.split_at(start);
            let len = from
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(from.len());
            let (digits, after) = from.split_at(len);
            out.push_str(before);
            let token = digits
                .parse::<u64>()
                .ok()
                .filter(|_| is_token_place(&out, after));
            match token.map(|n| self.of(n)) {
                Some(Some(n)) => out.push_str(&n.to_string()),
                Some(None) if every_token => return None,
                _ => out.push_str(digits),
            }
            rest = after;
        }
        out.push_str(rest);
        Some(out)
    }
}

/// Whether `text` names a time or a span of one: a number in seconds, milliseconds or minutes
/// ("at 12 s", "until 8 s", "4 seconds of lease"; not "a 10-second lease", a lease's length).
pub(super) fn names_a_time(text: &str) -> bool {
    text.match_indices(|c: char| c.is_ascii_digit())
        .any(|(i, _)| {
            is_time(text[i..].trim_start_matches(|c: char| c.is_ascii_digit() || c == '.'))
        })
}

/// Whether `after`, the text after a number, makes it a time.
fn is_time(after: &str) -> bool {
    let unit: String = after
        .strip_prefix(' ')
        .unwrap_or("")
        .chars()
        .take_while(|c| c.is_alphabetic())
        .collect();
    ["s", "ms", "second", "seconds", "minute", "minutes"].contains(&unit.as_str())
}

/// Whether a number between `before` and `after` stands where a token's number would.
fn is_token_place(before: &str, after: &str) -> bool {
    let decimal = before.ends_with('.')
        && before[..before.len() - 1].ends_with(|c: char| c.is_ascii_digit())
        || after.starts_with('.') && after[1..].starts_with(|c: char| c.is_ascii_digit());
    let glued = before.ends_with(|c: char| c.is_alphanumeric() || c == '#' || c == '_');
    let time = after.starts_with("-second") || is_time(after);
    let word = before
        .trim_end()
        .rsplit(|c: char| !c.is_alphabetic())
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let named = before.ends_with(' ') && NOT_A_TOKEN_AFTER.contains(&word.as_str());
    !(decimal || glued || time || named)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jumps() -> Renumbering {
        Renumbering(vec![(1, 2), (2, 4), (3, 6)])
    }

    #[test]
    fn token_numbers_follow_the_system_and_nothing_else_does() {
        let r = jumps();
        assert_eq!(
            r.apply("Client 2 takes the lock and gets revision 2: 2 > 1, at 12 s (section 2.1)."),
            "Client 2 takes the lock and gets revision 4: 4 > 2, at 12 s (section 2.1)."
        );
        assert_eq!(
            r.apply("a 10-second lease; 3 seconds left; 1 >= 1; order #1; client 3 holds it"),
            "a 10-second lease; 3 seconds left; 2 >= 2; order #1; client 3 holds it"
        );
        assert_eq!(
            r.apply("orders has seen only 1, so 7 stays"),
            "orders has seen only 2, so 7 stays"
        );
        assert_eq!(r.apply("lease until 5 s. Day 5"), "lease until 5 s. Day 5");
        // A decimal is a digit, a point, a digit; a number after another mark is a token's.
        assert_eq!(r.apply("1<2, 3.5"), "2<4, 3.5");
    }

    /// A time or a span of one is named by a number with its unit; a lease's length, a
    /// section, a token or a client is not a time.
    #[test]
    fn a_time_is_a_number_with_a_unit_of_time() {
        for text in [
            "At exactly 12 s",
            "lease until 8.5 s.",
            "4 seconds of lease",
            "in 300 ms",
        ] {
            assert!(names_a_time(text), "{text}");
        }
        for text in [
            "a 10-second lease",
            "section 2.1",
            "token 2 < 4",
            "client 3 waits",
        ] {
            assert!(!names_a_time(text), "{text}");
        }
    }

    /// A sentence naming a grant the other run has not had cannot be said of that run;
    /// numbers in no token's place do not count.
    #[test]
    fn a_sentence_with_a_token_the_run_never_had_is_not_renumbered() {
        let r = jumps();
        assert_eq!(r.apply_all("token 4 > 3").as_deref(), None);
        assert_eq!(r.apply("token 4 > 3"), "token 4 > 6");
        assert_eq!(
            r.apply_all("client 4 waits 9 s; token 3").as_deref(),
            Some("client 4 waits 9 s; token 6")
        );
    }
}
