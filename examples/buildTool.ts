/**
 * A minimal stand-in for claude-code-best's `buildTool`: a tool definition goes in, a tool with
 * ccb's defaults filled in comes out (enabled, not read-only, not concurrency-safe, permissions
 * allowed). Only what the examples need; ccb's real one does more.
 */

export type PermissionResult =
  | { behavior: 'allow'; updatedInput: any }
  | { behavior: 'deny'; message: string }
  | { behavior: 'ask'; message: string }
  | { behavior: 'passthrough'; message: string }

/** ccb's ToolUseContext, reduced to what the examples read. */
export interface ToolUseContext {
  options: {
    tools: readonly Tool[]
    /** ccb keeps MCP connections here; pending ones are reported by ToolSearch. */
    mcpClients?: readonly { name: string; type: 'connected' | 'pending' | 'failed' }[]
    /** Whether the provider understands `tool_reference` blocks (Anthropic API: yes). */
    supportsToolReference?: boolean
  }
  abortController?: AbortController
  [k: string]: unknown
}

export interface ToolDef<In = any, Out = any> {
  name: string
  aliases?: string[]
  searchHint?: string
  alwaysLoad?: boolean
  isMcp?: boolean
  /** JSON Schema of the input (MCP tools); or a zod `inputSchema`. */
  inputJSONSchema?: Record<string, unknown>
  inputSchema?: unknown
  prompt: (ctx?: unknown) => Promise<string> | string
  description?: (input: In, options?: unknown) => Promise<string> | string
  call: (input: In, context: ToolUseContext, canUseTool?: unknown, parentMessage?: unknown, onProgress?: unknown) => Promise<{ data: Out }>
  mapToolResultToToolResultBlockParam?: (content: Out, toolUseID: string) => unknown
  isEnabled?: () => boolean
  isReadOnly?: (input?: In) => boolean
  isConcurrencySafe?: (input?: In) => boolean
  checkPermissions?: (input: In, context: ToolUseContext) => Promise<PermissionResult>
  validateInput?: (input: In, context: ToolUseContext) => Promise<{ result: true } | { result: false; message: string }>
  userFacingName?: () => string
}

export type Tool<In = any, Out = any> = Required<
  Pick<ToolDef<In, Out>, 'isEnabled' | 'isReadOnly' | 'isConcurrencySafe' | 'checkPermissions' | 'userFacingName'>
> &
  ToolDef<In, Out>

export function buildTool<In = any, Out = any>(def: ToolDef<In, Out>): Tool<In, Out> {
  return {
    isEnabled: () => true,
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    checkPermissions: async (input: In) => ({ behavior: 'allow', updatedInput: input }),
    userFacingName: () => def.name,
    ...def,
  }
}
