//! Shared loader for the reference parity vectors (`../shared/parity/reference-vectors.json`).

#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::Value;
use tool_index_core::ToolDoc;

/// `TOOL_INDEX_PARITY` or `<repo>/../shared/parity/reference-vectors.json`.
pub fn vectors_path() -> PathBuf {
    if let Ok(p) = std::env::var("TOOL_INDEX_PARITY") {
        return PathBuf::from(p);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/parity/reference-vectors.json")
}

pub fn load() -> Value {
    let path = vectors_path();
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read parity vectors at {}: {e}", path.display()));
    serde_json::from_str(&text).expect("parity vectors are JSON")
}

pub fn catalog(v: &Value) -> Vec<ToolDoc> {
    v["catalog"]
        .as_array()
        .expect("catalog[]")
        .iter()
        .map(|t| ToolDoc {
            name: t["name"].as_str().unwrap().to_owned(),
            description: t["description"].as_str().unwrap_or("").to_owned(),
            search_hint: t["searchHint"].as_str().map(str::to_owned),
            is_mcp: None,
            ..Default::default()
        })
        .collect()
}

pub fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}
