// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { reasonOf } from '../../console/elements.js'
import { curlOf, replayOf } from '../../console/exchange.js'
import { countText, createRequestsView, searchQuery } from '../../console/requests.js'
import type { JournalEntry } from '../../src/schemas/index.js'

const KEYS = [
  { key: 'sk_sandbox_all', scopes: ['calls:read', 'contacts:read', 'contacts:write'] },
  { key: 'sk_sandbox_calls', scopes: ['calls:read'] },
]

/** The journal's entry for request `n`: newest first, as the journal gives them. */
function entry(n: number, changes: Partial<JournalEntry> = {}): JournalEntry {
  return {
    request_id: `req_${n}`,
    method: 'GET',
    path: '/v1/calls',
    query: { limit: '5' },
    status: 200,
    key: 'sk_sandbox_all',
    duration_ms: 1.5,
    timestamp: '2026-11-20T12:00:00.000Z',
    request: {
      headers: { authorization: 'Bearer sk_sandbox_all', accept: '*/*', host: 'localhost' },
      body: null,
      body_truncated: false,
      headers_truncated: false,
    },
    response: {
      headers: { 'content-type': 'application/json' },
      body: '{"data":[]}',
      body_truncated: false,
      headers_truncated: false,
    },
    ...changes,
  }
}

/** A journal of `total` entries behind a fake control plane that pages and filters by request id as the sandbox does. */
function fakeJournal(total: number, extra: JournalEntry[] = []) {
  const entries = [...extra, ...Array.from({ length: total }, (_, n) => entry(n))]
  const asked: URLSearchParams[] = []
  const control = vi.fn(async (path: string) => {
    const query = new URLSearchParams(path.split('?')[1])
    asked.push(query)
    if (query.get('path') === 'calls') {
      return {
        status: 400,
        body: { error: { code: 'invalid_parameter', message: 'path must start with /.', param: 'path' } },
      }
    }
    const id = query.get('request_id')
    const matching = id ? entries.filter((one) => one.request_id === id) : entries
    const offset = Number(query.get('offset') ?? 0)
    const limit = Number(query.get('limit') ?? 1000)
    return { status: 200, body: { data: matching.slice(offset, offset + limit), count: matching.length } }
  })
  return { entries, asked, control }
}

function view(journal: ReturnType<typeof fakeJournal>, more: { narrow?: boolean; send?: any; copy?: any } = {}) {
  const requests = createRequestsView({
    control: journal.control as any,
    send: more.send ?? vi.fn(),
    base: 'http://localhost:4010/sessions/ci',
    choices: { keys: KEYS },
    copy: more.copy,
    narrow: () => more.narrow ?? false,
  })
  document.body.replaceChildren(requests.element)
  return requests
}

const rows = () => [...document.querySelectorAll<HTMLElement>('#request-list tbody tr')]
const text = (selector: string) => document.querySelector(selector)?.textContent
const button = (name: string) => [...document.querySelectorAll('button')].find((one) => one.textContent === name)!
const input = (label: string) =>
  [...document.querySelectorAll('label')]
    .find((one) => one.firstChild?.textContent === label)!
    .querySelector('input, select') as HTMLInputElement

afterEach(() => document.body.replaceChildren())

