//! The compat tokenizer (SPEC §3): a pipeline of small pure functions.
//!
//! `tokenize` = lowercase → scan (CJK bigrams | ASCII words) → drop stop words.
//! `tokenize_and_stem` = `tokenize` → [`stem`] on each token.

use crate::runs::{run_end, within, HIGH};
use crate::text::{is_cjk, js_lower};

/// The reference's stop words (114 distinct), checked before stemming.
pub const STOP_WORDS: [&str; 114] = [
    "a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "have", "has", "had",
    "do", "does", "did", "will", "would", "could", "should", "may", "might", "shall", "can",
    "need", "dare", "ought", "used", "to", "of", "in", "for", "on", "with", "at", "by", "from",
    "as", "into", "through", "during", "before", "after", "above", "below", "between", "out",
    "off", "over", "under", "again", "further", "then", "once", "here", "there", "when", "where",
    "why", "how", "all", "each", "every", "both", "few", "more", "most", "other", "some", "such",
    "no", "nor", "not", "only", "own", "same", "so", "than", "too", "very", "just", "because",
    "but", "and", "or", "if", "while", "this", "that", "these", "those", "it", "its", "i", "me",
    "my", "we", "our", "you", "your", "he", "him", "his", "she", "her", "they", "them", "their",
    "what", "which", "who", "whom", "use", "using",
];

/// A word of at most 7 bytes packed into a `u64` with its length (equal words, equal keys).
const fn short_word_key(w: &[u8]) -> u64 {
    let mut k = (w.len() as u64) << 56;
    let mut i = 0;
    while i < w.len() {
        k |= (w[i] as u64) << (8 * i);
        i += 1;
    }
    k
}

/// [`STOP_WORDS`] as sorted keys (every stop word is at most 7 bytes).
const STOP_KEYS: [u64; 114] = {
    let mut keys = [0u64; 114];
    let mut i = 0;
    while i < 114 {
        keys[i] = short_word_key(STOP_WORDS[i].as_bytes());
        i += 1;
    }
    // Insertion sort (this runs at compile time).
    let mut i = 1;
    while i < 114 {
        let mut j = i;
        while j > 0 && keys[j - 1] > keys[j] {
            let t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
            j -= 1;
        }
        i += 1;
    }
    keys
};

/// By first byte, bit `len` set when a stop word of that length starts with it: most words
/// are ruled out by one table read.
const STOP_FIRST: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 114 {
        let w = STOP_WORDS[i].as_bytes();
        t[w[0] as usize] |= 1 << w.len();
        i += 1;
    }
    t
};

/// Is `word` one of [`STOP_WORDS`]? (A table read by first byte and length, then a binary
/// search over packed keys: no hashing, no string comparison.)
pub fn is_stop_word(word: &str) -> bool {
    let b = word.as_bytes();
    !b.is_empty()
        && b.len() <= 7
        && STOP_FIRST[b[0] as usize] & (1 << b.len()) != 0
        && STOP_KEYS.binary_search(&short_word_key(b)).is_ok()
}

/// One token of the compat scanner, before stop-word removal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    /// A CJK bigram (two characters).
    Cjk(&'a str),
    /// An ASCII word with `-`/`_` trimmed from its ends (may be empty).
    Word(&'a str),
}

/// A byte that starts an ASCII word (`[a-z0-9]`).
const WORD_START: u8 = 1;
/// A byte that continues one (`[a-z0-9_-]`).
const WORD_CHAR: u8 = 2;

/// The class of each byte: one table read per byte in the scanner's loops.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            t[b] = WORD_START | WORD_CHAR;
        } else if c == b'-' || c == b'_' {
            t[b] = WORD_CHAR;
        }
        b += 1;
    }
    t
};

/// The high bit of each of eight bytes that continues a word (`[a-z0-9_-]`; a byte of 0x80 or
/// above never does).
fn word_char_bits(v: u64) -> u64 {
    let x = v & !HIGH;
    let bits = within(x, b'a', b'z') | within(x, b'0', b'9') | within(x, b'-', b'-');
    (bits | within(x, b'_', b'_')) & !(v & HIGH)
}

