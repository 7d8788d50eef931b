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

/// Longest word a shape table holds, in bytes, plus one.
const SHAPE_LEN: usize = 16;

/// A word list by shape (first letter, length; slot `letter * SHAPE_LEN + len`): for each
/// shape, the list's words of that shape (their index plus one, then zeros). A word looked up
/// is compared with at most `K` words of the list, and most words with none.
type ShapeTable<const K: usize> = [[u8; K]; 26 * SHAPE_LEN];

/// Record the `i`th word of a list in its shape table. Checked as the table is built: the word
/// starts with a lowercase ASCII letter and is shorter than [`SHAPE_LEN`], the list has fewer
/// than 255 words and at most `K` of one shape.
const fn note_shape<const K: usize>(table: &mut ShapeTable<K>, word: &str, i: usize) {
    let w = word.as_bytes();
    assert!(!w.is_empty() && w[0].is_ascii_lowercase() && w.len() < SHAPE_LEN);
    assert!(i < u8::MAX as usize);
    let slot = &mut table[(w[0] - b'a') as usize * SHAPE_LEN + w.len()];
    let mut k = 0;
    while slot[k] != 0 {
        k += 1;
    }
    slot[k] = i as u8 + 1;
}

/// A shape table of the first words of a list of pairs (see [`note_shape`]).
const fn keys_by_shape<const K: usize>(list: &[(&str, &str)]) -> ShapeTable<K> {
    let mut t = [[0; K]; 26 * SHAPE_LEN];
    let mut i = 0;
    while i < list.len() {
        note_shape(&mut t, list[i].0, i);
        i += 1;
    }
    t
}

/// The indices (in its list) of a shape table's words of the shape of `word`, whose first
/// letter may be of either case; none for a word that starts with no ASCII letter or is too
/// long for the table.
fn same_shape<'t, const K: usize>(
    table: &'t ShapeTable<K>,
    word: &str,
) -> impl Iterator<Item = usize> + 't {
    let b = word.as_bytes();
    let slot: &[u8] = match b.first() {
        Some(f) if f.is_ascii_alphabetic() && b.len() < SHAPE_LEN => {
            &table[usize::from(f.to_ascii_lowercase() - b'a') * SHAPE_LEN + b.len()]
        }
        _ => &[],
    };
    slot.iter()
        .take_while(|&&e| e != 0)
        .map(|&e| usize::from(e) - 1)
}

/// [`QUERY_STOP`] by shape.
static QUERY_STOP_BY_SHAPE: ShapeTable<2> = {
    let mut t = [[0; 2]; 26 * SHAPE_LEN];
    let mut i = 0;
    while i < QUERY_STOP.len() {
        note_shape(&mut t, QUERY_STOP[i], i);
        i += 1;
    }
    t
};

/// [`is_query_stop`] of the word's lowercase form (without allocating for ASCII words).
pub(super) fn is_query_stop_any_case(word: &str) -> bool {
    if word.is_ascii() {
        is_query_stop_ascii(word)
    } else {
        is_query_stop(&word.to_lowercase())
    }
}

/// [`is_query_stop_any_case`] of a word known to be ASCII.
pub(super) fn is_query_stop_ascii(word: &str) -> bool {
    same_shape(&QUERY_STOP_BY_SHAPE, word).any(|i| QUERY_STOP[i].eq_ignore_ascii_case(word))
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

/// [`IRREGULAR`]'s forms by shape.
static IRREGULAR_BY_SHAPE: ShapeTable<3> = keys_by_shape(IRREGULAR);

/// The stem of an irregular verb form, if it is one.
pub fn irregular(word: &str) -> Option<&'static str> {
    same_shape(&IRREGULAR_BY_SHAPE, word)
        .find(|&i| IRREGULAR[i].0 == word)
        .map(|i| IRREGULAR[i].1)
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

/// [`CONFLATE`]'s stems by shape.
static CONFLATE_BY_SHAPE: ShapeTable<2> = keys_by_shape(CONFLATE);

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
    match same_shape(&CONFLATE_BY_SHAPE, &s).find(|&i| CONFLATE[i].0 == s) {
        Some(i) => Cow::Borrowed(CONFLATE[i].1),
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
            ("thInGs", true),
            ("thank", true),
            ("thing", true),
            ("thinG", true),
            ("thinx", false),
            ("Ok", true),
            ("o", false),
            ("", false),
            (" ", false),
            ("-help", false),
            ("helps", false),
            ("1help", false),
            ("specificallyyyy", false),
            ("specificallyyyyy", false),
            ("HÉLP", false),
            ("Currently", true),
        ] {
            assert_eq!(is_query_stop_any_case(w), stop, "{w:?}");
        }
    }

    /// The shape-table look-ups of the irregular forms and conflated stems find what a scan
    /// of their lists finds: every entry, and nothing for a word one letter off, longer,
    /// capitalized, empty or not ASCII.
    #[test]
    fn shape_lookups_equal_list_scans() {
        let scan = |list: &[(&str, &'static str)], w: &str| {
            list.iter().find(|(k, _)| *k == w).map(|(_, v)| *v)
        };
        let mut words: Vec<String> = ["", "a", "é", "数据", "zzzzzzzzzzzzzzzzz", "Sent", "SENT"]
            .map(str::to_owned)
            .to_vec();
        for (k, _) in IRREGULAR.iter().chain(CONFLATE) {
            words.push(k.to_string());
            words.push(format!("{k}s"));
            words.push(k.to_ascii_uppercase());
            words.push(last_letter_off(k));
        }
        for w in &words {
            assert_eq!(irregular(w), scan(IRREGULAR, w), "{w:?}");
            // Words the trailing-`i` rule leaves alone: the table maps exactly the listed stems.
            let conflated = conflate(Cow::Borrowed(w.as_str()));
            if !(w.len() > 4 && w.ends_with('i')) {
                let want = scan(CONFLATE, w).unwrap_or(w.as_str());
                assert_eq!(conflated, want, "{w:?}");
            }
        }
    }

    /// `word` with its last letter changed to the next one (`z` to `a`).
    fn last_letter_off(word: &str) -> String {
        let mut off = word.to_string();
        let last = off.pop().unwrap();
        off.push(if last == 'z' {
            'a'
        } else {
            (last as u8 + 1) as char
        });
        off
    }

    /// The shape table finds every entry in any case, and nothing one letter off.
    #[test]
    fn query_stop_any_case_is_the_lowercase_lookup() {
        for w in QUERY_STOP {
            let upper = w.to_ascii_uppercase();
            let mixed: String = w
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    if i % 2 == 0 {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect();
            for form in [w.to_string(), upper, mixed] {
                assert!(is_query_stop_any_case(&form), "{form:?}");
            }
            let off = last_letter_off(w);
            assert_eq!(is_query_stop_any_case(&off), is_query_stop(&off), "{off:?}");
            let longer = format!("{w}s");
            assert_eq!(
                is_query_stop_any_case(&longer),
                is_query_stop(&longer),
                "{longer:?}"
            );
        }
    }
}
