import { withUrlsShown } from '../sandbox/credentials.js'

/**
 * A base URL as an option gives it (the proxy's upstream, the sandbox `mcp --url` steers): absolute, http: or https:,
 * without a user, a query or a fragment; its origin and path, without a trailing slash. A bad one is a `TypeError`
 * that names the option and says what it should be, quoting the URL without its password, query and fragment.
 *
 * @example
 * baseUrlOf('http://127.0.0.1:4010/', { name: '--url', what: "the sandbox's absolute URL", example: 'http://127.0.0.1:4010', credentials: '' })
 * // 'http://127.0.0.1:4010'
 */
export function baseUrlOf(
  text: string,
  {
    name,
    what,
    example,
    credentials,
  }: {
    /** The option, as the message names it. */
    name: string
    /** What the URL is of, such as "the upstream's absolute URL". */
    what: string
    example: string
    /** Where credentials go instead of the URL, said when it carries some. */
    credentials: string
  },
): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new TypeError(
      `${name} must be ${what}, such as ${example}; got ${withUrlsShown(String(text), [String(text)])}.`,
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`${name} must be an http: or https: URL; got ${withUrlsShown(text, [text])}.`)
  // @note fetch refuses a URL with credentials.
  if (url.username || url.password) throw new TypeError(`${name} must not carry a user or password: ${credentials}`)
  if (url.search || url.hash)
    throw new TypeError(`${name} must not have a query or fragment; got ${withUrlsShown(text, [text])}.`)
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}
