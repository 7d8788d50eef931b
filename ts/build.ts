/**
 * Building an index from a host's tool list: which tools are indexed (the deferral rule, the
 * exclude / include-force lists, bad names left out and reported), and each tool's description
 * (its `prompt()`, awaited with a deadline).
 */
import { binding } from './native'
import { ToolIndexError, invalidArg, native } from './errors'
import { DEFAULT_PROMPT_TIMEOUT_MS, Deadline, ENV, LIMITS, MAX_TIMER_MS, dropInScoring, envList, withTimeout } from './config'
import { checkLength, checkScoring, checkToolArray, copyToolArray, readBuildOptions, readToolField as readField, readingInput, stringList, typeName } from './input'
import { inputSchemaOf } from './schema'
import { ToolIndex, nameKey, newState, type SkippedTool, type Stored } from './toolIndex'
import type { BuildOptions, Scoring, ToolLike } from './types'

/**
 * Build the index over the deferred tools of `tools` (drop-in for the reference): awaits each
 * tool's `prompt()` concurrently (a throw or a timeout gives `""`), takes the input schema from
 * `inputJSONSchema` or the zod `inputSchema`. Compat scoring unless `options.scoring` says
 * otherwise. Never throws for one bad tool, as ccb's does not: a tool with an empty or oversize
 * name, or a name an earlier indexed tool has, is left out and listed in `index.skipped`.
 */
export async function buildToolIndex(given: readonly ToolLike[], givenOptions: BuildOptions = {}): Promise<ToolIndex> {
  // One read of the list: a Proxy whose length changes between reads walks no further.
  const tools = copyToolArray<ToolLike>(given, 'tools')
  const options = readBuildOptions(givenOptions)
  const plan = planBuild(tools, options)
  const stored = await collect(plan.indexable, plan.names, tools, options)
  const state = newState(stored, plan.scoring, options.tuning)
  state.skipped = plan.skipped
  return ToolIndex.of(state)
}

/** Internal: which tools of a list a build indexes. */
export interface Plan {
  names: string[]
  indexable: number[]
  scoring: Scoring
  skipped: SkippedTool[]
}

/**
 * Which tools to index (`options` is a `readBuildOptions` snapshot). A tool that would be indexed but has an empty or oversize name, or a
 * name an earlier indexed tool already has, is left out and reported in `skipped` (as ccb's own
 * lookup finds the first tool of a name, the first one is kept): one bad tool never stops the
 * rest from being searched.
 */
export function planBuild(tools: readonly ToolLike[], options: BuildOptions): Plan {
  const { names, alwaysLoad, scoring, core, exclude, force } = readingInput('the tools and options', () => readPlanInput(tools, options))
  const keep = native(() => binding.selectIndexable(names, alwaysLoad, core, exclude, force))
  return { names, scoring, ...checkNames(names, keep) }
}

/**
 * Of the tools `keep` marks, the ones an index can take: a name that is empty, oversize or
 * already taken by an earlier kept tool is left out and reported.
 */
function checkNames(names: readonly string[], keep: readonly boolean[]): { indexable: number[]; skipped: SkippedTool[] } {
  const indexable: number[] = []
  const skipped: SkippedTool[] = []
  const seen = new Set<string>()
  keep.forEach((k, i) => {
    const name = names[i]
    // A tool left out of the index (core, alwaysLoad, excluded) still holds its name: a later
    // tool of that name is a duplicate, as the execute tool finds the first of a name.
    if (!k) {
      seen.add(nameKey(name))
      return
    }
    if (name.length === 0 || name.length > LIMITS.nameLength) {
      skipped.push({ index: i, name: name.slice(0, 200), reason: name.length === 0 ? 'empty_name' : 'name_too_long' })
      return
    }
    const key = nameKey(name)
    if (seen.has(key)) {
      skipped.push({ index: i, name, reason: 'duplicate_name' })
      return
    }
    seen.add(key)
    indexable.push(i)
  })
  return { indexable, skipped }
}

/**
 * A compat index over the tools a search does not defer (core and `alwaysLoad` tools), for the
 * keyword rules only: claude-code-best's search also scores its already-loaded tools by them.
 * `names` are the tools' names, read once; `loaded[i]` whether tool `i` is one to index.
 */
export async function buildLoadedIndex(tools: readonly ToolLike[], names: readonly string[], loaded: readonly boolean[], options: BuildOptions): Promise<ToolIndex> {
  const { indexable, skipped } = checkNames(names, loaded)
  const stored = await collect(indexable, names, tools, options)
  const state = newState(stored, 'compat')
  state.skipped = skipped
  return ToolIndex.of(state)
}

