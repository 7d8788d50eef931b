/**
 * Caching: `ToolIndexCache` (one line: the same index while the tool names hold, updated
 * incrementally when they change) and the drop-in `getToolIndex` over a module-wide cache.
 */
import { invalidArg, native } from './errors'
import { ENV, dropInScoring, envList } from './config'
import { checkToolArray, copyToolArray, readBuildOptions, readToolField as readField, readingInput } from './input'
import { buildToolIndex, collect, planBuild } from './build'
import { ToolIndex, nameKey, newState, removeNames, upsertStored, type State, type Stored } from './toolIndex'
import type { BuildOptions, ToolLike } from './types'

/** Values derived from one cache line's tool list, by key (see `ToolIndexCache.memoOfCurrent`). */
export type LineMemo = <T>(key: string, compute: () => T) => T

interface CacheLine {
  /** The names of the tools the line was asked for, in the order given... */
  ordered: string[]
  /** ...and as a set (the key is order-independent). */
  names: Set<string>
  count: number
  optionsKey: string
  pending: Promise<ToolIndex>
  /**
   * Values derived from this line's tool list in its current order (see
   * `ToolIndexCache.memoOfCurrent`): a new map when the same names come in another order, since
   * derived values hold positions in the list.
   */
  memo: Map<string, unknown>
  /** The index, once built (a disposed one is not handed out again). */
  index?: ToolIndex
}

/**
 * One cached index line: the same object while the set of tool names (the reference's key:
 * the sorted, comma-joined names) and the options hold; when they change, the previous index
 * is updated incrementally. Checking the key costs one set look-up per tool, not a sort.
 */
export class ToolIndexCache {
  #line: CacheLine | null = null
  /** How many full builds and incremental updates this cache has done. */
  readonly stats = { builds: 0, updates: 0 }