describe('the Requests tab', () => {
  it('shows the first page of 50 with the count, and pages on with Next and back with Previous', async () => {
    const journal = fakeJournal(1234)
    const requests = view(journal)
    await requests.refresh()
    expect(journal.asked[0]!.toString()).toBe('limit=50&offset=0')
    expect(rows()).toHaveLength(50)
    expect(text('.count')).toBe('1–50 of 1,234 matching')
    expect(button('Previous').disabled).toBe(true)
    button('Next').click()
    await vi.waitFor(() => expect(text('.count')).toBe('51–100 of 1,234 matching'))
    expect(rows()[0]!.dataset.requestId).toBe('req_50')
    expect(text('.live-note')).toMatch(/only the first page follows new requests/)
    // The live poll leaves a page past the first as it is: it does not even ask.
    const before = journal.asked.length
    await requests.refresh({ live: true })
    expect(journal.asked).toHaveLength(before)
    button('Previous').click()
    await vi.waitFor(() => expect(text('.count')).toBe('1–50 of 1,234 matching'))
    expect(text('.live-note')).toBe('Live: the first page follows new requests.')
    expect(countText(1200, 34, 1234)).toBe('1,201–1,234 of 1,234 matching')
    expect(countText(0, 0, 0)).toBe('0 matching')
  })

  it("asks for the chart's hour at once on a search, and while it follows new requests at most every 5 s", async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      const journal = fakeJournal(3)
      const requests = view(journal)
      const chartAsks = () => journal.asked.filter((query) => query.has('since') && !query.has('offset')).length
      await requests.refresh()
      await vi.waitFor(() => expect(chartAsks()).toBe(1))
      // A new request on the first page: the list follows it, the chart waits its turn.
      journal.entries.unshift(entry(99))
      await requests.refresh({ live: true })
      expect(rows()[0]!.dataset.requestId).toBe('req_99')
      expect(chartAsks()).toBe(1)
      vi.advanceTimersByTime(5_000)
      journal.entries.unshift(entry(98))
      await requests.refresh({ live: true })
      await vi.waitFor(() => expect(chartAsks()).toBe(2))
      // The developer's own question (a refresh that is not the poll) is answered whole, chart too.
      journal.entries.unshift(entry(97))
      await requests.refresh()
      await vi.waitFor(() => expect(chartAsks()).toBe(3))
    } finally {
      vi.useRealTimers()
    }
  })

  it('searches by request id, path, status, key and time range, as the journal names them, from the first page', async () => {
    const journal = fakeJournal(120)
    const requests = view(journal)
    await requests.refresh()
    button('Next').click()
    await vi.waitFor(() => expect(text('.count')).toBe('51–100 of 120 matching'))
    const id = input('Request id')
    id.value = 'req_77'
    id.dispatchEvent(new Event('input', { bubbles: true }))
    await vi.waitFor(() => expect(rows().map((row) => row.dataset.requestId)).toEqual(['req_77']))
    // The list's question (the chart asks its own, for the hour) starts again at the first page.
    const listed = journal.asked.filter((query) => query.has('offset')).at(-1)!
    expect([listed.get('offset'), listed.get('request_id')]).toEqual(['0', 'req_77'])
    const form = new FormData()
    for (const [name, value] of Object.entries({
      request_id: ' req_1 ',
      path: '/v1/*',
      status: '4xx',
      key: '…abcd',
      since: '2026-11-20T11:00',
      until: '2026-11-20T12:00:30',
    })) {
      form.set(name, value)
    }
    expect(searchQuery(form).toString()).toBe(
      'request_id=req_1&path=%2Fv1%2F*&status=4xx&key=%E2%80%A6abcd&since=2026-11-20T11%3A00%3A00Z&until=2026-11-20T12%3A00%3A30Z',
    )
    expect(['Request id', 'Path', 'Status', 'Key', 'From (UTC)', 'To (UTC)'].map((label) => input(label).name)).toEqual(
      ['request_id', 'path', 'status', 'key', 'since', 'until'],
    )
  })

  it("says why the journal refused a search, in the contract's words", async () => {
    const journal = fakeJournal(3)
    view(journal)
    const path = input('Path')
    path.value = 'calls'
    path.dispatchEvent(new Event('input', { bubbles: true }))
    await vi.waitFor(() => expect(text('.search-problem [data-reason]')).toMatch(/path must start with \//))
  })

  it('cuts a long path in its cell and keeps the whole one in its title', async () => {
    const long = `/v1/calls?limit=2&cursor=${'x'.repeat(400)}`
    view(fakeJournal(0, [entry(1, { query: { limit: '2', cursor: 'x'.repeat(400) } })])).refresh()
    await vi.waitFor(() => expect(rows()).toHaveLength(1))
    const cell = rows()[0]!.querySelector('td.cut')!
    expect(cell.getAttribute('title')).toBe(long)
  })

  it('opens a row with Enter, closes with Escape and gives the focus back to the row; in a drawer, focus goes to Close', async () => {
    const requests = view(fakeJournal(3), { narrow: true })
    await requests.refresh()
    const row = rows()[1]!
    row.focus()
    row.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }))
    expect(document.querySelector('.requests-split')!.classList.contains('open')).toBe(true)
    expect(text('#request-detail h2')).toBe('GET /v1/calls?limit=5')
    expect(row.getAttribute('aria-selected')).toBe('true')
    expect(document.activeElement).toBe(button('Close'))
    // A modal drawer: the list, the search and the rest of the page are inert while it is open, the drawer is not.
    const detail = document.querySelector('#request-detail')!
    expect([detail.getAttribute('role'), detail.getAttribute('aria-modal')]).toEqual(['dialog', 'true'])
    expect(document.querySelector('.list-pane')!.hasAttribute('inert')).toBe(true)
    expect(document.querySelector('form')!.closest('[inert]')).not.toBeNull()
    expect(detail.closest('[inert]')).toBeNull()
    detail.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }))
    expect(document.querySelector('.requests-split')!.classList.contains('open')).toBe(false)
    expect(document.querySelectorAll('[inert]')).toHaveLength(0)
    expect([detail.getAttribute('role'), detail.hasAttribute('aria-modal')]).toEqual(['region', false])
    expect(document.activeElement).toBe(row)
    expect(text('#request-detail')).toBe('Pick a request to see it whole.')
  })

  it('beside the list (a wide page), leaves the page as it is: no dialog, nothing inert', async () => {
    const requests = view(fakeJournal(2))
    await requests.refresh()
    rows()[0]!.click()
    expect(document.querySelector('.requests-split')!.classList.contains('open')).toBe(true)
    expect(document.querySelector('#request-detail')!.getAttribute('role')).toBe('region')
    expect(document.querySelectorAll('[inert]')).toHaveLength(0)
  })

  it('is no modal while its tab is hidden, and is one again once the tab is shown', async () => {
    let narrow = false
    const journal = fakeJournal(2)
    const requests = createRequestsView({
      control: journal.control as any,
      send: vi.fn(),
      base: 'http://localhost:4010',
      choices: { keys: KEYS },
      narrow: () => narrow,
    })
    const tab = document.createElement('section')
    const header = document.createElement('nav')
    tab.append(requests.element)
    document.body.replaceChildren(header, tab)
    await requests.refresh()
    rows()[0]!.click()
    // Another tab opens, then the page narrows: the hidden drawer must not leave the page inert.
    tab.hidden = true
    requests.relayout()
    narrow = true
    dispatchEvent(new Event('resize'))
    expect(document.querySelectorAll('[inert]')).toHaveLength(0)
    tab.hidden = false
    requests.relayout()
    expect(header.hasAttribute('inert')).toBe(true)
    expect(document.querySelector('#request-detail')!.getAttribute('aria-modal')).toBe('true')
    requests.close()
    expect(document.querySelectorAll('[inert]')).toHaveLength(0)
  })

  it('resizes the split with the arrow keys, within bounds', async () => {
    view(fakeJournal(1))
    const separator = document.querySelector<HTMLElement>('[role=separator]')!
    for (const key of ['ArrowLeft', 'ArrowLeft']) separator.dispatchEvent(new KeyboardEvent('keydown', { key }))
    expect(separator.getAttribute('aria-valuenow')).toBe('50')
    separator.dispatchEvent(new KeyboardEvent('keydown', { key: 'End' }))
    separator.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight' }))
    expect(separator.getAttribute('aria-valuenow')).toBe('80')
    expect((document.querySelector('.requests-split') as HTMLElement).style.getPropertyValue('--list-share')).toBe(
      '80%',
    )
  })

  it('for a missing scope, names the reason, the fix, and the keys of the sandbox that have the scope', () => {
    const reason = reasonOf(
      {
        type: 'permission_error',
        code: 'insufficient_scope',
        message: 'This key lacks the contacts:read scope.',
        details: { required_scope: 'contacts:read', key_scopes: ['calls:read'] },
      } as any,
      KEYS,
    )
    expect(reason.textContent).toContain('Missing scope: contacts:read (the key has calls:read).')
    expect(reason.textContent).toContain('Keys with contacts:read: sk_sandbox_all.')
    const none = reasonOf(
      {
        type: 'permission_error',
        code: 'insufficient_scope',
        message: '',
        details: { required_scope: 'leads:read', key_scopes: [] },
      } as any,
      KEYS,
    )
    expect(none.textContent).toContain("None of the sandbox's keys has leads:read")
  })
})

