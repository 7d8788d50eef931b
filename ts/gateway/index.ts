/**
 * The MCP gateway (`tool-index serve`): search-then-execute over many MCP servers, on the
 * package's index, ToolSearch and ExecuteTool. Needs `@modelcontextprotocol/sdk` (optional peer).
 */
export { ConfigError, DEFAULT_SETTINGS, loadConfig, normalizeServerName, parseConfig } from './config'
export type { GatewayConfig, GatewaySettings, UpstreamConfig } from './config'
export { EXECUTE_TOOL, Gateway, SEARCH_TOOL } from './gateway'
export type { GatewayOptions, GatewaySession, GatewayTool, SearchMatch, SearchResult } from './gateway'
export { stderrLogger } from './log'
export type { LogLevel, Logger } from './log'
export { SERVE_USAGE, runServe, serveHttp } from './serve'
export type { HttpGateway } from './serve'
export { LOG_GRACE_MS, Upstream, UpstreamUnavailableError } from './upstream'
export type { UpstreamState, UpstreamTool } from './upstream'
