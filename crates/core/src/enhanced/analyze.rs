//! The enhanced tokenizer: one pipeline for tools and queries, each stage a small pure
//! function.
//!
//! `text` → [`words`] (Unicode word boundaries, UAX #29) → [`strip_clitic`] (`Twitter's` →
//! `Twitter`; `don't` gives nothing) → [`split_identifier`]
//! (`snake_case`, `kebab-case`, `mcp__server__tool`, `CamelCase`, `HTTPServer`) →
//! lowercase → drop stop words → Snowball English stem → cap at [`MAX_TOKEN_LEN`].
//! CJK runs (Han, kana) become overlapping bigrams and, but for stop characters
//! (`wordlists::is_unigram_stop`), their characters (a lone character is a word),
//! so `解析pdf文件` gives `解析`, `解`, `析`, `pdf`, `文件`, `文`, `件`. A request weighs its
//! characters at [`super::Params::unigram_weight`];
//! a tool has them in every field but its schema, and they do not count in a field's length.

use std::borrow::Cow;

use rust_stemmers::{Algorithm, Stemmer};

pub use super::clauses::clauses;
pub use super::wordlists::{
    conflate, irregular, is_query_stop, is_stop, phrasal, GENERIC_NAME_WORDS, SYNONYMS,
};
use super::wordlists::{is_query_stop_any_case, is_query_stop_ascii, is_unigram_stop};
use super::words::for_each_identifier_piece;
pub use super::words::{has_cjk, is_cjk, split_identifier, strip_clitic, words};

/// Longest token kept, in bytes; longer ones (hashes, base64, minified code) are dropped.
pub const MAX_TOKEN_LEN: usize = 64;

/// The per-word stages of the pipeline: a word in, its tokens out through the callback.
type WordStage<'w> = dyn FnMut(&str, &mut dyn FnMut(Cow<'_, str>)) + 'w;

/// Where tokens go, one at a time, each with whether it is a unigram (a character of a CJK run
/// of two or more).
type TaggedSink<'s> = dyn FnMut(Cow<'_, str>, bool) + 's;

/// Longest word (in bytes) a [`WordMemo`] keeps: longer ones are analysed each time, so a
/// memo of N words holds at most N × 64 bytes of keys.
pub const MAX_MEMO_WORD: usize = 64;

/// Most words a [`WordMemo`] keeps (about 8 MB at most): past it, words are analysed each time.
/// A build's memo holds a catalog's distinct words; a catalog of ever new words (hashes,
/// generated text) then costs no more memory than its index does.
pub const MAX_MEMO_WORDS: usize = 1 << 16;

/// The tokens of words already analysed (by [`Analyzer::query_tokens_with`]): a request's
/// clauses are analysed again on their own, and repeat its words. Each word also carries the
/// round it was analysed in and whether a later round read it (see [`WordMemo::trim`]).
#[derive(Default)]
pub struct WordMemo {
    words: rustc_hash::FxHashMap<String, Memoed>,
    round: u32,
}

/// A word's tokens, the round it was analysed in, and whether a later round read it.
struct Memoed {
    tokens: Vec<String>,
    round: u32,
    reused: bool,
}

impl WordMemo {
    /// Number of words held.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether it holds no word.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// A word's tokens, if held (noted as reused when this is a later round than its first).
    fn get(&mut self, word: &str) -> Option<&[String]> {
        let round = self.round;
        let m = self.words.get_mut(word)?;
        m.reused |= m.round != round;
        Some(&m.tokens)
    }

    fn insert(&mut self, word: &str, tokens: Vec<String>) {
        let m = Memoed {
            tokens,
            round: self.round,
            reused: false,
        };
        self.words.insert(word.to_owned(), m);
    }

    /// End a round (a request and its clauses). Past `max` words, keep only those a later
    /// round than their first read again, marked as not reused: the words requests keep
    /// using stay, the ones of a single request go. It then holds at most `max` words plus
    /// those one round adds.
    pub fn trim(&mut self, max: usize) {
        self.round = self.round.wrapping_add(1);
        if self.words.len() > max {
            self.words.retain(|_, m| std::mem::take(&mut m.reused));
        }
    }
}

