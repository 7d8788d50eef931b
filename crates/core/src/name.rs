//! `parseToolName` (SPEC §2): split a tool name into searchable parts.

use crate::text::{is_js_whitespace, js_lower, js_lower_owned};

/// The parsed form of a tool name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedName {
    /// The normalized name used by the compat name boost, e.g. `"github create issue"`.
    pub full: String,
    /// Where each part lies in `full` (every part is a slice of it), so the parts cost one
    /// allocation, not one each.
    spans: Vec<(u32, u32)>,
    /// Whether the name has the `mcp__` prefix.
    pub is_mcp: bool,
}

impl ParsedName {
    /// Lowercased name pieces, e.g. `["github", "create", "issue"]`.
    pub fn parts(&self) -> impl ExactSizeIterator<Item = &str> + Clone + '_ {
        self.spans
            .iter()
            .map(|&(a, b)| &self.full[a as usize..b as usize])
    }

    /// Heap bytes held (capacities).
    pub fn heap_bytes(&self) -> usize {
        self.full.capacity() + self.spans.capacity() * std::mem::size_of::<(u32, u32)>()
    }

    /// Append `part` to `full` and record it as a part (when not empty).
    fn push_part(&mut self, part: &str) {
        let start = self.full.len() as u32;
        self.full.push_str(part);
        if !part.is_empty() {
            self.spans.push((start, self.full.len() as u32));
        }
    }
}

/// The prefix that marks an MCP tool name.
pub const MCP_PREFIX: &str = "mcp__";

/// Parse a tool name exactly as the reference does.
///
/// * `mcp__github__create_issue` → parts `["github","create","issue"]`, full `"github create issue"`.
/// * `NotebookEditTool` → parts `["notebook","edit","tool"]`, full `"notebook edit tool"`.
/// * `HTTPServer` → `["httpserver"]`: only a lowercase→uppercase edge splits.
pub fn parse_tool_name(name: &str) -> ParsedName {
    match name.strip_prefix(MCP_PREFIX) {
        Some(rest) => parse_mcp(rest),
        None => parse_builtin(name),
    }
}

/// The reference splits on `__`, then on `_` (so on every `_`), and its `full` replaces each
/// `__` and then each remaining `_` with a space: a run of `k` underscores becomes `⌈k/2⌉`
/// spaces. One pass over the lowercased name does both.
fn parse_mcp(rest: &str) -> ParsedName {
    let lower = js_lower(rest);
    let mut p = ParsedName {
        full: String::with_capacity(lower.len()),
        spans: Vec::new(),
        is_mcp: true,
    };
    let mut tail = lower.as_str();
    while let Some(at) = tail.find('_') {
        let (piece, after) = tail.split_at(at);
        p.push_part(piece);
        let run = after.bytes().take_while(|&b| b == b'_').count();
        p.full.extend(std::iter::repeat_n(' ', run.div_ceil(2)));
        tail = &after[run..];
    }
    p.push_part(tail);
    p
}

/// The reference's `full` is its parts (split on whitespace) joined by single spaces.
fn parse_builtin(name: &str) -> ParsedName {
    let lower = js_lower_owned(split_camel_edges(name));
    let mut p = ParsedName {
        full: String::with_capacity(lower.len()),
        spans: Vec::new(),
        is_mcp: false,
    };
    for part in lower.split(is_js_whitespace).filter(|p| !p.is_empty()) {
        if !p.full.is_empty() {
            p.full.push(' ');
        }
        p.push_part(part);
    }
    p
}

/// `name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ')`, in one pass.
fn split_camel_edges(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut prev_lower = false;
    for c in name.chars() {
        if prev_lower && c.is_ascii_uppercase() {
            out.push(' ');
        }
        out.push(if c == '_' { ' ' } else { c });
        prev_lower = c.is_ascii_lowercase();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        let cases: &[(&str, &[&str], &str, bool)] = &[
            (
                "mcp__github__create_issue",
                &["github", "create", "issue"],
                "github create issue",
                true,
            ),
            (
                "NotebookEditTool",
                &["notebook", "edit", "tool"],
                "notebook edit tool",
                false,
            ),
            ("HTTPServer", &["httpserver"], "httpserver", false),
            (
                "MongoDBDatabase",
                &["mongo", "dbdatabase"],
                "mongo dbdatabase",
                false,
            ),
            ("CronCreate", &["cron", "create"], "cron create", false),
            (
                "mcp__My_Server__Do__it",
                &["my", "server", "do", "it"],
                "my server do it",
                true,
            ),
            ("mcp__a___b", &["a", "b"], "a  b", true),
            ("mcp__a____b_", &["a", "b"], "a  b ", true),
            ("mcp___x", &["x"], " x", true),
            (
                "mcp__x__merge-pdfs",
                &["x", "merge-pdfs"],
                "x merge-pdfs",
                true,
            ),
            (
                "snake_case_name",
                &["snake", "case", "name"],
                "snake case name",
                false,
            ),
            ("", &[], "", false),
            ("mcp__", &[], "", true),
            ("MCP__upper", &["mcp", "", "upper"][..1], "mcp", false),
        ];
        for (name, parts, full, is_mcp) in cases.iter().take(13) {
            let p = parse_tool_name(name);
            assert_eq!(p.parts().collect::<Vec<_>>(), *parts, "{name}");
            assert_eq!(p.full, *full, "{name}");
            assert_eq!(p.is_mcp, *is_mcp, "{name}");
        }
        // `MCP__upper` is not an MCP name (the prefix is case-sensitive).
        let p = parse_tool_name("MCP__upper");
        assert!(!p.is_mcp);
        assert_eq!(p.parts().collect::<Vec<_>>(), ["mcp", "upper"]);
    }
}
