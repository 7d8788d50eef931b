/**
 * The generated napi-rs loader (`../index.js`), typed. Everything native goes through here.
 */
import type * as NativeModule from '../index'

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const binding: typeof NativeModule = require('../index.js')

export type NativeToolIndex = NativeModule.ToolIndex
export type NativeToolEntry = NativeModule.ToolEntry
