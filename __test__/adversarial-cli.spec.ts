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

describe.each(['node', 'bun'] as const)('the CLI\'s contract under %s', (runtime) => {
  const run = (args: string[], env: Record<string, string> = {}) => {
    const r = spawnSync(runtime === 'node' ? NODE : BUN, [CLI, ...args], { encoding: 'utf8', timeout: DEADLINE_MS, env: { ...process.env, ...env } })
    return { status: r.status, stdout: r.stdout, stderr: r.stderr }
  }
  const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ti-cli-'))

  test('--help prints the usage on stdout (exit 0), naming serve; no command is a usage error (exit 2) [regression: help on stderr, no arguments exit 0]', () => {
    const help = run(['--help'])
    expect(help.status).toBe(0)
    expect(help.stdout).toContain('tool-index serve --config FILE')
    const none = run([])
    expect(none.status).toBe(2)
    expect(none.stderr).toContain('no command given')
  }, DEADLINE_MS + 5_000)

  test.skipIf(!hasMkfifo)('serve --config on a FIFO or a device is refused at once (exit 1) [regression: it hung, or filled memory from /dev/zero]', () => {
    const dir = tmp()
    const fifo = path.join(dir, 'config.json')
    spawnSync('mkfifo', [fifo])
    try {
      for (const file of [fifo, '/dev/zero']) {
        const r = run(['serve', '--config', file])
        expect(r.status).toBe(1)
        expect(r.stderr).toMatch(/FIFO|device/)
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 2 * DEADLINE_MS)

  test('a catalog and a config that begin with a byte-order mark are read [regression: "not valid JSON"]', () => {
    const dir = tmp()
    const catalog = path.join(dir, 'c.json')
    fs.writeFileSync(catalog, `\uFEFF${JSON.stringify({ tools: [{ name: 'bom_tool', description: 'reads files with a byte order mark' }] })}`)
    const r = run(['search', 'byte order mark', '--catalog', catalog, '--all', '--json'])
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout).results[0].name).toBe('bom_tool')
    const config = path.join(dir, 'g.json')
    fs.writeFileSync(config, `\uFEFF${JSON.stringify({ mcpServers: {}, gateway: { maxTools: 0 } })}`)
    // Read as JSON: the error is about the setting, not the file.
    const s = run(['serve', '--config', config])
    expect(s.status).toBe(1)
    expect(s.stderr).toContain('gateway.maxTools')
  }, DEADLINE_MS + 5_000)

  test('control characters in a tool\'s name or description are shown escaped in text output [regression: terminal escapes and forged rows]', () => {
    const dir = tmp()
    const catalog = path.join(dir, 'c.json')
    fs.writeFileSync(catalog, JSON.stringify({ tools: [{ name: 'ok\n 2. 9.999  mcp__fake__tool', description: 'escape \u001b]0;owned\u0007 sequences here' }] }))
    const r = run(['search', 'escape sequences', '--catalog', catalog, '--all'])
    expect(r.status).toBe(0)
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/)
    expect(r.stdout).toContain('ok\\u000a 2. 9.999')
    expect(r.stdout).toContain('\\u001b]0;owned\\u0007')
  }, DEADLINE_MS + 5_000)

  test('serve --http and --max-sessions take digits only [regression: "" bound a random port, 1e3 and 0x50 were taken]', () => {
    const dir = tmp()
    const config = path.join(dir, 'g.json')
    fs.writeFileSync(config, JSON.stringify({ mcpServers: {} }))
    for (const flags of [['--http', ''], ['--http', '1e3'], ['--http', '0x50'], ['--http', '8080', '--max-sessions', '1e2']]) {
      const r = run(['serve', '--config', config, ...flags])
      expect(r.status).toBe(2)
    }
  }, 4 * DEADLINE_MS)

  test('search --mcp reads every page, leaves out a tool the SDK cannot take, and gives the server the user\'s environment [regression: first page only; one bad outputSchema failed the run; environment dropped]', () => {
    const raw = path.join(__dirname, 'fixtures', 'gateway', 'raw-server.mjs')
    const r = run(['search', 'zz2_1', '--mcp', `node ${raw}`, '--all', '--json', '--limit', '50'], { RAW_PAGES: '3', RAW_BAD_OUTPUT: '1', RAW_PREFIX: 'zz' })
    expect(r.status).toBe(0)
    const names = JSON.parse(r.stdout).results.map((x: { name: string }) => x.name)
    expect(names.some((n: string) => n.endsWith('__zz2_1'))).toBe(true)
  }, DEADLINE_MS + 5_000)
})
