// Type-checks a small consumer against the published types (dist/index.d.ts, index.d.ts).
import {
  buildToolIndex,
  CORE_TOOLS,
  executeTool,
  formatToolSearchResult,
  getToolIndex,
  isDeferredTool,
  searchTools,
  toolSearch,
  ToolIndex,
  ToolIndexError,
  type ToolIndexEntry,
  type ToolLike,
  type ToolSearchResult,
} from '@ccb/tool-index-native'
import { ToolIndex as NativeToolIndex } from '@ccb/tool-index-native/native'

const tools: ToolLike[] = [{ name: 'mcp__github__create_issue', prompt: async () => 'Create an issue' }]

export async function demo(): Promise<string[]> {
  const index = await buildToolIndex(tools, { coreTools: [...CORE_TOOLS] })
  const same = await getToolIndex(tools)
  const hits: ToolSearchResult[] = searchTools('create issue', index, 3)
  const first: ToolIndexEntry | undefined = same.at(0)
  const tf: Map<string, number> | undefined = first?.tfVector
  const deferred: boolean = isDeferredTool({ name: 'Read' })
  const out = await toolSearch({ query: 'select:mcp__github__create_issue' }, { tools })
  const block = formatToolSearchResult(out, 'toolu_1', { supportsToolReference: false })
  const exec = await executeTool({ tool_name: 'x', params: {} }, { options: { tools } })
  const native = new NativeToolIndex([{ name: 'a', description: 'b' }])
  const n: number = native.length
  try {
    searchTools('x', index, -1)
  } catch (e) {
    if (e instanceof ToolIndexError) {
      const code: 'E_INVALID_LIMIT' | string = e.code
      void code
    }
  }
  void tf, deferred, block, exec, n
  return hits.map((h) => h.name)
}

// A tool written inline with the fields executeTool reads is accepted [regression: TS2353 on
// isEnabled and call]; fields of the wrong kind are not.
export async function inlineTool(): Promise<unknown> {
  return executeTool(
    { tool_name: 'mcp__x__echo', params: { text: 'hi' } },
    {
      options: {
        tools: [
          {
            name: 'mcp__x__echo',
            prompt: () => 'Echo text',
            isEnabled: () => true,
            validateInput: async () => ({ result: true }),
            checkPermissions: async (input: unknown) => ({ behavior: 'allow' as const, updatedInput: input }),
            call: async (input: { text: string }) => ({ data: input.text }),
          },
        ],
      },
    },
  )
}
// @ts-expect-error `call` must be a function
export const wrongCall: ToolLike = { name: 'mcp__x__bad', call: 42 }
// @ts-expect-error `checkPermissions` must be a function
export const wrongCheck: ToolLike = { name: 'mcp__x__bad', checkPermissions: 'allow' }
// An index is not made with `new` (it always throws E_INVALID_ARG) [regression: it typechecked].
// @ts-expect-error the constructor is private
export const made = () => new ToolIndex()
