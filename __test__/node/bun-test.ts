/**
 * The part of `bun:test` these suites use, over Node's own test runner, so the same spec files
 * run under Node too (`npm run test:node`; `__test__/node/register.cjs` resolves `bun:test` to
 * this file). Matchers are Jest's `expect`, mock functions `jest-mock`'s: both implement the
 * API that Bun's test runner copies. Bun's defaults are kept: 5 s a test unless the test says
 * otherwise.
 */
import * as node from 'node:test'
import { format } from 'node:util'
import { expect as jestExpect } from 'expect'
import { ModuleMocker } from 'jest-mock'

type Fn = () => unknown | Promise<unknown>
type Options = number | { timeout?: number }

const BUN_DEFAULT_TIMEOUT_MS = 5_000

function timeoutOf(options?: Options): number {
  if (typeof options === 'number') return options
  return options?.timeout ?? BUN_DEFAULT_TIMEOUT_MS
}

/** Bun's `%s`-style titles for `each`: printf placeholders, else `$key` of an object row. */
function titleOf(template: string, row: unknown, index: number): string {
  const args = Array.isArray(row) ? row : [row]
  if (/%[sdifjopP#%]/.test(template)) {
    return format(template.replace(/%#/g, String(index)).replace(/%p/g, '%o'), ...args)
  }
  if (row !== null && typeof row === 'object' && !Array.isArray(row)) {
    return template.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, (m, key: string) =>
      key in (row as Record<string, unknown>) ? String((row as Record<string, unknown>)[key]) : m,
    )
  }
  return template
}

function spread(row: unknown): unknown[] {
  return Array.isArray(row) ? row : [row]
}

type TestFn = {
  (name: string, fn: Fn, options?: Options): void
  skip: (name: string, fn?: Fn, options?: Options) => void
  skipIf: (condition: unknown) => (name: string, fn: Fn, options?: Options) => void
  each: <T>(rows: readonly T[]) => (name: string, fn: (...args: any[]) => unknown, options?: Options) => void
}

export const test: TestFn = Object.assign(
  (name: string, fn: Fn, options?: Options) => {
    node.test(name, { timeout: timeoutOf(options) }, async () => {
      await fn()
    })
  },
  {
    skip: (name: string) => {
      node.test(name, { skip: true }, () => {})
    },
    skipIf: (condition: unknown) => (name: string, fn: Fn, options?: Options) => {
      if (condition) node.test(name, { skip: true }, () => {})
      else test(name, fn, options)
    },
    each:
      <T,>(rows: readonly T[]) =>
      (name: string, fn: (...args: any[]) => unknown, options?: Options) => {
        rows.forEach((row, i) => test(titleOf(name, row, i), () => fn(...spread(row)), options))
      },
  },
)

export const it = test

type DescribeFn = {
  (name: string, fn: () => void): void
  skip: (name: string, fn: () => void) => void
  skipIf: (condition: unknown) => (name: string, fn: () => void) => void
  each: <T>(rows: readonly T[]) => (name: string, fn: (...args: any[]) => void) => void
}

export const describe: DescribeFn = Object.assign(
  (name: string, fn: () => void) => {
    node.describe(name, () => {
      fn()
    })
  },
  {
    skip: (name: string, fn: () => void) => {
      node.describe(name, { skip: true }, () => {
        fn()
      })
    },
    skipIf: (condition: unknown) => (name: string, fn: () => void) => {
      if (condition) describe.skip(name, fn)
      else describe(name, fn)
    },
    each:
      <T,>(rows: readonly T[]) =>
      (name: string, fn: (...args: any[]) => void) => {
        rows.forEach((row, i) => describe(titleOf(name, row, i), () => fn(...spread(row))))
      },
  },
)

export const beforeAll = (fn: Fn, options?: Options) => node.before(async () => void (await fn()), { timeout: timeoutOf(options) })
export const afterAll = (fn: Fn, options?: Options) => node.after(async () => void (await fn()), { timeout: timeoutOf(options) })
export const beforeEach = (fn: Fn, options?: Options) => node.beforeEach(async () => void (await fn()), { timeout: timeoutOf(options) })
export const afterEach = (fn: Fn, options?: Options) => node.afterEach(async () => void (await fn()), { timeout: timeoutOf(options) })

// Bun's matchers beyond Jest's that these suites use.
jestExpect.extend({
  toStartWith(received: unknown, prefix: string) {
    const pass = typeof received === 'string' && received.startsWith(prefix)
    return {
      pass,
      message: () => `expected ${JSON.stringify(received)} ${pass ? 'not ' : ''}to start with ${JSON.stringify(prefix)}`,
    }
  },
})

export const expect = jestExpect as typeof jestExpect & ((actual: unknown) => any)

const mocker = new ModuleMocker(globalThis)

/** `mock(impl)`: a mock function that records its calls, as Bun's does. */
export function mock<T extends (...args: any[]) => any>(impl?: T) {
  return mocker.fn(impl)
}