function readPlanInput(tools: readonly ToolLike[], options: BuildOptions) {
  checkToolArray(tools, 'tools')
  const scoring = checkScoring(options.scoring, dropInScoring())
  const names: string[] = new Array(tools.length)
  const alwaysLoad: boolean[] = new Array(tools.length)
  tools.forEach((tool, i) => {
    if (tool === null || typeof tool !== 'object') throw invalidArg(`tools[${i}] must be an object, got ${typeName(tool)}`)
    const name = readField(tool, 'name', i)
    if (typeof name !== 'string') throw invalidArg(`tools[${i}].name must be a string, got ${typeName(name)}`)
    names[i] = name
    alwaysLoad[i] = readField(tool, 'alwaysLoad', i) === true
  })
  const core = options.coreTools === undefined ? undefined : stringList(options.coreTools, 'coreTools')
  const exclude = [...envList(ENV.exclude), ...(options.exclude ? stringList(options.exclude, 'exclude') : [])]
  const force = [...envList(ENV.includeForce), ...(options.includeForce ? stringList(options.includeForce, 'includeForce') : [])]
  return { names, alwaysLoad, scoring, core, exclude, force }
}

/** `promptTimeoutMs`, or the default; anything but a number from 0 to the timer limit throws. */
function promptTimeout(options: BuildOptions): number {
  const timeout = options.promptTimeoutMs ?? DEFAULT_PROMPT_TIMEOUT_MS
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout < 0 || timeout > MAX_TIMER_MS) {
    throw new ToolIndexError('E_INVALID_NUMBER', `promptTimeoutMs must be a number from 0 to ${MAX_TIMER_MS} (0 = no limit), got ${String(timeout)}`)
  }
  return timeout
}

/**
 * The indexed tools' entries: `names` are the plan's (each tool's name read once, so a getter
 * that answers differently the second time cannot slip past the duplicate check).
 */
export async function collect(indices: number[], names: readonly string[], tools: readonly ToolLike[], options: BuildOptions): Promise<Stored[]> {
  const timeout = promptTimeout(options)
  const context = options.promptContext ?? defaultPromptContext(tools)
  // Every prompt() starts here, then one timer runs for them all.
  const descriptions = await Deadline.around(timeout, (deadline) => Promise.all(indices.map((i) => describe(tools[i], i, context, deadline))))
  return indices.map((i, k) => {
    const tool = tools[i]
    const name = names[i]
    const hint = readField(tool, 'searchHint', i)
    const isMcp = readField(tool, 'isMcp', i)
    let inputSchema: object | undefined
    try {
      inputSchema = inputSchemaOf(tool)
    } catch {
      inputSchema = undefined
    }
    const description = descriptions[k]
    checkLength(description, LIMITS.textLength, `tools[${i}] description`)
    const searchHint = typeof hint === 'string' ? hint : undefined
    if (searchHint !== undefined) checkLength(searchHint, LIMITS.textLength, `tools[${i}].searchHint`)
    const server = readField(tool, 'server', i)
    return {
      name,
      description,
      searchHint,
      isMcp: typeof isMcp === 'boolean' ? isMcp : name.startsWith('mcp__'),
      inputSchema,
      server: typeof server === 'string' ? server : undefined,
    }
  })
}

async function describe(tool: ToolLike, i: number, context: unknown, deadline: Deadline): Promise<string> {
  try {
    let pending: unknown
    const prompt: unknown = readField(tool, 'prompt', i)
    const description: unknown = typeof prompt === 'function' ? undefined : readField(tool, 'description', i)
    if (typeof prompt === 'function') pending = prompt.call(tool, context)
    else if (typeof description === 'string') return description
    else if (typeof description === 'function') pending = description.call(tool, {}, context)
    else return ''
    const value = await deadline.race(Promise.resolve(pending))
    return typeof value === 'string' ? value : ''
  } catch {
    return ''
  }
}

/**
 * A tool's short description for the model: its `description` (a string, or what the function
 * gives, awaited with the deadline), else its prompt as `describe` reads it. Never throws.
 */
export async function shortDescription(tool: ToolLike, i: number, tools: readonly ToolLike[], options: BuildOptions): Promise<string> {
  let ms: number
  try {
    ms = promptTimeout(options)
  } catch {
    ms = DEFAULT_PROMPT_TIMEOUT_MS
  }
  const context = options.promptContext ?? defaultPromptContext(tools)
  try {
    const description: unknown = readField(tool, 'description', i)
    let value: unknown = description
    if (typeof description === 'function') {
      const permissions = { mode: 'default', additionalWorkingDirectories: new Map(), alwaysAllowRules: {}, alwaysDenyRules: {}, alwaysAskRules: {}, isBypassPermissionsModeAvailable: false }
      value = await withTimeout(Promise.resolve(description.call(tool, {}, { isNonInteractiveSession: true, toolPermissionContext: permissions, tools })), ms)
    }
    if (typeof value === 'string' && value !== '') return value
  } catch {
    // fall back to the prompt
  }
  return Deadline.around(ms, (deadline) => describe(tool, i, context, deadline))
}

function defaultPromptContext(tools: readonly ToolLike[]): unknown {
  return {
    getToolPermissionContext: async () => ({
      mode: 'default',
      additionalWorkingDirectories: new Map(),
      alwaysAllowRules: {},
      alwaysDenyRules: {},
      alwaysAskRules: {},
      isBypassPermissionsModeAvailable: false,
    }),
    tools,
    agents: [],
  }
}
