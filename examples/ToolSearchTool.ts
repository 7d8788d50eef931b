/** ccb-shaped ToolSearch: a thin wrapper over the package's `toolSearch` + `formatToolSearchResult`. */
import { z } from 'zod'
import { formatToolSearchResult, toolSearch } from '../dist/index.js'
import { buildTool, type ToolUseContext } from './buildTool'

type Output = Awaited<ReturnType<typeof toolSearch>>

const inputSchema = z.strictObject({
  query: z.string().describe('"select:A,B" to load tools by name, "discover:<text>" to browse, or keywords (+term = required)'),
  max_results: z.number().int().positive().optional().describe('Maximum number of results (default 5)'),
})

/** Build a ToolSearch tool; `supportsToolReference` picks tool_reference blocks vs the text fallback. */
export function makeToolSearchTool(opts: { supportsToolReference?: boolean } = {}) {
  return buildTool<z.infer<typeof inputSchema>, Output>({
    name: 'ToolSearch',
    searchHint: 'find discover load deferred tools',
    inputSchema,
    prompt: () => 'Search the deferred tools (MCP and others) and load the ones you need.',
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async call(input, context: ToolUseContext) {
      const pendingMcpServers = (context.options.mcpClients ?? []).filter((c) => c.type === 'pending').map((c) => c.name)
      return { data: await toolSearch(input, { tools: context.options.tools as any[], pendingMcpServers }) }
    },
    mapToolResultToToolResultBlockParam: (output, toolUseID) =>
      formatToolSearchResult(output, toolUseID, { supportsToolReference: opts.supportsToolReference ?? true }),
  })
}

export const ToolSearchTool = makeToolSearchTool()
