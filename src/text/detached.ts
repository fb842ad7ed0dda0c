/**
 * A copy of `text` that keeps nothing else alive. V8 makes a substring a slice of the string it was cut from: a URL's
 * path or query keeps its whole `href` (a Host of 60 KiB with it), and what a cache keeps for a path would keep every
 * such `href`. Made when a string is kept for long, not for every read.
 *
 * @note Joined again from its characters, which makes a string of its own: not `Buffer`, which the browser's service
 * worker (where the same handlers run) does not have.
 * @example
 * kept.set(detached(url.search), values)
 */
export function detached(text: string): string {
  return [...text].join('')
}
