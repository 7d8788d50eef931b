/** Stand-in for ccb's src/Tool.ts: `buildTool` fills ccb's defaults under the definition. */
export function buildTool<D extends { name: string }>(def: D) {
  return {
    isEnabled: () => true,
    isConcurrencySafe: () => false,
    isReadOnly: () => false,
    isDestructive: () => false,
    checkPermissions: async (input: unknown) => ({ behavior: 'allow' as const, updatedInput: input }),
    userFacingName: () => def.name,
    ...def,
  }
}
