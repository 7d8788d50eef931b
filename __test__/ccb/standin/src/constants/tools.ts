/** Stand-in for ccb's src/constants/tools.ts: its 28 core tools. */
import { CCB_CORE_TOOLS } from '@ccb/tool-index-native'

export const CORE_TOOLS: ReadonlySet<string> = CCB_CORE_TOOLS
