//! What the core examples read: the JSON the bench scripts write (`bench/dump-catalog.mjs`,
//! `bench/dump-queries.mjs`). Each example uses a part of it.

#![allow(dead_code)]

use tool_index_core::ToolDoc;

pub fn read_json(path: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Tool entries (`name`, `description`, and optionally `server`, `schemaText`, `isMcp`).
pub fn tools_of(v: &serde_json::Value) -> Vec<ToolDoc> {
    let text = |e: &serde_json::Value, key: &str| e[key].as_str().map(str::to_owned);
    v.as_array()
        .expect("an array of tool entries")
        .iter()
        .map(|e| ToolDoc {
            name: text(e, "name").unwrap_or_default(),
            description: text(e, "description").unwrap_or_default(),
            server: text(e, "server"),
            schema_text: text(e, "schemaText"),
            is_mcp: e["isMcp"].as_bool(),
            ..ToolDoc::default()
        })
        .collect()
}

/// An array of query strings.
pub fn queries_of(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .expect("an array of query strings")
        .iter()
        .filter_map(|q| q.as_str().map(str::to_owned))
        .collect()
}
