// The Requests tab's chart: requests per minute by status class over the last hour of the sandbox clock.

/** @typedef {import('../src/schemas/index.js').JournalEntry} JournalEntry */

const SVG = 'http://www.w3.org/2000/svg'
/** The classes drawn, bottom up, with their colour and their name in the legend and the titles. */
export const CLASSES = /** @type {const} */ ([
  { name: '2xx', colour: '#34a853', test: (/** @type {number} */ status) => status < 400 },
  { name: '4xx', colour: '#f29900', test: (/** @type {number} */ status) => status >= 400 && status < 500 },
  { name: '5xx', colour: '#d93025', test: (/** @type {number} */ status) => status >= 500 },
])
const HEIGHT = 150
const MARGIN = { top: 10, right: 8, bottom: 22, left: 36 }

/**
 * Counts per minute by class, the newest minute last: `minutes` minutes ending with the one `end` is in.
 * @param {readonly Pick<JournalEntry, 'timestamp' | 'status'>[]} entries
 * @param {number} end
 * @param {number} [minutes]
 * @returns {{ start: number, counts: number[] }[]} each minute's start (ms) and its count per class of `CLASSES`
 */
export function countPerMinute(entries, end, minutes = 60) {
  const last = Math.floor(end / 60_000) * 60_000
  const bins = Array.from({ length: minutes }, (_, index) => ({
    start: last - (minutes - 1 - index) * 60_000,
    counts: CLASSES.map(() => 0),
  }))
  for (const entry of entries) {
    const index = minutes - 1 - (last - Math.floor(Date.parse(entry.timestamp) / 60_000) * 60_000) / 60_000
    const bin = bins[index]
    const kind = CLASSES.findIndex(({ test }) => test(entry.status))
    if (bin) bin.counts[kind] = /** @type {number} */ (bin.counts[kind]) + 1
  }
  return bins
}

/** @param {number} ms */
const clockText = (ms) => new Date(ms).toISOString().slice(11, 16)

/**
 * The chart as an SVG `width` pixels wide (its viewBox is the same size, so nothing is stretched): stacked bars,
 * a count up the side, the time along the bottom, and each minute's counts in its `<title>` (shown on hover, read
 * by a screen reader).
 * @param {readonly Pick<JournalEntry, 'timestamp' | 'status'>[]} entries
 * @param {{ end: number, width: number }} where `end`: the sandbox clock's instant the hour ends at
 */
export function renderChart(entries, { end, width }) {
  const bins = countPerMinute(entries, end)
  const most = Math.max(1, ...bins.map(({ counts }) => counts.reduce((sum, count) => sum + count, 0)))
  const plotWidth = Math.max(60, width - MARGIN.left - MARGIN.right)
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom
  const step = plotWidth / bins.length
  const y = (/** @type {number} */ count) => MARGIN.top + plotHeight - (count / most) * plotHeight

  const parts = []
  // The count axis: 0, the middle and the most, with light lines across.
  for (const count of [...new Set([0, Math.round(most / 2), most])]) {
    parts.push(
      svg('line', { x1: MARGIN.left, x2: MARGIN.left + plotWidth, y1: y(count), y2: y(count), class: 'grid' }),
      svg('text', { x: MARGIN.left - 4, y: y(count) + 4, 'text-anchor': 'end', class: 'tick' }, String(count)),
    )
  }
  // The time axis: every ten minutes, and the last.
  for (const [index, bin] of bins.entries()) {
    if (index % 10 !== 0 && index !== bins.length - 1) continue
    const x = MARGIN.left + index * step + step / 2
    const anchor = index === 0 ? 'start' : index === bins.length - 1 ? 'end' : 'middle'
    parts.push(svg('text', { x, y: HEIGHT - 6, 'text-anchor': anchor, class: 'tick' }, clockText(bin.start)))
  }
  for (const [index, { start, counts }] of bins.entries()) {
    const total = counts.reduce((sum, count) => sum + count, 0)
    if (total === 0) continue
    const title = `${clockText(start)}: ${total} request${total === 1 ? '' : 's'} (${CLASSES.map(
      ({ name }, kind) => `${counts[kind]} ${name}`,
    ).join(', ')})`
    const bar = svg('g', { 'data-minute': clockText(start) }, svg('title', {}, title))
    let base = 0
    for (const [kind, { colour }] of CLASSES.entries()) {
      const count = /** @type {number} */ (counts[kind])
      if (count === 0) continue
      bar.append(
        svg('rect', {
          x: MARGIN.left + index * step + step * 0.1,
          width: step * 0.8,
          y: y(base + count),
          height: y(base) - y(base + count),
          fill: colour,
        }),
      )
      base += count
    }
    parts.push(bar)
  }
  parts.push(
    svg('line', {
      x1: MARGIN.left,
      x2: MARGIN.left + plotWidth,
      y1: MARGIN.top + plotHeight,
      y2: MARGIN.top + plotHeight,
      class: 'axis',
    }),
    svg('line', { x1: MARGIN.left, x2: MARGIN.left, y1: MARGIN.top, y2: MARGIN.top + plotHeight, class: 'axis' }),
  )
  return svg(
    'svg',
    {
      class: 'chart',
      role: 'img',
      'aria-label': `Requests per minute by status, ${clockText(bins[0]?.start ?? end)} to ${clockText(end)}: ${entries.length} in all`,
      viewBox: `0 0 ${width} ${HEIGHT}`,
      preserveAspectRatio: 'xMinYMin meet',
    },
    ...parts,
  )
}

/** The legend: each class by its name beside its colour, so the colour is never the only sign. */
export function renderLegend() {
  const legend = document.createElement('ul')
  legend.className = 'legend'
  for (const { name, colour } of CLASSES) {
    const swatch = svg(
      'svg',
      { width: 12, height: 12, 'aria-hidden': 'true' },
      svg('rect', { width: 12, height: 12, fill: colour }),
    )
    const item = document.createElement('li')
    item.append(swatch, name === '2xx' ? '2xx (and 3xx)' : name)
    legend.append(item)
  }
  return legend
}

/**
 * @param {string} tag
 * @param {Record<string, string | number>} attributes
 * @param {...(Node | string)} children
 */
function svg(tag, attributes, ...children) {
  const element = document.createElementNS(SVG, tag)
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value))
  element.append(...children)
  return element
}
