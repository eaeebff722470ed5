//! Making text fit: word wrapping that never cuts a word it can keep whole, and clipping that
//! says it clipped.

/// `text` wrapped at `width` columns, word by word; a word longer than a line is split.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    for word in text.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        while word.len() > width {
            if used > 0 {
                lines.push(std::mem::take(&mut line));
                used = 0;
            }
            lines.push(word[..width].iter().collect());
            word.drain(..width);
        }
        if word.is_empty() {
            continue;
        }
        let w = word.len();
        if used > 0 && used + 1 + w > width {
            lines.push(std::mem::take(&mut line));
            used = 0;
        }
        if used > 0 {
            line.push(' ');
            used += 1;
        }
        line.extend(word);
        used += w;
    }
    if used > 0 || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `text` cut to `width` characters, ending in "…" when cut.
pub fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_owned()
    } else {
        let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

/// Display width in terminal columns (every character this UI prints is one column wide).
pub fn width(text: &str) -> usize {
    text.chars().count()
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
    }
}