describe('copy as curl', () => {
  it('has the method, the whole URL with its query, the headers as journaled and the body, quoted for a shell', () => {
    const posted = entry(1, {
      method: 'POST',
      path: '/v1/contacts',
      query: { note: "it's", tag: ['a b', 'c'] },
      request: {
        headers: {
          authorization: 'Bearer sk_sandbox_all',
          'content-type': 'application/json',
          'content-length': '20',
          host: 'h',
        },
        body: '{"name":"O\'Neil"}',
        body_truncated: false,
        headers_truncated: false,
      },
    })
    expect(curlOf(posted, 'http://localhost:4010/sessions/ci')).toBe(
      [
        "curl --globoff -X POST 'http://localhost:4010/sessions/ci/v1/contacts?note=it'\\''s&tag=a%20b&tag=c'",
        "-H 'authorization: Bearer sk_sandbox_all'",
        "-H 'content-type: application/json'",
        `--data-raw '{"name":"O'\\''Neil"}'`,
      ].join(' \\\n  '),
    )
  })

  it('puts $API_KEY where the journal shows a key only by its last four, and invents none', () => {
    const foreign = entry(1, {
      key: '…abcd',
      request: {
        headers: { authorization: 'Bearer …abcd', 'x-api-key': '…wxyz' },
        body: null,
        body_truncated: false,
        headers_truncated: false,
      },
    })
    const curl = curlOf(foreign, 'http://h')
    expect(curl).toContain(`-H 'authorization: Bearer '"$API_KEY"`)
    expect(curl).toContain(`-H 'x-api-key: '"$API_KEY"`)
    expect(curl).not.toContain('abcd')
  })

  it('shows the command and hands it to the clipboard', async () => {
    const copy = vi.fn(async () => undefined)
    const requests = view(fakeJournal(1), { copy })
    await requests.refresh()
    rows()[0]!.click()
    button('Copy as curl').click()
    await vi.waitFor(() => expect(copy).toHaveBeenCalledWith(curlOf(entry(0), 'http://localhost:4010/sessions/ci')))
    expect(text('pre.curl')).toBe(curlOf(entry(0), 'http://localhost:4010/sessions/ci'))
  })

  it('copies nothing for a request with a NUL in a header, and says why', async () => {
    const copy = vi.fn(async () => undefined)
    const nul = entry(9, { request: { ...entry(9).request!, headers: { 'x-note': 'a\u0000b' } } })
    const requests = view(fakeJournal(0, [nul]), { copy })
    await requests.refresh()
    rows()[0]!.click()
    button('Copy as curl').click()
    await vi.waitFor(() => expect(document.querySelector<HTMLElement>('pre.curl')?.dataset.copied).toBe('false'))
    expect(text('pre.curl')).toBe(
      'This request cannot be copied as curl: its header x-note holds a NUL character, which no command line can pass on.',
    )
    expect(copy).not.toHaveBeenCalled()
  })
})

