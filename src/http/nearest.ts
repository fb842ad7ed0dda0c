/**
 * The candidate nearest to `given` by edit distance (case aside), when it is
 * near enough to be what was meant: at most `most` edits away (default a
 * third of the candidate's length, and one at least).
 *
 * @note Its work is bounded by the candidates, not by what was sent: an input
 * longer than every candidate by more than the edits allowed is answered at
 * once, and each distance is worked out only up to the edits still worth
 * knowing (see `editDistanceWithin`). A 60,000-character path costs what a
 * short one does.
 *
 * @example
 * nearest('/v1/call', ['/v1/calls', '/v1/contacts']) // '/v1/calls'
 */
export function nearest(given: string, candidates: Iterable<string>, most?: number): string | undefined {
  const lowered = [...candidates].map((candidate) => ({ candidate, text: candidate.toLowerCase() }))
  const longest = Math.max(0, ...lowered.map(({ text }) => text.length))
  const allowedFor = (candidate: string) => most ?? Math.max(1, Math.floor(candidate.length / 3))
  const mostAllowed = Math.max(0, ...lowered.map(({ candidate }) => allowedFor(candidate)))
  // Lower case is never shorter than the text (U+0130 becomes two code units): too long before, too long after.
  if (given.length > longest + mostAllowed) return undefined
  const text = given.toLowerCase()
  let best: { candidate: string; text: string } | undefined
  let bestDistance = mostAllowed + 1
  for (const entry of lowered) {
    // Only a candidate nearer than the best so far can take its place, as the first of equals keeps it.
    const distance = editDistanceWithin(text, entry.text, bestDistance - 1)
    if (distance !== undefined) {
      best = entry
      bestDistance = distance
    }
  }
  return best && bestDistance <= allowedFor(best.candidate) ? best.candidate : undefined
}

/** Counts the cells of the table `editDistanceWithin` fills: what a test asserts the work on. */
export interface EditWork {
  cells: number
}

/**
 * The Levenshtein distance of `a` and `b` (inserts, deletes and
 * substitutions, one each), when it is at most `most`; else `undefined`.
 *
 * @note Banded: only cells within `most` of the diagonal can lead to a
 * distance of at most `most`, so a row costs `2 × most + 1` cells, and the
 * work stops at the first row whose every cell is past `most`. Strings whose
 * lengths differ by more than `most` cost nothing.
 *
 * @example
 * editDistanceWithin('/v1/cals', '/v1/calls', 2) // 1
 * editDistanceWithin('a'.repeat(60_000), '/v1/calls', 2) // undefined, at once
 */
export function editDistanceWithin(a: string, b: string, most: number, work?: EditWork): number | undefined {
  if (most < 0 || Math.abs(a.length - b.length) > most) return undefined
  const past = most + 1
  // previous[j]: the distance of a's first i - 1 characters and b's first j; `past` stands for anything beyond most.
  let previous = new Array<number>(b.length + 1).fill(past)
  let current = new Array<number>(b.length + 1).fill(past)
  for (let j = 0; j <= Math.min(b.length, most); j++) previous[j] = j
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - most)
    const to = Math.min(b.length, i + most)
    current[from - 1] = from === 1 && i <= most ? i : past
    let rowBest = current[from - 1]!
    for (let j = from; j <= to; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)
      const cell = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution, past)
      current[j] = cell
      if (cell < rowBest) rowBest = cell
    }
    if (work) work.cells += to - from + 1
    // The cell past the band is read as the next row's "above": out of reach.
    if (to < b.length) current[to + 1] = past
    if (rowBest > most) return undefined
    ;[previous, current] = [current, previous]
  }
  const distance = previous[b.length]!
  return distance <= most ? distance : undefined
}
