/**
 * Hostile input straight at the native binding (`index.js`), each case in its own child process
 * of the runtime running the suite (Bun, or Node under `npm run test:node`) so an abort (a failed allocation, a panic across the boundary) fails the case instead
 * of killing the test runner. Covers: array arguments whose `length` was set by hand to
 * 2**32 - 1 (every native export that takes an array), `dispose()`, external-memory reporting,
 * and a 10 MB query (its time is printed, not asserted).
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

const ROOT = join(__dirname, '..')

/** Run `body` in a child of this runtime with `n` (the binding) in scope; return its last stdout line as JSON. */
function child(body: string): { code: number | null; out: unknown; stderr: string } {
  const script = `
    const n = require(${JSON.stringify(join(ROOT, 'index.js'))});
    const huge = () => { const a = []; a.length = 2 ** 32 - 1; return a };
    const codeOf = (fn) => { try { fn(); return 'no error' } catch (e) { return e && e.code } };
    const out = (() => { ${body} })();
    process.stdout.write('\\n' + JSON.stringify(out) + '\\n');
  `
  const r = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, maxBuffer: 1 << 24 })
  const lines = r.stdout.trim().split('\n')
  let out: unknown
  try {
    out = JSON.parse(lines[lines.length - 1] ?? 'null')
  } catch {
    out = undefined
  }
  return { code: r.status, out, stderr: r.stderr }
}

const TOOLS = `[{ name: 'mcp__github__create_issue', description: 'Create an issue' }, { name: 'Read', description: 'Read a file' }]`

describe('native: array lengths are capped before anything is read', () => {
  const cases: Record<string, string> = {
    'new ToolIndex(huge)': `return codeOf(() => new n.ToolIndex(huge()))`,
    'new ToolIndex(huge, enhanced)': `return codeOf(() => new n.ToolIndex(huge(), { scoring: 'enhanced' }))`,
    'upsert(huge)': `const i = new n.ToolIndex(${TOOLS}); return codeOf(() => i.upsert(huge()))`,
    'remove(huge)': `const i = new n.ToolIndex(${TOOLS}); return codeOf(() => i.remove(huge()))`,
    'selectIndexable(huge, [])': `return codeOf(() => n.selectIndexable(huge(), []))`,
    'selectIndexable([], huge)': `return codeOf(() => n.selectIndexable([], huge()))`,
    'selectIndexable coreTools huge': `return codeOf(() => n.selectIndexable([], [], huge()))`,
    'selectIndexable exclude huge': `return codeOf(() => n.selectIndexable([], [], null, huge()))`,
    'selectIndexable includeForce huge': `return codeOf(() => n.selectIndexable([], [], null, null, huge()))`,
    'isDeferredTool coreTools huge': `return codeOf(() => n.isDeferredTool({ name: 'x' }, huge()))`,
    'tuning.weights huge': `return codeOf(() => new n.ToolIndex(${TOOLS}, { scoring: 'enhanced', tuning: { weights: huge() } }))`,
    'tuning.b huge': `return codeOf(() => new n.ToolIndex(${TOOLS}, { scoring: 'enhanced', tuning: { b: huge() } }))`,
    // Regression: the vector store's names crossed as a Vec, allocated for 2^32 − 1 strings: SIGABRT.
    'NativeVectorStore.upsertMany(huge)': `return codeOf(() => new n.NativeVectorStore(4).upsertMany(huge(), new Float32Array(4)))`,
  }
  for (const [name, body] of Object.entries(cases)) {
    test(name, () => {
      const r = child(body)
      expect({ exit: r.code, out: r.out }).toEqual({ exit: 0, out: 'E_TOO_LARGE' })
    })
  }

  test('a vector store name list whose element getter throws is a coded argument error', () => {
    const r = child(`const a = ['a']; Object.defineProperty(a, 0, { get() { throw new Error('getter') } }); return codeOf(() => new n.NativeVectorStore(4).upsertMany(a, new Float32Array(4)))`)
    expect({ exit: r.code, out: r.out }).toEqual({ exit: 0, out: 'E_INVALID_ARG' })
  })

  test('a hole inside a short array is a coded argument error', () => {
    const r = child(`const a = [{ name: 'a' }]; a.length = 3; return codeOf(() => new n.ToolIndex(a))`)
    expect({ exit: r.code, out: r.out }).toEqual({ exit: 0, out: 'E_INVALID_ARG' })
  })

  test('the documented cap is exported', () => {
    const r = child(`return n.maxListLength()`)
    expect(r.out).toBe(16_777_216)
  })
})

