//! Shared pieces of the fuzz targets: a structured tool catalog built from fuzzer bytes,
//! and result checks.
#![allow(dead_code)]

use arbitrary::Arbitrary;
use tool_index_core::index::Hit;
use tool_index_core::ToolDoc;

/// Words that make collisions, stems, typos (one edit apart), stop words, CJK, astral
/// characters and case-mapping edge cases likely.
pub const WORDS: &[&str] = &[
    "create",
    "creates",
    "created",
    "creation",
    "issue",
    "issues",
    "tissue",
    "send",
    "message",
    "massage",
    "slack",
    "schedule",
    "shedule",
    "cron",
    "prompt",
    "file",
    "files",
    "list",
    "listing",
    "search",
    "research",
    "github",
    "gitlab",
    "repository",
    "channel",
    "pdf",
    "parse",
    "parser",
    "image",
    "imagine",
    "database",
    "the",
    "a",
    "of",
    "and",
    "use",
    "using",
    "tool",
    "tools",
    "ls",
    "run",
    "running",
    "mongo",
    "http",
    "server",
    "baker",
    "caker",
    "laker",
    "maker",
    "issue_tracker",
    "send-message",
    "CronCreate",
    "MongoDBDatabase",
    "HTTPServer",
    "mcp__github__create_issue",
    "mcp__",
    "__",
    "_",
    "-",
    "+",
    "+slack",
    "server:github",
    "select:",
    "discover:",
    "c++",
    "$10",
    "résumé",
    "解析",
    "文件",
    "发送",
    "消息",
    "定时",
    "任务",
    "合并请求",
    "東京",
    "タワー",
    "한국어",
    "😀",
    "𠀀𠀁",
    "Σίσυφος",
    "ΣΑΣ",
    "İstanbul",
    "straße",
    "ǅemal",
    "\u{FFFD}",
    "\u{0}",
    "\u{85}",
    "\u{FEFF}",
    "\u{3000}",
    "\u{200B}",
    "\u{301}",
    "e\u{301}",
    "ﬁle",
];

pub const SEPS: &[&str] = &[
    " ", " ", " ", "  ", "\t", "\n", "_", "-", "", ", ", ".", "\u{3000}", "\u{A0}", "\u{85}",
    "\u{FEFF}", "/",
];

pub const SERVERS: &[&str] = &[
    "github",
    "slack",
    "my_server",
    "jira",
    "fs",
    "x",
    "GitHub",
    "",
];
pub const LEAVES: &[&str] = &[
    "create_issue",
    "send_message",
    "list_files",
    "search",
    "do_thing",
    "merge-pdfs",
    "Run",
    "ls",
    "",
    "_",
    "a__b",
    "CronCreate",
    "baker",
];
pub const BUILTINS: &[&str] = &[
    "CronCreate",
    "NotebookEditTool",
    "HTTPServer",
    "ls",
    "PdfParse",
    "snake_case_name",
    "Search",
    "ImageGen",
    "x",
    "MongoDBDatabase",
    "__",
    "Tool😀",
    "Ωmega",
    "Baker",
    "Maker",
    "tools",
    "__proto__",
    "constructor",
    "MCP__upper",
    "mcp__",
    "mcp____",
];

pub fn pick<'a>(list: &[&'a str], i: u8) -> &'a str {
    list[i as usize % list.len()]
}

#[derive(Arbitrary, Debug, Clone)]
pub enum FName {
    Builtin(u8),
    Mcp(u8, u8),
    Numbered(u8, u8),
    Raw(String),
}

