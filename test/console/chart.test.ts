// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { countPerMinute, renderChart, renderLegend } from '../../console/chart.js'

const END = Date.parse('2026-11-20T12:00:30Z')
const at = (time: string, status: number) => ({ timestamp: `2026-11-20T${time}Z`, status })

describe("the Requests tab's chart", () => {
  it('counts each minute of the hour by class, 3xx with 2xx, and leaves out what is outside the hour', () => {
    const bins = countPerMinute(
      [
        at('12:00:10', 200),
        at('12:00:01', 404),
        at('11:59:59', 500),
        at('11:59:00', 302),
        at('11:00:59', 201),
        at('10:59:59', 200),
        at('12:01:00', 200),
      ],
      END,
    )
    expect(bins).toHaveLength(60)
    expect(new Date(bins[0]!.start).toISOString()).toBe('2026-11-20T11:01:00.000Z')
    expect(bins.at(-1)!.counts).toEqual([1, 1, 0])
    expect(bins.at(-2)!.counts).toEqual([1, 0, 1])
    expect(bins.reduce((sum, { counts }) => sum + counts[0]! + counts[1]! + counts[2]!, 0)).toBe(4)
  })

  it('is drawn at its box width, unstretched, with a count up the side, the time along the bottom and a title per bar', () => {
    const chart = renderChart([at('12:00:10', 200), at('12:00:11', 200), at('12:00:12', 429), at('11:58:00', 503)], {
      end: END,
      width: 1000,
    })
    expect(chart.getAttribute('viewBox')).toBe('0 0 1000 150')
    expect(chart.getAttribute('preserveAspectRatio')).toBe('xMinYMin meet')
    const ticks = [...chart.querySelectorAll('text')].map((text) => text.textContent)
    expect(ticks).toEqual(['0', '2', '3', '11:01', '11:11', '11:21', '11:31', '11:41', '11:51', '12:00'])
    const titles = [...chart.querySelectorAll('g > title')].map((title) => title.textContent)
    expect(titles).toEqual(['11:58: 1 request (0 2xx, 0 4xx, 1 5xx)', '12:00: 3 requests (2 2xx, 1 4xx, 0 5xx)'])
    // The tallest bar reaches the top of the plot: the count axis is the most there is.
    const heights = [...chart.querySelectorAll('g[data-minute="12:00"] rect')].map((rect) =>
      Number(rect.getAttribute('height')),
    )
    expect(heights[0]! + heights[1]!).toBeCloseTo(150 - 10 - 22)
    // The bars span the box: the last one ends within its right margin.
    const last = chart.querySelector('g[data-minute="12:00"] rect')!
    expect(Number(last.getAttribute('x')) + Number(last.getAttribute('width'))).toBeGreaterThan(1000 - 8 - 16)
    expect(chart.getAttribute('aria-label')).toBe('Requests per minute by status, 11:01 to 12:00: 4 in all')
  })

  it('names each class in its legend, beside its colour', () => {
    expect([...renderLegend().querySelectorAll('li')].map((item) => item.textContent)).toEqual([
      '2xx (and 3xx)',
      '4xx',
      '5xx',
    ])
  })
})
