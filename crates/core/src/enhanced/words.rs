//! Stages 1 and 2 of the enhanced pipeline: the words of a text (UAX #29 boundaries), a
//! word without its English clitic, and the pieces of an identifier-like word; and which
//! characters are CJK.

use super::segment::word_segments;

/// A CJK character that the pipeline turns into bigrams: Han ideographs and kana.
pub fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{4E00}'..='\u{9FFF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{2A6DF}'
        | '\u{3040}'..='\u{30FF}')
}

/// Whether a text has a [`is_cjk`] character (ASCII text, most of it, is ruled out without
/// looking at its characters one by one).
pub fn has_cjk(text: &str) -> bool {
    !text.is_ascii() && text.chars().any(is_cjk)
}

/// Stage 1: the words of a text by Unicode word boundaries (segments with a letter or digit).
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    word_segments(text)
}

/// English clitics after an apostrophe, dropped from the word they end: `'s` (possessive and
/// "is"), `'m`, `'re`, `'ll`, `'ve`, `'d`.
const CLITICS: [&str; 6] = ["s", "m", "re", "ll", "ve", "d"];

/// Stage 1b: an English contraction or possessive without its clitic (`Twitter's` → `Twitter`,
/// `there's` → `there`, `we'll` → `we`), and nothing for a negated auxiliary (`don't`,
/// `can't`, `isn't`: a function word whose head, `don` or `isn`, is no word at all). Only the
/// last apostrophe counts; other words (`O'Brien`, `rock'n'roll`) come back as they are.
pub fn strip_clitic(word: &str) -> &str {
    let Some(at) = word.rfind(['\'', '\u{2019}']) else {
        return word;
    };
    let head = &word[..at];
    // Both apostrophes are one character; the tail is what follows it.
    let tail = word[at..].trim_start_matches(['\'', '\u{2019}']);
    if head.is_empty() {
        return word;
    }
    if tail.eq_ignore_ascii_case("t") && head.ends_with(['n', 'N']) {
        return "";
    }
    if CLITICS.iter().any(|c| tail.eq_ignore_ascii_case(c)) {
        return head;
    }
    word
}

/// Stage 2: split an identifier-like word into its pieces, in order, keeping case:
/// on `_`, `-`, `.`, `/`, `:`, `@`, on lower→upper edges (`cronCreate`), and before the last
/// capital of a capital run followed by a lowercase letter (`MongoDBDatabase` →
/// `Mongo`, `DB`, `Database`). Letters and digits stay together (`ec2`, `oauth2`).
pub fn split_identifier(word: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for_each_identifier_piece(word, |p| out.push(p));
    out
}

/// [`split_identifier`], each piece handed to `emit` as it is found (no list is made).
pub(super) fn for_each_identifier_piece<'a>(word: &'a str, mut emit: impl FnMut(&'a str)) {
    for piece in word.split(['_', '-', '.', '/', ':', '@', '\'', '’']) {
        if piece.is_empty() {
            continue;
        }
        if piece.is_ascii() {
            split_ascii_case(piece, &mut emit);
        } else {
            split_case(piece, &mut emit);
        }
    }
}

/// [`split_identifier`]'s case rule: lower (or digit) → upper, and before the last capital of
/// a capital run followed by a lowercase letter.
fn split_case<'a>(piece: &'a str, emit: &mut impl FnMut(&'a str)) {
    let chars: Vec<(usize, char)> = piece.char_indices().collect();
    let mut start = 0;
    for i in 1..chars.len() {
        let (pos, c) = chars[i];
        let prev = chars[i - 1].1;
        let next = chars.get(i + 1).map(|x| x.1);
        let boundary = ((prev.is_lowercase() || prev.is_ascii_digit()) && c.is_uppercase())
            || (prev.is_uppercase() && c.is_uppercase() && next.is_some_and(|n| n.is_lowercase()));
        if boundary {
            emit(&piece[start..pos]);
            start = pos;
        }
    }
    emit(&piece[start..]);
}

/// [`split_identifier`]'s case rule for an ASCII piece, on bytes (for ASCII the two agree:
/// `is_lowercase` is `is_ascii_lowercase`, and so on).
fn split_ascii_case<'a>(piece: &'a str, emit: &mut impl FnMut(&'a str)) {
    let b = piece.as_bytes();
    let mut start = 0;
    for i in 1..b.len() {
        let (prev, c) = (b[i - 1], b[i]);
        let boundary = ((prev.is_ascii_lowercase() || prev.is_ascii_digit())
            && c.is_ascii_uppercase())
            || (prev.is_ascii_uppercase()
                && c.is_ascii_uppercase()
                && b.get(i + 1).is_some_and(u8::is_ascii_lowercase));
        if boundary {
            emit(&piece[start..i]);
            start = i;
        }
    }
    emit(&piece[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split() {
        let cases: &[(&str, &[&str])] = &[
            ("MongoDBDatabase", &["Mongo", "DB", "Database"]),
            (
                "mcp__github__create_issue",
                &["mcp", "github", "create", "issue"],
            ),
            ("CronCreate", &["Cron", "Create"]),
            ("HTTPServer", &["HTTP", "Server"]),
            ("getHTTPResponse", &["get", "HTTP", "Response"]),
            ("merge-pdfs-ordered", &["merge", "pdfs", "ordered"]),
            ("oauth2Token", &["oauth2", "Token"]),
            ("ec2", &["ec2"]),
            ("openSSL", &["open", "SSL"]),
            ("__", &[]),
        ];
        for (w, want) in cases {
            assert_eq!(split_identifier(w), *want, "{w}");
        }
    }

    #[test]
    fn clitics_strip() {
        let cases: &[(&str, &str)] = &[
            ("Twitter's", "Twitter"),
            ("there's", "there"),
            ("today\u{2019}s", "today"),
            ("I'm", "I"),
            ("we're", "we"),
            ("you'll", "you"),
            ("I've", "I"),
            ("I'd", "I"),
            ("don't", ""),
            ("can't", ""),
            ("Isn\u{2019}t", ""),
            ("O'Brien", "O'Brien"),
            ("rock'n'roll", "rock'n'roll"),
            ("'s", "'s"),
            ("U.S.", "U.S."),
            ("it's", "it"),
            ("a't", "a't"),
        ];
        for (w, want) in cases {
            assert_eq!(strip_clitic(w), *want, "{w}");
        }
    }

    proptest::proptest! {
        /// Stripping a clitic gives the word, a prefix of it that ends before an apostrophe, or
        /// nothing, for any text (apostrophes of both kinds mixed in).
        #[test]
        fn clitic_strip_is_a_prefix(word in "[a-zA-Z\u{e9}\u{4e00}'\u{2019}]{0,12}") {
            let out = strip_clitic(&word);
            proptest::prop_assert!(word.starts_with(out));
            if !out.is_empty() && out.len() < word.len() {
                let at_apostrophe = word[out.len()..].starts_with(['\'', '\u{2019}']);
                proptest::prop_assert!(at_apostrophe, "{:?} -> {:?}", word, out);
            }
        }


        /// The byte walk for ASCII pieces splits as the character walk does.
        #[test]
        fn ascii_case_split_agrees(piece in "[a-zA-Z0-9]{1,16}") {
            let (mut bytes, mut chars) = (Vec::new(), Vec::new());
            split_ascii_case(&piece, &mut |p| bytes.push(p));
            split_case(&piece, &mut |p| chars.push(p));
            proptest::prop_assert_eq!(bytes, chars);
        }
    }
}
