/**
 * Settings in one place: input limits, defaults, timeouts, and the environment variables. Each
 * variable has the package's own name and claude-code-best's (`SEARCH_EXTRA_TOOLS_*`); the
 * package's wins when both are set. Values are read when used, so a host may change them at run
 * time.
 */
import { ToolIndexError } from './errors'
import { binding } from './native'
import type { Scoring, Tuning } from './types'

/** Documented input caps; larger inputs throw `E_TOO_LARGE` (nothing is truncated). */
export const LIMITS = Object.freeze({
  /** Longest tool name, in UTF-16 code units. */
  nameLength: 4096,
  /** Longest description or searchHint, in UTF-16 code units (16 Mi). */
  textLength: 16 * 1024 * 1024,
  /** Longest query, in UTF-16 code units (4 Mi). */
  queryLength: 4 * 1024 * 1024,
  /** Most tools (or entries) in one list (1 Mi): a longer or hostile `length` is refused before anything is read. */
  toolCount: 1024 * 1024,
})

/** Results a search returns when the caller names no limit. */
export const DEFAULT_LIMIT = 5
/** The reference's display threshold (compat scoring). */
export const DEFAULT_MIN_SCORE = 0.1
/** How long a tool's `prompt()` may take before it counts as `""`. */
export const DEFAULT_PROMPT_TIMEOUT_MS = 5000

/**
 * The longest delay a timer honours (2**31 - 1 ms, about 24.8 days): Node and Bun fire a longer
 * one after 1 ms, so a finite deadline above it is refused rather than turned into an instant one.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1
/** The reference's merge weights. */
export const DEFAULT_WEIGHTS = Object.freeze({ keyword: 0.4, tfidf: 0.6 })