/// The analyzer: stop words, stemming and the CJK rule around the stages above.
pub struct Analyzer {
    stemmer: Stemmer,
}

impl Default for Analyzer {
    fn default() -> Self {
        Self {
            stemmer: Stemmer::create(Algorithm::English),
        }
    }
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Analyzer(english)")
    }
}

/// Whether the English (Porter2) stemmer leaves an ASCII word as it is because of its last
/// letter: every suffix the algorithm removes or rewrites ends in one of `s d g y i r n m l e
/// c t` (and so do its exceptional forms, "skies", "dying", "news" …), so a word ending in any
/// other letter or a digit keeps its form. Stemming costs about 3,000 instructions a word;
/// this test a few.
fn keeps_its_form(word: &str) -> bool {
    word.is_ascii()
        && word
            .as_bytes()
            .last()
            .is_some_and(|b| !b"sdgyirnmlect".contains(b))
}

impl Analyzer {
    /// Stage 3–5 for one identifier piece: lowercase, stop words, stem, length cap.
    pub fn normalize<'a>(&self, piece: &'a str) -> Option<Cow<'a, str>> {
        let lower: Cow<str> = if piece.is_ascii() {
            if piece.bytes().any(|b| b.is_ascii_uppercase()) {
                Cow::Owned(piece.to_ascii_lowercase())
            } else {
                Cow::Borrowed(piece)
            }
        } else if piece.chars().any(|c| c.is_uppercase()) {
            Cow::Owned(piece.to_lowercase())
        } else {
            Cow::Borrowed(piece)
        };
        if lower.is_empty() || lower.len() > MAX_TOKEN_LEN || is_stop(&lower) {
            return None;
        }
        if let Some(base) = irregular(&lower) {
            return Some(Cow::Borrowed(base));
        }
        let stemmed = if keeps_its_form(&lower) {
            lower
        } else {
            match self.stemmer.stem(&lower) {
                Cow::Borrowed(s) if s.len() == lower.len() => lower,
                other => Cow::Owned(other.into_owned()),
            }
        };
        let stemmed = conflate(stemmed);
        (!stemmed.is_empty()).then_some(stemmed)
    }

    /// The whole pipeline, calling `emit` for each token in order.
    pub fn analyze(&self, text: &str, mut emit: impl FnMut(Cow<'_, str>)) {
        self.analyze_by(
            words(text),
            text.is_ascii(),
            &mut |w, emit| self.analyze_word(w, emit),
            &mut |t, _| emit(t),
        );
    }

    /// [`Analyzer::analyze`] of a text's words (the word segments of [`words`], perhaps some
    /// left out; `ascii` when that text is all ASCII), with the per-word stages (identifier splitting, stop words, stemming) done
    /// by `word`. Each token goes to `emit` with whether it is a unigram: a character of a CJK
    /// run of two or more (a lone character is a word).
    fn analyze_by<'t>(
        &self,
        words: impl Iterator<Item = &'t str>,
        ascii: bool,
        word: &mut WordStage<'_>,
        emit: &mut TaggedSink<'_>,
    ) {
        let mut cjk_run = String::new();
        // Tokens are slices of the run: a long run costs no allocation a token.
        let flush = |run: &mut String, emit: &mut TaggedSink<'_>| {
            let mut bounds: Vec<usize> = run.char_indices().map(|(i, _)| i).collect();
            bounds.push(run.len());
            let n = bounds.len() - 1;
            if n == 1 {
                emit(Cow::Borrowed(run.as_str()), false);
            } else {
                for k in 0..n - 1 {
                    emit(Cow::Borrowed(&run[bounds[k]..bounds[k + 2]]), false);
                }
                // Its characters too (but the stop characters), for words the bigrams split
                // differently on each side: 改为 ("change to") and 更改 ("change") share 改.
                for k in 0..n {
                    let c = &run[bounds[k]..bounds[k + 1]];
                    if !c.chars().next().is_some_and(is_unigram_stop) {
                        emit(Cow::Borrowed(c), true);
                    }
                }
            }
            run.clear();
        };
        let mut prev: Option<&str> = None;
        for w in words {
            // Two-word phrasal verbs ("log in", "sign up") also give their one-word form.
            if let Some(c) = prev.and_then(|p| phrasal(p, w)) {
                emit(Cow::Borrowed(c), false);
            }
            prev = Some(w);
            // Words of an ASCII text (`ascii`, tested once for the text) are not tested again.
            if ascii {
                word(w, &mut |t| emit(t, false));
                continue;
            }
            if !w.is_ascii() && w.chars().all(is_cjk) {
                cjk_run.push_str(w);
                continue;
            }
            if !cjk_run.is_empty() {
                flush(&mut cjk_run, &mut *emit);
            }
            if has_cjk(w) {
                // Mixed script inside one segment: split at script changes.
                let mut buf = String::new();
                let mut buf_cjk = false;
                for c in w.chars() {
                    let k = is_cjk(c);
                    if k != buf_cjk && !buf.is_empty() {
                        if buf_cjk {
                            flush(&mut buf, &mut *emit);
                        } else {
                            word(&buf, &mut |t| emit(t, false));
                            buf.clear();
                        }
                    }
                    buf_cjk = k;
                    buf.push(c);
                }
                if buf_cjk {
                    cjk_run.push_str(&buf);
                } else {
                    word(&buf, &mut |t| emit(t, false));
                }
                continue;
            }
            word(w, &mut |t| emit(t, false));
        }
        if !cjk_run.is_empty() {
            flush(&mut cjk_run, &mut *emit);
        }
    }

    fn analyze_word(&self, w: &str, emit: &mut dyn FnMut(Cow<'_, str>)) {
        for_each_identifier_piece(strip_clitic(w), |piece| {
            if let Some(t) = self.normalize(piece) {
                emit(t);
            }
        });
    }

    /// The pipeline for a query: also drops conversational words.
    pub fn query_tokens(&self, text: &str) -> Vec<String> {
        self.query_tokens_with(text, &mut WordMemo::default())
    }

    /// [`Analyzer::query_tokens`], reusing (and adding to) the per-word results in `memo`.
    pub fn query_tokens_with(&self, text: &str, memo: &mut WordMemo) -> Vec<String> {
        let mut v = Vec::new();
        self.query_tokens_tagged(text, memo, |t, _| v.push(t.into_owned()));
        v
    }

    /// [`Analyzer::query_tokens_with`], each token handed to `emit` (borrowed where the memo
    /// holds it, so a caller that already has the token copies nothing) with whether it is a
    /// unigram (see [`Analyzer::analyze_tagged`]).
    #[inline]
    pub fn query_tokens_tagged(
        &self,
        text: &str,
        memo: &mut WordMemo,
        mut emit: impl FnMut(Cow<'_, str>, bool),
    ) {
        self.query_tokens_into(text, memo, &mut emit);
    }

    /// [`Analyzer::query_tokens_tagged`], one copy for every caller.
    #[inline(never)]
    fn query_tokens_into(&self, text: &str, memo: &mut WordMemo, emit: &mut TaggedSink<'_>) {
        // Conversational words are left out of the word sequence (as if they were spaces:
        // a word on each side of one still makes a phrasal verb).
        let ascii = text.is_ascii();
        let kept = words(text).filter(|w| {
            !if ascii {
                is_query_stop_ascii(w)
            } else {
                is_query_stop_any_case(w)
            }
        });
        self.analyze_words_with(kept, ascii, memo, emit);
    }

    /// [`Analyzer::analyze`] with the tokens of each word taken from `memo`, or worked out
    /// and kept there (the same tokens either way: the per-word stages depend on the word
    /// alone), each token with whether it is a unigram: a character of a CJK run of two or
    /// more (a tool's field has them as terms, but they do not make it longer; a request
    /// weighs them less).
    pub fn analyze_tagged(
        &self,
        text: &str,
        memo: &mut WordMemo,
        mut emit: impl FnMut(Cow<'_, str>, bool),
    ) {
        self.analyze_words_with(words(text), text.is_ascii(), memo, &mut emit);
    }

    /// The tokens of a text but its unigrams (the words a required `+word` asks for).
    pub fn word_tokens(&self, text: &str) -> Vec<String> {
        let mut v = Vec::new();
        self.analyze_by(
            words(text),
            text.is_ascii(),
            &mut |w, emit| self.analyze_word(w, emit),
            &mut |t, unigram| {
                if !unigram {
                    v.push(t.into_owned());
                }
            },
        );
        v
    }

    /// [`Analyzer::analyze_tagged`] of a text's words (see [`Analyzer::analyze_by`]).
    fn analyze_words_with<'t>(
        &self,
        words: impl Iterator<Item = &'t str>,
        ascii: bool,
        memo: &mut WordMemo,
        emit: &mut TaggedSink<'_>,
    ) {
        let mut word = |w: &str, emit: &mut dyn FnMut(Cow<'_, str>)| {
            // Long words are never kept (a memo of them would let requests fill memory).
            let keep = w.len() <= MAX_MEMO_WORD;
            if let Some(tokens) = keep.then(|| memo.get(w)).flatten() {
                tokens.iter().for_each(|t| emit(Cow::Borrowed(t)));
                return;
            }
            if !keep || memo.len() >= MAX_MEMO_WORDS {
                // Not kept, or the memo is full: analysed as it comes.
                self.analyze_word(w, emit);
                return;
            }
            let mut tokens = Vec::new();
            self.analyze_word(w, &mut |t| tokens.push(t.into_owned()));
            tokens.iter().for_each(|t| emit(Cow::Borrowed(t)));
            memo.insert(w, tokens);
        };
        self.analyze_by(words, ascii, &mut word, emit);
    }

    /// The pipeline into a vector.
    pub fn tokens(&self, text: &str) -> Vec<String> {
        let mut v = Vec::new();
        self.analyze(text, |t| v.push(t.into_owned()));
        v
    }

    /// Stem one already-lowercased word (for lexicon expansions).
    pub fn stem_word(&self, word: &str) -> String {
        self.normalize(word)
            .map(Cow::into_owned)
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stemmer's own answer for words [`keeps_its_form`] lets through: every word of up
    /// to three letters from `a`–`z` and digits that ends in such a byte, and longer words
    /// made of common English endings.
    #[test]
    fn words_kept_by_their_last_letter_are_what_the_stemmer_gives() {
        let stemmer = Stemmer::create(Algorithm::English);
        let alphabet: Vec<u8> = (b'a'..=b'z').chain(b'0'..=b'9').collect();
        let mut words: Vec<String> = Vec::new();
        for &a in &alphabet {
            for &b in &alphabet {
                for &c in &alphabet {
                    words.push(String::from_utf8(vec![a, b, c]).unwrap());
                }
                words.push(String::from_utf8(vec![a, b]).unwrap());
            }
            words.push(String::from_utf8(vec![a]).unwrap());
        }
        let stems = [
            "rational",
            "condition",
            "generat",
            "organiz",
            "happi",
            "hope",
            "nation",
            "fulness",
            "sky",
            "ski",
            "dy",
            "ly",
            "ty",
            "news",
            "atlas",
            "cosmo",
            "bia",
            "ande",
            "eed",
            "ing",
        ];
        let tails = [
            "", "a", "b", "f", "h", "k", "o", "p", "u", "v", "w", "x", "z", "ab", "ok",
        ];
        for s in stems {
            for t in tails {
                words.push(format!("{s}{t}"));
                words.push(format!("{t}{s}{t}"));
            }
        }
        let mut checked = 0;
        for w in words.iter().filter(|w| keeps_its_form(w)) {
            assert_eq!(stemmer.stem(w), w.as_str(), "{w}");
            checked += 1;
        }
        assert!(checked > 10_000, "{checked}");
        for w in ["files", "created", "running", "happy", "café", "x-ray", ""] {
            assert!(!keeps_its_form(w), "{w}");
        }
    }

    #[test]
    fn pipeline_table() {
        let a = Analyzer::default();
        let cases: &[(&str, &[&str])] = &[
            ("MongoDBDatabase", &["mongo", "db", "databas"]),
            (
                "mcp__github__create_issue",
                &["mcp", "github", "creat", "issu"],
            ),
            (
                "解析pdf文件",
                &["解析", "解", "析", "pdf", "文件", "文", "件"],
            ),
            // Stop characters give no unigram; their bigrams stay.
            ("我的文件", &["我的", "的文", "文件", "文", "件"]),
            // A lone character is a word.
            ("查 pdf", &["查", "pdf"]),
            (
                "查询谁调用了这个函数",
                &[
                    "查询", "询谁", "谁调", "调用", "用了", "了这", "这个", "个函", "函数", "查",
                    "询", "谁", "调", "用", "函", "数",
                ],
            ),
            (
                "Send a Slack message to #general",
                &["send", "slack", "messag", "general"],
            ),
            ("running the servers quickly", &["run", "server", "quick"]),
            ("单", &["单"]),
            (
                "東京タワー",
                &["東京", "京タ", "タワ", "ワー", "東", "京", "タ", "ワ"],
            ),
            ("Ünïcode café", &["ünïcode", "café"]),
            // Clitics go; a negated auxiliary goes whole.
            ("Twitter's API isn't down", &["twitter", "api", "down"]),
            (
                "it\u{2019}s today\u{2019}s U.S. news",
                &["today", "u", "s", "news"],
            ),
        ];
        for (text, want) in cases {
            assert_eq!(a.tokens(text), *want, "{text:?}");
        }
    }

    #[test]
    fn memo_is_bounded_and_changes_nothing() {
        let a = Analyzer::default();
        let text: String = (0..MAX_MEMO_WORDS + 500)
            .map(|i| format!("w{i}x "))
            .collect::<String>()
            + "Sending sending";
        let mut memo = WordMemo::default();
        let mut got = Vec::new();
        a.analyze_tagged(&text, &mut memo, |t, _| got.push(t.into_owned()));
        assert_eq!(memo.len(), MAX_MEMO_WORDS);
        assert_eq!(got, a.tokens(&text));
        // Words the memo holds come back the same from it.
        let mut again = Vec::new();
        a.analyze_tagged("w1x Sending", &mut memo, |t, _| again.push(t.into_owned()));
        assert_eq!(again, a.tokens("w1x Sending"));
    }

    /// A trim past the bound keeps the words a later round read again and drops those only
    /// one round had (read twice in that round or not); the kept words give the same tokens.
    #[test]
    fn memo_trim_keeps_the_words_rounds_reuse() {
        let a = Analyzer::default();
        let mut memo = WordMemo::default();
        let run = |memo: &mut WordMemo, text: &str| {
            let mut got = Vec::new();
            a.analyze_tagged(text, memo, |t, _| got.push(t.into_owned()));
            assert_eq!(got, a.tokens(text), "{text}");
        };
        run(&mut memo, "sending files");
        memo.trim(100);
        // Read again in a later round: "sending" is reused, "files" is not.
        run(&mut memo, "sending reports reports");
        memo.trim(100);
        assert_eq!(memo.len(), 3, "under the bound nothing goes");
        run(&mut memo, "uploads");
        memo.trim(2);
        let kept: Vec<&str> = memo.words.keys().map(String::as_str).collect();
        assert_eq!(kept, ["sending"]);
        // Kept words are marked as not reused again: the next trim past the bound drops them
        // unless another round reads them.
        run(&mut memo, "alpha beta gamma");
        memo.trim(2);
        assert!(memo.is_empty());
        run(&mut memo, "sending files");
        assert_eq!(memo.len(), 2);
    }

    /// The query pipeline as it was first written: the conversational words replaced by a
    /// space, the text segmented again.
    fn query_tokens_by_replacing(a: &Analyzer, text: &str) -> Vec<String> {
        let mut kept = String::new();
        for w in crate::enhanced::segment::word_bounds(text) {
            kept.push_str(if is_query_stop_any_case(w) { " " } else { w });
        }
        a.tokens(&kept)
    }

    proptest::proptest! {
        #[test]
        fn query_words_left_out_equal_words_replaced_by_spaces(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "help", "Help", "HI", "thanks", "log", "in", "sign", "up", "file", "x", "1", "2.5",
                " ", "  ", ".", ",", ":", "'", "’", "\"", "_", "-", "\t", "\n", "数据", "文件",
                "é", "\u{301}", "\u{200d}", "\u{200b}", "🇫🇷", "👍", "א", "カタ", "ok.", "now:",
            ]), 0..24)
        ) {
            let text = parts.concat();
            let a = Analyzer::default();
            proptest::prop_assert_eq!(a.query_tokens(&text), query_tokens_by_replacing(&a, &text));
        }
    }

    #[test]
    fn query_stop_words() {
        let a = Analyzer::default();
        assert_eq!(
            a.query_tokens("Can you help me send a message?"),
            vec!["send", "messag"]
        );
        assert_eq!(
            a.query_tokens("help 解析pdf文件"),
            vec!["解析", "解", "析", "pdf", "文件", "文", "件"]
        );
        assert_eq!(a.tokens("help"), vec!["help"]);
        // Intensifiers and politeness say nothing of the tool; in tool text they stay.
        assert_eq!(
            a.query_tokens(
                "I'm specifically interested in a comprehensive, detailed weather report"
            ),
            vec!["weather", "report"]
        );
        assert_eq!(a.tokens("specific"), vec!["specif"]);
    }

    #[test]
    fn long_tokens_are_dropped() {
        let a = Analyzer::default();
        let long = "x".repeat(MAX_TOKEN_LEN + 1);
        assert_eq!(a.tokens(&format!("keep {long} this")), vec!["keep"]);
        assert!(a.tokens(&"y".repeat(10_000)).is_empty());
    }

    #[test]
    fn word_forms_meet() {
        let a = Analyzer::default();
        // Pairs that must analyse to the same tokens.
        let same: &[(&str, &str)] = &[
            ("modify", "modification"),
            ("modified", "modifications"),
            ("notify", "notification"),
            ("verify", "verification"),
            ("classify", "classification"),
            ("create", "creation"),
            ("describe", "description"),
            ("subscribe", "subscription"),
            ("register", "registration"),
            ("analyze", "analysis"),
            ("analytics", "analyze"),
            ("information", "info"),
            ("sent", "send"),
            ("found", "find"),
            ("bought", "buy"),
            ("comparison", "compare"),
            ("transcription", "transcribe"),
        ];
        for (x, y) in same {
            assert_eq!(a.tokens(x), a.tokens(y), "{x} / {y}");
        }
        // Pairs that must stay apart.
        let apart: &[(&str, &str)] = &[("wiki", "wik"), ("create", "crate"), ("list", "lisp")];
        for (x, y) in apart {
            assert_ne!(a.tokens(x), a.tokens(y), "{x} / {y}");
        }
    }

    #[test]
    fn phrasal_verbs_give_one_word() {
        let a = Analyzer::default();
        let cases: &[(&str, &[&str])] = &[
            ("log into my account", &["log", "login", "account"]),
            (
                "Sign up for the newsletter",
                &["sign", "signup", "up", "newslett"],
            ),
            ("set up a webhook", &["set", "setup", "up", "webhook"]),
            ("login", &["login"]),
            ("log files", &["log", "file"]),
            ("the catalog in stock", &["catalog", "stock"]),
        ];
        for (text, want) in cases {
            assert_eq!(a.tokens(text), *want, "{text:?}");
        }
    }
}