/// The end of the run of word bytes (`[a-z0-9_-]`) at `from` (see [`crate::runs::run_end`]).
fn word_end(bytes: &[u8], from: usize) -> usize {
    run_end(bytes, from, word_char_bits, |b| {
        CLASS[usize::from(b)] & WORD_CHAR != 0
    })
}

/// Scan already-lowercased text into pieces, calling `emit` for each in order.
///
/// ASCII bytes are classified as bytes; only non-ASCII text is decoded (a CJK run starts
/// there, anything else is skipped).
pub fn scan<'a>(lower: &'a str, mut emit: impl FnMut(Piece<'a>)) {
    let bytes = lower.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii() {
            if CLASS[b as usize] & WORD_START != 0 {
                let start = i;
                let mut end = word_end(bytes, i + 1);
                i = end;
                // A word starts with a letter or digit, so only its end may need trimming.
                while matches!(bytes[end - 1], b'-' | b'_') {
                    end -= 1;
                }
                emit(Piece::Word(&lower[start..end]));
            } else {
                i += 1;
            }
            continue;
        }
        let Some(c) = lower[i..].chars().next() else {
            break;
        };
        if is_cjk(c) {
            // Maximal CJK run; every character in the CJK ranges is 3 bytes of UTF-8.
            let start = i;
            let mut end = i;
            while lower[end..].chars().next().is_some_and(is_cjk) {
                end += 3;
            }
            let mut p = start;
            while p + 6 <= end {
                emit(Piece::Cjk(&lower[p..p + 6]));
                p += 3;
            }
            i = end;
        } else {
            i += c.len_utf8();
        }
    }
}

/// `tokenize(text)`: lowercased CJK bigrams and ASCII words, stop words and empties dropped.
pub fn tokenize(text: &str) -> Vec<String> {
    let lower = js_lower(text);
    let mut out = Vec::new();
    scan(&lower, |p| match p {
        Piece::Cjk(s) => out.push(s.to_owned()),
        Piece::Word(w) => {
            if !w.is_empty() && !is_stop_word(w) {
                out.push(w.to_owned());
            }
        }
    });
    out
}

/// The reference's suffix stemmer: the first rule whose suffix and length condition hold.
/// Words that start with a CJK character are returned unchanged.
pub fn stem(word: &str) -> &str {
    // (suffix, length must exceed, characters to drop), in the reference's order. Only the
    // rules whose suffix ends with the word's last byte can apply, and their relative order
    // is kept, so the first match is the reference's.
    const ING: &[(&str, usize, usize)] = &[("ing", 5, 3)];
    const TION: &[(&str, usize, usize)] = &[("tion", 5, 4)];
    const MENT: &[(&str, usize, usize)] = &[("ment", 5, 4)];
    const ER: &[(&str, usize, usize)] = &[("er", 4, 2)];
    const ED: &[(&str, usize, usize)] = &[("ed", 4, 2)];
    const LY: &[(&str, usize, usize)] = &[("ly", 4, 2)];
    const S: &[(&str, usize, usize)] = &[("ness", 5, 4), ("ers", 4, 1), ("es", 4, 2), ("s", 3, 1)];
    let rules = match word.as_bytes().last() {
        Some(b'g') => ING,
        Some(b'n') => TION,
        Some(b't') => MENT,
        Some(b'r') => ER,
        Some(b'd') => ED,
        Some(b'y') => LY,
        Some(b's') => S,
        _ => return word,
    };
    if word.chars().next().is_some_and(is_cjk) {
        return word;
    }
    let len = if word.is_ascii() {
        word.len()
    } else {
        word.chars().count()
    };
    for &(suffix, min, drop) in rules {
        if len > min && ends_with(word, suffix) && !(suffix == "s" && ends_with(word, "ss")) {
            return cut(word, drop);
        }
    }
    word
}

/// `word.ends_with(suffix)` for the stemmer's suffixes of a few bytes, compared byte by byte
/// in place (`ends_with` calls the C library's `memcmp`, which costs more for so few bytes).
#[inline]
fn ends_with(word: &str, suffix: &str) -> bool {
    let (w, s) = (word.as_bytes(), suffix.as_bytes());
    w.len() >= s.len() && w[w.len() - s.len()..].iter().zip(s).all(|(a, b)| a == b)
}

