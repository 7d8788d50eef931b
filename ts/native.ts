/**
 * The native binding (`../native.js`: the generated napi-rs loader after its runtime check),
 * typed. Everything native goes through here.
 */
import type * as NativeModule from '../index'

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const binding: typeof NativeModule = require('../native.js')

export type NativeToolIndex = NativeModule.ToolIndex
export type NativeToolEntry = NativeModule.ToolEntry
