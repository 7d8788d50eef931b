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

use super::segment::{word_bound_indices, word_bounds};

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
    "really",
    "quite",
];

/// Is this (lowercased) word a query-only stop word?
pub fn is_query_stop(word: &str) -> bool {
    QUERY_STOP.contains(&word)
}

/// [`is_query_stop`] of the word's lowercase form (without allocating for ASCII words).
fn is_query_stop_any_case(word: &str) -> bool {
    if word.is_ascii() {
        QUERY_STOP.iter().any(|s| s.eq_ignore_ascii_case(word))
    } else {
        is_query_stop(&word.to_lowercase())
    }
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
    word_bounds(text).filter(|w| w.chars().any(|c| c.is_alphanumeric()))
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
        if piece.is_ascii() {
            split_ascii_case(piece, &mut out);
        } else {
            split_case(piece, &mut out);
        }
    }
    out
}

/// [`split_identifier`]'s case rule: lower (or digit) → upper, and before the last capital of
/// a capital run followed by a lowercase letter.
fn split_case<'a>(piece: &'a str, out: &mut Vec<&'a str>) {
    let chars: Vec<(usize, char)> = piece.char_indices().collect();
    let mut start = 0;
    for i in 1..chars.len() {
        let (pos, c) = chars[i];
        let prev = chars[i - 1].1;
        let next = chars.get(i + 1).map(|x| x.1);
        let boundary = ((prev.is_lowercase() || prev.is_ascii_digit()) && c.is_uppercase())
            || (prev.is_uppercase() && c.is_uppercase() && next.is_some_and(|n| n.is_lowercase()));
        if boundary {
            out.push(&piece[start..pos]);
            start = pos;
        }
    }
    out.push(&piece[start..]);
}

/// [`split_identifier`]'s case rule for an ASCII piece, on bytes (for ASCII the two agree:
/// `is_lowercase` is `is_ascii_lowercase`, and so on).
fn split_ascii_case<'a>(piece: &'a str, out: &mut Vec<&'a str>) {
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
            out.push(&piece[start..i]);
            start = i;
        }
    }
    out.push(&piece[start..]);
}

/// Irregular past forms of verbs common in requests, mapped to their stems (the stemmer
/// leaves `sent`, `found`, `bought` as they are).
const IRREGULAR: &[(&str, &str)] = &[
    ("sent", "send"),
    ("found", "find"),
    ("bought", "buy"),
    ("made", "make"),
    ("wrote", "write"),
    ("written", "write"),
    ("ran", "run"),
    ("got", "get"),
    ("gotten", "get"),
    ("took", "take"),
    ("taken", "take"),
    ("gave", "give"),
    ("given", "give"),
    ("built", "build"),
    ("chose", "choos"),
    ("chosen", "choos"),
    ("began", "begin"),
    ("begun", "begin"),
    ("paid", "pay"),
    ("sold", "sell"),
    ("saw", "see"),
    ("seen", "see"),
    ("drew", "draw"),
    ("drawn", "draw"),
    ("kept", "keep"),
    ("spent", "spend"),
    ("told", "tell"),
    ("thought", "think"),
    ("brought", "bring"),
    ("caught", "catch"),
    ("won", "win"),
    ("lost", "lose"),
    ("met", "meet"),
    ("led", "lead"),
    ("hid", "hide"),
    ("hidden", "hide"),
    ("froze", "freez"),
    ("frozen", "freez"),
    ("deleted", "delet"),
];

/// The stem of an irregular verb form, if it is one.
pub fn irregular(word: &str) -> Option<&'static str> {
    IRREGULAR.iter().find(|(w, _)| *w == word).map(|(_, s)| *s)
}

/// Derivational stems the Snowball stemmer leaves apart, mapped onto one stem: the noun and
/// the verb of one action (`creation` / `create`, `description` / `describe`).
const CONFLATE: &[(&str, &str)] = &[
    ("creation", "creat"),
    ("inform", "info"),
    ("descript", "describ"),
    ("subscript", "subscrib"),
    ("registr", "regist"),
    ("analys", "analyz"),
    ("analyt", "analyz"),
    ("resolut", "resolv"),
    ("solut", "solv"),
    ("payment", "pay"),
    ("comparison", "compar"),
    ("explan", "explain"),
    ("transcript", "transcrib"),
];

