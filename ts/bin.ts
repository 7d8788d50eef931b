#!/usr/bin/env node
/**
 * The `tool-index` binary: the CLI (`cli.ts`), loaded here so that a native addon that cannot
 * load (`E_NATIVE_UNAVAILABLE`, `E_UNSUPPORTED_RUNTIME`, thrown while the CLI's modules load) is
 * told in one line, with exit status 1, instead of a stack trace.
 */
let cli: typeof import('./cli')
try {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  cli = require('./cli') as typeof import('./cli')
} catch (e) {
  const code = (e as { code?: unknown })?.code
  if (code !== 'E_NATIVE_UNAVAILABLE' && code !== 'E_UNSUPPORTED_RUNTIME') throw e
  process.stderr.write(`tool-index: ${(e as Error).message} [${String(code)}]\n`)
  process.exit(1)
}
cli.run(process.argv.slice(2))