describe.each(['compat', 'enhanced'])('native (%s): a large build reads its entries while earlier chunks are analysed', (scoring) => {
  // 5,000 entries: the binding reads them in chunks of 1,024 and the index analyses and links
  // each chunk while the next is read. Errors must still come as from a build of the whole
  // array: a bad entry anywhere wins over repeated names, and nothing after it is read.
  const MANY = `const O = { scoring: '${scoring}' }; const many = (n) => Array.from({ length: n }, (_, i) => ({ name: 't' + i, description: 'word' + (i % 37) + ' file ' + i }))`
  const cases: Record<string, [string, unknown]> = {
    'same results as the unstreamed build': [
      `${MANY}; const a = many(5000); const s = new n.ToolIndex(a, O), u = new n.ToolIndex(a, { ...O, parallelThreshold: 1e9 });
       return ['word3 file', 'file 4999', 'word36', 't4321'].every((q) => JSON.stringify(s.search(q, 20, 0)) === JSON.stringify(u.search(q, 20, 0))) && s.length`,
      5000,
    ],
    'repeated names across chunks, in order': [
      `${MANY}; const a = many(5000); a[5].name = 't4000'; a[4001].name = 't7'; a[4999].name = 't7';
       try { new n.ToolIndex(a, O) } catch (e) { return [e.code, e.message.split('repeated: ')[1]] }`,
      ['E_DUPLICATE_NAME', 't4000, t7, t7'],
    ],
    'a bad entry late wins over repeats early': [
      `${MANY}; const a = many(5000); a[1].name = 't0'; a[4500] = { name: 42 };
       try { new n.ToolIndex(a, O) } catch (e) { return [e.code, e.message.startsWith('array element 4500')] }`,
      ['E_INVALID_ARG', true],
    ],
    'nothing is read after a throwing getter': [
      `${MANY}; const a = many(5000); let after = 0;
       Object.defineProperty(a[3000], 'description', { get() { throw new Error('boom') } });
       Object.defineProperty(a[4000], 'name', { get() { after++; return 'x' } });
       return [codeOf(() => new n.ToolIndex(a, O)), after]`,
      ['E_INVALID_ARG', 0],
    ],
    'an array emptied by a getter mid-build': [
      `${MANY}; const a = many(5000);
       Object.defineProperty(a[2500], 'name', { get() { a.length = 0; return 'cut' } });
       return codeOf(() => new n.ToolIndex(a, O))`,
      'E_INVALID_ARG',
    ],
    'a getter that builds, disposes and updates other indexes mid-build': [
      `${MANY}; const a = many(5000); const other = new n.ToolIndex(many(3000));
       Object.defineProperty(a[3000], 'description', { get() { new n.ToolIndex(many(4000)).dispose(); other.upsert(many(2500).map((e) => ({ ...e, name: 'u' + e.name }))); return 'x' } });
       const s = new n.ToolIndex(a, O); return [s.length, other.length, s.search('file 4999', 1, 0)[0].name]`,
      [5000, 5500, 't4999'],
    ],
    'bad options come before a bad entry': [
      `${MANY}; const a = many(5000); a[4500] = null; return codeOf(() => new n.ToolIndex(a, { scoring: 'x' }))`,
      'E_INVALID_SCORING',
    ],
    'a bad entry comes before a bad threshold': [
      `${MANY}; const a = many(5000); a[4500] = null; return codeOf(() => new n.ToolIndex(a, { ...O, minScore: NaN }))`,
      'E_INVALID_ARG',
    ],
  }
  for (const [name, [body, want]] of Object.entries(cases)) {
    test(name, () => {
      const r = child(body)
      expect({ exit: r.code, out: r.out, stderr: r.stderr }).toEqual({ exit: 0, out: want, stderr: '' })
    })
  }
})

