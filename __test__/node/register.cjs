// Preloaded by `npm run test:node` (with tsx): the spec files import `bun:test`, which Node
// cannot resolve; this sends that one specifier to the Node implementation beside this file.
const Module = require('node:module')
const path = require('node:path')

const shim = path.join(__dirname, 'bun-test.ts')
const resolve = Module._resolveFilename
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, request === 'bun:test' ? shim : request, ...rest)
}
