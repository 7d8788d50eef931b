/**
 * The TypeScript layer's shape: its modules import each other without cycles (so they load in
 * any order and read top-down), and `index.ts` only re-exports.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

const root = resolve(__dirname, '..', 'ts')

function modules(): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (p.endsWith('.ts')) out.push(p)
    }
  }
  walk(root)
  return out
}

/** Relative imports and re-exports of each module, type-only ones included. */
function graph(files: string[]): Map<string, string[]> {
  const edges = new Map<string, string[]>()
  for (const f of files) {
    const deps: string[] = []
    for (const m of readFileSync(f, 'utf8').matchAll(/(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(['"](\.[^'"]+)['"]\)/g)) {
      const t = resolve(dirname(f), m[1] ?? m[2])
      const hit = [`${t}.ts`, join(t, 'index.ts')].find((c) => files.includes(c))
      if (hit) deps.push(hit)
    }
    edges.set(f, deps)
  }
  return edges
}

function cycles(edges: Map<string, string[]>): string[] {
  const state = new Map<string, 1 | 2>()
  const stack: string[] = []
  const found: string[] = []
  const visit = (n: string) => {
    state.set(n, 1)
    stack.push(n)
    for (const d of edges.get(n) ?? []) {
      if (state.get(d) === 1) found.push([...stack.slice(stack.indexOf(d)), d].map((p) => p.slice(root.length + 1)).join(' -> '))
      else if (!state.has(d)) visit(d)
    }
    stack.pop()
    state.set(n, 2)
  }
  for (const f of edges.keys()) if (!state.has(f)) visit(f)
  return found
}

describe('ts/ structure', () => {
  test('no import cycles', () => {
    const files = modules()
    expect(files.length).toBeGreaterThan(10)
    expect(cycles(graph(files))).toEqual([])
  })

  test('the checker finds a cycle when there is one', () => {
    const a = join(root, 'a.ts')
    const b = join(root, 'b.ts')
    expect(cycles(new Map([[a, [b]], [b, [a]]]))).toEqual(['a.ts -> b.ts -> a.ts'])
  })

  test('index.ts is a barrel: re-exports only', () => {
    const src = readFileSync(join(root, 'index.ts'), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '')
    const reexport = /export (?:type )?\{[^}]*\} from '\.\/[a-zA-Z]+'/g
    expect(src.match(reexport)?.length).toBeGreaterThan(5)
    expect(src.replace(reexport, '').trim()).toBe('')
  })
})
