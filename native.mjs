// The `./native` export for ES modules: the binding `native.js` loads, its exports named one by
// one (Node's ES-module loader cannot see the names of a CommonJS module that sets
// `module.exports` at run time, so `import { ToolIndex } from '…/native'` would fail there).
// The same object as `require('…/native')`: one binding per process either way.
import binding from './native.js'

export const {
  tokenize,
  coreTools,
  crowdAbstain,
  lexiconGloss,
  splitClauses,
  maxListLength,
  parseToolName,
  isDeferredTool,
  selectIndexable,
  tokenizeAndStem,
  MAX_VECTOR_DIM,
  Scoring,
  KeywordPath,
  ToolIndex,
  NativeVectorStore,
  __napiBindingTarget,
} = binding
export default binding
