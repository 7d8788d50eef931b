/**
 * `@ccb/tool-index-native/ccb`: the drop-in module API with claude-code-best's defaults of today
 * (its 28 core tools; `SearchExtraTools` / `ExecuteExtraTool` in messages). ccb points its
 * `src/services/searchExtraTools/toolIndex.ts` imports here and changes nothing else.
 */
import * as base from './index'
import { CCB_CORE_TOOLS, CCB_TOOL_NAMES } from './presets'
import type { BuildOptions, ToolIndexEntry, ToolLike, ToolSearchResult } from './types'

export { CCB_CORE_TOOLS as CORE_TOOLS, CCB_TOOL_NAMES as TOOL_NAMES }
export { parseToolName, searchTools, clearToolIndexCache, tokenize, tokenizeAndStem, extractDiscoveredToolNames, ToolIndex } from './index'
export type { ToolIndexEntry }
/** ccb's name for a search result. */
export type SearchExtraToolsResult = ToolSearchResult

const withCcbCore = (options: BuildOptions = {}): BuildOptions => ({ coreTools: CCB_CORE_TOOLS, ...options })

/** `buildToolIndex` over ccb's deferred tools (its 28 core tools are left out). */
export function buildToolIndex(tools: readonly ToolLike[], options?: BuildOptions): Promise<base.ToolIndex> {
  return base.buildToolIndex(tools, withCcbCore(options))
}

/** `getToolIndex` over ccb's deferred tools (its 28 core tools are left out). */
export function getToolIndex(tools: readonly ToolLike[], options?: BuildOptions): Promise<base.ToolIndex> {
  return base.getToolIndex(tools, withCcbCore(options))
}

/** ccb's `isDeferredTool`: not `alwaysLoad`, not one of its 28 core tools. */
export function isDeferredTool(tool: Pick<ToolLike, 'name' | 'alwaysLoad'>): boolean {
  return base.isDeferredTool(tool, { coreTools: CCB_CORE_TOOLS })
}
