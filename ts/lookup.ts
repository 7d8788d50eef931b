/**
 * Finding tools in a host's tool list, and the deferral rule: the one copy both the search and
 * the execute tool use. Tools whose fields cannot be read (throwing getters, Proxies) are
 * skipped, never fatal; nothing is read through a polluted `Object.prototype`.
 */
import { fieldOrUndefined } from './safeRead'

/** Aliases looked at per tool, at most. */
const MAX_ALIASES = 1000

/**
 * A tool's aliases as plain strings: each element read once by index (never through an
 * `includes` or iterator a Proxy could answer), at most `MAX_ALIASES`; unreadable → none.
 */
export function aliasesOf(tool: object): string[] {
  const aliases = fieldOrUndefined(tool, 'aliases')
  const out: string[] = []
  try {
    if (!Array.isArray(aliases)) return out
    const n = aliases.length
    if (!(n <= MAX_ALIASES)) return out
    for (let i = 0; i < n; i++) {
      const a: unknown = aliases[i]
      if (typeof a === 'string') out.push(a)
    }
  } catch {
    return []
  }
  return out
}

/** A match: the tool and the name it had when it was matched (read once). */
export interface Found<T = object> {
  tool: T
  name: string
}

/**
 * The first tool named `name`, else the first with `name` among its `aliases`, with the tool's
 * name as read during the look-up (a getter is not asked again).
 */
export function findToolNamed<T = object>(tools: readonly unknown[], name: string): Found<T> | undefined {
  const n = tools.length
  for (let i = 0; i < n; i++) {
    const t = tools[i]
    if (t !== null && typeof t === 'object' && fieldOrUndefined(t, 'name') === name) return { tool: t as T, name }
  }
  for (let i = 0; i < n; i++) {
    const t = tools[i]
    if (t === null || typeof t !== 'object') continue
    if (!aliasesOf(t).includes(name)) continue
    const own = fieldOrUndefined(t, 'name')
    if (typeof own === 'string') return { tool: t as T, name: own }
  }
  return undefined
}

/** The first tool named `name`, else the first with `name` among its `aliases`. */
export function findTool<T = object>(tools: readonly unknown[], name: string): T | undefined {
  return findToolNamed<T>(tools, name)?.tool
}

/** `findTool` for many names: one pass over the tools, then a map look-up a name. */
export function toolLookup<T = object>(tools: readonly unknown[]): (name: string) => T | undefined {
  const byName = new Map<string, T>()
  const byAlias = new Map<string, T>()
  for (const t of tools) {
    if (t === null || typeof t !== 'object') continue
    const name = fieldOrUndefined(t, 'name')
    if (typeof name === 'string' && !byName.has(name)) byName.set(name, t as T)
    for (const a of aliasesOf(t)) if (!byAlias.has(a)) byAlias.set(a, t as T)
  }
  return (name) => byName.get(name) ?? byAlias.get(name)
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
