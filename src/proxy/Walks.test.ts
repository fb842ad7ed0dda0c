import { describe, expect, it } from 'vitest'
import { Walks } from './Walks.js'

const record = (n: number) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  created_at: new Date(Date.UTC(2026, 10, 20) - n * 60_000).toISOString(),
})
const page = (...numbers: number[]) => numbers.map(record)

describe('Walks: the pages of one walk through a list', () => {
  it('finds nothing wrong with pages that go on where the last one ended', () => {
    const walks = new Walks()
    expect(walks.page(undefined, page(1, 2, 3), 'c1')).toEqual([])
    expect(walks.page('c1', page(4, 5, 6), 'c2')).toEqual([])
    expect(walks.page('c2', page(7), null)).toEqual([])
  })

  it('names a record an earlier page of the walk listed, and where it is', () => {
    const walks = new Walks()
    walks.page(undefined, page(1, 2, 3), 'c1')
    walks.page('c1', page(4, 5), 'c2')
    expect(walks.page('c2', page(6, 2, 7), null)).toEqual([
      {
        rule: 'duplicate',
        field: 'data[1].id',
        expected: expect.stringContaining('this is page 3'),
        got: JSON.stringify(record(2).id),
      },
    ])
  })

  it('names a page that starts before the last one ended', () => {
    const walks = new Walks()
    walks.page(undefined, page(1, 2, 5), 'c1')
    expect(walks.page('c1', page(4, 6), null)).toEqual([
      {
        rule: 'order',
        field: 'data[0]',
        expected: expect.stringContaining(record(5).id),
        got: `${record(4).created_at} ${record(4).id}`,
      },
    ])
  })

  it('takes a cursor asked for again (a retry) as a walk of its own, and knows no walk of a cursor it never gave', () => {
    const walks = new Walks()
    walks.page(undefined, page(1, 2), 'c1')
    expect(walks.page('c1', page(3, 4), 'c2')).toEqual([])
    expect(walks.page('c1', page(3, 4), 'c2')).toEqual([])
    expect(walks.page('elsewhere', page(1, 2), null)).toEqual([])
  })

  it('leaves repeats within one page to the page check', () => {
    expect(new Walks().page(undefined, page(1, 1, 2), null)).toEqual([])
  })
})
