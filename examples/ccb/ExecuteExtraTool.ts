/**
 * claude-code-best's ExecuteExtraTool, with all execution logic from @ccb/tool-index-native.
 * Drop in as packages/builtin-tools/src/tools/ExecuteTool/ExecuteTool.ts (it exports the tool
 * under both names).
 */
import { z } from 'zod/v4'
import { buildTool } from 'src/Tool.js'
import { createUserMessage } from 'src/utils/messages.js'
import { extractDiscoveredToolNames, isSearchExtraToolsEnabledOptimistic, isSearchExtraToolsToolAvailable } from 'src/utils/searchExtraTools.js'
import { CORE_TOOLS } from 'src/constants/tools.js'
import { CCB_TOOL_NAMES, executeTool, executeToolDescription, executeToolPrompt, toExtraToolResult } from '@ccb/tool-index-native'

const executeInput = z.object({
  tool_name: z.string().describe('The exact name of the tool to run, as SearchExtraTools returned it'),
  params: z.record(z.string(), z.unknown()).describe("The tool's params, matching its input schema"),
})

const executeOutput = z.object({ result: z.unknown(), tool_name: z.string() })

/** The schemas, as ccb's module exports them (functions that return them). */
export const inputSchema = () => executeInput
export const outputSchema = () => executeOutput
/** ccb's output type of this tool: the target's result and the tool's name. */
export type Output = z.infer<typeof executeOutput>

export const ExecuteExtraTool = buildTool({
  name: CCB_TOOL_NAMES.execute,
  searchHint: 'execute run invoke a deferred tool by name with its params',
  maxResultSizeChars: 100_000,
  inputSchema: executeInput,
  outputSchema: executeOutput,
  isConcurrencySafe: () => false,
  description: async () => executeToolDescription(CCB_TOOL_NAMES),
  prompt: async () => executeToolPrompt(CCB_TOOL_NAMES),
  async call(input: z.infer<typeof executeInput>, context: any, canUseTool?: any, parentMessage?: any, onProgress?: any) {
    const tools = context.options.tools ?? []
    const out = await executeTool(input, context, canUseTool, parentMessage, onProgress, {
      names: CCB_TOOL_NAMES,
      coreTools: CORE_TOOLS,
      requireDiscovered: isSearchExtraToolsEnabledOptimistic() && isSearchExtraToolsToolAvailable(tools),
      discovered: () => extractDiscoveredToolNames(context.messages ?? []),
    })
    return toExtraToolResult(out, createUserMessage)
  },
  // The target's own checks decide; this wrapper asks for nothing itself.
  checkPermissions: async () => ({ behavior: 'passthrough' as const, message: `${CCB_TOOL_NAMES.execute} defers to the target tool's permissions.` }),
  renderToolUseMessage: (input: { tool_name?: string }) => `${input.tool_name ?? ''}`,
  userFacingName: () => CCB_TOOL_NAMES.execute,
  mapToolResultToToolResultBlockParam: (content: unknown, toolUseID: string) => ({ tool_use_id: toolUseID, type: 'tool_result' as const, content: JSON.stringify(content) }),
})

export { ExecuteExtraTool as ExecuteTool }
