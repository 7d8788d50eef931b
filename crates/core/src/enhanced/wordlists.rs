//! The word tables of the enhanced pipeline: stop words, irregular forms, conflated stems,
//! phrasal verbs, synonym groups and generic name words, with their look-ups.

use std::borrow::Cow;

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
    "specific",
    "specifically",
    "particular",
    "particularly",
    "interested",
    "curious",
    "wondering",
    "comprehensive",
    "detailed",
    "various",
    "overall",
    "exactly",
    "exact",
    "greatly",
    "appreciate",
    "appreciated",
    "currently",
];

/// Is this (lowercased) word a query-only stop word?
pub fn is_query_stop(word: &str) -> bool {
    QUERY_STOP.contains(&word)
}

/// By lowercase first letter, bit `len` set when a [`QUERY_STOP`] word of that length starts
/// with it (every entry is at most 15 bytes): most words are ruled out by one table read.
const QUERY_STOP_FIRST: [u16; 26] = {
    let mut t = [0u16; 26];
    let mut i = 0;
    while i < QUERY_STOP.len() {
        let w = QUERY_STOP[i].as_bytes();
        assert!(w[0].is_ascii_lowercase() && w.len() < 16);
        t[(w[0] - b'a') as usize] |= 1 << w.len();
        i += 1;
    }
    t
};

/// [`is_query_stop`] of the word's lowercase form (without allocating for ASCII words).
pub(super) fn is_query_stop_any_case(word: &str) -> bool {
    if word.is_ascii() {
        // Every entry starts with a letter: spaces and punctuation end here.
        let Some(first) = word.bytes().next().filter(u8::is_ascii_alphabetic) else {
            return false;
        };
        word.len() < 16
            && QUERY_STOP_FIRST[usize::from(first.to_ascii_lowercase() - b'a')] & (1 << word.len())
                != 0
            && QUERY_STOP.iter().any(|s| s.eq_ignore_ascii_case(word))
    } else {
        is_query_stop(&word.to_lowercase())
    }
}

/// Is this (lowercased) word a stop word: the compat list or `EXTRA_STOP`?
pub fn is_stop(word: &str) -> bool {
    crate::tokenize::is_stop_word(word) || (word.len() <= 7 && EXTRA_STOP.contains(&word))
}

/// Chinese characters that say nothing of a tool on their own (particles, pronouns,
/// conjunctions, request words: 的, 我, 请, 要, …, and the kana marks ー, ・): a CJK run gives
/// no unigram of them (see [`super::analyze`]); its bigrams still hold them.
const CJK_UNIGRAM_STOP: &str = "的了是在我你他她它们个一这那和与及或把被给让请帮要需想将对从到为以于也都就还又再吗呢吧啊着过地得之其该此等并而且但如若则所有无不没能会可呀哦嗯后前时么什怎样些每各ー・";

/// Is this character one of [`CJK_UNIGRAM_STOP`]?
pub fn is_unigram_stop(c: char) -> bool {
    CJK_UNIGRAM_STOP.contains(c)
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
/// dropped; then the `CONFLATE` table maps a few noun stems onto their verb's.
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

/// The one-word form of the phrase `first second`, if it is a phrasal verb of `PHRASAL`.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_stop_entries_start_with_a_letter() {
        // `is_query_stop_any_case` rejects ASCII words that do not.
        for w in QUERY_STOP {
            assert!(
                w.as_bytes().first().is_some_and(u8::is_ascii_alphabetic),
                "{w:?}"
            );
        }
        for (w, stop) in [
            ("Help", true),
            ("OKAY", true),
            (" ", false),
            ("-help", false),
            ("helps", false),
        ] {
            assert_eq!(is_query_stop_any_case(w), stop, "{w:?}");
        }
    }
}
