//! `parseToolName`, the enhanced name keys, the core-tool policy, and the JavaScript text
//! helpers (with `\bterm\b` checked against a position-by-position re-implementation).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_index_core::core_tools::parse_comma_list;
use tool_index_core::enhanced::{name_key, server_and_leaf};
use tool_index_core::text::{
    contains_word_bounded, is_js_whitespace, is_js_word, js_lower, js_split_whitespace, js_trim,
};
use tool_index_core::{is_deferred, parse_tool_name, CorePolicy};

/// `/\bterm\b/.test(text)` without the `u` flag, checked at every position.
fn naive_word_bounded(text: &str, term: &str) -> bool {
    let word_before = |i: usize| text[..i].chars().next_back().is_some_and(is_js_word);
    let word_after = |i: usize| text[i..].chars().next().is_some_and(is_js_word);
    let positions = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()));
    for i in positions {
        if !text[i..].starts_with(term) {
            continue;
        }
        let end = i + term.len();
        // `\b` before the term: the word-ness changes between text[..i] and the term's start.
        let start_word = term
            .chars()
            .next()
            .map_or_else(|| word_after(i), is_js_word);
        let end_word = term
            .chars()
            .next_back()
            .map_or_else(|| word_before(end), is_js_word);
        if word_before(i) != start_word && word_after(end) != end_word {
            return true;
        }
    }
    false
}

fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    let p = parse_tool_name(&s);
    assert_eq!(p.is_mcp, s.starts_with("mcp__"));
    let parts: Vec<&str> = p.parts().collect();
    assert!(parts.iter().all(|x| !x.is_empty()));
    if p.is_mcp {
        let lower = js_lower(&s["mcp__".len()..]);
        let want: Vec<&str> = lower.split('_').filter(|x| !x.is_empty()).collect();
        assert_eq!(parts, want);
        assert!(!p.full.contains('_'));
    } else {
        assert_eq!(p.full, parts.join(" "));
        assert!(parts
            .iter()
            .all(|x| !x.contains('_') && !x.contains(is_js_whitespace)));
    }
    assert_eq!(parse_tool_name(&s), p, "not deterministic");

    let (server, leaf) = server_and_leaf(&s, Some("srv"));
    assert!(s.ends_with(leaf));
    if let Some(sv) = server {
        assert!(sv == "srv" || s.contains(sv));
    }
    let k = name_key(&s);
    assert!(!k.contains('-'));

    let policy = CorePolicy::new(Some(&[s.to_string()]), &[], &[]);
    assert!(!is_deferred(&s, false, &policy));
    assert!(!is_deferred(&s, true, &CorePolicy::new(None, &[], &[])));
    let _ = parse_comma_list(&s);

    let t = js_trim(&s);
    assert!(!t.starts_with(is_js_whitespace) && !t.ends_with(is_js_whitespace));
    for piece in js_split_whitespace(t) {
        assert!(!piece.contains(is_js_whitespace));
    }

    // Split the input at its first NUL: text \0 term.
    if let Some(i) = s.find('\0') {
        let (text, term) = (&s[..i], &s[i + 1..]);
        let term: String = term.chars().take(8).collect();
        assert_eq!(
            contains_word_bounded(text, &term),
            naive_word_bounded(text, &term),
            "\\b{term:?}\\b in {text:?}"
        );
    }
});
