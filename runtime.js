'use strict'
// Which runtimes may run the addon's finalizers during garbage collection (read by `native.js`).
//
// The addon asks the runtime to run its finalizers during a collection, so that a dropped index's
// memory comes back even in a loop that never yields. Those finalizers delete the object's
// Node-API reference, which runtimes allow there only since Node 20.18.3, 22.13.0 and 23.5.0
// (nodejs/node#55620) and Bun 1.4.0. Before that, the first collection of a dropped index
// aborted the process ("Finalizer is calling a function that may affect GC state"): measured
// with Node 18.20.8, 20.10.0, 20.18.2, 22.12.0, 23.3.0, 23.4.0 and Bun 1.3.14 (aborted) against
// 20.18.3, 22.13.0, 22.14.0, 23.5.0, 23.6.0, 20.20.2 and Bun 1.4.0, 1.4.4 (not).

/** Node versions from which finalizers may delete references during a collection, by major. */
const NODE_GC_FINALIZERS = { 20: [20, 18, 3], 22: [22, 13, 0], 23: [23, 5, 0] }
/** The first Node major in which every version allows it. */
const NODE_GC_FINALIZERS_ALL = 24
/** The first Bun that allows it. */
const BUN_GC_FINALIZERS = [1, 4, 0]

function parse(version) {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(String(version))
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null
}

function atLeast(v, min) {
  for (let i = 0; i < 3; i++) if (v[i] !== min[i]) return v[i] > min[i]
  return true
}

/**
 * How a runtime may run the addon's finalizers, from its `process.versions`: `'gc'` (during a
 * collection), `'deferred'` (an older Node: queued by Node for a later turn of the event loop)
 * or `'unsupported'` (an older Bun, which cannot be told to defer them).
 */
function finalizerMode(versions) {
  const bunVersion = versions !== null && typeof versions === 'object' ? versions.bun : undefined
  if (bunVersion !== undefined) {
    const bun = parse(bunVersion)
    return bun && atLeast(bun, BUN_GC_FINALIZERS) ? 'gc' : 'unsupported'
  }
  const node = parse(versions !== null && typeof versions === 'object' ? versions.node : undefined)
  if (!node) return 'deferred'
  if (node[0] >= NODE_GC_FINALIZERS_ALL) return 'gc'
  const min = NODE_GC_FINALIZERS[node[0]]
  return min && atLeast(node, min) ? 'gc' : 'deferred'
}

/** The variable an addon of this package reads once, when it loads (see its `node_api_module_get_api_version_v1`). */
const DEFER_FLAG = 'TOOL_INDEX_DEFER_FINALIZERS'

/**
 * Load an addon (`load()`, a `require`) the way this runtime may run its finalizers: on an older
 * Node the addon is told to let Node queue them for a later turn of the event loop. The variable
 * is not left for child processes.
 */
function loadAddon(load) {
  const deferred = finalizerMode(process.versions) !== 'gc'
  if (deferred) process.env[DEFER_FLAG] = '1'
  try {
    return load()
  } finally {
    if (deferred) delete process.env[DEFER_FLAG]
  }
}

module.exports = { finalizerMode, loadAddon, BUN_GC_FINALIZERS }
