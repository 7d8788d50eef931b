/** Each worker builds and searches its own index at the same time as the others. */
import { describe, expect, test } from 'bun:test'
import * as path from 'node:path'
import { Worker } from 'node:worker_threads'
import { ToolIndex } from '../dist/index.js'
import catalog from '../catalog/default-catalog.json'

const tools = (catalog.tools as { name: string; description: string; searchHint?: string }[]).map((t) => ({
  name: t.name,
  description: t.description,
  searchHint: t.searchHint,
}))
const queries = ['create a github issue', 'schedule a recurring prompt', 'read a file', '发送文件', 'take a screenshot']

function runWorker(id: number, scoring: 'compat' | 'enhanced'): Promise<{ id: number; length: number; first: string[]; count: number }> {
  return new Promise((resolve, reject) => {
    const w = new Worker(path.join(__dirname, 'fixtures', 'worker-search.js'), {
      workerData: { id, tools, queries, rounds: 200, scoring },
    })
    w.once('message', resolve)
    w.once('error', reject)
    w.once('exit', (code) => code !== 0 && reject(new Error(`worker ${id} exited with ${code}`)))
  })
}

describe('workers', () => {
  for (const scoring of ['compat', 'enhanced'] as const) {
    test(`4 workers build and search their own ${scoring} index concurrently, with the main thread's results`, async () => {
      const main = ToolIndex.fromEntries(tools, { scoring })
      const expected = queries.map((q) => main.search(q, 3).map((h) => h.name).join(','))
      const results = await Promise.all([0, 1, 2, 3].map((i) => runWorker(i, scoring)))
      for (const r of results) {
        expect(r.length).toBe(tools.length)
        expect(r.count).toBe(200 * queries.length)
        expect(r.first).toEqual(expected)
      }
    }, 60_000)
  }

  test('an index does not cross to a worker: posting it does not hand over a usable index', async () => {
    const index = ToolIndex.fromEntries(tools)
    const w = new Worker(
      `const { parentPort } = require('node:worker_threads');
       parentPort.once('message', (m) => {
         let usable = false
         try { usable = typeof m?.search === 'function' && Array.isArray(m.search('issue')) } catch {}
         parentPort.postMessage({ usable })
       })`,
      { eval: true },
    )
    let outcome: { threw?: string; usable?: boolean }
    try {
      w.postMessage(index)
      outcome = await new Promise((resolve) => w.once('message', resolve))
    } catch (e) {
      outcome = { threw: (e as Error).name }
    }
    await w.terminate()
    // Either structured clone refuses it, or the worker receives a plain object without methods.
    expect(outcome.threw !== undefined || outcome.usable === false).toBe(true)
    // The index still works where it was built.
    expect(index.search('create a github issue', 1)[0].name).toBe('mcp__github__create_issue')
  }, 30_000)
})
