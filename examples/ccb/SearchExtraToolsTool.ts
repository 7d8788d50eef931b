/**
 * claude-code-best's SearchExtraTools, with all search logic from @ccb/tool-index-native.
 * Drop in as packages/builtin-tools/src/tools/SearchExtraToolsTool/SearchExtraToolsTool.ts.
 */
import { z } from 'zod/v4'
import { buildTool } from 'src/Tool.js'
import { isSearchExtraToolsEnabledOptimistic } from 'src/utils/searchExtraTools.js'
import { CORE_TOOLS } from 'src/constants/tools.js'
import { CCB_TOOL_NAMES, clearToolSearchCache, formatToolSearchResult, searchToolPrompt, toolSearch, type ToolSearchOutput } from '@ccb/tool-index-native'

const searchInput = z.object({
  query: z.string().describe('"select:<name>[,<name>]" to load tools by name, "discover:<text>" to browse, or keywords ("+term" = required)'),
  max_results: z.number().optional().default(5).describe('Maximum number of results (default 5)'),
})

const searchOutput = z.object({
  matches: z.array(z.string()),
  query: z.string(),
  total_deferred_tools: z.number(),
  pending_mcp_servers: z.array(z.string()).optional(),
  already_loaded: z.array(z.string()).optional(),
  core_tool_guidance: z.string().optional(),
  text: z.string().optional(),
  skipped_tools: z.array(z.string()).optional(),
})

/** The schemas, as ccb's module exports them (functions that return them). */
export const inputSchema = () => searchInput
export const outputSchema = () => searchOutput

/** ccb's result type of this tool. */
export type Output = ToolSearchOutput

/**
 * ccb's `/clear` (`clearSessionCaches`) calls this: the cached index of the deferred tools, with
 * their prompts, is dropped and built again on the next search.
 */
export function clearSearchExtraToolsDescriptionCache(): void {
  clearToolSearchCache()
}

export const SearchExtraToolsTool = buildTool({
  name: CCB_TOOL_NAMES.search,
  searchHint: 'search find discover load deferred tools by name or keyword',
  maxResultSizeChars: 100_000,
  inputSchema: searchInput,
  outputSchema: searchOutput,
  isEnabled: () => isSearchExtraToolsEnabledOptimistic(),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  description: async () => searchToolPrompt(CCB_TOOL_NAMES),
  prompt: async () => searchToolPrompt(CCB_TOOL_NAMES),
  async call(input: z.infer<typeof searchInput>, context: any): Promise<{ data: ToolSearchOutput }> {
    const clients: { type?: string; name?: string }[] = context.getAppState?.()?.mcp?.clients ?? []
    const pendingMcpServers = clients.filter((c) => c.type === 'pending').map((c) => String(c.name))
    // searchLoaded: ccb's latest search tool also ranks the core tools by its keyword rules, answered with how
    // to call them directly (ccb at c499bfb searched the deferred tools only: leave it off there).
    return { data: await toolSearch(input, { tools: context.options.tools, coreTools: CORE_TOOLS, pendingMcpServers, searchLoaded: true, names: CCB_TOOL_NAMES }) }
  },
  renderToolUseMessage: (input: { query?: string }) => (input.query ? `"${input.query}"` : null),
  userFacingName: () => CCB_TOOL_NAMES.search,
  mapToolResultToToolResultBlockParam: (content: ToolSearchOutput, toolUseID: string, _context?: unknown) =>
    formatToolSearchResult(content, toolUseID, { supportsToolReference: false, names: CCB_TOOL_NAMES }),
})
