//! Making text fit: word wrapping that never cuts a word it can keep whole, and clipping that
//! says it clipped.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// `text` wrapped at `width` columns, word by word; a word longer than a line is split. Widths
/// are the terminal's: a CJK character or an emoji takes two columns.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(2);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    for word in text.split_whitespace() {
        let mut word = word;
        while self::width(word) > width {
            if used > 0 {
                lines.push(std::mem::take(&mut line));
                used = 0;
            }
            let (head, tail) = split_at_width(word, width);
            lines.push(head.to_owned());
            word = tail;
        }
        if word.is_empty() {
            continue;
        }
        let w = self::width(word);
        if used > 0 && used + 1 + w > width {
            lines.push(std::mem::take(&mut line));
            used = 0;
        }
        if used > 0 {
            line.push(' ');
            used += 1;
        }
        line.push_str(word);
        used += w;
    }
    if used > 0 || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `text` in lines of at most `width` columns, every character kept (spaces too, so a value is
/// shown exactly as stored): each line breaks after its last space when the text goes on, or
/// at the width inside a word longer than a line.
pub fn wrap_exact(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut rest = text;
    while self::width(rest) > width {
        let (head, _) = split_at_width(rest, width);
        let cut = match head.rfind(' ') {
            Some(i) if i > 0 => i + 1,
            _ => head.len(),
        };
        let (line, tail) = rest.split_at(cut);
        lines.push(line.to_owned());
        rest = tail;
    }
    lines.push(rest.to_owned());
    lines
}

/// `text` split where its first part is as wide as fits in `width` columns (at least one
/// character, so a split always moves on).
fn split_at_width(text: &str, width: usize) -> (&str, &str) {
    let mut used = 0;
    for (i, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > width && i > 0 {
            return text.split_at(i);
        }
        used += w;
    }
    (text, "")
}

/// `text` cut to `width` columns, ending in "…" when cut.
pub fn clip(text: &str, width: usize) -> String {
    if self::width(text) <= width {
        text.to_owned()
    } else {
        let (head, _) = split_at_width(text, width.saturating_sub(1));
        let head = if width == 0 { "" } else { head };
        let mut cut = head.to_owned();
        if width > 0 {
            cut.push('…');
        }
        cut
    }
}

/// `text` padded with spaces to `width` columns (Rust's `{:<w$}` counts characters, which a
/// wide character outgrows).
pub fn pad(text: &str, width: usize) -> String {
    let mut padded = text.to_owned();
    padded.extend(std::iter::repeat_n(
        ' ',
        width.saturating_sub(self::width(text)),
    ));
    padded
}

/// Display width in terminal columns: a CJK character or an emoji takes two.
pub fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_words_whole_and_splits_only_giants() {
        assert_eq!(wrap("a bb ccc", 4), ["a bb", "ccc"]);
        assert_eq!(wrap("abcdefgh", 3), ["abc", "def", "gh"]);
        assert_eq!(wrap("", 5), [""]);
        assert_eq!(clip("inventory", 6), "inven…");
        assert_eq!(clip("orders", 6), "orders");
        assert_eq!(
            wrap_exact("\"client 1's  second report\"", 12),
            ["\"client 1's ", " second ", "report\""]
        );
        assert_eq!(wrap_exact("abcdefgh", 3), ["abc", "def", "gh"]);
        assert_eq!(wrap_exact("short", 9), ["short"]);
    }

    #[test]
    fn wide_characters_take_two_columns_and_are_never_split() {
        assert_eq!(width("锁🔒a"), 5);
        assert_eq!(wrap("客户端一 拿到 锁", 6), ["客户端", "一", "拿到", "锁"]);
        for line in wrap("客户端一拿到锁了 and then 🔒🔒🔒", 5) {
            assert!(width(&line) <= 5, "{line}");
        }
        assert_eq!(clip("客户端一", 5), "客户…");
        assert_eq!(clip("客户端一", 8), "客户端一");
    }
}
