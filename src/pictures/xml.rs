//! The one escape for text put into SVG and HTML: markup characters become entities, and control
//! characters (which XML 1.0 cannot carry at all) are written as visible escapes first.

use std::borrow::Cow;

use crate::sim::text::printable;

/// `text` safe as XML or HTML character data and as a quoted attribute value.
pub fn escape(text: &str) -> Cow<'_, str> {
    let text = printable(text);
    if !text.contains(['&', '<', '>', '"', '\'']) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// [`escape`], line by line: a block of text (a file in a `<textarea>`) keeps its line breaks.
pub fn escape_lines(text: &str) -> String {
    text.split('\n')
        .map(|line| escape(line).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::{escape, escape_lines};

    #[test]
    fn a_block_of_text_keeps_its_lines_and_escapes_the_rest() {
        assert_eq!(escape_lines("a < b\n\"c\"\n"), "a &lt; b\n&quot;c&quot;\n");
        assert_eq!(escape_lines("x\u{1b}\ny"), "x\\u{1b}\ny");
    }

    #[test]
    fn markup_and_control_characters_cannot_break_out() {
        assert_eq!(escape("plain"), "plain");
        assert_eq!(
            escape("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;"
        );
        assert_eq!(escape("x\u{1b}[2J"), "x\\u{1b}[2J");
        assert_eq!(escape("</text><script>"), "&lt;/text&gt;&lt;script&gt;");
    }
}
