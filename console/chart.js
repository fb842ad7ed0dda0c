// The requests tab's chart.

import { $ } from './elements.js'

/**
 * Requests per minute by status class over the last hour of the sandbox clock, as stacked bars.
 * @param {import('../src/schemas/index.js').JournalEntry[]} entries
 */
export function drawChart(entries) {
  const svg = $('#chart')
  const end = entries[0] ? Date.parse(entries[0].timestamp) : Date.now()
  // 3xx is counted but has no bar of its own (nor a share of the tallest).
  const minutes = Array.from({ length: 60 }, () => ({ 2: 0, 3: 0, 4: 0, 5: 0 }))
  for (const entry of entries) {
    const ago = Math.floor((end - Date.parse(entry.timestamp)) / 60_000)
    const kind = /** @type {2 | 3 | 4 | 5} */ (Math.min(5, Math.max(2, Math.floor(entry.status / 100))))
    if (ago >= 0 && ago < 60) /** @type {{ 2: number, 3: number, 4: number, 5: number }} */ (minutes[59 - ago])[kind]++
  }
  const most = Math.max(1, ...minutes.map((minute) => minute[2] + minute[4] + minute[5]))
  const colours = { 2: '#34a853', 4: '#f29900', 5: '#d93025' }
  const bars = []
  for (const [index, minute] of minutes.entries()) {
    let y = 80
    for (const kind of /** @type {const} */ ([2, 4, 5])) {
      const height = (minute[kind] / most) * 76
      if (height === 0) continue
      y -= height
      const bar = document.createElementNS('http://www.w3.org/2000/svg', 'rect')
      for (const [name, value] of Object.entries({ x: index * 10, y, width: 8, height, fill: colours[kind] })) {
        bar.setAttribute(name, String(value))
      }
      bars.push(bar)
    }
  }
  svg.replaceChildren(...bars)
}