  get(given: readonly ToolLike[], givenOptions: BuildOptions = {}): Promise<ToolIndex> {
    // One read of the list: a Proxy whose length grows after the check walks no further.
    const tools = copyToolArray<ToolLike>(given, 'tools')
    const options = readBuildOptions(givenOptions)
    const optionsKey = optionsKeyOf(options)
    const cur = this.#line?.index?.disposed ? null : this.#line
    if (cur && cur.optionsKey === optionsKey && sameInOrder(cur, tools)) return cur.pending
    const names = toolNames(tools)
    if (cur && cur.optionsKey === optionsKey && sameNames(cur, names)) {
      cur.ordered = names
      cur.memo = new Map()
      return cur.pending
    }
    // Only a built index is updated for the new list: a build still waiting on its tools'
    // prompts (up to the prompt deadline) must not hold up a list it is no longer part of.
    const previous = cur && cur.optionsKey === optionsKey && cur.index ? cur : null
    let settle!: { resolve: (index: ToolIndex) => void; reject: (error: unknown) => void }
    const line: CacheLine = {
      ordered: names,
      names: new Set(names),
      count: names.length,
      optionsKey,
      pending: new Promise<ToolIndex>((resolve, reject) => {
        settle = { resolve, reject }
      }),
      memo: new Map(),
    }
    line.pending.then(
      (index) => {
        line.index = index
        // A holder that changes the index itself (upsert, remove) makes it hold other tools
        // than this line's: the next request builds afresh.
        ToolIndex.watch(index, () => {
          if (this.#line === line) this.#line = null
        })
      },
      () => {
        if (this.#line === line) this.#line = null
      },
    )
    // The line is current (and its promise real) before any tool's code runs: a prompt()
    // that asks this cache for the same tools gets this line's promise (and, if it waits
    // for it, the prompt deadline ends the wait) instead of starting another build.
    this.#line = line
    ;(async () => {
      const base = previous ? await previous.pending.then(ToolIndex.takeState, () => undefined) : undefined
      if (base) {
        await updateState(base, tools, options)
        this.stats.updates++
        return ToolIndex.of(base)
      }
      this.stats.builds++
      return buildToolIndex(tools, options)
    })().then(settle.resolve, settle.reject)
    return line.pending
  }

  /**
   * The memo of the current line: call it right after `get`, before any await. A value asked
   * of it is derived from that line's tool list and computed once per line; it stays bound to
   * that line, so a `get` for other tools in between (a concurrent call) never hands this
   * caller values derived from another list.
   */
  memoOfCurrent(): LineMemo {
    // The map of the list as it is now: a later call with the same names in another order
    // gets a map of its own, and this caller keeps this one.
    const memo = this.#line?.memo
    return <T>(key: string, compute: () => T): T => {
      if (!memo) return compute()
      if (!memo.has(key)) memo.set(key, compute())
      return memo.get(key) as T
    }
  }

  /** Forget the cached index. */
  clear(): void {
    this.#line = null
  }
}

/**
 * The name of the i-th tool as a build reads it (never through `Object.prototype`: a polluted
 * `name` is no tool's name); `undefined` for an element that is not an object. A throwing getter
 * is `E_INVALID_ARG`.
 */
function nameAt(tools: readonly ToolLike[], i: number): unknown {
  const tool: unknown = tools[i]
  return tool !== null && typeof tool === 'object' ? readField(tool, 'name', i) : undefined
}

/** The same names in the same order as last time: one string comparison per tool. */
function sameInOrder(line: CacheLine, tools: readonly ToolLike[]): boolean {
  if (!Array.isArray(tools) || tools.length !== line.count) return false
  const ordered = line.ordered
  try {
    for (let i = 0; i < tools.length; i++) if (nameAt(tools, i) !== ordered[i]) return false
  } catch {
    return false
  }
  return true
}

function toolNames(tools: readonly ToolLike[]): string[] {
  checkToolArray(tools, 'tools')
  const out = new Array<string>(tools.length)
  for (let i = 0; i < tools.length; i++) {
    const n = nameAt(tools, i)
    out[i] = typeof n === 'string' ? n : `\u0000${i}`
  }
  return out
}

function sameNames(line: CacheLine, names: string[]): boolean {
  if (names.length !== line.count) return false
  for (const n of names) if (!line.names.has(n)) return false
  return true
}

/** The module-wide cache `getToolIndex` uses. */
const dropInCache = new ToolIndexCache()

/**
 * Cached `buildToolIndex`: returns the same object while the sorted, comma-joined names of
 * `tools` (and the options) stay the same. When they change (an MCP server connected or
 * disconnected) the index is updated incrementally (only new tools' prompts are awaited)
 * and a new object is returned; results equal a fresh build.
 */
export function getToolIndex(tools: readonly ToolLike[], options: BuildOptions = {}): Promise<ToolIndex> {
  return dropInCache.get(tools, options)
}

/** Drop the `getToolIndex` cache. */
export function clearToolIndexCache(): void {
  dropInCache.clear()
}

async function updateState(s: State, tools: readonly ToolLike[], options: BuildOptions): Promise<void> {
  const plan = planBuild(tools, options)
  s.skipped = plan.skipped
  const order = plan.indexable.map((i) => plan.names[i])
  // A tool stays when one of exactly its name is wanted (two names equal only as the native side
  // sees them, lone surrogates and U+FFFD, are different tools: the old one goes, the new comes).
  const wanted = new Set(order)
  const kept = (i: number) => {
    const id = s.byName.get(nameKey(plan.names[i]))
    return id !== undefined && s.byId[id]?.name === plan.names[i]
  }
  const removed = [...s.byName.entries()].filter(([, id]) => !wanted.has((s.byId[id] as Stored).name)).map(([key]) => key)
  const added = plan.indexable.filter((i) => !kept(i))
  const stored = await collect(added, plan.names, tools, options)
  if (removed.length) removeNames(s, removed)
  upsertStored(s, stored)
  // Kept tools keep their places and new ones come last; when that is not the list's order,
  // ties (broken by index order) and iteration would differ from a fresh build: the native
  // index is built again from the entries in the list's order (no prompt is awaited again).
  const now = s.native.names()
  if (now.length !== order.length || now.some((n, i) => n !== nameKey(order[i]))) {
    const entries = order.map((name) => s.byId[s.byName.get(nameKey(name)) as number] as Stored)
    const fresh = newState(entries, s.scoring, s.tuning)
    const old = s.native
    Object.assign(s, { native: fresh.native, byId: fresh.byId, byName: fresh.byName, generation: fresh.generation })
    native(() => old.dispose())
  }
}

/** The options a cached index must share with the request (`o` is a `readBuildOptions` snapshot). */
function optionsKeyOf(o: BuildOptions): string {
  return readingInput('the options', () => JSON.stringify([
    o.coreTools ?? null,
    o.scoring ?? dropInScoring(),
    o.exclude ?? null,
    o.includeForce ?? null,
    o.promptTimeoutMs ?? null,
    o.tuning ?? null,
    envList(ENV.exclude),
    envList(ENV.includeForce),
  ]))
}