describe('native: dispose', () => {
  test('frees the index; later calls throw E_DISPOSED; dispose twice is a no-op', () => {
    const r = child(`
      const i = new n.ToolIndex(${TOOLS});
      const before = i.externalMemory;
      i.dispose();
      i.dispose();
      return {
        before: before > 0,
        after: i.externalMemory,
        disposed: i.disposed,
        search: codeOf(() => i.search('issue')),
        length: codeOf(() => i.length),
        upsert: codeOf(() => i.upsert([{ name: 'x' }])),
        remove: codeOf(() => i.remove(['Read'])),
        rank: codeOf(() => i.toolSearchRank('issue')),
        explain: codeOf(() => i.explain('issue', 'Read')),
        ids: codeOf(() => i.ids()),
      };
    `)
    expect(r.code).toBe(0)
    expect(r.out).toEqual({
      before: true,
      after: 0,
      disposed: true,
      search: 'E_DISPOSED',
      length: 'E_DISPOSED',
      upsert: 'E_DISPOSED',
      remove: 'E_DISPOSED',
      rank: 'E_DISPOSED',
      explain: 'E_DISPOSED',
      ids: 'E_DISPOSED',
    })
  })

  test('external memory follows upsert and remove', () => {
    const r = child(`
      const i = new n.ToolIndex([]);
      const empty = i.externalMemory;
      const tools = Array.from({ length: 2000 }, (_, k) => ({ name: 't' + k, description: 'does thing ' + k }));
      i.upsert(tools);
      const full = i.externalMemory;
      i.remove(tools.map((t) => t.name));
      return { grew: full > empty + 2000 * 16, shrank: i.externalMemory < full };
    `)
    expect(r.code).toBe(0)
    expect(r.out).toEqual({ grew: true, shrank: true })
  })

  test('10k build/dispose cycles without yielding keep RSS flat (printed)', () => {
    const r = child(`
      const tools = Array.from({ length: 50 }, (_, k) => ({ name: 't' + k, description: 'does thing ' + k }));
      const rss = () => process.memoryUsage().rss;
      for (let k = 0; k < 1000; k++) new n.ToolIndex(tools).dispose();
      const start = rss();
      for (let k = 0; k < 10000; k++) new n.ToolIndex(tools).dispose();
      return { start, end: rss() };
    `)
    expect(r.code).toBe(0)
    const o = r.out as { start: number; end: number }
    console.log(`native dispose soak: RSS ${(o.start / 2 ** 20).toFixed(1)} -> ${(o.end / 2 ** 20).toFixed(1)} MiB`)
  })
})

describe('native: a 10 MB query', () => {
  for (const scoring of ['compat', 'enhanced']) {
    test(`${scoring}: search, ToolSearch ranking and explain answer (time printed)`, () => {
      const r = child(`
        const tools = Array.from({ length: 2000 }, (_, k) => ({ name: 'mcp__s' + (k % 7) + '__tool_' + k, description: 'reads file ' + k + ' data' }));
        const i = new n.ToolIndex(tools, { scoring: '${scoring}' });
        const out = {};
        for (const [label, q] of [['word', 'a'.repeat(10 << 20)], ['words', 'file data '.repeat(1 << 20)], ['required', '+file '.repeat(10 << 17)]]) {
          const t = performance.now();
          const hits = i.search(q, 5);
          i.toolSearchRank(q, 5);
          i.explain(q, 'mcp__s0__tool_0');
          out[label] = { ms: Math.round(performance.now() - t), ok: Array.isArray(hits) };
        }
        return out;
      `)
      expect(r.code).toBe(0)
      const o = r.out as Record<string, { ms: number; ok: boolean }>
      for (const [label, v] of Object.entries(o)) {
        expect(v.ok).toBe(true)
        console.log(`native ${scoring} 10 MB query (${label}): search + rank + explain ${v.ms} ms`)
      }
    }, 60_000)
  }
})
