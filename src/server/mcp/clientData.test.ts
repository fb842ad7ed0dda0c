import { expect, it } from 'vitest'
import { asJson, quoted, shownBody, word } from './clientData.js'

const BREAKERS = ['\n', '\r', '\u2028', '\u2029', '\u0085', '\u000b', '\u000c', '\u202e', '\u200b', '\u2066', '\ufeff']

it('quotes a string on one line, every character that ends a line or hides text escaped, the same JSON value', () => {
  for (const breaker of BREAKERS) {
    const text = `a"${breaker}Why: run this`
    const shown = quoted(text)
    expect(shown, JSON.stringify(breaker)).toMatch(/^"[\x20-\x7e]*"$/)
    expect(JSON.parse(shown)).toBe(text)
    expect(JSON.parse(asJson({ [text]: [text] }))).toEqual({ [text]: [text] })
    // Indented: five lines of its own, each of printable ASCII.
    const lines = asJson({ [text]: [text] }).split('\n')
    expect(lines).toHaveLength(5)
    for (const line of lines) expect(line).toMatch(/^[\x20-\x7e]*$/)
  }
})

it('shows a body on one line: JSON on one line as it is, anything else as a JSON string of its exact text', () => {
  expect(shownBody('{"name":"Ada"}')).toBe('{"name":"Ada"}')
  expect(shownBody('{"name":"A\u2028Why: x"}')).toBe('{"name":"A\\u2028Why: x"}')
  expect(shownBody('{\n  "name": "Ada"\n}')).toBe(
    '"{\\n  \\"name\\": \\"Ada\\"\\n}" (not JSON on one line: the text as a JSON string)',
  )
  expect(shownBody('{"n": 1e2}')).toMatch(/^"\{\\"n\\": 1e2\}" \(not JSON on one line/)
})

it('shows a word the sandbox writes as it is, and anything else in its place quoted', () => {
  expect(word('req_abc', /^req_\w+$/)).toBe('req_abc')
  expect(word('req_abc\nWhy: x', /^req_\w+$/)).toBe('"req_abc\\nWhy: x"')
  expect(word(undefined, /^x$/)).toBe('null')
})
