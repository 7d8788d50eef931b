//! Name matching: the keys a tool can be named by (full name, leaf, compacted leaf) and
//! the tier a query's raw tokens give each tool they name.

use compact_str::CompactString;
use rustc_hash::{FxHashMap, FxHashSet};

use super::{EnhancedIndex, ParsedQuery};
use crate::name::MCP_PREFIX;

/// Name-match tiers.
pub const TIER_LEAF: u8 = 1;
pub const TIER_SERVER_LEAF: u8 = 2;
pub const TIER_FULL: u8 = 3;

/// Marks compacted-name keys (`croncreate` for `CronCreate`, `sendmessage` for
/// `send_message`) in the key map: they only come from multi-word names, so even a plain
/// query word may match them.
pub(super) const COMPACT_MARK: char = '\u{1}';

/// Lowercase, `-` → `_`, quotes and surrounding punctuation trimmed.
pub fn name_key(s: &str) -> String {
    trimmed_key(name_trim(s)).into_string()
}

/// A word without the quotes and punctuation around it (what [`name_key`] keys).
pub(super) fn name_trim(s: &str) -> &str {
    // A word whose end bytes are kept ASCII characters (the test below, for ASCII) has
    // nothing to trim: most words are settled on two bytes, the rest by the character test.
    let keep = |c: &u8| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-';
    let b = s.as_bytes();
    if b.first().is_some_and(keep) && b.last().is_some_and(keep) {
        return s;
    }
    s.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
}

/// [`name_key`] of a word [`name_trim`] has already trimmed (kept inline, with no allocation,
/// when short, as most words of a request are).
pub(super) fn trimmed_key(t: &str) -> CompactString {
    if t.is_ascii() && !t.contains('-') {
        // One copy, lowercased in place: the same as below for ASCII without a hyphen.
        let mut key = CompactString::from(t);
        key.as_mut_str().make_ascii_lowercase();
        return key;
    }
    CompactString::from(t.to_lowercase().replace('-', "_"))
}

/// A raw token's key is itself a name key of the index (see `ParsedQuery::raw_named`).
pub(super) const NAMES_KEY: u8 = 1;
/// A raw token's compact key ([`compact_key`]) is a name key of the index.
pub(super) const NAMES_COMPACT: u8 = 2;

/// The key a name's words run together have: [`COMPACT_MARK`], then the name key without
/// its underscores.
pub(super) fn compact_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 1);
    out.push(COMPACT_MARK);
    if key.contains('_') {
        key.split('_').for_each(|run| out.push_str(run));
    } else {
        out.push_str(key);
    }
    out
}

pub(super) fn compact(s: &str) -> String {
    s.chars().filter(|c| *c != '_').collect()
}

/// Split a name into (server, leaf): `mcp__srv__tool` → (`srv`, `tool`); else (given server, name).
pub fn server_and_leaf<'a>(name: &'a str, server: Option<&'a str>) -> (Option<&'a str>, &'a str) {
    if let Some(rest) = name.strip_prefix(MCP_PREFIX) {
        if let Some(i) = rest.find("__") {
            return (Some(&rest[..i]), &rest[i + 2..]);
        }
        return (server, rest);
    }
    (server, name)
}

impl EnhancedIndex {
    /// Name-match tier of each slot that has one.
    pub(super) fn tiers(&self, q: &ParsedQuery) -> FxHashMap<u32, u8> {
        let mut tiers: FxHashMap<u32, u8> = FxHashMap::default();
        // The query's words and servers a leaf match may be on (made on the first leaf match).
        let mut raw_servers: Option<FxHashSet<String>> = None;
        // The tool lists already walked: a name given again (a request may repeat one
        // thousands of times) adds nothing, since tiers keep their best. Few words name tools,
        // so a scan of this short list is enough.
        let mut walked: Vec<*const Vec<(u32, u8)>> = Vec::new();
        for (i, (r, &ident)) in q.raw.iter().zip(&q.raw_ident).enumerate() {
            // Which of the word's keys name a tool, as the analysis found (or, without that,
            // both may).
            let named = q
                .raw_named
                .get(i)
                .copied()
                .unwrap_or(NAMES_KEY | NAMES_COMPACT);
            if named == 0 {
                continue;
            }
            // A plain word ("image", "search") names a tool only when it is the whole query;
            // identifier-shaped tokens (`create_issue`, `CronCreate`) always may.
            let key = (named & NAMES_COMPACT != 0).then(|| compact_key(r));
            let candidates = [
                (ident && named & NAMES_KEY != 0).then_some(r.as_str()),
                key.as_deref(),
            ];
            for cand in candidates.into_iter().flatten() {
                let Some(v) = self.keys.get(cand) else {
                    continue;
                };
                if walked.iter().any(|&w| std::ptr::eq(w, v)) {
                    continue;
                }
                walked.push(v);
                for &(slot, tier) in v {
                    let mut t = tier;
                    if tier == TIER_LEAF {
                        let servers = raw_servers.get_or_insert_with(|| {
                            q.raw
                                .iter()
                                .map(|r| compact(r))
                                .chain(q.servers.iter().cloned())
                                .collect()
                        });
                        let on_server = self.store.docs[slot as usize]
                            .as_ref()
                            .and_then(|d| d.server_key.as_deref())
                            .is_some_and(|s| servers.contains(s));
                        if on_server {
                            t = TIER_SERVER_LEAF;
                        }
                    }
                    let e = tiers.entry(slot).or_insert(0);
                    *e = (*e).max(t);
                }
            }
        }
        tiers
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A word with kept ASCII characters at both ends comes back whole; any other is trimmed by
    /// the character test, with the same result as the character test on every word.
    #[test]
    fn name_trim_table() {
        fn by_chars(s: &str) -> &str {
            s.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        }
        for (word, want) in [
            ("plain", "plain"),
            ("'quoted'", "quoted"),
            ("(x)", "x"),
            ("-lead-", "-lead-"),
            ("_x_", "_x_"),
            ("a.", "a"),
            (".a", "a"),
            ("\"Daily", "Daily"),
            ("café", "café"),
            ("écru", "écru"),
            ("«数据»", "数据"),
            ("...", ""),
            ("", ""),
            ("a", "a"),
            ("!", ""),
        ] {
            assert_eq!(name_trim(word), want, "{word:?}");
            assert_eq!(name_trim(word), by_chars(word), "{word:?}");
        }
    }
}
