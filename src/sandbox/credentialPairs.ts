import { isCredentialName } from './credentials.js'

/**
 * The parameters of a query string (without its `?`) named like a credential, decoded as `URLSearchParams` decodes
 * them, found without parsing the others: the value rule looks at every parameter of every request, and a query of
 * thousands (a 400 past the bound) must not cost that rule a parse of each. A name is decoded only when encoded.
 *
 * @example
 * [...credentialPairs('limit=2&api_key=sk_live_1234')] // [['api_key', 'sk_live_1234']]
 */
export function* credentialPairs(query: string): Generator<[string, string]> {
  // A name seen before is not tested again: thousands of repeats of one name cost one test.
  const tested = new Map<string, boolean>()
  let last: { name: string; credential: boolean } | undefined
  let start = 0
  while (start < query.length) {
    let end = query.indexOf('&', start)
    if (end === -1) end = query.length
    if (end > start) {
      // The name of the piece before, again (a repeat), is known without cutting it out.
      const again =
        last !== undefined && query.startsWith(last.name, start) && endsName(query, start + last.name.length, end)
      if (!again) {
        const equals = query.indexOf('=', start)
        const name = query.slice(start, equals === -1 || equals > end ? end : equals)
        let credential = tested.get(name)
        if (credential === undefined) {
          credential = isCredentialName(ENCODED.test(name) ? decodedName(name) : name)
          tested.set(name, credential)
        }
        last = { name, credential }
      }
      if (last!.credential) yield* new URLSearchParams(query.slice(start, end))
    }
    start = end + 1
  }
}

/** Whether a name ends at `at` in the piece that ends at `end`: the piece ends there, or its `=` is there. */
function endsName(query: string, at: number, end: number): boolean {
  return at === end || (at < end && query.charCodeAt(at) === EQUALS)
}

const EQUALS = 61

/** What `URLSearchParams` decodes in a name: a percent escape, a `+` (a space). */
const ENCODED = /[%+]/

function decodedName(name: string): string {
  for (const [decoded] of new URLSearchParams(`${name}=`)) return decoded
  return name
}
