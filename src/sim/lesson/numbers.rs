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

    fn of(&self, plain: u64) -> Option<u64> {
        self.0.iter().find(|(p, _)| *p == plain).map(|&(_, n)| n)
    }

    /// `text` with each token number in the system's numbers. A number is a token's unless it
    /// is part of a decimal, a time ("5 s", "10-second"), or follows a word that names
    /// something else ("client 1", "section 2.1").
    pub(super) fn apply(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 8);
        let mut rest = text;
        while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
            let (before, from) = rest.split_at(start);
            let len = from
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(from.len());
            let (digits, after) = from.split_at(len);
            out.push_str(before);
            let mapped = digits
                .parse()
                .ok()
                .filter(|_| is_token_place(&out, after))
                .and_then(|n| self.of(n));
            match mapped {
                Some(n) => out.push_str(&n.to_string()),
                None => out.push_str(digits),
            }
            rest = after;
        }
        out.push_str(rest);
        out
    }
}

/// Whether a number between `before` and `after` stands where a token's number would.
fn is_token_place(before: &str, after: &str) -> bool {
    let decimal = before.ends_with('.')
        && before[..before.len() - 1].ends_with(|c: char| c.is_ascii_digit())
        || after.starts_with('.') && after[1..].starts_with(|c: char| c.is_ascii_digit());
    let glued = before.ends_with(|c: char| c.is_alphanumeric() || c == '#' || c == '_');
    let time = after.starts_with("-second") || {
        let unit: String = after
            .strip_prefix(' ')
            .unwrap_or("")
            .chars()
            .take_while(|c| c.is_alphabetic())
            .collect();
        ["s", "ms", "second", "seconds", "minute", "minutes"].contains(&unit.as_str())
    };
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
}
