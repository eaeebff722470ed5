//! How the lesson names things: the scenario's locks and the word for a fencing token, in the
//! plain vocabulary or a real system's (`--as`), and what a system with no token must not say.

use super::systems::System;

/// One of a scenario's locks, by its place in the scenario's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct LockId(pub u8);

impl LockId {
    /// The scenario's first (often only) lock.
    pub const FIRST: LockId = LockId(0);

    /// Its place in the scenario's list.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// How a lane or a diagram writes a token in a few characters: `t4`, or under `--as` the
/// system's own word for it (`rev 4`, `zxid 4`); nothing under a system with no token, whose
/// numbers the storage never sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Marks {
    word: Option<&'static str>,
}

impl Marks {
    /// The plain `t4`.
    pub const PLAIN: Marks = Marks { word: Some("t") };

    /// The marks under `system` (plain without one).
    pub fn of(system: Option<&System>) -> Marks {
        match system {
            None => Marks::PLAIN,
            Some(s) if !s.has_token => Marks { word: None },
            Some(s) => Marks { word: Some(s.mark) },
        }
    }

    /// Whether tokens are shown at all.
    pub fn shown(self) -> bool {
        self.word.is_some()
    }

    /// `token` as a label writes it: "t4", "rev 4"; empty where tokens are not shown.
    pub fn of_token(self, token: u64) -> String {
        match self.word {
            Some("t") => format!("t{token}"),
            Some(word) => format!("{word} {token}"),
            None => String::new(),
        }
    }

    /// `token` in the fewest characters, for a crowded terminal lane: "t4", or the first letter
    /// of the system's word ("r4" for a revision, "z4" for a zxid).
    pub fn compact(self, token: u64) -> String {
        match self.word {
            Some(word) => format!("{}{token}", &word[..1]),
            None => String::new(),
        }
    }

    /// Whether `text` writes a token in these marks' short form ("t4", "rev 4"), where that
    /// form is not the system's whole word (a zxid is "zxid 4" either way).
    pub fn shortened_in(self, text: &str, whole_word: &str) -> bool {
        let Some(word) = self.word.filter(|w| *w != whole_word) else {
            return false;
        };
        let words: Vec<&str> = text
            .split([' ', '\n'])
            .map(|w| w.trim_end_matches([',', ':', '?', ')']))
            .collect();
        if word == "t" {
            return words.iter().any(|w| short_token(w).is_some());
        }
        words.windows(2).any(|pair| {
            pair[0] == word && !pair[1].is_empty() && pair[1].bytes().all(|b| b.is_ascii_digit())
        })
    }

    /// `text` with every short token (`t4`, a whole word) written as these marks write it:
    /// "REJECTED t2 < t4" is "REJECTED rev 2 < rev 4". Marks that show no token leave it.
    pub fn apply(self, text: &str) -> String {
        match self.word {
            Some("t") | None => text.to_owned(),
            Some(_) => {
                let words: Vec<String> = text
                    .split(' ')
                    .map(|word| {
                        let core = word.trim_end_matches([',', ':', '?', ')']);
                        match short_token(core) {
                            Some(n) => format!("{}{}", self.of_token(n), &word[core.len()..]),
                            None => word.to_owned(),
                        }
                    })
                    .collect();
                words.join(" ")
            }
        }
    }
}

/// The number of a short token, `t4`: a `t` and digits alone.
fn short_token(word: &str) -> Option<u64> {
    let digits = word.strip_prefix('t')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// How the lesson names things: the scenario's locks and the word for a fencing token (a real
/// system's name for it, with `--as`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vocab {
    /// The locks' names, by [`LockId`].
    pub locks: Vec<String>,
    /// "token", or a real system's word ("revision").
    pub token: &'static str,
    /// The real system the lesson speaks as (`--as`), if any.
    pub system: Option<&'static System>,
    /// Whether the lesson writes more than one key: then every write's label names its key.
    pub keyed: bool,
}

impl Vocab {
    /// The plain vocabulary for these locks.
    pub fn plain(locks: &[String]) -> Vocab {
        Vocab::of(locks, None)
    }

    /// The vocabulary for these locks, in a real system's words when `system` is given.
    pub fn of(locks: &[String], system: Option<&'static System>) -> Vocab {
        Vocab {
            locks: locks.to_vec(),
            token: system.map_or("token", |s| s.word),
            system,
            keyed: false,
        }
    }

    /// This vocabulary for a lesson that writes these keys.
    pub fn writing(mut self, keys: &[&str]) -> Vocab {
        self.keyed = keys.len() > 1;
        self
    }

    /// The name of `lock`.
    pub fn lock(&self, lock: LockId) -> &str {
        self.locks.get(lock.index()).map_or("lock", String::as_str)
    }

    /// `text` in this vocabulary: "fencing token", "token" and "tokens" become the system's
    /// word ("revision"), whole words only. Plain text is returned as it is.
    pub fn say(&self, text: &str) -> String {
        if self.token == "token" {
            return text.to_owned();
        }
        self.relabel(text)
    }

    /// [`Vocab::say`] for text already owned: plain text is handed back without a copy.
    pub fn say_owned(&self, text: String) -> String {
        if self.token == "token" {
            return text;
        }
        self.relabel(&text)
    }

    fn relabel(&self, text: &str) -> String {
        let word = self.token;
        let mut out = String::with_capacity(text.len() + 16);
        let mut rest = text;
        while let Some(i) = find_word(rest, "token") {
            let (before, after) = rest.split_at(i);
            // "fencing token" is one name: the system's word replaces both, and begins with a
            // capital where either word did ("Fencing tokens only go up").
            let (before, capital) = match before.strip_suffix("fencing ") {
                Some(before) => (before, after.starts_with('T')),
                None => match before.strip_suffix("Fencing ") {
                    Some(before) => (before, true),
                    None => (before, after.starts_with('T')),
                },
            };
            out.push_str(before);
            let mut replacement = word.to_owned();
            if capital {
                replacement[..1].make_ascii_uppercase();
            }
            out.push_str(&replacement);
            rest = &after["token".len()..];
        }
        out.push_str(rest);
        out
    }

