/**
 * The CLI never blocks forever: a `--catalog` that is a FIFO with no writer, a character device
 * or a directory is refused (exit 1) well inside a deadline, under Node and Bun. `--mcp`
 * commands are split like a shell would, and shell operators are refused.
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { BUN, NODE } from './helpers/runtimes'
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { splitCommand, readRegularFile, COMMANDS } = require('../dist/cli.js') as typeof import('../ts/cli')

const CLI = path.join(__dirname, '..', 'dist', 'cli.js')
const DEADLINE_MS = 15_000
const hasMkfifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--version']).status === 0

function cli(runtime: 'node' | 'bun', ...args: string[]) {
  const r = spawnSync(runtime === 'node' ? NODE : BUN, [CLI, ...args], { encoding: 'utf8', timeout: DEADLINE_MS, stdio: ['ignore', 'pipe', 'pipe'] })
  return { status: r.status, signal: r.signal, timedOut: (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT', stderr: r.stderr }
}

describe.each(['node', 'bun'] as const)('hostile --catalog under %s', (runtime) => {
  test.skipIf(!hasMkfifo)('a FIFO with no writer is refused, not waited on', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ti-fifo-'))
    const fifo = path.join(dir, 'catalog.json')
    spawnSync('mkfifo', [fifo])
    try {
      const r = cli(runtime, 'search', 'x', '--catalog', fifo)
      expect(r.timedOut).toBe(false)
      expect(r.status).toBe(1)
      expect(r.stderr).toContain('FIFO')
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, DEADLINE_MS + 5_000)

  test.skipIf(!fs.existsSync('/dev/zero'))('a device (/dev/zero, endless) is refused', () => {
    const r = cli(runtime, 'search', 'x', '--catalog', '/dev/zero')
    expect(r.timedOut).toBe(false)
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('device')
  }, DEADLINE_MS + 5_000)

  test('a tool whose description is not a string is refused with a message, not a TypeError', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ti-cat-')), 'c.json')
    fs.writeFileSync(file, JSON.stringify({ tools: [{ name: 'a_tool', description: 42 }] }))
    for (const extra of [[], ['--json']]) {
      const r = cli(runtime, 'search', 'a', '--catalog', file, ...extra)
      expect(r.status).toBe(1)
      expect(r.stderr).toContain('"description" that is not a string')
      expect(r.stderr).not.toContain('TypeError')
    }
  }, DEADLINE_MS + 5_000)

  test('two tools of one name: the first is searched and shown, the second is named as left out', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ti-cat-')), 'c.json')
    fs.writeFileSync(file, JSON.stringify({ tools: [{ name: 'a_tool', description: 'alpha widget maker' }, { name: 'a_tool', description: 'something else' }] }))
    const r = spawnSync(runtime === 'node' ? NODE : BUN, [CLI, 'search', 'alpha widget', '--catalog', file, '--all', '--json'], { encoding: 'utf8', timeout: DEADLINE_MS })
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout).results.map((x: { name: string; description: string }) => [x.name, x.description])).toEqual([['a_tool', 'alpha widget maker']])
    expect(r.stderr).toContain('"a_tool" left out (duplicate name)')
  }, DEADLINE_MS + 5_000)

  test('an empty --catalog or --mcp is a usage error, not a search of the bundled catalog', () => {
    for (const args of [['--catalog', ''], ['--mcp', ''], ['--mcp', '  ']]) {
      const r = cli(runtime, 'search', 'read', ...args)
      expect(r.status).toBe(2)
    }
  }, DEADLINE_MS + 5_000)

  test('a directory is refused', () => {
    const r = cli(runtime, 'search', 'x', '--catalog', os.tmpdir())
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('directory')
  }, DEADLINE_MS + 5_000)
})

describe('CLI parts', () => {
  test('a regular catalog file still reads', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ti-cat-')), 'c.json')
    fs.writeFileSync(file, '{"tools":[]}')
    expect(readRegularFile(file, 'catalog')).toBe('{"tools":[]}')
  })

  test('--mcp splits like a shell: quotes and escapes kept, operators refused', () => {
    expect(splitCommand(`npx -y "@scope/server name" --dir 'a b' c\\ d`)).toEqual(['npx', '-y', '@scope/server name', '--dir', 'a b', 'c d'])
    for (const bad of ['a | b', 'a; rm -rf /', 'a && b', 'a > out', 'a *.json']) expect(() => splitCommand(bad)).toThrow()
  })

  test('subcommands are a map (search is one entry)', () => {
    expect(Object.keys(COMMANDS)).toEqual(expect.arrayContaining(['search', 'serve']))
    expect(typeof COMMANDS.search).toBe('function')
  })

  test('unknown flags and bad values are usage errors (exit 2)', () => {
    for (const args of [['search', 'x', '--bogus'], ['search', 'x', '--limit=abc'], ['search', 'x', '--scoring=fast'], ['nope', 'x']]) {
      expect(cli('node', ...args).status).toBe(2)
    }
  })
})
