/**
 * What a client sent, as the tools hand it to an agent: quoted, never as lines of their own text. A body with a
 * newline in it would otherwise start a line the agent reads as the tool's ("Why: …", "What to change: …").
 *
 * JSON quotes every string and escapes every control character; these go further, as a reader may take them for the
 * end of a line (U+2028, U+2029, NEL and the other C1 controls) or as nothing at all while they reorder or hide the
 * text around them: every format character and every one Unicode says to draw as nothing (bidi marks, zero-width
 * characters, the soft hyphen, variation selectors, the Hangul fillers, and the tag characters U+E0000 to U+E007F,
 * which spell out ASCII that a person cannot see and a model can read). Inside a JSON string each may be written
 * `\uXXXX` (as a pair of them past U+FFFF), and outside one JSON has none of them: the text stays JSON, with the same
 * value.
 */
const UNSEEN = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu

function escapeUnseen(json: string): string {
  return json.replace(UNSEEN, (character) =>
    // One \uXXXX for each UTF-16 unit: a character past U+FFFF is two.
    character
      .split('')
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join(''),
  )
}

/** A value as JSON on one line: a string in double quotes, anything in it that could end a line escaped. */
export function quoted(value: unknown): string {
  return escapeUnseen(JSON.stringify(value) ?? 'null')
}

/** A value as indented JSON, as the tools answer: every string of it quoted as `quoted` quotes it. */
export function asJson(value: unknown): string {
  return escapeUnseen(JSON.stringify(value, null, 2) ?? 'null')
}

/**
 * The value when it matches `pattern` (a status, an id the sandbox made, a scope: nothing a sentence can be made of),
 * else quoted: a journal from elsewhere (`--url`) may hold anything.
 */
export function word(value: unknown, pattern: RegExp): string {
  return typeof value === 'string' && pattern.test(value) ? value : quoted(value)
}

/**
 * A body as the journal kept it, byte for byte: as it is when it is JSON on one line already (what clients mostly
 * send), else as a JSON string. Either way one line, every string in it quoted.
 */
export function shownBody(body: string): string {
  try {
    if (JSON.stringify(JSON.parse(body)) === body) return escapeUnseen(body)
  } catch {}
  return `${quoted(body)} (not JSON on one line: the text as a JSON string)`
}
