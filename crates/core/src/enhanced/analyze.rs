//! The enhanced tokenizer: one pipeline for tools and queries, each stage a small pure
//! function.
//!
//! `text` → [`words`] (Unicode word boundaries, UAX #29) → [`split_identifier`]
//! (`snake_case`, `kebab-case`, `mcp__server__tool`, `CamelCase`, `HTTPServer`) →
//! lowercase → drop stop words → Snowball English stem → cap at [`MAX_TOKEN_LEN`].
//! CJK runs (Han, kana) become overlapping bigrams (a lone character stays a unigram), so
//! `解析pdf文件` gives `解析`, `pdf`, `文件`.

use std::borrow::Cow;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_segmentation::UnicodeSegmentation;

/// Longest token kept, in bytes; longer ones (hashes, base64, minified code) are dropped.
pub const MAX_TOKEN_LEN: usize = 64;

/// Stop words the enhanced pipeline drops besides the compat list
/// ([`crate::tokenize::STOP_WORDS`]): a few more that carry no tool meaning.
const EXTRA_STOP: &[&str] = &[
    "please", "want", "like", "also", "any", "via", "e.g", "etc", "about", "let", "get's", "i'd",
    "i'm", "can't", "don't",
];

/// Conversational words that carry no tool meaning in a request ("can you help me ..."),
/// dropped from queries only (a tool may legitimately be about "help").
const QUERY_STOP: &[&str] = &[
    "help",
    "assist",
    "assistance",
    "possible",
    "kindly",
    "able",
    "tell",
    "thank",
    "thanks",
    "hello",
    "hi",
    "hey",
    "know",
    "way",
    "sure",
    "okay",
    "ok",
    "maybe",
    "perhaps",
    "certain",
    "something",
    "anything",
    "someone",
    "thing",
    "things",
    "now",
    "today",
    "really",
    "quite",
];

/// Is this (lowercased) word a query-only stop word?
pub fn is_query_stop(word: &str) -> bool {
    QUERY_STOP.contains(&word)
}

/// Is this (lowercased) word a stop word: the compat list or [`EXTRA_STOP`]?
pub fn is_stop(word: &str) -> bool {
    crate::tokenize::is_stop_word(word) || (word.len() <= 7 && EXTRA_STOP.contains(&word))
}

/// A CJK character that the pipeline turns into bigrams: Han ideographs and kana.
pub fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{4E00}'..='\u{9FFF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{2A6DF}'
        | '\u{3040}'..='\u{30FF}')
}

/// Stage 1: the words of a text by Unicode word boundaries (segments with a letter or digit).
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split_word_bounds()
        .filter(|w| w.chars().any(|c| c.is_alphanumeric()))
}

/// Stage 2: split an identifier-like word into its pieces, in order, keeping case:
/// on `_`, `-`, `.`, `/`, `:`, `@`, on lower→upper edges (`cronCreate`), and before the last
/// capital of a capital run followed by a lowercase letter (`MongoDBDatabase` →
/// `Mongo`, `DB`, `Database`). Letters and digits stay together (`ec2`, `oauth2`).
pub fn split_identifier(word: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for piece in word.split(['_', '-', '.', '/', ':', '@', '\'', '’']) {
        if piece.is_empty() {
            continue;
        }
        let chars: Vec<(usize, char)> = piece.char_indices().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (pos, c) = chars[i];
            let prev = chars[i - 1].1;
            let next = chars.get(i + 1).map(|x| x.1);
            let boundary = ((prev.is_lowercase() || prev.is_ascii_digit()) && c.is_uppercase())
                || (prev.is_uppercase()
                    && c.is_uppercase()
                    && next.is_some_and(|n| n.is_lowercase()));
            if boundary {
                out.push(&piece[start..pos]);
                start = pos;
            }
        }
        out.push(&piece[start..]);
    }
    out
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

