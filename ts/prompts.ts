/**
 * The descriptions the search and execute tools give the model, in the package's words, with
 * the tools' names as options (`ToolSearch`/`ExecuteTool` by default; ccb passes its own).
 */
import { toolNames, type ToolNames } from './presets'

/** The search tool's prompt. */
export function searchToolPrompt(names?: ToolNames): string {
  const n = toolNames(names)
  return `Find deferred tools (MCP servers' tools and less common built-ins) that are not in your tool list yet. Tools already in your list can be called directly; search only for what they cannot do.

After a search names the tool you need, run it with ${n.execute}: {"tool_name": "<name>", "params": {...}}, params matching the schema the search showed. A match that is already loaded is marked so, with its schema: call it directly, not through ${n.execute} (unless your client offers no way to call it; that is the one fallback).

Query forms:
- "select:NameA,NameB" loads these exact tools
- "discover:<what you need>" lists the best matches with descriptions and input schemas, loading nothing
- "slack post message" ranks tools by these words (up to max_results)
- "+github issue" requires "github" and ranks by the rest`
}

/** The execute tool's one-line description. */
export function executeToolDescription(names?: ToolNames): string {
  const n = toolNames(names)
  return `Run a deferred tool found with ${n.search}, by its exact name, with its params.`
}

/** The execute tool's prompt. */
export function executeToolPrompt(names?: ToolNames): string {
  const n = toolNames(names)
  return `${n.execute} is always in your tool list. It runs a deferred tool by name: give {"tool_name": "<exact name from ${n.search}>", "params": {...}}.

Use it for the tools ${n.search} returned. To use a tool that is already in your tool list (a core tool), call core tools directly, by their own names. Provider/client fallback: only when your client cannot expose or select such a tool, run it through ${n.execute} with the input schema ${n.search} showed for it.

Before the tool runs, its params are checked against its input schema and its permissions are asked; a refusal says why (an unknown name also lists the closest names).`
}
