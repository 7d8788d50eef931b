/** Stand-in for ccb's src/utils/messages.ts: a user message in ccb's shape. */
let n = 0
export function createUserMessage({ content }: { content: string }) {
  return { type: 'user' as const, message: { role: 'user' as const, content }, uuid: `standin-${++n}`, content }
}
