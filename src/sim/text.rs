//! Small text helpers every layer uses: text from users shown safely, counted words.

use std::borrow::Cow;

/// Whether `c` would act on a terminal instead of being shown: a control character, a line or
/// paragraph separator, or a bidirectional format character (which reorders what follows it, so
/// text could read otherwise than it is).
pub fn acts(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` with every character that acts on a terminal (see [`acts`]) written as an escape
/// (`\u{1b}`), so user text echoed in a message or a transcript can never move the cursor, clear
/// the screen, break a line or reorder what is shown.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(acts) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if acts(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// "1 corruption", "2 corruptions", "1,204 writes": `count` and the word, singular or plural.
pub fn counted(count: u64, singular: &str, plural: &str) -> String {
    let word = if count == 1 { singular } else { plural };
    format!("{} {word}", thousands(count))
}

/// A count with its thousands apart: `1,204`.
pub fn thousands(count: u64) -> String {
    let digits = count.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// A word as a shell reads it back: as it is when it is plain, else in single quotes. A word with
/// a character that acts on a terminal (see [`acts`]) is written `$'…'` with escapes, so the line
/// stays printable and still pastes whole into bash or zsh.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        word.to_owned()
    } else if word.chars().any(acts) {
        let mut out = String::from("$'");
        for c in word.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\'' => out.push_str("\\'"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c if acts(c) && c.is_ascii() => out.push_str(&format!("\\x{:02x}", c as u32)),
                c if acts(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('\'');
        out
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The first control character in `text`, if any (for validation errors).
pub fn first_control(text: &str) -> Option<char> {
    text.chars().find(|&c| acts(c))
}

/// Runs of whitespace (including line breaks) folded to one space, ends trimmed.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_plain_text_is_kept() {
        assert_eq!(printable("plain"), "plain");
        assert_eq!(printable("\u{1b}[2J\u{7}x\ny"), "\\u{1b}[2J\\u{7}x\\u{a}y");
        assert_eq!(counted(1, "corruption", "corruptions"), "1 corruption");
        assert_eq!(counted(0, "corruption", "corruptions"), "0 corruptions");
        assert_eq!(counted(1204, "write", "writes"), "1,204 writes");
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(123_456_789), "123,456,789");
        assert_eq!(shell_word("tests/lab/x"), "tests/lab/x");
        assert_eq!(shell_word("my lab"), "'my lab'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("new\nline"), "$'new\\nline'");
        assert_eq!(
            shell_word("it's\t\\\u{1b}\u{202e}"),
            "$'it\\'s\\t\\\\\\x1b\\u202e'"
        );
        assert_eq!(one_line(" a\n  b\tc "), "a b c");
        assert_eq!(first_control("ok\u{7}"), Some('\u{7}'));
        // A bidirectional override would show the rest of the line reversed.
        assert_eq!(printable("a\u{202E}dlrow"), "a\\u{202e}dlrow");
        assert_eq!(
            printable("x\u{2066}y\u{2069}\u{2028}"),
            "x\\u{2066}y\\u{2069}\\u{2028}"
        );
        assert_eq!(first_control("left\u{200F}"), Some('\u{200F}'));
        // Joiners shape emoji and scripts; they reorder nothing and stay.
        assert_eq!(printable("👩\u{200D}💻"), "👩\u{200D}💻");
    }

    /// Every word the lab prints in a command to paste comes back whole from bash, and prints
    /// nothing that acts on a terminal.
    #[test]
    fn a_shell_word_pasted_into_bash_is_the_word() {
        let words = [
            "plain",
            "my lab",
            "it's",
            "",
            "new\nline",
            "tab\there",
            "esc\u{1b}[2J",
            "back\\slash and 'quotes' \"too\"",
            "right\u{202e}to left",
            "del\u{7f}",
            "café ☕",
            "$HOME `date` $(id) !x *",
        ];
        for word in words {
            let quoted = shell_word(word);
            assert_eq!(printable(&quoted), quoted, "{word:?}");
            let out = std::process::Command::new("bash")
                .arg("-c")
                .arg(format!("printf %s {quoted}"))
                .output()
                .expect("bash runs");
            assert_eq!(String::from_utf8_lossy(&out.stdout), word, "{quoted}");
        }
    }
}
