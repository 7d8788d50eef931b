//! The core-tool whitelist and the deferral / indexing policy (SPEC §1).

use rustc_hash::FxHashSet;

/// Tools a ccb host always loads; everything else is deferred and found through ToolSearch.
pub const CORE_TOOLS: [&str; 31] = [
    "Bash",
    "PowerShell",
    "Read",
    "Edit",
    "Write",
    "Glob",
    "Grep",
    "NotebookEdit",
    "Agent",
    "AskUserQuestion",
    "SendMessage",
    "TeamCreate",
    "TeamDelete",
    "TaskOutput",
    "TaskStop",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskUpdate",
    "TodoWrite",
    "EnterPlanMode",
    "ExitPlanMode",
    "VerifyPlanExecution",
    "WebFetch",
    "WebSearch",
    "LSP",
    "Skill",
    "Sleep",
    "ToolSearch",
    "ExecuteTool",
    "SyntheticOutput",
];

/// Reference `isDeferredTool`: `alwaysLoad === true` → false; a core name → false; else true.
pub fn is_deferred(name: &str, always_load: bool, core: &CorePolicy) -> bool {
    !always_load && !core.is_core(name)
}

/// Which tools are core, and which to force into or keep out of the index.
#[derive(Debug, Clone)]
pub struct CorePolicy {
    core: FxHashSet<String>,
    exclude: FxHashSet<String>,
    include_force: FxHashSet<String>,
}

impl Default for CorePolicy {
    fn default() -> Self {
        Self::new(None, &[], &[])
    }
}

impl CorePolicy {
    /// `core` replaces [`CORE_TOOLS`] when given (an empty list makes nothing core);
    /// `exclude` names are never indexed; `include_force` names are indexed even if core or
    /// `alwaysLoad`. Exclusion wins over forced inclusion.
    pub fn new(core: Option<&[String]>, exclude: &[String], include_force: &[String]) -> Self {
        let core = match core {
            Some(list) => list.iter().cloned().collect(),
            None => CORE_TOOLS.iter().map(|s| (*s).to_owned()).collect(),
        };
        Self {
            core,
            exclude: exclude.iter().cloned().collect(),
            include_force: include_force.iter().cloned().collect(),
        }
    }

    pub fn is_core(&self, name: &str) -> bool {
        self.core.contains(name)
    }

    /// Whether a tool belongs in the search index.
    pub fn should_index(&self, name: &str, always_load: bool) -> bool {
        if self.exclude.contains(name) {
            return false;
        }
        self.include_force.contains(name) || is_deferred(name, always_load, self)
    }
}

/// Parse a comma list as the env knobs use it: trimmed, empties dropped.
pub fn parse_comma_list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deferral() {
        let p = CorePolicy::default();
        assert!(!is_deferred("Read", false, &p));
        assert!(!is_deferred("ExecuteTool", false, &p));
        assert!(is_deferred("CronCreate", false, &p));
        assert!(!is_deferred("CronCreate", true, &p));
        assert!(is_deferred("mcp__github__create_issue", false, &p));
        let custom = CorePolicy::new(Some(&["SearchExtraTools".to_owned()]), &[], &[]);
        assert!(is_deferred("Read", false, &custom));
        assert!(!is_deferred("SearchExtraTools", false, &custom));
        let none = CorePolicy::new(Some(&[]), &[], &[]);
        assert!(is_deferred("Bash", false, &none));
    }

    #[test]
    fn index_policy() {
        let p = CorePolicy::new(
            None,
            &["mcp__x__a".into(), "Read".into()],
            &["Read".into(), "Bash".into()],
        );
        assert!(!p.should_index("mcp__x__a", false));
        assert!(!p.should_index("Read", false)); // exclude wins
        assert!(p.should_index("Bash", false)); // forced although core
        assert!(p.should_index("Bash", true)); // forced although alwaysLoad
        assert!(!p.should_index("Glob", false));
        assert_eq!(parse_comma_list(" a, b ,,c "), vec!["a", "b", "c"]);
    }

    #[test]
    fn core_list_is_distinct() {
        let set: FxHashSet<_> = CORE_TOOLS.iter().collect();
        assert_eq!(set.len(), CORE_TOOLS.len());
    }
}
