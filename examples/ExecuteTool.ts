/** ccb-shaped ExecuteTool: a thin wrapper over the package's `executeTool`. */
import { z } from 'zod'
import { executeTool, type ExecuteToolOutput } from '../dist/index.js'
import { buildTool, type ToolUseContext } from './buildTool'

const inputSchema = z.strictObject({
  tool_name: z.string().describe('Exact name of the tool to run, as ToolSearch returned it'),
  params: z.record(z.string(), z.unknown()).describe("The tool's input, matching its JSON schema"),
})

export const ExecuteTool = buildTool<z.infer<typeof inputSchema>, ExecuteToolOutput>({
  name: 'ExecuteTool',
  searchHint: 'run call invoke a deferred tool by name',
  inputSchema,
  prompt: () => 'Run a tool found with ToolSearch: {"tool_name": "<name>", "params": {...}}.',
  // SPEC §7: the target's own checkPermissions decides; ExecuteTool itself passes through.
  checkPermissions: async () => ({ behavior: 'passthrough', message: 'ExecuteTool defers to the target tool' }),
  async call(input, context: ToolUseContext, canUseTool?, parentMessage?, onProgress?) {
    return { data: await executeTool(input, context as any, canUseTool as any, parentMessage, onProgress as any) }
  },
  mapToolResultToToolResultBlockParam: (out, toolUseID) => {
    const data = (out.result as { data?: unknown } | null)?.data ?? out.result // ccb tools return { data }
    const content = out.message ?? (typeof data === 'string' ? data : JSON.stringify(data))
    return { type: 'tool_result', tool_use_id: toolUseID, content, ...(out.refused ? { is_error: true } : {}) }
  },
})
