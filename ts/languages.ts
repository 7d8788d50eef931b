/**
 * Which requests an encoder can read. A sentence encoder trained on English text places a
 * Chinese request almost at random, and fusing that noise into the ranking costs the lexical
 * channel its Chinese matches. The semantic index therefore reads a request with the vectors only
 * when most of its words are in scripts of the encoder's languages (`Embedder.languages`).
 *
 * Pure functions, no I/O: language codes (ISO 639-1, as a model card's `language:` lists them) to
 * scripts, and the share of a request's words in those scripts.
 */

/** Scripts of the languages not written in Latin letters; every other code is taken as Latin. */
const SCRIPTS_OF: Readonly<Record<string, readonly string[]>> = Object.freeze({
  zh: ['Han'],
  ja: ['Han', 'Hiragana', 'Katakana'],
  ko: ['Hangul', 'Han'],
  ru: ['Cyrillic'],
  uk: ['Cyrillic'],
  bg: ['Cyrillic'],
  be: ['Cyrillic'],
  mk: ['Cyrillic'],
  sr: ['Cyrillic', 'Latin'],
  kk: ['Cyrillic'],
  ky: ['Cyrillic'],
  mn: ['Cyrillic'],
  tg: ['Cyrillic'],
  el: ['Greek'],
  ar: ['Arabic'],
  fa: ['Arabic'],
  ur: ['Arabic'],
  ps: ['Arabic'],
  he: ['Hebrew'],
  yi: ['Hebrew'],
  th: ['Thai'],
  lo: ['Lao'],
  km: ['Khmer'],
  my: ['Myanmar'],
  hi: ['Devanagari'],
  mr: ['Devanagari'],
  ne: ['Devanagari'],
  sa: ['Devanagari'],
  bn: ['Bengali'],
  as: ['Bengali'],
  pa: ['Gurmukhi'],
  gu: ['Gujarati'],
  ta: ['Tamil'],
  te: ['Telugu'],
  kn: ['Kannada'],
  ml: ['Malayalam'],
  si: ['Sinhala'],
  ka: ['Georgian'],
  hy: ['Armenian'],
  am: ['Ethiopic'],
})

/** Scripts written without spaces between words: a run of n letters counts as n / 2 words. */
const UNSPACED = new Set(['Han', 'Hiragana', 'Katakana', 'Thai', 'Lao', 'Khmer', 'Myanmar'])

/** Every script above, plus Latin; a letter of any other script counts as `Other`. */
const KNOWN = ['Latin', ...new Set(Object.values(SCRIPTS_OF).flat())]

/** Scripts whose runs go on through the marks they share with another (`Script_Extensions`): the kana length mark ー in `サーバー`. */
const SHARED_MARKS = new Set(['Hiragana', 'Katakana'])

/** One run of letters (and their marks) of one script; the last branch takes any other letters. */
const RUN = new RegExp(
  `${KNOWN.map((s) => `\\p{Script=${s}}[\\p{${SHARED_MARKS.has(s) ? 'Script_Extensions' : 'Script'}=${s}}\\p{M}]*`).join('|')}|\\p{L}[\\p{L}\\p{M}]*`,
  'gu',
)
const SCRIPT_TESTS = KNOWN.map((s) => [s, new RegExp(`^\\p{Script=${s}}`, 'u')] as const)

/** Letters of a request looked at: a longer request is judged by its start. */
export const MAX_LETTERS_READ = 4096

/**
 * UTF-16 units of a text looked at, far more than `MAX_LETTERS_READ` letters need: the runs are
 * never matched over a whole multi-megabyte text (one run of millions of letters overflows the
 * regular expression's stack under Node).
 */
export const MAX_UNITS_READ = 65_536

/**
 * The scripts the languages are written in, or `undefined` (any script) when the list is missing
 * or empty or names `multilingual`. Codes are read case-blind up to a `-` or `_` (`zh-CN` → `zh`).
 */
export function scriptsOf(languages: readonly string[] | undefined): ReadonlySet<string> | undefined {
  if (!languages || languages.length === 0) return undefined
  const out = new Set<string>()
  for (const l of languages) {
    const code = String(l).trim().toLowerCase().split(/[-_]/)[0]
    if (code === 'multilingual' || code === 'mul') return undefined
    for (const s of SCRIPTS_OF[code] ?? ['Latin']) out.add(s)
  }
  return out
}

/** The script of a run's first letter (`Other` for a script not listed here). */
function scriptOf(run: string): string {
  for (const [s, re] of SCRIPT_TESTS) if (re.test(run)) return s
  return 'Other'
}

/**
 * The words of a request by script, each run of letters of one script a word (a run of an
 * unspaced script, such as Han, counts half a word a letter). Digits and symbols are not words.
 */
export function wordsByScript(query: string): Map<string, number> {
  const out = new Map<string, number>()
  let letters = 0
  for (const m of String(query).slice(0, MAX_UNITS_READ).matchAll(RUN)) {
    const script = scriptOf(m[0])
    const n = [...m[0]].length
    const words = UNSPACED.has(script) ? n / 2 : 1
    out.set(script, (out.get(script) ?? 0) + words)
    letters += n
    if (letters >= MAX_LETTERS_READ) break
  }
  return out
}

/**
 * The share of a request's words (see `wordsByScript`) written in the languages' scripts: 1 for
 * any script (`languages` unknown or multilingual) and for a request with no words at all.
 */
export function readableShare(query: string, languages: readonly string[] | undefined): number {
  const scripts = scriptsOf(languages)
  if (!scripts) return 1
  let all = 0
  let readable = 0
  for (const [script, words] of wordsByScript(query)) {
    all += words
    if (scripts.has(script)) readable += words
  }
  return all === 0 ? 1 : readable / all
}

/** Below this share of readable words, a fused search ranks the request by the lexical channel alone. */
export const MIN_READABLE_SHARE = 0.5

/** Whether an encoder of these languages reads the text: at least `MIN_READABLE_SHARE` of its words (see `readableShare`). */
export function readsText(text: string, languages: readonly string[] | undefined): boolean {
  return readableShare(text, languages) >= MIN_READABLE_SHARE
}

/**
 * The languages of a model card (a Hugging Face `README.md`): the `language:` field of its YAML
 * front matter, a single code or a list. `undefined` when the card has none.
 */
export function cardLanguages(card: string): string[] | undefined {
  const lines = card.split(/\r?\n/)
  if (lines[0]?.trim() !== '---') return undefined
  for (let i = 1; i < lines.length && lines[i].trim() !== '---'; i++) {
    const m = /^language:\s*(.*)$/.exec(lines[i])
    if (!m) continue
    const inline = m[1].trim()
    if (inline.startsWith('[')) {
      return inline
        .replace(/^\[|\]$/g, '')
        .split(',')
        .map(unquote)
        .filter(Boolean)
    }
    if (inline) return [unquote(inline)].filter(Boolean)
    const list: string[] = []
    for (let j = i + 1; j < lines.length; j++) {
      const item = /^\s*-\s+(.+)$/.exec(lines[j])
      if (!item) break
      list.push(unquote(item[1]))
    }
    return list.filter(Boolean)
  }
  return undefined
}

function unquote(s: string): string {
  return s.trim().replace(/^(['"])(.*)\1$/, '$2').trim()
}
