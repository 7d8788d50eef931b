/** Shapes shared by the drop-in API, ToolSearch and ExecuteTool. */

/**
 * A tool as a ccb-style host holds it (structural: only the fields used here are read).
 * `prompt()` gives the description the index uses (a throw or a timeout gives `""`);
 * without `prompt`, a string `description` is used.
 */
export interface ToolLike {
  name: string
  aliases?: readonly string[]
  searchHint?: string
  alwaysLoad?: boolean
  isMcp?: boolean
  /** The MCP server a tool comes from (enhanced scoring uses it). */
  server?: string
  prompt?: (context: any) => string | Promise<string>
  description?: string | ((input: any, options?: any) => string | Promise<string>)
  inputJSONSchema?: object
  inputSchema?: unknown
  /** Read by `executeTool`: only an awaited `true` lets the tool run. */
  isEnabled?: () => unknown
  /** Read by `executeTool`: the tool's own check of a valid input (`{ result: true }` passes). */
  validateInput?: (input: any, context?: any) => unknown
  /** Read by `executeTool`: the tool's own permission decision (`behavior: 'allow'` and so on). */
  checkPermissions?: (input: any, context?: any) => unknown
  /** Read by `executeTool`: runs the tool; a tool without it never runs. */
  call?: (input: any, ...rest: any[]) => unknown
}

/** A plain tool entry, as `ToolIndex.fromEntries` and `upsert` take it. */
export interface ToolEntryInput {
  name: string
  description?: string | null
  searchHint?: string | null
  isMcp?: boolean
  inputSchema?: object
  /** The MCP server, for enhanced scoring (`mcp__<server>__` names carry it already). */
  server?: string | null
}

/** One entry of the index, with the reference's fields. */
export interface ToolIndexEntry {
  name: string
  normalizedName: string
  description: string
  searchHint: string | undefined
  isMcp: boolean
  isDeferred: boolean
  inputSchema: object | undefined
  tokens: string[]
  tfVector: Map<string, number>
}

/** One result of `searchTools`. */
export interface ToolSearchResult {
  name: string
  description: string
  searchHint: string | undefined
  score: number
  isMcp: boolean
  isDeferred: boolean
  inputSchema: object | undefined
}

/**
 * Scoring modes. `'compat'` reproduces the reference exactly (TF-IDF cosine, the default of
 * the drop-in API and of `toolSearch`); `'enhanced'` is BM25F with name matching (opt in with
 * `scoring: 'enhanced'`).
 */
export type Scoring = 'compat' | 'enhanced'

/** Options of `buildToolIndex` / `getToolIndex`. */
export interface BuildOptions {
  /** Replaces the core set (`CORE_TOOLS`); an empty list indexes every tool. */
  coreTools?: Iterable<string>
  /** Scoring mode; `'compat'` is the default of `buildToolIndex` / `getToolIndex`. */
  scoring?: Scoring
  /** Never index these names (added to env `TOOL_SEARCH_EXCLUDE`). */
  exclude?: Iterable<string>
  /** Index these even if core or `alwaysLoad` (added to env `TOOL_SEARCH_INCLUDE_FORCE`). */
  includeForce?: Iterable<string>
  /** A `prompt()` that has not settled after this many ms counts as `""`. Default 5000; 0 = no limit; must be finite. */
  promptTimeoutMs?: number
  /** The context handed to each tool's `prompt()`; a minimal ccb-shaped one by default. */
  promptContext?: unknown
  /** Enhanced-ranking parameters (advanced; see the README). */
  tuning?: Tuning
}

/** Enhanced-ranking parameters; each one left out keeps its measured default (the generated type). */
export type Tuning = import('../index').Tuning