/// Stage 4b: bring a stem's derivational variants together. Snowball turns `modify` into
/// `modifi` but `modification` into `modif` (also `notify` / `notification`, `verify` /
/// `verification`, `classify` / `classification`): a trailing `i` after four letters is
/// dropped; then the [`CONFLATE`] table maps a few noun stems onto their verb's.
pub fn conflate(stem: Cow<'_, str>) -> Cow<'_, str> {
    let s: Cow<str> = if stem.len() > 4 && stem.ends_with('i') && stem.is_ascii() {
        match stem {
            Cow::Borrowed(b) => Cow::Borrowed(&b[..b.len() - 1]),
            Cow::Owned(mut o) => {
                o.pop();
                Cow::Owned(o)
            }
        }
    } else {
        stem
    };
    match CONFLATE.iter().find(|(from, _)| *from == s) {
        Some((_, to)) => Cow::Borrowed(to),
        None => s,
    }
}

/// One-word forms of two-word phrasal verbs: `log in` / `log into` → `login`.
const PHRASAL: &[(&str, &[&str], &str)] = &[
    ("log", &["in", "into", "on", "onto"], "login"),
    ("logged", &["in", "into", "on"], "login"),
    ("logging", &["in", "into", "on"], "login"),
    ("sign", &["in", "into", "on"], "signin"),
    ("signed", &["in", "into"], "signin"),
    ("signing", &["in", "into"], "signin"),
    ("sign", &["up"], "signup"),
    ("signing", &["up"], "signup"),
    ("signed", &["up"], "signup"),
    ("log", &["out", "off"], "logout"),
    ("sign", &["out", "off"], "signout"),
    ("set", &["up"], "setup"),
    ("check", &["out"], "checkout"),
    ("back", &["up"], "backup"),
    ("look", &["up"], "lookup"),
    ("shut", &["down"], "shutdown"),
];

/// The one-word form of the phrase `first second`, if it is a phrasal verb of [`PHRASAL`].
pub fn phrasal(first: &str, second: &str) -> Option<&'static str> {
    if first.len() > 7 || second.len() > 4 {
        return None;
    }
    // The table is lowercase ASCII: compare in any ASCII case, without allocating.
    PHRASAL
        .iter()
        .find(|(a, bs, _)| {
            a.eq_ignore_ascii_case(first) && bs.iter().any(|b| b.eq_ignore_ascii_case(second))
        })
        .map(|(_, _, c)| *c)
}

/// Synonym groups of common tool verbs and objects (plain words; the index stems them).
/// A query word of a group also searches the group's other words, at a low weight.
pub const SYNONYMS: &[&[&str]] = &[
    &["modify", "change", "update", "edit", "alter"],
    &["book", "reserve", "reservation"],
    &["delete", "remove", "erase"],
    &["retrieve", "fetch", "get", "obtain"],
    &["find", "search", "look", "lookup", "locate"],
    &["create", "add", "make", "new"],
    &["show", "display", "view"],
    &["buy", "purchase"],
    &["picture", "image", "photo"],
    &["movie", "film"],
    &["car", "vehicle"],
    &["price", "cost", "fee"],
    &["start", "launch", "begin"],
    &["stop", "halt", "terminate"],
    &["send", "deliver"],
    &["message", "chat"],
    &["email", "mail"],
    &["document", "doc", "file"],
    &["folder", "directory"],
    &["list", "enumerate"],
    &["weather", "forecast"],
    &["job", "career", "employment"],
    &["trip", "travel", "vacation", "journey"],
    &["hotel", "accommodation", "lodging"],
    &["restaurant", "dining"],
    &["recipe", "cook", "meal"],
    &["stock", "equity"],
    &["crypto", "cryptocurrency", "bitcoin"],
    &["money", "currency"],
    &["news", "headline"],
    &["song", "music"],
    &["video", "clip"],
    &["summary", "summarize", "summarise"],
    &["translate", "translation"],
    &["schedule", "calendar", "appointment"],
    &["meeting", "appointment"],
    &["task", "todo"],
    &["note", "memo"],
    &["login", "signin", "authenticate"],
    &["error", "bug"],
    &["chart", "graph", "plot", "diagram"],
    &["website", "site", "webpage"],
    &["url", "link"],
    &["run", "execute"],
    &["check", "verify", "validate"],
    &["learn", "course", "study"],
    &["house", "property"],
    &["rent", "lease"],
];

/// Words that name tools ("find", "get", "id", "password") as often as they appear in
/// requests for other tools: a match of one of these in a tool's name counts like a match in
/// its description (see `Params::generic_name_weight`).
pub const GENERIC_NAME_WORDS: &[&str] = &[
    "find",
    "get",
    "search",
    "look",
    "show",
    "give",
    "make",
    "use",
    "check",
    "change",
    "need",
    "id",
    "ids",
    "name",
    "password",
    "info",
    "information",
    "detail",
    "details",
    "data",
    "new",
    "good",
    "best",
    "tool",
    "tools",
    "plugin",
    "app",
    "api",
    "service",
    "my",
    "all",
];

