/**
 * Environment variables, read in one place. Each setting has the package's own name and
 * claude-code-best's (`SEARCH_EXTRA_TOOLS_*`); the package's wins when both are set. Values are
 * read when used, so a host may change them at run time.
 */

/** The package's variable and ccb's, per setting. */
export const ENV = Object.freeze({
  weightKeyword: ['TOOL_SEARCH_WEIGHT_KEYWORD', 'SEARCH_EXTRA_TOOLS_WEIGHT_KEYWORD'],
  weightTfidf: ['TOOL_SEARCH_WEIGHT_TFIDF', 'SEARCH_EXTRA_TOOLS_WEIGHT_TFIDF'],
  displayMinScore: ['TOOL_SEARCH_DISPLAY_MIN_SCORE', 'SEARCH_EXTRA_TOOLS_DISPLAY_MIN_SCORE'],
  enhancedMinScore: ['TOOL_SEARCH_ENHANCED_MIN_SCORE', 'SEARCH_EXTRA_TOOLS_ENHANCED_MIN_SCORE'],
  exclude: ['TOOL_SEARCH_EXCLUDE', 'SEARCH_EXTRA_TOOLS_EXCLUDE'],
  includeForce: ['TOOL_SEARCH_INCLUDE_FORCE', 'SEARCH_EXTRA_TOOLS_INCLUDE_FORCE'],
  enable: ['ENABLE_TOOL_SEARCH', 'ENABLE_SEARCH_EXTRA_TOOLS'],
} as const)

/** The first of `names` that is set to a non-blank value. */
export function envRaw(names: readonly string[]): string | undefined {
  if (typeof process === 'undefined' || !process.env) return undefined
  for (const n of names) {
    const v = process.env[n]
    if (v !== undefined && v.trim() !== '') return v
  }
  return undefined
}

/** A finite number from the environment, else `fallback` (unparsable values are ignored). */
export function envNumber(names: readonly string[], fallback: number): number {
  const raw = envRaw(names)
  if (raw === undefined) return fallback
  const v = Number(raw)
  return Number.isFinite(v) ? v : fallback
}

/** A comma list from the environment: trimmed, blanks dropped; every named variable adds. */
export function envList(names: readonly string[]): string[] {
  if (typeof process === 'undefined' || !process.env) return []
  const out: string[] = []
  for (const n of names) {
    const raw = process.env[n]
    if (!raw) continue
    for (const part of raw.split(',')) {
      const t = part.trim()
      if (t) out.push(t)
    }
  }
  return out
}

/** How deferred tools are offered: searched for (`on`), searched for above a size (`auto`), or all loaded (`off`). */
export type ToolSearchMode = 'on' | 'auto' | 'off'

const FALSY = new Set(['0', 'false', 'no', 'off'])
const TRUTHY = new Set(['1', 'true', 'yes', 'on'])

/**
 * ccb's rule for `ENABLE_SEARCH_EXTRA_TOOLS` (and the package's `ENABLE_TOOL_SEARCH`): unset or
 * truthy → `on`; `auto` / `auto:1`–`auto:99` → `auto`; `auto:0` → `on`; `auto:100` or falsy → `off`.
 */
export function toolSearchMode(): ToolSearchMode {
  const raw = envRaw(ENV.enable)
  if (raw === undefined) return 'on'
  const v = raw.trim().toLowerCase()
  const auto = /^auto:(\d{1,3})$/.exec(v)
  if (auto) {
    const pct = Math.min(100, Number(auto[1]))
    return pct === 0 ? 'on' : pct === 100 ? 'off' : 'auto'
  }
  if (v === 'auto') return 'auto'
  if (FALSY.has(v)) return 'off'
  if (TRUTHY.has(v)) return 'on'
  return 'on'
}

/** Whether tool search may be on (ccb's "optimistic" check): every mode but `off`. */
export function isToolSearchEnabled(): boolean {
  return toolSearchMode() !== 'off'
}