/** The package's variable and ccb's, per setting. */
export const ENV = Object.freeze({
  weightKeyword: ['TOOL_SEARCH_WEIGHT_KEYWORD', 'SEARCH_EXTRA_TOOLS_WEIGHT_KEYWORD'],
  weightTfidf: ['TOOL_SEARCH_WEIGHT_TFIDF', 'SEARCH_EXTRA_TOOLS_WEIGHT_TFIDF'],
  displayMinScore: ['TOOL_SEARCH_DISPLAY_MIN_SCORE', 'SEARCH_EXTRA_TOOLS_DISPLAY_MIN_SCORE'],
  enhancedMinScore: ['TOOL_SEARCH_ENHANCED_MIN_SCORE', 'SEARCH_EXTRA_TOOLS_ENHANCED_MIN_SCORE'],
  exclude: ['TOOL_SEARCH_EXCLUDE', 'SEARCH_EXTRA_TOOLS_EXCLUDE'],
  includeForce: ['TOOL_SEARCH_INCLUDE_FORCE', 'SEARCH_EXTRA_TOOLS_INCLUDE_FORCE'],
  enable: ['ENABLE_TOOL_SEARCH', 'ENABLE_SEARCH_EXTRA_TOOLS'],
  scoring: ['TOOL_INDEX_SCORING', 'SEARCH_EXTRA_TOOLS_SCORING'],
  abstain: ['TOOL_INDEX_ABSTAIN', 'SEARCH_EXTRA_TOOLS_ABSTAIN'],
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

/** A variable set to a truthy word (`1`, `true`, `yes`, `on`, any case, spaces around). */
function envTruthy(raw: string | undefined): boolean {
  return raw !== undefined && TRUTHY.has(raw.trim().toLowerCase())
}

/**
 * ccb's rule for `ENABLE_SEARCH_EXTRA_TOOLS` (and the package's `ENABLE_TOOL_SEARCH`), value by
 * value as ccb reads it:
 * - `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS` truthy → `off` (ccb's kill switch);
 * - `auto:N` (lower case, as written): N read as `parseInt` does (`auto:5x` is 5), clamped to
 *   0–100; 0 → `on`, 100 → `off`, anything else, unreadable N included → `auto`;
 * - `auto` → `auto` (`AUTO` or ` auto` are neither auto nor a truthy word: `on`);
 * - a falsy word (`0`, `false`, `no`, `off`, any case) → `off`; unset, empty or anything else → `on`.
 */
export function toolSearchMode(): ToolSearchMode {
  if (envTruthy(envRaw(['CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS']))) return 'off'
  const raw = envRaw(ENV.enable)
  if (raw === undefined || raw === '') return 'on'
  if (raw.startsWith('auto:')) {
    const pct = Number.parseInt(raw.slice(5), 10)
    if (!Number.isNaN(pct)) {
      const clamped = Math.max(0, Math.min(100, pct))
      if (clamped === 0) return 'on'
      if (clamped === 100) return 'off'
    }
    return 'auto'
  }
  if (raw === 'auto') return 'auto'
  return FALSY.has(raw.trim().toLowerCase()) ? 'off' : 'on'
}

/** Whether tool search may be on (ccb's "optimistic" check): every mode but `off`. */
export function isToolSearchEnabled(): boolean {
  return toolSearchMode() !== 'off'
}

/**
 * The display threshold, read at each search: compat uses `TOOL_SEARCH_DISPLAY_MIN_SCORE`
 * (default 0.10, the reference's); enhanced uses `TOOL_SEARCH_ENHANCED_MIN_SCORE` (default 0:
 * its abstain rule, not a score cut, drops queries no tool answers). Unparsable values mean
 * the default. ccb's `SEARCH_EXTRA_TOOLS_*` names are read too.
 */
export function displayMinScore(scoring: Scoring = 'compat'): number {
  return scoring === 'enhanced' ? envNumber(ENV.enhancedMinScore, 0) : envNumber(ENV.displayMinScore, DEFAULT_MIN_SCORE)
}

/**
 * The scoring `TOOL_INDEX_SCORING` (or ccb's `SEARCH_EXTRA_TOOLS_SCORING`) names: `compat` or
 * `enhanced` in any case, spaces around it ignored; `undefined` when it is unset or says
 * anything else.
 */
export function envScoring(): Scoring | undefined {
  const v = envRaw(ENV.scoring)?.trim().toLowerCase()
  return v === 'enhanced' || v === 'compat' ? v : undefined
}

/**
 * The scoring of the drop-in functions (`buildToolIndex`, `getToolIndex`, `searchTools` over an
 * array, and the ccb drop-in) when the caller names none: the variable's (`envScoring`), else
 * the reference's `compat`. Read when an index is built.
 */
export function dropInScoring(): Scoring {
  return envScoring() ?? 'compat'
}

/**
 * The enhanced ranking's confidence below which a request most likely has no matching tool in
 * a large catalog: a host may treat a best score under this as "nothing found" (scores of 1 and
 * more are name matches). Measured in bench/QUALITY.md; in small catalogs (a few hundred tools)
 * right answers score lower too, so the cut costs recall there.
 */
export const LOW_CONFIDENCE = 0.38

/**
 * The enhanced ranking's crowd rule, as chosen on the quality sets' dev split
 * (`bench/quality/lexical-abstain.mjs`): spread it into `tuning` (`{ scoring: 'enhanced', tuning:
 * { ...CROWD_ABSTAIN } }`) and a request gets nothing when at least 30 tools match, none scores
 * `crowdConfidence` or more, the best stands less than `crowdGap` above `crowdWeight` times the
 * 30th, and it matches less than `crowdCoverage` of the request (its `coverage` in `explain`): no
 * tool stands out of a crowd of weak matches. Off by default.
 */
export const CROWD_ABSTAIN: Readonly<Required<Pick<Tuning, 'crowdGap' | 'crowdWeight' | 'crowdConfidence' | 'crowdCoverage'>>> = Object.freeze(
  binding.crowdAbstain(),
)

/** The merge weights: env `TOOL_SEARCH_WEIGHT_KEYWORD` / `_TFIDF` (or ccb's `SEARCH_EXTRA_TOOLS_WEIGHT_*`). */
export function mergeWeights(): { keyword: number; tfidf: number } {
  return { keyword: envNumber(ENV.weightKeyword, DEFAULT_WEIGHTS.keyword), tfidf: envNumber(ENV.weightTfidf, DEFAULT_WEIGHTS.tfidf) }
}

let envTuning: Tuning | undefined | null = null

function tuningFromEnv(): Tuning | undefined {
  if (envTuning === null) {
    const raw = typeof process !== 'undefined' ? process.env.TOOL_INDEX_TUNING : undefined
    try {
      envTuning = raw ? (JSON.parse(raw) as Tuning) : undefined
    } catch {
      throw new ToolIndexError('E_INVALID_ARG', 'TOOL_INDEX_TUNING is not valid JSON')
    }
  }
  return envTuning
}

/**
 * The tuning of an enhanced index: the explicit one, else `TOOL_INDEX_TUNING` (JSON, read once, for
 * experiments). With `TOOL_INDEX_ABSTAIN=crowd` (or ccb's `SEARCH_EXTRA_TOOLS_ABSTAIN`), the crowd
 * rule's values (`CROWD_ABSTAIN`) come first and the fields given explicitly win; any other value
 * leaves the rule as the tuning says. Read when an index is built.
 */
export function tuningOf(explicit: Tuning | undefined): Tuning | undefined {
  const tuning = explicit ?? tuningFromEnv()
  if (envRaw(ENV.abstain)?.trim().toLowerCase() !== 'crowd') return tuning
  try {
    return Object.assign(Object.create(null) as Tuning, CROWD_ABSTAIN, tuning)
  } catch (err) {
    throw new ToolIndexError('E_INVALID_ARG', `reading options.tuning threw: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
  }
}

/**
 * `p`, or `undefined` once `ms` milliseconds have passed first (`0` = no limit). The timer is
 * cleared when `p` settles, so it never holds the process open.
 */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  return Deadline.around(ms, (deadline) => deadline.race(p))
}

/**
 * One timer for a batch of promises started together (a build awaits every tool's `prompt()`
 * at once): `race(p)` settles as `p` does, or with `undefined` once `ms` milliseconds have
 * passed since `arm()` (`0` = no limit). Arm it after the last `race`, so that each promise has
 * at least `ms` from its start; `disarm()` clears the timer once the batch has settled, so it
 * never holds the process open. Ten thousand tools cost one timer instead of ten thousand.
 */
export class Deadline {
  readonly #ms: number
  /** Settles (with `undefined`) when the timer fires; never, if it is disarmed first. */
  readonly #passed: Promise<undefined>
  #expire!: (v: undefined) => void
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(ms: number) {
    this.#ms = ms
    this.#passed = new Promise<undefined>((resolve) => (this.#expire = resolve))
  }

  /** `start(deadline)` (which races its promises), then the timer, cleared once it settles. */
  static around<T>(ms: number, start: (deadline: Deadline) => Promise<T>): Promise<T> {
    const deadline = new Deadline(ms)
    const started = start(deadline)
    deadline.arm()
    return started.finally(() => deadline.disarm())
  }

  race<T>(p: Promise<T>): Promise<T | undefined> {
    if (this.#ms === 0) return p
    return new Promise<T | undefined>((resolve, reject) => {
      p.then(resolve, reject)
      void this.#passed.then(resolve)
    })
  }

  arm(): void {
    if (this.#ms === 0 || this.#timer !== undefined) return
    this.#timer = setTimeout(() => this.#expire(undefined), this.#ms)
  }

  disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
  }
}

