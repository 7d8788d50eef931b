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
/// `clause_opener` ("then", "finally", …), and `and` or `,` followed by a verb of
/// `STEP_VERBS`. Nothing inside double quotes splits. A request without split points is
/// one clause.
pub fn clauses(text: &str) -> Vec<&str> {
    let mut cuts: Vec<usize> = Vec::new();
    let mut in_quote = false;
    let mut prev_word: Option<&str> = None;
    let mut prev_comma = false;
    // Words since the last cut other than an opener: "Finally, cancel …" is one clause.
    let mut since_cut = 0usize;
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

#[cfg(test)]
mod tests {
    use super::*;

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
