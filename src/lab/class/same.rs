//! Submissions that are the same code up to whitespace, names and comments: each one's student
//! files read as tokens, comments and docstrings dropped, layout dropped (Python keeps its
//! lines and indentation depth, which are its structure), and every name that is not the
//! language's own (its keywords, and builtins whose swap changes what code does, like `min` and
//! `max`) renamed by first appearance. Two submissions whose tokens are then equal are listed
//! together: a hint for the teacher to look, not a verdict.

use std::collections::{BTreeMap, HashMap};

/// The languages whose code is compared, as `lab init` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Python,
    Js,
    Rust,
    Java,
}

impl Language {
    pub fn named(name: &str) -> Option<Language> {
        match name {
            "python" => Some(Language::Python),
            "js" => Some(Language::Js),
            "rust" => Some(Language::Rust),
            "java" => Some(Language::Java),
            _ => None,
        }
    }

    /// The words never renamed: the language's keywords and literals, and builtins that a
    /// student could swap for another (`min` for `max`) in code otherwise the same.
    fn own_words(self) -> &'static [&'static str] {
        match self {
            Language::Python => &[
                "False",
                "None",
                "True",
                "and",
                "as",
                "assert",
                "async",
                "await",
                "break",
                "class",
                "continue",
                "def",
                "del",
                "elif",
                "else",
                "except",
                "finally",
                "for",
                "from",
                "global",
                "if",
                "import",
                "in",
                "is",
                "lambda",
                "nonlocal",
                "not",
                "or",
                "pass",
                "raise",
                "return",
                "try",
                "while",
                "with",
                "yield",
                "abs",
                "all",
                "any",
                "bool",
                "dict",
                "float",
                "int",
                "len",
                "list",
                "max",
                "min",
                "print",
                "range",
                "round",
                "set",
                "sorted",
                "str",
                "sum",
                "tuple",
                "isinstance",
                "getattr",
                "setattr",
                "hasattr",
            ],
            Language::Js => &[
                "break",
                "case",
                "catch",
                "class",
                "const",
                "continue",
                "default",
                "delete",
                "do",
                "else",
                "export",
                "extends",
                "false",
                "finally",
                "for",
                "function",
                "if",
                "import",
                "in",
                "instanceof",
                "let",
                "new",
                "null",
                "of",
                "return",
                "static",
                "super",
                "switch",
                "this",
                "throw",
                "true",
                "try",
                "typeof",
                "undefined",
                "var",
                "void",
                "while",
                "Math",
                "max",
                "min",
                "floor",
                "ceil",
                "abs",
                "Map",
                "Set",
                "Number",
                "String",
                "Object",
                "Array",
                "Error",
                "has",
                "get",
                "length",
            ],
            Language::Rust => &[
                "as", "break", "const", "continue", "crate", "else", "enum", "false", "fn", "for",
                "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
                "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
                "unsafe", "use", "where", "while", "None", "Some", "Ok", "Err", "max", "min",
                "abs", "len",
            ],
            Language::Java => &[
                "abstract",
                "boolean",
                "break",
                "case",
                "catch",
                "char",
                "class",
                "continue",
                "default",
                "do",
                "double",
                "else",
                "enum",
                "extends",
                "false",
                "final",
                "finally",
                "float",
                "for",
                "if",
                "implements",
                "import",
                "instanceof",
                "int",
                "interface",
                "long",
                "new",
                "null",
                "private",
                "protected",
                "public",
                "record",
                "return",
                "static",
                "super",
                "switch",
                "this",
                "throw",
                "throws",
                "true",
                "try",
                "void",
                "while",
                "var",
                "Math",
                "max",
                "min",
                "abs",
                "Map",
                "HashMap",
                "String",
                "Long",
                "Double",
                "Integer",
                "Boolean",
                "Object",
            ],
        }
    }
}

/// One token of code.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Token {
    Word(String),
    Literal(String),
    Mark(char),
    /// Python: a line's start, at this depth of indentation.
    Line(usize),
}

/// `text` as tokens, without comments or (in Python) docstrings.
fn tokens(language: Language, text: &str) -> Vec<Token> {
    match language {
        Language::Python => python_tokens(text),
        _ => braced_tokens(language, text),
    }
}

