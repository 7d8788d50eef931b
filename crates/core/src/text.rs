//! Small text helpers that reproduce JavaScript string semantics exactly.

/// JavaScript's `\s` (and `String.prototype.trim`): WhiteSpace plus LineTerminator.
///
/// Differs from [`char::is_whitespace`] on U+0085 (not JS whitespace) and U+FEFF (JS whitespace).
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{D}'
            | ' '
            | '\u{A0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202F}'
            | '\u{205F}'
            | '\u{3000}'
            | '\u{FEFF}'
    )
}

/// `s.trim()` with JavaScript's whitespace set.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// `s.split(/\s+/)` on an already-trimmed string: like JavaScript, an empty input yields `[""]`.
pub fn js_split_whitespace(s: &str) -> Vec<&str> {
    if s.is_empty() {
        return vec![""];
    }
    s.split(is_js_whitespace)
        .filter(|p| !p.is_empty())
        .collect()
}

/// `s.toLowerCase()`. Rust's `to_lowercase` follows the same Unicode mappings, including
/// the final-sigma rule.
pub fn js_lower(s: &str) -> String {
    if s.is_ascii() {
        s.to_ascii_lowercase()
    } else {
        s.to_lowercase()
    }
}

/// [`js_lower`] of an owned string: ASCII text is lowercased in place, without a copy.
pub fn js_lower_owned(mut s: String) -> String {
    if s.is_ascii() {
        s.make_ascii_lowercase();
        s
    } else {
        s.to_lowercase()
    }
}

/// A CJK ideograph as the compat tokenizer sees it: U+4E00–U+9FFF or U+3400–U+4DBF.
pub fn is_cjk(c: char) -> bool {
    matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}')
}

/// JavaScript's ASCII `\w`: `[A-Za-z0-9_]`.
pub fn is_js_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Does `text` contain `term` delimited as `\bterm\b` would be in a JavaScript RegExp built
/// from the escaped term (no `u` flag): a word boundary is where `\w`-ness changes, and the
/// text's ends count as non-word.
pub fn contains_word_bounded(text: &str, term: &str) -> bool {
    if term.is_empty() {
        // `\b\b` matches at any boundary position, i.e. wherever a word char meets a non-word one.
        let mut prev = false;
        for c in text.chars() {
            let w = is_js_word(c);
            if w != prev {
                return true;
            }
            prev = w;
        }
        return prev;
    }
    let first = term.chars().next().map(is_js_word).unwrap_or(false);
    let last = term.chars().next_back().map(is_js_word).unwrap_or(false);
    let mut from = 0;
    while let Some(pos) = text[from..].find(term) {
        let start = from + pos;
        let end = start + term.len();
        let before = text[..start]
            .chars()
            .next_back()
            .map(is_js_word)
            .unwrap_or(false);
        let after = text[end..].chars().next().map(is_js_word).unwrap_or(false);
        if before != first && after != last {
            return true;
        }
        // advance by one character
        from = start
            + text[start..]
                .chars()
                .next()
                .map(char::len_utf8)
                .unwrap_or(1);
    }
    false
}

/// The `len` bytes of `text` from byte `start`: a token kept as a range of the text it came
/// from.
pub(crate) fn span(text: &str, start: u32, len: u32) -> &str {
    &text[start as usize..(start + len) as usize]
}

/// Whether two texts are equal: the test behind every lookup of a token or term by its hash.
/// Tokens are short, so texts of up to 16 bytes are compared inline, with two loads that may
/// overlap (the first and the last 8, 4 or 1 byte(s) of each), and longer ones as slices; a
/// call to the C library's `memcmp` for a few bytes costs more than the comparison.
#[inline]
pub(crate) fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let u64_at = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().unwrap_or([0; 8]));
    let u32_at = |s: &[u8], i: usize| u32::from_le_bytes(s[i..i + 4].try_into().unwrap_or([0; 4]));
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => u32_at(a, 0) == u32_at(b, 0) && u32_at(a, n - 4) == u32_at(b, n - 4),
        8..=16 => u64_at(a, 0) == u64_at(b, 0) && u64_at(a, n - 8) == u64_at(b, n - 8),
        _ => a == b,
    }
}

/// The hash the name and term tables key text by (FxHash, as the index's other maps).
pub(crate) fn hash_text(text: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `same_text` agrees with `==` for every length up to 40, whichever byte differs.
    #[test]
    fn same_text_is_equality() {
        for n in 0..=40usize {
            let a: String = (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            assert!(same_text(&a, &a.clone()), "{n}");
            assert!(!same_text(&a, &format!("{a}x")), "{n} vs longer");
            for at in 0..n {
                let mut b = a.clone().into_bytes();
                b[at] = b'Z';
                let b = String::from_utf8(b).unwrap();
                assert!(!same_text(&a, &b), "{n}, byte {at}");
            }
        }
        // Multi-byte text, same length, one character apart.
        assert!(!same_text("éa", "aé"));
        assert!(same_text("数据库", "数据库"));
        assert!(!same_text("数据库", "数据车"));
    }

    #[test]
    fn word_boundaries_follow_js() {
        let cases: &[(&str, &str, bool)] = &[
            ("create an issue", "issue", true),
            ("create an issues list", "issue", false),
            ("my_issue here", "issue", false),
            ("c++ code", "c++", false), // `\bc\+\+\b`: after `+` comes a space, no boundary
            ("use c++x", "c++", true),
            ("cost $10 total", "$10", false), // needs a word char before `$`
            ("x$10 total", "$10", true),
            ("résumé file", "sum", true), // é is not `\w` without the u flag
            ("ré sum é", "sum", true),
            ("文件file", "file", true),
            ("", "x", false),
        ];
        for (text, term, want) in cases {
            assert_eq!(
                contains_word_bounded(text, term),
                *want,
                "{text:?} / {term:?}"
            );
        }
    }

    #[test]
    fn js_whitespace_set() {
        assert!(is_js_whitespace('\u{FEFF}'));
        assert!(!is_js_whitespace('\u{85}'));
        assert_eq!(js_split_whitespace("a \u{3000}b\tc"), vec!["a", "b", "c"]);
        assert_eq!(js_split_whitespace(""), vec![""]);
        assert_eq!(js_trim("\u{FEFF} x \n"), "x");
    }
}
