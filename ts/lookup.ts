/**
 * Finding tools in a host's tool list, and the deferral rule: the one copy both the search and
 * the execute tool use. Tools whose fields cannot be read (throwing getters, Proxies) are
 * skipped, never fatal; nothing is read through a polluted `Object.prototype`.
 */
import { fieldOrUndefined } from './safeRead'

/** Aliases looked at per tool, at most. */
const MAX_ALIASES = 1000

/** The first tool named `name`, else the first with `name` among its `aliases`. */
export function findTool<T = object>(tools: readonly unknown[], name: string): T | undefined {
  const n = tools.length
  for (let i = 0; i < n; i++) {
    const t = tools[i]
    if (t !== null && typeof t === 'object' && fieldOrUndefined(t, 'name') === name) return t as T
  }
  for (let i = 0; i < n; i++) {
    const t = tools[i]
    if (t === null || typeof t !== 'object') continue
    const aliases = fieldOrUndefined(t, 'aliases')
    if (!Array.isArray(aliases) || aliases.length > MAX_ALIASES) continue
    try {
      if (aliases.includes(name)) return t as T
    } catch {
      // a hostile aliases array: not this tool
    }
  }
  return undefined
}

/**
 * The reference's deferral rule: a tool is deferred unless `alwaysLoad === true` or its name is
 * in `core`. (`isDeferredTool` runs the native copy of the same rule, which the parity vectors check.)
 */
export function isDeferredBy(tool: unknown, core: ReadonlySet<string>): boolean {
  if (tool === null || typeof tool !== 'object') return false
  if (fieldOrUndefined(tool, 'alwaysLoad') === true) return false
  const name = fieldOrUndefined(tool, 'name')
  return !(typeof name === 'string' && core.has(name))
}

/** The name of the first tool whose lowercased name is `lower` (the reference's exact-name rule). */
export function byLowercasedName(tools: readonly unknown[]): Map<string, string> {
  const out = new Map<string, string>()
  for (const t of tools) {
    const name = fieldOrUndefined(t, 'name')
    if (typeof name !== 'string') continue
    const lower = name.toLowerCase()
    if (!out.has(lower)) out.set(lower, name)
  }
  return out
}
