//! The compat tokenizer + stemmer and the enhanced analyzer on arbitrary text (UTF-8, and
//! UTF-16 with lone surrogates turned into U+FFFD as the N-API boundary does).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_index_core::enhanced::analyze::{split_identifier, words, Analyzer, MAX_TOKEN_LEN};
use tool_index_core::enhanced::lexicon;
use tool_index_core::tokenize::{is_stop_word, STOP_WORDS};
use tool_index_core::{stem, tokenize, tokenize_and_stem};

fn is_compat_cjk(c: char) -> bool {
    matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}')
}

fn check(text: &str, a: &Analyzer) {
    // Compat.
    let toks = tokenize(text);
    let stemmed = tokenize_and_stem(text);
    assert_eq!(toks.len(), stemmed.len());
    for (t, s) in toks.iter().zip(&stemmed) {
        assert!(!t.is_empty());
        let cjk = t.chars().all(is_compat_cjk) && t.chars().count() == 2;
        let word = t
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
            && !t.starts_with(['-', '_'])
            && !t.ends_with(['-', '_']);
        assert!(cjk || word, "odd compat token {t:?}");
        assert!(cjk || !is_stop_word(t), "stop word kept: {t:?}");
        assert_eq!(stem(t), s.as_str());
        assert!(
            !s.is_empty() && t.starts_with(s.as_str()),
            "stem {s:?} of {t:?}"
        );
    }
    assert!(STOP_WORDS.iter().all(|w| !toks.iter().any(|t| t == w)));
    // Enhanced.
    let et = a.tokens(text);
    assert_eq!(et, a.tokens(text), "not deterministic");
    for t in et.iter().chain(a.query_tokens(text).iter()) {
        assert!(
            !t.is_empty() && t.len() <= MAX_TOKEN_LEN,
            "enhanced token of {} bytes",
            t.len()
        );
    }
    for w in words(text) {
        for piece in split_identifier(w) {
            assert!(!piece.is_empty());
            assert!(w.contains(piece));
            if let Some(n) = a.normalize(piece) {
                assert!(!n.is_empty() && n.len() <= MAX_TOKEN_LEN);
            }
        }
    }
    for en in lexicon::expand(text) {
        assert!(!en.is_empty());
    }
}

fuzz_target!(|data: &[u8]| {
    let a = Analyzer::default();
    check(&String::from_utf8_lossy(data), &a);
    if data.len() % 2 == 0 {
        let units: Vec<u16> = data
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        check(&String::from_utf16_lossy(&units), &a);
    }
});
