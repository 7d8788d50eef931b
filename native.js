'use strict'
// The native binding as the package loads it: the generated loader (`index.js`) after one check
// of the runtime (see `runtime.js`). Everything native in the package, and its `./native`
// export, comes through here.
const { finalizerMode, loadAddon, BUN_GC_FINALIZERS } = require('./runtime.js')

function fail(code, message, cause) {
  const err = new Error(message, cause === undefined ? undefined : { cause })
  err.name = 'ToolIndexError'
  err.code = code
  return err
}

const mode = finalizerMode(process.versions)
if (mode === 'unsupported') {
  throw fail(
    'E_UNSUPPORTED_RUNTIME',
    `@ccb/tool-index-native needs Bun ${BUN_GC_FINALIZERS.join('.')} or later (this is Bun ${process.versions.bun}): an older Bun aborts when it collects a dropped index`,
  )
}
let binding
try {
  binding = loadAddon(() => require('./index.js'))
} catch (e) {
  throw fail(
    'E_NATIVE_UNAVAILABLE',
    `the native addon of @ccb/tool-index-native could not be loaded on ${process.platform}-${process.arch}` +
      ' (prebuilt for linux x64/arm64 gnu and musl, darwin x64/arm64, win32 x64/arm64; elsewhere build it from' +
      ` source with \`npm run build\`): ${String((e && e.message) || e).split('\n')[0]}`,
    e,
  )
}

module.exports = binding