/// A split point of a request into clauses: a sentence end, `;`, or a word that opens a new
/// step ("then", "finally", "afterwards", "additionally", "also", "next"), or `and` followed
/// by an action verb ("… and list the files").
fn clause_opener(word: &str) -> bool {
    const OPENERS: [&str; 8] = [
        "then",
        "finally",
        "afterwards",
        "afterward",
        "additionally",
        "also",
        "next",
        "lastly",
    ];
    OPENERS.iter().any(|o| o.eq_ignore_ascii_case(word))
}

/// Is this word (in any ASCII case) one of [`STEP_VERBS`]?
fn step_verb(word: &str) -> bool {
    STEP_VERBS.iter().any(|v| v.eq_ignore_ascii_case(word))
}

/// Verbs that open a step of a request after `and` or a comma (compared in any ASCII case).
const STEP_VERBS: &[&str] = &[
    "add",
    "analyze",
    "archive",
    "assign",
    "book",
    "calculate",
    "cancel",
    "change",
    "check",
    "clear",
    "close",
    "compare",
    "complete",
    "convert",
    "copy",
    "create",
    "delete",
    "deploy",
    "disable",
    "display",
    "download",
    "edit",
    "enable",
    "export",
    "extract",
    "fetch",
    "find",
    "generate",
    "get",
    "import",
    "install",
    "invite",
    "list",
    "lock",
    "mark",
    "modify",
    "move",
    "open",
    "post",
    "publish",
    "read",
    "remove",
    "rename",
    "reply",
    "retrieve",
    "run",
    "save",
    "schedule",
    "search",
    "send",
    "set",
    "share",
    "show",
    "start",
    "stop",
    "submit",
    "summarize",
    "translate",
    "update",
    "upload",
    "verify",
    "view",
    "write",
    "activate",
    "deactivate",
    "freeze",
    "unfreeze",
    "pause",
    "resume",
    "restart",
    "subscribe",
    "track",
    "look",
    "obtain",
    "provide",
    "query",
    "register",
    "sign",
    "log",
    "transfer",
    "pay",
    "buy",
    "sell",
    "approve",
    "reject",
    "merge",
    "tag",
    "label",
    "attach",
    "give",
    "tell",
    "identify",
    "monitor",
    "configure",
    "lookup",
    "use",
    "make",
    "estimate",
    "predict",
];

/// Split a request into clauses (byte ranges of `text`, in order, each with a letter or
/// digit). Split points: `.`, `;`, `!`, `?` followed by a space, the openers of
/// [`clause_opener`] ("then", "finally", …), and `and` or `,` followed by a verb of
/// [`STEP_VERBS`]. Nothing inside double quotes splits. A request without split points is
/// one clause.
pub fn clauses(text: &str) -> Vec<&str> {
    let mut cuts: Vec<usize> = Vec::new();
    let mut in_quote = false;
    let mut prev_word: Option<&str> = None;
    let mut prev_comma = false;
    // Words since the last cut other than an opener: "Finally, cancel …" is one clause.
    let mut since_cut = 0usize;
    let bytes = text.as_bytes();
    for (i, seg) in word_bound_indices(text) {
        if seg == "\"" || seg == "\u{201C}" || seg == "\u{201D}" {
            in_quote = !in_quote;
            continue;
        }
        if in_quote {
            continue;
        }
        if matches!(seg, "." | ";" | "!" | "?")
            && bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace())
        {
            cuts.push(i + 1);
            prev_word = None;
            since_cut = 0;
            continue;
        }
        if seg == "," {
            prev_comma = true;
            continue;
        }
        if !seg.chars().any(char::is_alphanumeric) {
            continue;
        }
        // Keywords are ASCII, compared in any ASCII case (a word with other letters never is one).
        let opener = clause_opener(seg);
        if opener {
            cuts.push(i);
            since_cut = 0;
        } else if since_cut > 0
            && (prev_comma || prev_word.is_some_and(|p| p.eq_ignore_ascii_case("and")))
            && step_verb(seg)
        {
            let at = if prev_comma {
                i
            } else {
                // Cut before the "and".
                text[..i].trim_end().len().saturating_sub(3)
            };
            cuts.push(at);
            since_cut = 0;
        }
        if !opener && !seg.eq_ignore_ascii_case("and") {
            since_cut += 1;
        }
        prev_comma = false;
        prev_word = Some(seg);
    }
    let mut out = Vec::new();
    let mut start = 0;
    cuts.push(text.len());
    for c in cuts {
        if c <= start || !text.is_char_boundary(c) {
            continue;
        }
        let piece = &text[start..c];
        if piece.chars().any(char::is_alphanumeric) {
            out.push(piece);
        }
        start = c;
    }
    out
}

/// The per-word stages of the pipeline: a word in, its tokens out through the callback.
type WordStage<'w> = dyn FnMut(&str, &mut dyn FnMut(Cow<'_, str>)) + 'w;

