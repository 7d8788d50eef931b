/**
 * Which tools are core (always loaded, never deferred) and what the search and execute tools
 * are called in messages: the seed's defaults, and claude-code-best's current ones as a preset.
 */
import { binding } from './native'

/** A `TypeError`, as for any read-only object, with the package's stable `code`. */
const readOnly = () => Object.assign(new TypeError('this core-tool set is read-only; pass options.coreTools instead'), { code: 'E_READ_ONLY' as const })

class ReadonlyNameSet extends Set<string> {
  private frozen = false
  constructor(names: Iterable<string>) {
    super()
    for (const n of names) super.add(n)
    this.frozen = true
  }
  override add(value: string): this {
    if (this.frozen) throw readOnly()
    return super.add(value)
  }
  override delete(): boolean {
    throw readOnly()
  }
  override clear(): void {
    throw readOnly()
  }
}

/** The core tools of the seed's ccb (never deferred, never indexed by default). The default. */
export const CORE_TOOLS: ReadonlySet<string> = new ReadonlyNameSet(binding.coreTools())

/**
 * The 28 core tools of claude-code-best today (its `src/constants/tools.ts`), where the search and
 * execute tools are `SearchExtraTools` and `ExecuteExtraTool`. Pass as `coreTools`.
 */
export const CCB_CORE_TOOLS: ReadonlySet<string> = new ReadonlyNameSet([
  'Bash',
  'PowerShell',
  'Read',
  'Edit',
  'Write',
  'Glob',
  'Grep',
  'NotebookEdit',
  'Agent',
  'AskUserQuestion',
  'TaskOutput',
  'TaskStop',
  'TaskCreate',
  'TaskGet',
  'TaskList',
  'TaskUpdate',
  'TodoWrite',
  'EnterPlanMode',
  'ExitPlanMode',
  'VerifyPlanExecution',
  'WebFetch',
  'WebSearch',
  'LSP',
  'Skill',
  'Sleep',
  'SearchExtraTools',
  'ExecuteExtraTool',
  'StructuredOutput',
])

/** The names of the search and execute tools, as messages and text results write them. */
export interface ToolNames {
  /** The search tool (default `ToolSearch`). */
  search?: string
  /** The execute tool (default `ExecuteTool`). */
  execute?: string
}

/** The seed's names. */
export const SEED_TOOL_NAMES: Readonly<Required<ToolNames>> = Object.freeze({ search: 'ToolSearch', execute: 'ExecuteTool' })
/** claude-code-best's names today. */
export const CCB_TOOL_NAMES: Readonly<Required<ToolNames>> = Object.freeze({ search: 'SearchExtraTools', execute: 'ExecuteExtraTool' })

/** `names` filled in from the seed's defaults; a non-string or empty name falls back. */
export function toolNames(names: ToolNames | undefined): Required<ToolNames> {
  const pick = (v: unknown, d: string) => (typeof v === 'string' && v.trim() !== '' ? v : d)
  if (names === undefined || names === null || typeof names !== 'object') return { ...SEED_TOOL_NAMES }
  let search: unknown
  let execute: unknown
  try {
    search = Object.prototype.hasOwnProperty.call(names, 'search') ? names.search : undefined
    execute = Object.prototype.hasOwnProperty.call(names, 'execute') ? names.execute : undefined
  } catch {
    return { ...SEED_TOOL_NAMES }
  }
  return { search: pick(search, SEED_TOOL_NAMES.search), execute: pick(execute, SEED_TOOL_NAMES.execute) }
}