fn is_word_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '$'
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// A number from `chars[i]`: digits, letters (`0x1F`, `1e3`, `1.0f64`), `_`, and a `.` before
/// a digit. Returns its end.
fn number_end(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() {
        let c = chars[i];
        let decimal = c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if c.is_alphanumeric() || c == '_' || decimal {
            i += 1;
        } else {
            break;
        }
    }
    i
}

/// A quoted literal from `chars[i]` (its opening quote, `width` of them, e.g. 3 for `"""`):
/// up to the same closing quotes, a backslash escaping the next character. Returns its end.
fn quoted_end(chars: &[char], i: usize, width: usize) -> usize {
    let quote = chars[i];
    let mut j = i + width;
    while j < chars.len() {
        if chars[j] == '\\' {
            j += 2;
        } else if chars[j..]
            .iter()
            .take(width)
            .filter(|&&c| c == quote)
            .count()
            == width
        {
            return j + width;
        } else {
            j += 1;
        }
    }
    chars.len()
}

fn python_tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut line: Vec<Token> = Vec::new();
    let mut depths: Vec<usize> = vec![0];
    let mut brackets = 0usize;
    let mut at_line_start = true;
    let mut indent = 0usize;
    // A logical line is kept unless it holds nothing, or a string alone (a docstring).
    let mut end_line = |line: &mut Vec<Token>, indent: usize, out: &mut Vec<Token>| {
        let lone_string = matches!(line.as_slice(), [Token::Literal(_)]);
        if !line.is_empty() && !lone_string {
            while depths.last().is_some_and(|&d| d > indent) {
                depths.pop();
            }
            if depths.last().is_some_and(|&d| d < indent) {
                depths.push(indent);
            }
            out.push(Token::Line(depths.len() - 1));
            out.append(line);
        }
        line.clear();
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if at_line_start {
            indent = 0;
            while i < chars.len() && matches!(chars[i], ' ' | '\t') {
                indent = if chars[i] == '\t' {
                    indent / 8 * 8 + 8
                } else {
                    indent + 1
                };
                i += 1;
            }
            at_line_start = false;
            continue;
        }
        match c {
            '\n' => {
                if brackets == 0 {
                    end_line(&mut line, indent, &mut out);
                    at_line_start = true;
                }
                i += 1;
            }
            '\\' if chars.get(i + 1) == Some(&'\n') => i += 2,
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            c if c.is_whitespace() => i += 1,
            '"' | '\'' => {
                let width = if chars[i..].iter().take(3).all(|&q| q == c) {
                    3
                } else {
                    1
                };
                let end = quoted_end(&chars, i, width);
                // A prefix (`f`, `rb`) is part of the literal.
                let prefixed = matches!(line.last(), Some(Token::Word(w)) if is_prefix(w))
                    && i > 0
                    && is_word(chars[i - 1]);
                let mut literal: String = chars[i..end].iter().collect();
                if prefixed {
                    if let Some(Token::Word(prefix)) = line.pop() {
                        literal.insert_str(0, &prefix);
                    }
                }
                line.push(Token::Literal(literal));
                i = end;
            }
            c if c.is_ascii_digit() => {
                let end = number_end(&chars, i);
                line.push(Token::Literal(chars[i..end].iter().collect()));
                i = end;
            }
            c if is_word_start(c) => {
                let mut end = i;
                while end < chars.len() && is_word(chars[end]) {
                    end += 1;
                }
                line.push(Token::Word(chars[i..end].iter().collect()));
                i = end;
            }
            _ => {
                match c {
                    '(' | '[' | '{' => brackets += 1,
                    ')' | ']' | '}' => brackets = brackets.saturating_sub(1),
                    _ => {}
                }
                line.push(Token::Mark(c));
                i += 1;
            }
        }
    }
    end_line(&mut line, indent, &mut out);
    out
}

/// Python's string prefixes.
fn is_prefix(word: &str) -> bool {
    word.len() <= 2 && word.chars().all(|c| "rRbBuUfF".contains(c))
}