fn cut(word: &str, chars: usize) -> &str {
    let idx = word
        .char_indices()
        .rev()
        .nth(chars - 1)
        .map(|(i, _)| i)
        .unwrap_or(0);
    &word[..idx]
}

/// `tokenizeAndStem(text)`.
pub fn tokenize_and_stem(text: &str) -> Vec<String> {
    let lower = js_lower(text);
    let mut out = Vec::new();
    tokenize_and_stem_into(&lower, |t| out.push(t.to_owned()));
    out
}

/// Distinct stemmed tokens of already-lowercased text with their counts, first-seen order.
/// (A hash map finds repeats, so a query of many distinct words stays linear.)
pub fn distinct_stemmed(lower: &str) -> Vec<(&str, u32)> {
    let mut out: Vec<(&str, u32)> = Vec::new();
    let mut pos: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    tokenize_and_stem_into(lower, |t| match pos.get(t) {
        Some(&i) => out[i].1 += 1,
        None => {
            pos.insert(t, out.len());
            out.push((t, 1));
        }
    });
    out
}

/// Stream the stemmed tokens of already-lowercased text without allocating a vector.
pub fn tokenize_and_stem_into<'a>(lower: &'a str, mut emit: impl FnMut(&'a str)) {
    scan(lower, |p| match p {
        Piece::Cjk(s) => emit(s),
        Piece::Word(w) => {
            if !w.is_empty() && !is_stop_word(w) {
                emit(stem(w));
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_end_is_the_byte_loop() {
        crate::runs::assert_run_end_is_the_byte_loop(
            word_char_bits,
            |b| CLASS[usize::from(b)] & WORD_CHAR != 0,
            false,
        );
    }

    #[test]
    fn tokenize_table() {
        let cases: &[(&str, &[&str])] = &[
            ("", &[]),
            ("Create a GitHub issue", &["create", "github", "issue"]),
            ("mcp__github__create_issue", &["mcp__github__create_issue"]),
            ("MongoDBDatabase", &["mongodbdatabase"]),
            ("--foo-bar__", &["foo-bar"]),
            ("_-_", &[]),
            ("解析pdf文件", &["解析", "pdf", "文件"]),
            (
                "查询谁调用了这个函数",
                &[
                    "查询", "询谁", "谁调", "调用", "用了", "了这", "这个", "个函", "函数",
                ],
            ),
            ("单", &[]),
            ("the and of", &[]),
            ("Ünïcode café 42x", &["n", "code", "caf", "42x"]),
            ("emoji 😀 ok", &["emoji", "ok"]),
            ("㐀㐁", &["㐀㐁"]),
        ];
        for (text, want) in cases {
            assert_eq!(tokenize(text), *want, "{text:?}");
        }
    }

    #[test]
    fn stem_table() {
        let cases: &[(&str, &str)] = &[
            ("running", "runn"),
            ("sing", "sing"),
            ("creation", "crea"),
            ("action", "ac"),
            ("notion", "no"),
            ("ation", "ation"),
            ("darkness", "dark"),
            ("management", "manage"),
            ("users", "user"),
            ("servers", "server"),
            ("user", "user"),
            ("creates", "creat"),
            ("uses", "use"),
            ("files", "fil"),
            ("class", "class"),
            ("bus", "bus"),
            ("tools", "tool"),
            ("created", "creat"),
            ("quickly", "quick"),
            ("fly", "fly"),
            ("解析", "解析"),
            ("es", "es"),
        ];
        for (word, want) in cases {
            assert_eq!(stem(word), *want, "{word}");
        }
    }

    #[test]
    fn stop_words_are_distinct() {
        let mut v = STOP_WORDS.to_vec();
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), 114);
        assert!(STOP_WORDS.iter().all(|w| w.len() <= 7));
    }

    #[test]
    fn stop_words_checked_before_stemming() {
        // "uses" is not a stop word, so it is stemmed to "use" (which would have been one).
        assert_eq!(tokenize_and_stem("uses use"), vec!["use"]);
    }
}
