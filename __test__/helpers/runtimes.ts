/**
 * The two runtimes the suites start child processes with, whichever of them runs the suite:
 * Bun is the repo's devDependency, Node the `node` on PATH (or the Node running the suite).
 */
import * as path from 'node:path'

const ROOT = path.resolve(__dirname, '..', '..')

/** The Bun binary: this process under Bun, else the devDependency's. */
export const BUN = process.versions.bun ? process.execPath : path.join(ROOT, 'node_modules', '.bin', 'bun')

/** The Node binary: this process under Node, else `node` from PATH. */
export const NODE = process.versions.bun ? 'node' : process.execPath
