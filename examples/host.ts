/**
 * A tiny host: a few built-in tools, two "MCP" tools, ToolSearch and ExecuteTool wired in.
 * Runs one search and one execution:  npx bun examples/host.ts
 */
import { buildTool, type Tool, type ToolUseContext } from './buildTool'
import { ExecuteTool } from './ExecuteTool'
import { ToolSearchTool } from './ToolSearchTool'

const Read = buildTool({
  name: 'Read',
  inputJSONSchema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
  prompt: () => 'Read a file from the local filesystem.',
  isReadOnly: () => true,
  call: async (input: { file_path: string }) => ({ data: `contents of ${input.file_path}` }),
})

const CronCreate = buildTool({
  name: 'CronCreate',
  searchHint: 'schedule a recurring job',
  inputJSONSchema: { type: 'object', properties: { cron: { type: 'string' }, prompt: { type: 'string' } }, required: ['cron', 'prompt'] },
  prompt: () => 'Create a cron job that runs a prompt on a schedule.',
  call: async (input: { cron: string }) => ({ data: `scheduled at ${input.cron}` }),
})

/** An MCP-style tool: deferred, JSON-Schema input, result is MCP content. */
function mcpTool(server: string, tool: string, description: string, schema: Record<string, unknown>, run: (p: any) => string): Tool {
  return buildTool({
    name: `mcp__${server}__${tool}`,
    isMcp: true,
    inputJSONSchema: schema,
    prompt: async () => description,
    call: async (params: any) => ({ data: [{ type: 'text', text: run(params) }] }),
  })
}

const weather = mcpTool('weather', 'get_forecast', 'Get the weather forecast for a city', {
  type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } }, required: ['city'],
}, (p) => `Sunny in ${p.city} for ${p.days ?? 1} day(s)`)

const github = mcpTool('github', 'create_issue', 'Create a new issue in a GitHub repository', {
  type: 'object', properties: { repo: { type: 'string' }, title: { type: 'string' } }, required: ['repo', 'title'],
}, (p) => `created issue "${p.title}" in ${p.repo}`)

export const tools: Tool[] = [Read, ToolSearchTool, ExecuteTool, CronCreate, weather, github]

export function makeContext(extra: Partial<ToolUseContext['options']> = {}): ToolUseContext {
  return { options: { tools, mcpClients: [{ name: 'slack', type: 'pending' }], ...extra }, abortController: new AbortController() }
}

export async function main(log: (...a: unknown[]) => void = console.log): Promise<{ search: unknown; execution: unknown }> {
  const context = makeContext()
  const search = await ToolSearchTool.call({ query: 'weather forecast for a city' }, context)
  log('ToolSearch →', JSON.stringify(ToolSearchTool.mapToolResultToToolResultBlockParam!(search.data, 'toolu_1')))
  const name = search.data.matches[0]
  const execution = await ExecuteTool.call({ tool_name: name, params: { city: 'Paris', days: 2 } }, context)
  log('ExecuteTool →', JSON.stringify(ExecuteTool.mapToolResultToToolResultBlockParam!(execution.data, 'toolu_2')))
  return { search: search.data, execution: execution.data }
}

if (require.main === module) main().catch((e) => {
  console.error(e)
  process.exitCode = 1
})
