//! Splitting a multi-step request into its clauses (steps).

use super::segment::bound_indices_but_spaces;

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

/// Openers that are often no opener inside a clause ("next week", "what's playing then",
/// "while also focusing"): one opens a step only at a clause's start, after a comma or
/// `and`, or before a comma or a verb of [`STEP_VERBS`].
fn loose_opener(word: &str) -> bool {
    ["then", "next", "also"]
        .iter()
        .any(|o| o.eq_ignore_ascii_case(word))
}

/// Is this word (in any ASCII case) one of [`STEP_VERBS`]?
fn step_verb(word: &str) -> bool {
    // The longest verb has 10 letters: a longer word, or one with other bytes, is none.
    if word.len() > 10 {
        return false;
    }
    let mut key = 0u128;
    for (i, &b) in word.as_bytes().iter().enumerate() {
        if !b.is_ascii_alphabetic() {
            return false;
        }
        key |= u128::from(b.to_ascii_lowercase()) << (8 * (15 - i));
    }
    STEP_VERB_KEYS.binary_search(&key).is_ok()
}

/// A word of at most 16 bytes as a number whose order is the words' (its first byte the
/// highest, the bytes after its end zero).
const fn word_key(word: &str) -> u128 {
    let b = word.as_bytes();
    let mut key = 0u128;
    let mut i = 0;
    while i < b.len() {
        key |= (b[i] as u128) << (8 * (15 - i));
        i += 1;
    }
    key
}

/// [`STEP_VERBS`] as [`word_key`]s, in the same (sorted) order.
const STEP_VERB_KEYS: [u128; STEP_VERBS.len()] = {
    let mut keys = [0u128; STEP_VERBS.len()];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = word_key(STEP_VERBS[i]);
        i += 1;
    }
    keys
};

/// Is this word (in any ASCII case) a preposition that opens a lead-in ("On GitHub, open an
/// issue", "Using the Pyodide server, run …"): the phrase up to its first comma says where or
/// how the step after it runs, so that comma does not open a step of its own.
fn lead_in(word: &str) -> bool {
    const LEAD_INS: [&str; 13] = [
        "on", "in", "using", "with", "via", "through", "from", "for", "within", "inside", "at",
        "by", "into",
    ];
    LEAD_INS.iter().any(|p| p.eq_ignore_ascii_case(word))
}

/// Verbs that open a step of a request after `and` or a comma (compared in any ASCII case;
/// sorted, for the binary search of [`step_verb`]).
const STEP_VERBS: &[&str] = &[
    "activate",
    "add",
    "analyze",
    "approve",
    "archive",
    "assign",
    "attach",
    "book",
    "buy",
    "calculate",
    "cancel",
    "change",
    "check",
    "clear",
    "close",
    "compare",
    "complete",
    "configure",
    "convert",
    "copy",
    "create",
    "deactivate",
    "delete",
    "deploy",
    "disable",
    "display",
    "download",
    "edit",
    "enable",
    "estimate",
    "export",
    "extract",
    "fetch",
    "find",
    "freeze",
    "generate",
    "get",
    "give",
    "identify",
    "import",
    "install",
    "invite",
    "label",
    "list",
    "lock",
    "log",
    "look",
    "lookup",
    "make",
    "mark",
    "merge",
    "modify",
    "monitor",
    "move",
    "obtain",
    "open",
    "pause",
    "pay",
    "post",
    "predict",
    "provide",
    "publish",
    "query",
    "read",
    "register",
    "reject",
    "remove",
    "rename",
    "reply",
    "restart",
    "resume",
    "retrieve",
    "run",
    "save",
    "schedule",
    "search",
    "sell",
    "send",
    "set",
    "share",
    "show",
    "sign",
    "start",
    "stop",
    "submit",
    "subscribe",
    "summarize",
    "tag",
    "tell",
    "track",
    "transfer",
    "translate",
    "unfreeze",
    "update",
    "upload",
    "use",
    "verify",
    "view",
    "write",
];