    /// How labels write a token in this vocabulary ([`Marks`]).
    pub fn marks(&self) -> Marks {
        Marks::of(self.system)
    }

    /// A diagram's short forms in this vocabulary: short tokens as its [`Marks`] write them
    /// (`t3` is `rev 3` as etcd). Under a system with no token a short number
    /// (`t3`) reads as a token the storage could order, so it is dropped, its punctuation kept
    /// ("renew t1: refused" is "renew: refused"), and a form left with no word is dropped.
    pub fn short_forms(&self, forms: Vec<String>) -> Vec<String> {
        if self.system.is_none_or(|s| s.has_token) {
            let marks = self.marks();
            return forms.iter().map(|form| marks.apply(form)).collect();
        }
        let mut kept: Vec<String> = Vec::new();
        for form in forms {
            let mut words: Vec<String> = Vec::new();
            for word in form.split(' ') {
                let core = word.trim_end_matches([',', ':', '?']);
                if short_token(core).is_none() {
                    words.push(word.to_owned());
                } else if let Some(last) = words.last_mut() {
                    last.push_str(&word[core.len()..]);
                }
            }
            let form = words.join(" ");
            if form.chars().any(char::is_alphanumeric) && !kept.contains(&form) {
                kept.push(form);
            }
        }
        kept
    }

    /// A lesson's own sentence (a scripted caption, a title, a question) in this vocabulary.
    /// Under a system with no token it also loses its claims that the numbers are ordered:
    /// such a system hands out no number that rises, and the grant numbers are the lesson's own.
    pub fn say_script(&self, text: &str) -> String {
        let said = self.say(text);
        match self.system {
            Some(system) if !system.has_token => without_order_claims(&said, self.token),
            _ => said,
        }
    }
}

/// Words that say one number is above another, or that numbers only go up.
const ORDER_WORDS: [&str; 12] = [
    "higher", "highest", "lower", "newer", "older", "above", "below", " < ", " > ", ">=", "<=",
    "only go",
];

/// `text` without its claims that `word`s are ordered: a system with no token hands out no
/// number that rises, so "gets grant 2: every grant gets a higher grant than any before" keeps
/// only "gets grant 2". A sentence's clause (after its last colon or comma before the claim)
/// goes; a sentence that is all claim goes whole.
fn without_order_claims(text: &str, word: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for sentence in text.split_inclusive(". ") {
        let lower = sentence.to_ascii_lowercase();
        let claim = ORDER_WORDS
            .iter()
            .filter_map(|w| lower.find(w))
            .min()
            .filter(|_| find_word(sentence, word).is_some());
        let Some(at) = claim else {
            out.push_str(sentence);
            continue;
        };
        let cut = sentence[..at].rfind([':', ',', ';']);
        if let Some(cut) = cut.filter(|&c| find_word(&sentence[..c], word).is_some()) {
            out.push_str(&sentence[..cut]);
            // A closing reference ("(section 2.2)") is no claim and stays.
            let end = sentence.trim_end().trim_end_matches('.');
            if let Some(open) = end.rfind(" (").filter(|_| end.ends_with(')')) {
                out.push_str(&end[open..]);
            }
            out.push_str(if sentence.ends_with(". ") { ". " } else { "." });
        }
    }
    out
}

/// Where `word` (either case of its first letter) starts as a whole word in `text`, plural
/// included ("tokens").
fn find_word(text: &str, word: &str) -> Option<usize> {
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(found) = lower[from..].find(word) {
        let i = from + found;
        let before_ok = lower[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric() && c != '_');
        let after = &lower[i + word.len()..];
        // One plural "s" at most, then the word must end.
        let after = after.strip_prefix('s').unwrap_or(after);
        let after_ok = after
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric() && c != '_');
        if before_ok && after_ok {
            return Some(i);
        }
        from = i + word.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::systems::find;

    fn forms(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|t| (*t).to_owned()).collect()
    }

    #[test]
    fn short_numbers_go_only_where_the_system_has_no_token() {
        let locks = ["file-lock".to_owned()];
        let all = forms(&[
            "grant 3",
            "grant t3",
            "grant t4",
            "t3",
            "renew t1: refused",
            "write t1, delayed",
            "c1 t3",
            "believes t1",
            "t1?",
            "t12 ends",
            "at t 2",
        ]);
        for vocab in [Vocab::plain(&locks), Vocab::of(&locks, find("redisson"))] {
            assert_eq!(vocab.short_forms(all.clone()), all);
        }
        // A system with a word of its own writes its short tokens in it.
        let etcd = Vocab::of(&locks, find("etcd"));
        assert_eq!(
            etcd.short_forms(all.clone()),
            forms(&[
                "grant 3",
                "grant rev 3",
                "grant rev 4",
                "rev 3",
                "renew rev 1: refused",
                "write rev 1, delayed",
                "c1 rev 3",
                "believes rev 1",
                "rev 1?",
                "rev 12 ends",
                "at t 2",
            ])
        );
        let redlock = Vocab::of(&locks, find("redlock"));
        assert_eq!(
            redlock.short_forms(all),
            forms(&[
                "grant 3",
                "grant",
                "renew: refused",
                "write, delayed",
                "c1",
                "believes",
                "ends",
                "at t 2",
            ])
        );
    }
}
