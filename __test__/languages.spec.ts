// Which requests an encoder can read: scripts of a request's words, languages of a model card.
import { describe, expect, test } from 'bun:test'
import { cardLanguages, readableShare, readsText, scriptsOf, wordsByScript } from '../dist/languages.js'
import { lexiconGloss } from '../dist/semantic.js'

describe('wordsByScript', () => {
  test.each([
    ['send an email', { Latin: 3 }],
    ['发送邮件', { Han: 2 }],
    ['帮我在 GitHub 上创建一个 issue', { Han: 4, Latin: 2 }],
    ['用github创建issue', { Han: 1.5, Latin: 2 }],
    ['東京の天気を教えて', { Han: 2.5, Hiragana: 2 }],
    ['서울 날씨 알려줘', { Hangul: 3 }],
    ['Привет, мир', { Cyrillic: 2 }],
    ['café au lait', { Latin: 3 }],
    ['cafe\u0301', { Latin: 1 }],
    // The kana length mark ー (a character of two scripts) stays inside its katakana word.
    ['サーバー', { Katakana: 2 }],
    ['データベースを検索します', { Katakana: 3, Hiragana: 2, Han: 1 }],
    ['12345 !!! ---', {}],
    ['', {}],
  ])('%j', (query, want) => {
    expect(Object.fromEntries(wordsByScript(query))).toEqual(want)
  })

  test('one run of millions of letters is judged by its start, not matched whole (it overflowed the regular expression under Node)', () => {
    for (const letter of ['中', 'ж', '한', 'e\u0301']) {
      const words = wordsByScript(letter.repeat(4_200_000))
      expect([...words.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(0)
    }
    expect(readableShare('中'.repeat(4_200_000), ['en'])).toBe(0)
    expect(readableShare('データベースを検索します', ['ja'])).toBe(1)
  })

  test('readsText: at least half the words in the languages\' scripts', () => {
    expect(readsText('发送邮件', ['en'])).toBe(false)
    expect(readsText('send 邮件', ['en'])).toBe(true)
    expect(readsText('发送邮件', undefined)).toBe(true)
    expect(readsText('发送 email 邮件', ['en'])).toBe(false)
  })

  test('a long request is judged by its first 4,096 letters, in linear time', () => {
    const q = 'a '.repeat(5000) + '中'.repeat(2_000_000)
    const t0 = performance.now()
    const words = wordsByScript(q)
    expect(words.get('Latin')).toBe(4096)
    expect(words.get('Han')).toBeUndefined()
    expect(performance.now() - t0).toBeLessThan(5000)
  })
})

describe('readableShare', () => {
  test.each([
    ['发送邮件给团队', ['en'], 0],
    ['send an email to the team', ['en'], 1],
    ['帮我在 GitHub 上创建一个 issue', ['en'], 2 / 6],
    ['发送邮件给团队', ['zh'], 1],
    ['发送邮件给团队', ['en', 'zh-CN'], 1],
    ['発送メール', ['ko'], 0.4],
    ['Привет мир', ['ru'], 1],
    ['Привет мир', ['de', 'fr'], 0],
    ['发送邮件给团队', undefined, 1],
    ['发送邮件给团队', [], 1],
    ['发送邮件给团队', ['multilingual'], 1],
    ['12345', ['en'], 1],
  ] as [string, string[] | undefined, number][])('%j read by %j', (query, languages, share) => {
    expect(readableShare(query, languages)).toBeCloseTo(share, 6)
  })

  test('scriptsOf: codes case-blind up to - or _, unknown codes taken as Latin', () => {
    expect([...(scriptsOf(['ZH_tw', 'xx']) ?? [])].sort()).toEqual(['Han', 'Latin'])
    expect(scriptsOf(['en', 'MUL'])).toBeUndefined()
  })
})

describe('cardLanguages (a model card\'s front matter)', () => {
  test.each([
    ['---\nlanguage: en\nlicense: apache-2.0\n---\n# x', ['en']],
    ['---\r\nlanguage:\r\n- en\r\n- "zh"\r\n- \'de\'\r\ntags: [a]\r\n---', ['en', 'zh', 'de']],
    ['---\nlanguage: [en, fr]\n---', ['en', 'fr']],
    ['---\nlicense: mit\n---\nlanguage: en', undefined],
    ['language: en', undefined],
    ['', undefined],
    ['---\nlanguage:\n---', []],
  ] as [string, string[] | undefined][])('%j', (card, want) => {
    expect(cardLanguages(card)).toEqual(want)
  })
})

describe('lexiconGloss (what an English encoder reads of a Chinese request)', () => {
  test.each([
    ['帮我在 GitHub 上创建一个 issue', 'GitHub create issue'],
    ['列出文件夹里的文件', 'list folder directory file'],
    ['send an email', 'send an email'],
    ['你好', ''],
  ])('%j', (query, want) => {
    expect(lexiconGloss(query)).toBe(want)
  })
  test('a request over the query limit is E_TOO_LARGE', () => {
    expect(() => lexiconGloss('中'.repeat(4 * 1024 * 1024 + 1))).toThrow(expect.objectContaining({ code: 'E_TOO_LARGE' }))
  })
})