/// JavaScript, Rust and Java: layout is not structure, comments are `//` and `/* */` (nested in
/// Rust), literals in `"`, `'` and (JavaScript) backticks; Rust's `'a` is a name, and its raw
/// strings `r#"..."#` literals.
fn braced_tokens(language: Language, text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            c if c.is_whitespace() => i += 1,
            '/' if next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 || language != Language::Rust {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            'r' if language == Language::Rust
                && matches!(next, Some('#' | '"'))
                && raw_string_at(&chars, i).is_some() =>
            {
                let end = raw_string_at(&chars, i).unwrap_or(chars.len());
                out.push(Token::Literal(chars[i..end].iter().collect()));
                i = end;
            }
            '\'' if language == Language::Rust => {
                // A char literal ('a', '\n') or a lifetime ('a), which is a name.
                let char_literal = next == Some('\\') || chars.get(i + 2) == Some(&'\'');
                if char_literal {
                    let end = quoted_end(&chars, i, 1);
                    out.push(Token::Literal(chars[i..end].iter().collect()));
                    i = end;
                } else {
                    let mut end = i + 1;
                    while end < chars.len() && is_word(chars[end]) {
                        end += 1;
                    }
                    out.push(Token::Word(chars[i..end].iter().collect()));
                    i = end;
                }
            }
            '"' | '\'' | '`' => {
                let end = quoted_end(&chars, i, 1);
                out.push(Token::Literal(chars[i..end].iter().collect()));
                i = end;
            }
            c if c.is_ascii_digit() => {
                let end = number_end(&chars, i);
                out.push(Token::Literal(chars[i..end].iter().collect()));
                i = end;
            }
            c if is_word_start(c) => {
                let mut end = i;
                while end < chars.len() && is_word(chars[end]) {
                    end += 1;
                }
                out.push(Token::Word(chars[i..end].iter().collect()));
                i = end;
            }
            _ => {
                out.push(Token::Mark(c));
                i += 1;
            }
        }
    }
    out
}

