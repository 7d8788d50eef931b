// Node 20 smoke test: the package root loads under Node (ESM import and CJS require) and searches.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import * as path from 'node:path'
import * as esm from '../../dist/index.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
const catalog = JSON.parse(readFileSync(path.join(here, '..', '..', 'catalog', 'default-catalog.json'), 'utf8')).tools

test('ESM named imports resolve', () => {
  for (const name of ['buildToolIndex', 'searchTools', 'getToolIndex', 'clearToolIndexCache', 'parseToolName', 'isDeferredTool', 'tokenize', 'tokenizeAndStem', 'toolSearch', 'executeTool', 'formatToolSearchResult']) {
    assert.equal(typeof esm[name], 'function', name)
  }
  assert.equal(esm.CORE_TOOLS.size, 31)
})

test('CJS require gives the same module', () => {
  const cjs = require('../../dist/index.js')
  assert.equal(cjs.searchTools, esm.searchTools)
})

test('build and search the bundled catalog under Node', async () => {
  const tools = catalog.map((t) => ({ name: t.name, searchHint: t.searchHint, prompt: async () => t.description, inputJSONSchema: t.inputSchema }))
  const index = await esm.buildToolIndex(tools)
  assert.ok(index.length > 50, `indexed ${index.length}`)
  assert.ok(![...index].some((e) => esm.CORE_TOOLS.has(e.name)), 'no core tool is indexed')
  const hits = esm.searchTools('schedule a recurring cron job', index)
  assert.ok(hits.length > 0)
  assert.match(hits[0].name, /^Cron/)
  const out = await esm.toolSearch({ query: 'create a github issue', max_results: 3 }, { tools })
  assert.equal(out.matches[0], 'mcp__github__create_issue')
})

test('errors carry a stable code under Node', () => {
  assert.throws(() => esm.searchTools('x', esm.ToolIndex.fromEntries([{ name: 'a' }]), -1), { code: 'E_INVALID_LIMIT' })
  assert.throws(() => new (esm.nativeBinding.ToolIndex)([{ name: 'a' }, { name: 'a' }]), { code: 'E_DUPLICATE_NAME' })
})

test('the native ToolIndex class is usable directly', () => {
  const idx = new esm.nativeBinding.ToolIndex([
    { name: 'mcp__github__create_issue', description: 'Create an issue in a repository' },
    { name: 'mcp__slack__slack_post_message', description: 'Post a message to a channel' },
  ])
  assert.equal(idx.length, 2)
  const hits = idx.search('post a message', 5)
  assert.equal(hits[0].name, 'mcp__slack__slack_post_message')
})
