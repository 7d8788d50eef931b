/**
 * `@ccb/tool-index-native`: a drop-in, native replacement for claude-code-best's tool index
 * (`buildToolIndex`, `searchTools`, `getToolIndex`, ...), its search and execute tools, and the
 * native index class. This file only re-exports; the modules read top-down:
 *
 *   native → errors → config, input, presets, lookup, safeRead → toolIndex → build → cache →
 *   dropin → toolSearch → executeTool → ccb
 */
export { ToolIndexError, type ToolIndexErrorCode } from './errors'
export type { BuildOptions, Scoring, Tuning, ToolEntryInput, ToolIndexEntry, ToolLike, ToolSearchResult } from './types'
export {
  LIMITS,
  displayMinScore,
  dropInScoring,
  LOW_CONFIDENCE,
  CROWD_ABSTAIN,
  mergeWeights,
  isToolSearchEnabled,
  toolSearchMode,
  type ToolSearchMode,
} from './config'
export { readingInput, stringList } from './input'
export { CORE_TOOLS, CCB_CORE_TOOLS, CCB_TOOL_NAMES, SEED_TOOL_NAMES, type ToolNames } from './presets'
export { ToolIndex, type Explanation, type RankedTool, type SkippedTool } from './toolIndex'
export { ToolIndexCache } from './cache'
export {
  buildToolIndex,
  searchTools,
  getToolIndex,
  clearToolIndexCache,
  isDeferredTool,
  parseToolName,
  tokenize,
  tokenizeAndStem,
} from './dropin'
export {
  toolSearch,
  clearToolSearchCache,
  formatToolSearchResult,
  ToolSearchSession,
  DEFAULT_TOOLSEARCH_SCORING,
  type ToolSearchInput,
  type ToolSearchContext,
  type ToolSearchOutput,
  type ToolResultBlock,
  type FormatOptions,
} from './toolSearch'
export {
  executeTool,
  type ExecuteToolInput,
  type ExecuteToolOutput,
  type ExecuteToolOptions,
  type ExecuteToolRefusal,
} from './executeTool'
export { extractDiscoveredToolNames, toExtraToolResult, type ExtractDiscoveredOptions, type ExtraToolResult, type ExecuteRefusal } from './ccb'
export { MAX_INPUT_DEPTH, MAX_INPUT_NODES } from './validate'
export { searchToolPrompt, executeToolPrompt, executeToolDescription } from './prompts'

/** The raw napi-rs binding, for callers who want the native class directly. */
export { binding as nativeBinding } from './native'