impl Analyzer {
    /// Stage 3–5 for one identifier piece: lowercase, stop words, stem, length cap.
    pub fn normalize<'a>(&self, piece: &'a str) -> Option<Cow<'a, str>> {
        let lower: Cow<str> = if piece.chars().any(|c| c.is_uppercase()) {
            Cow::Owned(piece.to_lowercase())
        } else {
            Cow::Borrowed(piece)
        };
        if lower.is_empty() || lower.len() > MAX_TOKEN_LEN || is_stop(&lower) {
            return None;
        }
        let stemmed = match self.stemmer.stem(&lower) {
            Cow::Borrowed(s) if s.len() == lower.len() => lower,
            other => Cow::Owned(other.into_owned()),
        };
        (!stemmed.is_empty()).then_some(stemmed)
    }

    /// The whole pipeline, calling `emit` for each token in order.
    pub fn analyze(&self, text: &str, mut emit: impl FnMut(Cow<'_, str>)) {
        let mut cjk_run = String::new();
        let flush = |run: &mut String, emit: &mut dyn FnMut(Cow<'_, str>)| {
            let chars: Vec<char> = run.chars().collect();
            if chars.len() == 1 {
                emit(Cow::Owned(run.clone()));
            } else {
                for w in chars.windows(2) {
                    emit(Cow::Owned(w.iter().collect()));
                }
            }
            run.clear();
        };
        for w in words(text) {
            if w.chars().all(is_cjk) {
                cjk_run.push_str(w);
                continue;
            }
            if !cjk_run.is_empty() {
                flush(&mut cjk_run, &mut emit);
            }
            if w.chars().any(is_cjk) {
                // Mixed script inside one segment: split at script changes.
                let mut buf = String::new();
                let mut buf_cjk = false;
                for c in w.chars() {
                    let k = is_cjk(c);
                    if k != buf_cjk && !buf.is_empty() {
                        if buf_cjk {
                            flush(&mut buf, &mut emit);
                        } else {
                            self.analyze_word(&buf, &mut emit);
                            buf.clear();
                        }
                    }
                    buf_cjk = k;
                    buf.push(c);
                }
                if buf_cjk {
                    cjk_run.push_str(&buf);
                } else {
                    self.analyze_word(&buf, &mut emit);
                }
                continue;
            }
            self.analyze_word(w, &mut emit);
        }
        if !cjk_run.is_empty() {
            flush(&mut cjk_run, &mut emit);
        }
    }

    fn analyze_word(&self, w: &str, emit: &mut dyn FnMut(Cow<'_, str>)) {
        for piece in split_identifier(w) {
            if let Some(t) = self.normalize(piece) {
                emit(t);
            }
        }
    }

    /// The pipeline for a query: also drops conversational words.
    pub fn query_tokens(&self, text: &str) -> Vec<String> {
        let kept: String = text
            .split_word_bounds()
            .map(|w| {
                if is_query_stop(&w.to_lowercase()) {
                    " "
                } else {
                    w
                }
            })
            .collect();
        self.tokens(&kept)
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
    fn pipeline_table() {
        let a = Analyzer::default();
        let cases: &[(&str, &[&str])] = &[
            ("MongoDBDatabase", &["mongo", "db", "databas"]),
            (
                "mcp__github__create_issue",
                &["mcp", "github", "creat", "issu"],
            ),
            ("解析pdf文件", &["解析", "pdf", "文件"]),
            (
                "查询谁调用了这个函数",
                &[
                    "查询", "询谁", "谁调", "调用", "用了", "了这", "这个", "个函", "函数",
                ],
            ),
            (
                "Send a Slack message to #general",
                &["send", "slack", "messag", "general"],
            ),
            ("running the servers quickly", &["run", "server", "quick"]),
            ("单", &["单"]),
            ("東京タワー", &["東京", "京タ", "タワ", "ワー"]),
            ("Ünïcode café", &["ünïcode", "café"]),
        ];
        for (text, want) in cases {
            assert_eq!(a.tokens(text), *want, "{text:?}");
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
            vec!["解析", "pdf", "文件"]
        );
        assert_eq!(a.tokens("help"), vec!["help"]);
    }

    #[test]
    fn long_tokens_are_dropped() {
        let a = Analyzer::default();
        let long = "x".repeat(MAX_TOKEN_LEN + 1);
        assert_eq!(a.tokens(&format!("keep {long} this")), vec!["keep"]);
        assert!(a.tokens(&"y".repeat(10_000)).is_empty());
    }
}