describe('replay', () => {
  it('sends the same request with the key the sandbox issued, and shows the new answer beside the old', async () => {
    const send = vi.fn(async () => ({ status: 404, text: '{"error":{"code":"not_found"}}' }))
    const requests = view(fakeJournal(1), { send })
    await requests.refresh()
    rows()[0]!.click()
    button('Replay').click()
    await vi.waitFor(() => expect(text('[data-answer="replayed"] h4')).toBe('Now: 404'))
    expect(send).toHaveBeenCalledWith('/v1/calls?limit=5', {
      method: 'GET',
      headers: { authorization: 'Bearer sk_sandbox_all', accept: '*/*' },
      body: undefined,
    })
    expect(text('[data-answer="journaled"] h4')).toBe('Then: 200')
    expect(text('[data-answer="replayed"] pre')).toContain('"code": "not_found"')
    expect(text('.replay')).toContain('The replay is a real API request: the journal lists it')
  })

  it('leaves out a key the journal shows by its end, and a body it cut, and says so', () => {
    const foreign = entry(1, {
      method: 'POST',
      key: '…abcd',
      request: {
        headers: { authorization: 'Bearer …abcd', 'content-type': 'application/json' },
        body: '{"na',
        body_truncated: true,
        headers_truncated: true,
      },
    })
    const { init, left } = replayOf(foreign, KEYS)
    expect(init).toEqual({ method: 'POST', headers: { 'content-type': 'application/json' }, body: undefined })
    // A user's own key is listed among the sandbox's keys by its end too: a match there is still no key to send.
    expect(replayOf(foreign, [...KEYS, { key: '…abcd', scopes: ['calls:read'] }]).init).toEqual(init)
    expect(left).toEqual([
      'its key (the journal shows only …abcd)',
      'the headers the journal did not keep',
      'its body (the journal kept only its start)',
    ])
  })

  it('says a replay leaves out the query parameters the journal did not keep', () => {
    const cut = entry(1, { query: { limit: Array(100).fill('2') }, query_truncated: true })
    const { path, left } = replayOf(cut, KEYS)
    expect(path).toBe(`/v1/calls?${Array(100).fill('limit=2').join('&')}`)
    expect(left).toEqual(['the query parameters the journal did not keep (past the first 100)'])
  })
})
