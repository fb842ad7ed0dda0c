import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { curlOf } from '../../console/exchange.js'
import type { JournalEntry } from '../../src/schemas/index.js'

/**
 * The words a copied command hands curl, run as a developer's terminal runs a paste: bash reading it line by line with
 * history expansion on (as an interactive bash has it), `curl` a function that prints each word it is given.
 */
function wordsOf(command: string): string[] {
  const script = `set -o history -H\ncurl() { printf '%s\\0' "$@"; }\n${command}\n`
  const ran = spawnSync('bash', ['-s'], { input: script, env: { PATH: process.env.PATH, API_KEY: 'KEY' } })
  expect(ran.stderr.toString()).toBe('')
  return ran.stdout.toString().split('\0').slice(0, -1)
}

/** A request as a hostile client sent it, journaled with its credentials shown by their ends. */
function hostile(headers: Record<string, string>, body: string | null = null): JournalEntry {
  return {
    request_id: 'req_1',
    method: 'POST',
    path: "/v1/contacts/'$(id)'`id`\\",
    query: { q: "'$(id)'" },
    status: 401,
    key: null,
    duration_ms: 1,
    timestamp: '2026-11-20T12:00:00.000Z',
    request: { headers, body, body_truncated: false, headers_truncated: false },
    response: { headers: {}, body: null, body_truncated: false, headers_truncated: false },
  }
}

describe('copy as curl, pasted into a shell', () => {
  it("hands curl each value as journaled: history's ! in a header shown by its end runs nothing", () => {
    // The journal keeps a cookie's name and a Referer's query as sent: here `!#` (the line so far, in bash's history)
    // once broke the double quotes around such a header, and the cookie's name ran as a command.
    const entry = hostile({
      cookie: '!#=…; echo ran=…; sid=…5a36',
      referer: 'http://x/?a=!#&access_token=…ijkl',
      'x-note': `it's "$(id)" \`id\` \\ !! !#`,
    })
    expect(wordsOf(curlOf(entry, 'http://h'))).toEqual([
      '--globoff',
      '-X',
      'POST',
      "http://h/v1/contacts/'$(id)'`id`\\?q='%24(id)'",
      '-H',
      'cookie: !#=…; echo ran=…; sid=KEY',
      '-H',
      'referer: http://x/?a=!#&access_token=KEY',
      '-H',
      `x-note: it's "$(id)" \`id\` \\ !! !#`,
    ])
  })

  it('writes no control character into the command, and curl still gets the body as sent', () => {
    // A Ctrl-C pasted into a terminal drops the line typed so far, quotes and all: what follows it would run.
    const body = `{"a":"x'\u0003\recho ran\r\t\u001b[2K\u007f\u009b!#"}\n`
    const command = curlOf(hostile({}, body), 'http://h')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
    expect(command).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
    expect(wordsOf(command).at(-1)).toBe(body)
  })

  it('asks curl for the path as journaled, brackets and all, not one request per value of a range', () => {
    // A client's /v1/calls/[1-99999999] is journaled as sent: globbed, it would be that many requests to the server.
    const words = wordsOf(curlOf({ ...hostile({}), path: '/v1/calls/[1-99999999]' }, 'http://h'))
    expect(words.slice(0, 4)).toEqual(['--globoff', '-X', 'POST', "http://h/v1/calls/[1-99999999]?q='%24(id)'"])
  })

  it('quotes a method that is not a plain word', () => {
    expect(wordsOf(curlOf({ ...hostile({}), method: '`id`' }, 'http://h')).slice(1, 3)).toEqual(['-X', '`id`'])
  })
})
