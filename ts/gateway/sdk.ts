/**
 * The MCP SDK, loaded on first use: `@modelcontextprotocol/sdk` is an optional peer
 * dependency, needed only by `tool-index serve`.
 */

/** The parts of the SDK the gateway uses (typed loosely: the SDK is optional). */
export interface Sdk {
  Client: any
  StdioClientTransport: any
  getDefaultEnvironment: () => Record<string, string>
  StreamableHTTPClientTransport: any
  SSEClientTransport: any
  Server: any
  StdioServerTransport: any
  StreamableHTTPServerTransport: any
  types: any
}

let cached: Sdk | undefined

/** Load the SDK or throw a message saying how to install it. */
export function loadSdk(): Sdk {
  if (cached) return cached
  try {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const client = require('@modelcontextprotocol/sdk/client/index.js')
    const stdio = require('@modelcontextprotocol/sdk/client/stdio.js')
    const http = require('@modelcontextprotocol/sdk/client/streamableHttp.js')
    const sse = require('@modelcontextprotocol/sdk/client/sse.js')
    const server = require('@modelcontextprotocol/sdk/server/index.js')
    const serverStdio = require('@modelcontextprotocol/sdk/server/stdio.js')
    const serverHttp = require('@modelcontextprotocol/sdk/server/streamableHttp.js')
    const types = require('@modelcontextprotocol/sdk/types.js')
    /* eslint-enable @typescript-eslint/no-require-imports */
    cached = {
      Client: client.Client,
      StdioClientTransport: stdio.StdioClientTransport,
      getDefaultEnvironment: stdio.getDefaultEnvironment,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      SSEClientTransport: sse.SSEClientTransport,
      Server: server.Server,
      StdioServerTransport: serverStdio.StdioServerTransport,
      StreamableHTTPServerTransport: serverHttp.StreamableHTTPServerTransport,
      types,
    }
    return cached
  } catch (e) {
    const err = new Error(
      `tool-index serve needs the MCP SDK: npm install @modelcontextprotocol/sdk (${(e as Error)?.message ?? e})`,
    ) as Error & { code: string }
    err.code = 'E_NO_SDK'
    throw err
  }
}