/// Split a request into clauses (byte ranges of `text`, in order, each with a letter or
/// digit). Split points: `.`, `;`, `!`, `?` followed by a space, the openers of
/// `clause_opener` ("then", "finally", …), and `and` or `,` followed by a verb of
/// `STEP_VERBS`, except the first comma of a clause that opens with a preposition of
/// `lead_in` ("On Semgrep, scan …" is one clause). Nothing inside double quotes splits. A
/// request without split points is one clause.
pub fn clauses(text: &str) -> Vec<&str> {
    let mut cuts: Vec<usize> = Vec::new();
    let mut in_quote = false;
    let mut prev_word: Option<&str> = None;
    let mut prev_comma = false;
    // Words since the last cut other than an opener: "Finally, cancel …" is one clause.
    let mut since_cut = 0usize;
    // Whether the clause so far is a lead-in: it opened with a preposition and has had no comma.
    let mut in_lead = false;
    // Whether the clause so far names an action (an opener or a verb of `STEP_VERBS`), and
    // the same for the clause ended at each sentence cut.
    let mut acted = false;
    let mut sentences: Vec<(usize, bool)> = Vec::new();
    let bytes = text.as_bytes();
    // Spaces change nothing below: they are left out of the segments.
    for (i, seg) in bound_indices_but_spaces(text) {
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
            sentences.push((i + 1, acted));
            prev_word = None;
            since_cut = 0;
            in_lead = false;
            acted = false;
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
        let after_and = prev_word.is_some_and(|p| p.eq_ignore_ascii_case("and"));
        let opener = clause_opener(seg)
            && (!loose_opener(seg)
                || since_cut == 0
                || prev_comma
                || after_and
                || bound_indices_but_spaces(&text[i + seg.len()..])
                    .map(|(_, s)| s)
                    .find(|s| *s == "," || s.chars().any(char::is_alphanumeric))
                    .is_some_and(|s| s == "," || step_verb(s)));
        // A lead-in ends at its first comma, which then joins it to the step that follows.
        let lead_comma = in_lead && prev_comma;
        if prev_comma {
            in_lead = false;
        }
        let may_split = since_cut > 0 && !lead_comma && (prev_comma || after_and);
        // Whether the word is a step verb is asked only where it can split, or until the
        // sentence names an action.
        let verb = !opener && (may_split || !acted) && step_verb(seg);
        if opener || verb {
            acted = true;
        }
        if opener {
            cuts.push(i);
            since_cut = 0;
            in_lead = false;
        } else if may_split && verb {
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
            if since_cut == 0 {
                in_lead = lead_in(seg);
            }
            since_cut += 1;
        }
        prev_comma = false;
        prev_word = Some(seg);
    }
    // A sentence that names no action ("I'm a Leo.", "Hi there!") is context for the step
    // after it: its end is no cut (the last sentence's, when only it names none, joins it to
    // the one before).
    let mut last_acted = acted;
    // What follows the last sentence's end, if it has no word, is no sentence.
    if let Some(&(at, a)) = sentences.last() {
        if !text[at..].chars().any(char::is_alphanumeric) {
            sentences.pop();
            last_acted = a;
        }
    }
    let mut drop: Vec<usize> = Vec::new();
    for (k, &(at, acted)) in sentences.iter().enumerate() {
        let next_acted = sentences.get(k + 1).map_or(last_acted, |s| s.1);
        if !acted || (!next_acted && k + 1 == sentences.len()) {
            drop.push(at);
        }
    }
    if !drop.is_empty() {
        cuts.retain(|c| !drop.contains(c));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_verbs_are_sorted_lowercase_and_short() {
        assert!(STEP_VERBS.windows(2).all(|w| w[0] < w[1]));
        assert!(STEP_VERB_KEYS.windows(2).all(|w| w[0] < w[1]));
        for v in STEP_VERBS {
            assert!(
                v.len() <= 10 && v.bytes().all(|b| b.is_ascii_lowercase()),
                "{v}"
            );
            assert!(step_verb(v) && step_verb(&v.to_ascii_uppercase()), "{v}");
        }
        for w in ["", "lists", "créer", "create1", "reconfigured", "an"] {
            assert!(!step_verb(w), "{w}");
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
            // A lead-in phrase and its first comma belong to the step after them.
            (
                "On Semgrep, scan main.cpp and list the findings",
                &["On Semgrep, scan main.cpp ", "and list the findings"],
            ),
            (
                "Using the Pyodide server, run the script, then save the output",
                &[
                    "Using the Pyodide server, run the script, ",
                    "then save the output",
                ],
            ),
            // Past its first comma, a lead-in clause splits as any other.
            (
                "In the repo, create a branch, open a pull request",
                &["In the repo, create a branch, ", "open a pull request"],
            ),
            // "Finally, …" is no lead-in, and a preposition later in a clause is none either.
            (
                "Create a file. Finally, on the server, delete it",
                &["Create a file.", " ", "Finally, on the server, delete it"],
            ),
            (
                "Read the logs from the server, send a summary",
                &["Read the logs from the server, ", "send a summary"],
            ),
            // A sentence that names no action is context for the next (or, last, the one before).
            (
                "I'm a Leo. What can you tell me about my week?",
                &["I'm a Leo. What can you tell me about my week?"],
            ),
            (
                "Hi there! Create a file. Then rename it.",
                &["Hi there! Create a file.", " ", "Then rename it."],
            ),
            (
                "Create a file. It should be empty.",
                &["Create a file. It should be empty."],
            ),
            // "then", "next" and "also" inside a clause open a step only before a comma or a verb.
            (
                "What's the weather in Tokyo next week?",
                &["What's the weather in Tokyo next week?"],
            ),
            (
                "Grow sales while also focusing on retention",
                &["Grow sales while also focusing on retention"],
            ),
            (
                "Create a file then rename it",
                &["Create a file ", "then rename it"],
            ),
            (
                "Create a file; next, rename it",
                &["Create a file;", " ", "next, rename it"],
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
