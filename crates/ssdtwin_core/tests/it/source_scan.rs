//! A small scanner of Rust source for `tests/it/layers.rs`: strips comments and strings, splits
//! the text into tokens with their line numbers, and reads the paths of a `use` item (groups
//! included).

/// The text with comments and string and character literals blanked, newlines kept.
pub(crate) fn strip(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !is_ident(chars.get(i.wrapping_sub(1))) {
            let mut hashes = 0;
            let mut j = i + 1;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            i = j + 1;
            while i < chars.len() {
                if chars[i] == '"' && (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
                if i < chars.len() {
                    blank(&mut out, chars[i]);
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A character literal (a lifetime has no closing quote two characters on).
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

pub(crate) fn is_ident(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// Identifiers and punctuation with their line numbers (`::` is one token).
pub(crate) fn tokens(text: &str) -> Vec<(String, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while is_ident(chars.get(i)) {
                i += 1;
            }
            out.push((chars[start..i].iter().collect(), line));
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push(("::".to_string(), line));
            i += 2;
        } else {
            out.push((c.to_string(), line));
            i += 1;
        }
    }
    out
}

/// Paths of a use tree starting at `tokens[*at]`, up to its `;`: (segments, line of the leaf).
pub(crate) fn use_paths(tokens: &[(String, usize)], at: &mut usize) -> Vec<(Vec<String>, usize)> {
    fn tree(tokens: &[(String, usize)], at: &mut usize, prefix: &[String], out: &mut Vec<(Vec<String>, usize)>) {
        let mut path = prefix.to_vec();
        let mut line = tokens.get(*at).map_or(0, |token| token.1);
        while let Some((token, token_line)) = tokens.get(*at) {
            match token.as_str() {
                "::" => *at += 1,
                "{" => {
                    *at += 1;
                    while tokens.get(*at).is_some_and(|token| token.0 != "}") {
                        tree(tokens, at, &path, out);
                        if tokens.get(*at).is_some_and(|token| token.0 == ",") {
                            *at += 1;
                        }
                    }
                    *at += 1;
                    return;
                }
                "*" => {
                    line = *token_line;
                    *at += 1;
                }
                "as" => *at += 2,
                "," | "}" | ";" => break,
                "self" if !path.is_empty() => *at += 1,
                _ => {
                    path.push(token.clone());
                    line = *token_line;
                    *at += 1;
                }
            }
        }
        out.push((path, line));
    }
    let mut out = Vec::new();
    tree(tokens, at, &[], &mut out);
    out
}
