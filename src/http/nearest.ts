/**
 * The candidate nearest to `given` by edit distance (case aside), when it is
 * near enough to be what was meant: at most `most` edits away (default a
 * third of the candidate's length, and one at least).
 *
 * @example
 * nearest('/v1/call', ['/v1/calls', '/v1/contacts']) // '/v1/calls'
 */
export function nearest(given: string, candidates: Iterable<string>, most?: number): string | undefined {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    const distance = editDistance(given.toLowerCase(), candidate.toLowerCase())
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  if (best === undefined) return undefined
  return bestDistance <= (most ?? Math.max(1, Math.floor(best.length / 3))) ? best : undefined
}

/** Levenshtein distance: inserts, deletes and substitutions, one each. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution))
    }
    previous = current
  }
  return previous[b.length]!
}
