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

#[cfg(test)]
mod tests {
    use super::escape;

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