/// The end of a Rust raw string `r"..."` or `r#"..."#` starting at `chars[i]`, if one does.
fn raw_string_at(chars: &[char], i: usize) -> Option<usize> {
    let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
    let open = i + 1 + hashes;
    if chars.get(open) != Some(&'"') {
        return None;
    }
    let mut j = open + 1;
    while j < chars.len() {
        if chars[j] == '"'
            && chars[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(chars.len())
}

/// The code of a submission's student files (name and text, in order), normalized: equal for
/// two submissions that differ only in whitespace, names and comments.
pub fn normalized(language: Language, files: &[(String, String)]) -> String {
    let own = language.own_words();
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut out = String::new();
    for (_, text) in files {
        for token in tokens(language, text) {
            match token {
                Token::Word(word) if !own.contains(&word.as_str()) => {
                    let n = names.len();
                    let n = *names.entry(word).or_insert(n);
                    out.push_str(&format!("v{n} "));
                }
                Token::Word(word) | Token::Literal(word) => {
                    out.push_str(&word);
                    out.push(' ');
                }
                Token::Mark(c) => {
                    out.push(c);
                    out.push(' ');
                }
                Token::Line(depth) => out.push_str(&format!("\n{depth}: ")),
            }
        }
        out.push_str("\n--\n");
    }
    out
}

/// The groups of two or more names whose normalized code is the same, each group's names in
/// order and the groups by their first name.
pub fn groups(codes: &[(String, String)]) -> Vec<Vec<String>> {
    let mut by_code: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (name, code) in codes {
        by_code.entry(code).or_default().push(name.clone());
    }
    let mut groups: Vec<Vec<String>> = by_code
        .into_values()
        .filter(|names| names.len() > 1)
        .map(|mut names| {
            names.sort();
            names
        })
        .collect();
    groups.sort();
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(language: Language, text: &str) -> String {
        normalized(language, &[("f".into(), text.into())])
    }

    fn same(language: Language, a: &str, b: &str) -> bool {
        code(language, a) == code(language, b)
    }

    const PY: &str = r#""""A lease lock."""

class LockService:
    def __init__(self, clock, lease_seconds=10.0):
        self.clock = clock  # the clock
        self.leases = {}

    def holder(self, name):
        """Who holds it."""
        lease = self.leases.get(name)
        if lease is not None and lease.live(self.clock.now()):
            return lease.client_id
        return min(1, 2)
"#;

    /// Python: comments, docstrings, blank lines, the indentation's width and the names are
    /// not the code; its operators, literals, builtins and the depth of each line are.
    #[test]
    fn python_is_the_same_up_to_whitespace_names_and_comments() {
        let py = Language::Python;
        let renamed = r#"
# my own work
class LockService:
  def __init__(me, clk, lease_seconds=10.0):
    me.clk = clk
    me.grants = {
    }
  def holder(me, nm):
    '''Returns the holder.'''
    g = me.grants.get(nm)   # look it up
    if g is not None and g.live(me.clk.now()):
      return g.client_id
    return min(1, 2)
"#;
        assert!(
            same(py, PY, renamed),
            "{}\n{}",
            code(py, PY),
            code(py, renamed)
        );
        for (find, replace) in [
            ("lease.live(", "not lease.live("),
            ("10.0", "20.0"),
            ("min(1, 2)", "max(1, 2)"),
            (
                "            return lease.client_id\n",
                "        return lease.client_id\n",
            ),
            ("return lease.client_id", "return lease.client_id, 'x'"),
        ] {
            let changed = PY.replace(find, replace);
            assert_ne!(changed, PY);
            assert!(!same(py, PY, &changed), "{find} -> {replace}");
        }
        // Strings stay themselves, their prefixes with them.
        assert!(!same(py, "x = f'{a}'\n", "x = '{a}'\n"));
        assert!(same(py, "x = 'a # b'\n", "y = 'a # b'  # c\n"));
        assert!(!same(py, "x = 'a # b'\n", "x = 'a'\n"));
    }

    const JS: &str = r#"// A lease lock.
export class LockService {
  /* the leases, by name */
  #leases = new Map();
  holder(name) {
    const lease = this.#leases.get(name);
    return lease && lease.expiresAt > this.clock.now() ? lease.clientId : null; // live
  }
}
"#;

    #[test]
    fn braced_languages_are_the_same_up_to_whitespace_names_and_comments() {
        let js = Language::Js;
        let renamed = "export class LockService { #g = new Map(); holder(n) { const l = \
                       this.#g.get(n); /* who */ return l && l.until > this.c.now() ? l.who : \
                       null; } }";
        assert!(
            same(js, JS, renamed),
            "{}\n{}",
            code(js, JS),
            code(js, renamed)
        );
        assert!(!same(js, JS, &JS.replace(" > ", " >= ")));
        assert!(!same(js, JS, &JS.replace(": null", ": undefined")));
        assert!(!same(js, "s = `a ${b}`;", "s = `a ${c}`;"));

        let java = Language::Java;
        let a = "public final class LockService { private long next = 1; // first\n \
                 public Lease acquire(String name) { return leases.get(name); } }";
        let b = "public final class LockService {\n  /** The next token. */\n  private long \
                 tok = 1;\n  public Lease acquire(String n) {\n    return held.get(n);\n  }\n}";
        assert!(same(java, a, b));
        assert!(!same(java, a, &a.replace("= 1", "= 0")));

        let rust = Language::Rust;
        let a = "/* outer /* inner */ still */ fn live<'a>(l: &'a Lease, now: f64) -> bool { \
                 now < l.expires_at && l.name != r#\"x\"y\"# && '\\'' != 'a' }";
        let b = "fn ok<'b>(x: &'b Lease, t: f64) -> bool {\n    // live?\n    t < x.expires_at \
                 && x.name != r#\"x\"y\"# && '\\'' != 'a'\n}";
        assert!(same(rust, a, b), "{}\n{}", code(rust, a), code(rust, b));
        assert!(!same(rust, a, &a.replace("now < l", "now <= l")));
        assert!(!same(rust, a, &a.replace("'a' }", "'b' }")));
    }

    /// Names are renamed across a submission's files, consistently: a name used twice and two
    /// names used once each are not the same.
    #[test]
    fn names_are_renamed_consistently_across_files() {
        let py = Language::Python;
        assert!(!same(py, "a = b\n", "a = a\n"));
        let two = |x: &str, y: &str| {
            normalized(
                py,
                &[("a.py".into(), x.to_owned()), ("b.py".into(), y.to_owned())],
            )
        };
        assert_eq!(two("x = 1\n", "y = x\n"), two("p = 1\n", "q = p\n"));
        assert_ne!(two("x = 1\n", "y = x\n"), two("p = 1\n", "q = r\n"));
    }

    #[test]
    fn groups_are_of_two_or_more_by_their_first_name() {
        let codes: Vec<(String, String)> = [
            ("eve", "1"),
            ("ada", "2"),
            ("cho", "1"),
            ("ben", "2"),
            ("dev", "3"),
            ("fay", "2"),
        ]
        .iter()
        .map(|(n, c)| (n.to_string(), c.to_string()))
        .collect();
        assert_eq!(
            groups(&codes),
            [vec!["ada", "ben", "fay"], vec!["cho", "eve"]]
        );
    }
}
