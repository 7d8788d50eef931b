/**
 * Stand-in for ccb's src/utils/searchExtraTools.ts: the mode from ENABLE_SEARCH_EXTRA_TOOLS, the
 * "is the search tool in the list" check, and the discovered-names scan (the package's own
 * implementation of the same rules).
 */
import { extractDiscoveredToolNames as fromPackage, isToolSearchEnabled } from '@ccb/tool-index-native'

export function isSearchExtraToolsEnabledOptimistic(): boolean {
  return isToolSearchEnabled()
}

export function isSearchExtraToolsToolAvailable(tools: readonly { name: string }[]): boolean {
  return tools.some((t) => t.name === 'SearchExtraTools')
}

export function extractDiscoveredToolNames(messages: unknown[]): Set<string> {
  return fromPackage(messages)
}