/// Longest word (in bytes) a [`WordMemo`] keeps: longer ones are analysed each time, so a
/// memo of N words holds at most N × 64 bytes of keys.
pub const MAX_MEMO_WORD: usize = 64;

/// The tokens of words already analysed (by [`Analyzer::query_tokens_with`]): a request's
/// clauses are analysed again on their own, and repeat its words.
#[derive(Default)]
pub struct WordMemo(rustc_hash::FxHashMap<String, Vec<String>>);

impl WordMemo {
    /// Number of words held.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it holds no word.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
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
        let stemmed = match self.stemmer.stem(&lower) {
            Cow::Borrowed(s) if s.len() == lower.len() => lower,
            other => Cow::Owned(other.into_owned()),
        };
        let stemmed = conflate(stemmed);
        (!stemmed.is_empty()).then_some(stemmed)
    }

    /// The whole pipeline, calling `emit` for each token in order.
    pub fn analyze(&self, text: &str, emit: impl FnMut(Cow<'_, str>)) {
        self.analyze_by(text, &mut |w, emit| self.analyze_word(w, emit), emit);
    }

    /// [`Analyzer::analyze`] with the per-word stages (identifier splitting, stop words,
    /// stemming) done by `word`.
    fn analyze_by(&self, text: &str, word: &mut WordStage<'_>, mut emit: impl FnMut(Cow<'_, str>)) {
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
        let mut prev: Option<&str> = None;
        for w in words(text) {
            // Two-word phrasal verbs ("log in", "sign up") also give their one-word form.
            if let Some(c) = prev.and_then(|p| phrasal(p, w)) {
                emit(Cow::Borrowed(c));
            }
            prev = Some(w);
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
                            word(&buf, &mut emit);
                            buf.clear();
                        }
                    }
                    buf_cjk = k;
                    buf.push(c);
                }
                if buf_cjk {
                    cjk_run.push_str(&buf);
                } else {
                    word(&buf, &mut emit);
                }
                continue;
            }
            word(w, &mut emit);
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
        self.query_tokens_with(text, &mut WordMemo::default())
    }

    /// [`Analyzer::query_tokens`], reusing (and adding to) the per-word results in `memo`.
    pub fn query_tokens_with(&self, text: &str, memo: &mut WordMemo) -> Vec<String> {
        let mut kept = String::with_capacity(text.len());
        for w in word_bounds(text) {
            kept.push_str(if is_query_stop_any_case(w) { " " } else { w });
        }
        let mut v = Vec::new();
        let mut word = |w: &str, emit: &mut dyn FnMut(Cow<'_, str>)| {
            if w.len() > MAX_MEMO_WORD {
                // Not kept: a memo of long words would let requests fill memory.
                self.analyze_word(w, emit);
                return;
            }
            if let Some(tokens) = memo.0.get(w) {
                tokens.iter().for_each(|t| emit(Cow::Borrowed(t)));
                return;
            }
            let mut tokens = Vec::new();
            self.analyze_word(w, &mut |t| tokens.push(t.into_owned()));
            tokens.iter().for_each(|t| emit(Cow::Borrowed(t)));
            memo.0.insert(w.to_owned(), tokens);
        };
        self.analyze_by(&kept, &mut word, |t| v.push(t.into_owned()));
        v
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

    proptest::proptest! {
        /// The byte walk for ASCII pieces splits as the character walk does.
        #[test]
        fn ascii_case_split_agrees(piece in "[a-zA-Z0-9]{1,16}") {
            let (mut bytes, mut chars) = (Vec::new(), Vec::new());
            split_ascii_case(&piece, &mut bytes);
            split_case(&piece, &mut chars);
            proptest::prop_assert_eq!(bytes, chars);
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

    #[test]
    fn clause_splitting() {
        let cases: &[(&str, &[&str])] = &[
            ("send a message", &["send a message"]),
            (
                "Create a file named a.txt, then rename it and list the folder.",
                &[
                    "Create a file named a.txt, ",
                    "then rename it ",
                    "and list the folder.",
                ],
            ),
            (
                "Get the order book. Finally, cancel my order",
                &["Get the order book.", " ", "Finally, cancel my order"],
            ),
            (
                "Create a note titled \"Plan, then act\" and then share it",
                &[
                    "Create a note titled \"Plan, then act\" and ",
                    "then share it",
                ],
            ),
            ("list files and folders", &["list files and folders"]),
            ("version 1.2 of the app", &["version 1.2 of the app"]),
            (
                "Fetch the ticker, get the candles",
                &["Fetch the ticker, ", "get the candles"],
            ),
        ];
        for (text, want) in cases {
            let got: Vec<&str> = clauses(text);
            let want: Vec<&str> = want
                .iter()
                .copied()
                .filter(|w| w.chars().any(char::is_alphanumeric))
                .collect();
            assert_eq!(got, want, "{text:?}");
        }
    }
}
