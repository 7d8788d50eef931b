//! Keyword search and the ToolSearch merge (SPEC §6). Filled in by the ToolSearch work.
