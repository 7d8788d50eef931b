//! Helpers the integration tests share: the loader of the reference parity vectors, vendored in
//! the repository at `__test__/fixtures/parity/reference-vectors.json` (see the README beside
//! them), and words that no analysis rule merges.

#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::Value;
use tool_index_core::ToolDoc;

/// `TOOL_INDEX_PARITY` or the vendored `<repo>/__test__/fixtures/parity/reference-vectors.json`.
pub fn vectors_path() -> PathBuf {
    if let Ok(p) = std::env::var("TOOL_INDEX_PARITY") {
        return PathBuf::from(p);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../__test__/fixtures/parity/reference-vectors.json")
}

/// The vectors, or `None` (with a message on stderr) when the file is absent, so the caller skips.
/// `TOOL_INDEX_REQUIRE_PARITY=1` turns absence into a failure.
pub fn load() -> Option<Value> {
    let path = vectors_path();
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            assert!(
                std::env::var("TOOL_INDEX_REQUIRE_PARITY").as_deref() != Ok("1"),
                "parity vectors required but unreadable at {}: {e}",
                path.display()
            );
            eprintln!(
                "skipped: no parity vectors at {} ({e}); set TOOL_INDEX_PARITY",
                path.display()
            );
            return None;
        }
    };
    Some(serde_json::from_str(&text).expect("parity vectors are JSON"))
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

/// A word of letters only, unique per `n` (no stemming or number rule merges two of them).
pub fn fresh_word(prefix: &str, mut n: usize) -> String {
    let mut w = String::from(prefix);
    loop {
        w.push(char::from(b'a' + (n % 26) as u8));
        n /= 26;
        if n == 0 {
            return w;
        }
    }
}
