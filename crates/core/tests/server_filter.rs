//! Enhanced `server:NAME` filters: a server named in any script lists its tools, and `explain`
//! agrees with `search` about them.

use tool_index_core::enhanced::{EnhancedIndex, Params};
use tool_index_core::ToolDoc;

fn index(server: &str) -> EnhancedIndex {
    let tools = vec![
        ToolDoc::new(format!("mcp__{server}__run_sql"), "Run a SQL statement"),
        ToolDoc::new(format!("mcp__{server}__list_tables"), "List the tables"),
        ToolDoc::new("mcp__other__send_mail", "Send an email message"),
        ToolDoc::new("Read", "Read a file from the local filesystem"),
    ];
    EnhancedIndex::build(tools, Params::default(), usize::MAX).unwrap()
}

#[test]
fn a_server_filter_lists_its_tools_whatever_the_script() {
    // Han names were read by the lexicon as words (数据 → "data"), and the query matched nothing.
    for server in ["datenbank", "données", "データ", "数据库", "db数据"] {
        let idx = index(server);
        let q = format!("server:{server}");
        let names: Vec<&str> = idx
            .search(&q, 5, 0.0)
            .iter()
            .map(|h| idx.name(h.slot).unwrap())
            .collect();
        assert_eq!(
            names,
            [
                format!("mcp__{server}__run_sql"),
                format!("mcp__{server}__list_tables")
            ],
            "{q}"
        );
        let e = idx.explain(&q, &format!("mcp__{server}__run_sql")).unwrap();
        assert_eq!(e.filtered, None, "{q}: explain says {:?}", e.filtered);
    }
}