impl FName {
    pub fn render(&self) -> String {
        match self {
            FName::Builtin(i) => pick(BUILTINS, *i).to_owned(),
            FName::Mcp(s, l) => format!("mcp__{}__{}", pick(SERVERS, *s), pick(LEAVES, *l)),
            FName::Numbered(b, n) => format!("{}{}", pick(BUILTINS, *b), n % 8),
            FName::Raw(s) => s.chars().take(64).collect(),
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
pub enum FText {
    Words(Vec<(u8, u8)>),
    Raw(String),
    Repeat(u8, u16),
}

impl FText {
    pub fn render(&self) -> String {
        match self {
            FText::Words(v) => v
                .iter()
                .take(64)
                .map(|&(w, s)| format!("{}{}", pick(WORDS, w), pick(SEPS, s)))
                .collect(),
            FText::Raw(s) => s.clone(),
            FText::Repeat(w, n) => {
                let w = pick(WORDS, *w);
                let mut s = String::new();
                for _ in 0..(*n % 2048) {
                    s.push_str(w);
                }
                s
            }
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
pub struct FTool {
    pub name: FName,
    pub description: FText,
    pub hint: Option<FText>,
    pub is_mcp: Option<bool>,
    pub server: Option<u8>,
    pub schema: Option<FText>,
}

impl FTool {
    pub fn doc(&self) -> ToolDoc {
        ToolDoc {
            name: self.name.render(),
            description: self.description.render(),
            search_hint: self.hint.as_ref().map(FText::render),
            is_mcp: self.is_mcp,
            server: self.server.map(|s| pick(SERVERS, s).to_owned()),
            schema_text: self.schema.as_ref().map(FText::render),
        }
    }
}

#[derive(Arbitrary, Debug, Clone)]
pub enum QPiece {
    Word(u8),
    Required(u8),
    Plus,
    Select(u8),
    Discover,
    Server(u8),
    RequiredServer(u8),
    ToolName(u8),
    McpPrefix(u8),
    Raw(String),
}

#[derive(Arbitrary, Debug, Clone)]
pub struct FQuery(pub Vec<(QPiece, u8)>);

impl FQuery {
    /// Render a query; `names` are the catalog's names (so queries can name real tools).
    pub fn render(&self, names: &[String]) -> String {
        let mut q = String::new();
        for (p, sep) in self.0.iter().take(24) {
            match p {
                QPiece::Word(w) => q.push_str(pick(WORDS, *w)),
                QPiece::Required(w) => {
                    q.push('+');
                    q.push_str(pick(WORDS, *w));
                }
                QPiece::Plus => q.push('+'),
                QPiece::Select(i) => {
                    q.push_str("select:");
                    if let Some(n) = names.get(*i as usize % names.len().max(1)) {
                        q.push_str(n);
                    }
                }
                QPiece::Discover => q.push_str("discover:"),
                QPiece::Server(s) => {
                    q.push_str("server:");
                    q.push_str(pick(SERVERS, *s));
                }
                QPiece::RequiredServer(s) => {
                    q.push('+');
                    q.push_str(pick(SERVERS, *s));
                }
                QPiece::ToolName(i) => {
                    if let Some(n) = names.get(*i as usize % names.len().max(1)) {
                        if i % 3 == 0 {
                            q.push_str(&n.to_uppercase());
                        } else {
                            q.push_str(n);
                        }
                    }
                }
                QPiece::McpPrefix(s) => {
                    q.push_str("mcp__");
                    q.push_str(pick(SERVERS, *s));
                }
                QPiece::Raw(s) => q.extend(s.chars().take(32)),
            }
            q.push_str(pick(SEPS, *sep));
        }
        q
    }
}

/// Best first, equal scores in index (slot) order; within the limit; finite.
pub fn check_sorted(hits: &[Hit], limit: usize) {
    assert!(
        hits.len() <= limit,
        "{} hits over limit {limit}",
        hits.len()
    );
    for w in hits.windows(2) {
        assert!(
            w[0].score > w[1].score || (w[0].score == w[1].score && w[0].slot < w[1].slot),
            "unsorted hits {w:?}"
        );
    }
}

/// Distinct names, first wins.
pub fn dedup(docs: Vec<ToolDoc>) -> Vec<ToolDoc> {
    let mut seen = std::collections::HashSet::new();
    docs.into_iter()
        .filter(|d| seen.insert(d.name.clone()))
        .collect()
}
