// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest'
import { createWorldView } from '../../console/world.js'
import { CHOICES, fakeClient, listOf, refusal } from './fakeClient.js'

const CALL = {
  id: 'c1',
  created_at: '2026-11-20T11:00:00.000Z',
  caller_name: 'Ada Lovelace',
  caller_phone: '+14155550100',
  status: 'completed',
  summary: 'Asked for a quote.',
  contact_id: 'k1',
  recording_url: 'https://recordings.call-sandbox.example/c1.mp3',
}
const LEAD = {
  id: 'l1',
  created_at: '2026-11-20T11:05:00.000Z',
  caller_name: 'Ada Lovelace',
  status: 'new',
  urgency: 'high',
  call_log_id: 'c1',
  contact_id: 'k1',
}

function worldOf(table: Parameters<typeof fakeClient>[0]) {
  const client = fakeClient(table)
  const view = createWorldView({ ...client, choices: CHOICES, root: '', session: 'default' })
  document.body.replaceChildren(view.element)
  return { client, view, element: view.element }
}
/** Picks a kind of record: the list follows the choice, without Show. */
const select = (element: HTMLElement, kind: string) => {
  const kinds = element.querySelector('select[name=kind]') as HTMLSelectElement
  kinds.value = kind
  kinds.dispatchEvent(new Event('change'))
}

describe('the World tab', () => {
  it("offers every kind of the choices, and lists a kind's records in its columns with the key given", async () => {
    const { client, view, element } = worldOf({ 'GET /v1/calls?limit=20': listOf([CALL]) })
    expect([...element.querySelectorAll('select[name=kind] option')].map((option) => option.textContent)).toEqual([
      'calls',
      'contacts',
      'leads',
      'appointments',
    ])
    await view.refresh()
    expect([...element.querySelectorAll('th')].map((th) => th.textContent)).toEqual(CHOICES.kinds[0]!.columns)
    expect(element.querySelector('tr[data-id=c1]')?.textContent).toContain('Ada Lovelace')
    expect(client.sent).toEqual([{ method: 'GET', path: '/v1/calls?limit=20', key: 'sk_sandbox_all', body: undefined }])
  })

  it('says how to make a record when a kind has none', async () => {
    const { element } = worldOf({ 'GET /v1/calls?limit=20': listOf([]), 'GET /v1/leads?limit=20': listOf([]) })
    select(element, 'leads')
    await vi.waitFor(() =>
      expect(element.querySelector('.empty-state')?.textContent).toBe(
        'No leads in this world. Ring a call in Controls to make one.',
      ),
    )
    expect(element.querySelector('table')).toBeNull()
  })

  it('pages with the cursor, keeping the rows already shown', async () => {
    const second = { ...CALL, id: 'c2', caller_name: 'Grace Hopper' }
    const { element, view } = worldOf({
      'GET /v1/calls?limit=20': listOf([CALL], 'cur_1'),
      'GET /v1/calls?limit=20&cursor=cur_1': listOf([second]),
    })
    await view.refresh()
    const next = [...element.querySelectorAll('button')].find((button) => button.textContent === 'Next page')!
    expect(next.hidden).toBe(false)
    next.click()
    await vi.waitFor(() => expect(element.querySelectorAll('tbody tr')).toHaveLength(2))
    expect(next.hidden).toBe(true)
  })

  it('opens a call whole (its conversation, its recording) with Enter, and its contact from the link', async () => {
    const { element, view } = worldOf({
      'GET /v1/calls?limit=20': listOf([CALL]),
      'GET /v1/calls/c1': {
        status: 200,
        body: { data: { ...CALL, messages: [{ role: 'caller', content: 'Hello' }] } },
      },
      'GET /v1/contacts/k1': { status: 200, body: { data: { id: 'k1', name: 'Ada Lovelace', phone: '+14155550100' } } },
    })
    await view.refresh()
    element.querySelector('tr[data-id=c1]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }))
    const detail = element.querySelector('.world-detail')!
    await vi.waitFor(() => expect(detail.querySelector('.message')?.textContent).toBe('caller Hello'))
    expect(detail.querySelector('a')?.getAttribute('href')).toBe(CALL.recording_url)
    // A definition list of its fields, not a JSON dump.
    const terms = [...detail.querySelectorAll('dt')].map((dt) => dt.textContent)
    expect(terms).toEqual([
      'id',
      'created_at',
      'caller_name',
      'caller_phone',
      'status',
      'summary',
      'contact_id',
      'recording_url',
    ])
    ;(detail.querySelector('button.link') as HTMLButtonElement).click()
    await vi.waitFor(() => expect(detail.querySelector('h2')?.textContent).toBe('Contact Ada Lovelace: k1'))
  })

  it('reads a linked record by its id as one path segment, whatever the id holds', async () => {
    // A recorded world, or a real service in proxy mode, names the records: an id of its choosing must not steer the
    // console's read (with the World tab's key) to another path of the server.
    const hostile = '../../_sandbox/requests?x=#'
    const { element, view, client } = worldOf({
      'GET /v1/calls?limit=20': listOf([{ ...CALL, contact_id: hostile }]),
      'GET /v1/calls/c1': { status: 200, body: { data: { ...CALL, contact_id: hostile, messages: [] } } },
      [`GET /v1/contacts/${encodeURIComponent(hostile)}`]: refusal(404, 'not_found', 'No contact.'),
    })
    await view.refresh()
    element.querySelector('tr[data-id=c1]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }))
    const detail = element.querySelector('.world-detail')!
    await vi.waitFor(() => expect(detail.querySelector('button.link')).not.toBeNull())
    ;(detail.querySelector('button.link') as HTMLButtonElement).click()
    await vi.waitFor(() =>
      expect(client.sent.at(-1)?.path).toBe('/v1/contacts/..%2F..%2F_sandbox%2Frequests%3Fx%3D%23'),
    )
  })

  it("shows a lead's fields, its call a link: a kind the API reads no one record of", async () => {
    const { element } = worldOf({
      'GET /v1/calls?limit=20': listOf([]),
      'GET /v1/leads?limit=20': listOf([LEAD]),
      'GET /v1/calls/c1': { status: 200, body: { data: { ...CALL, messages: [] } } },
    })
    select(element, 'leads')
    await vi.waitFor(() => expect(element.querySelector('tr[data-id=l1]')).not.toBeNull())
    ;(element.querySelector('tr[data-id=l1]') as HTMLElement).click()
    const detail = element.querySelector('.world-detail')!
    await vi.waitFor(() => expect(detail.querySelector('[data-record=l1]')).not.toBeNull())
    const links = [...detail.querySelectorAll('button.link')].map((button) => button.textContent)
    expect(links).toEqual(['c1', 'k1'])
    ;(detail.querySelector('button.link') as HTMLButtonElement).click()
    await vi.waitFor(() => expect(detail.querySelector('[data-record=c1]')).not.toBeNull())
  })

  it('follows a reset: the open record gone, it closes with a note beside the empty list', async () => {
    const { client, element, view } = worldOf({
      'GET /v1/calls?limit=20': listOf([CALL]),
      'GET /v1/calls/c1': { status: 200, body: { data: { ...CALL, messages: [] } } },
    })
    await view.refresh()
    ;(element.querySelector('tr[data-id=c1]') as HTMLElement).click()
    await vi.waitFor(() => expect(element.querySelector('[data-record=c1]')).not.toBeNull())
    client.table['GET /v1/calls?limit=20'] = listOf([])
    client.table['GET /v1/calls/c1'] = refusal(404, 'not_found', 'No call has the id c1.', 'call_id')
    await view.refresh()
    expect(element.querySelector('[data-record]')).toBeNull()
    expect(element.querySelector('[data-gone=c1]')?.textContent).toContain('The call c1 is no longer in this world')
    expect(element.querySelector('.empty-state')?.textContent).toContain('No calls in this world')
  })

  it('closes an open lead no longer listed after a reset', async () => {
    const { client, element, view } = worldOf({
      'GET /v1/calls?limit=20': listOf([]),
      'GET /v1/leads?limit=20': listOf([LEAD]),
    })
    select(element, 'leads')
    await vi.waitFor(() => expect(element.querySelector('tr[data-id=l1]')).not.toBeNull())
    ;(element.querySelector('tr[data-id=l1]') as HTMLElement).click()
    client.table['GET /v1/leads?limit=20'] = listOf([])
    await view.refresh()
    expect(element.querySelector('[data-gone=l1]')).not.toBeNull()
  })

  it('shows the kind picked last, whichever answer comes back last', async () => {
    let answerCalls = () => {}
    const callsLater = new Promise<void>((resolve) => {
      answerCalls = resolve
    })
    const { element, view } = worldOf({
      'GET /v1/calls?limit=20': () => callsLater.then(() => listOf([CALL])),
      'GET /v1/leads?limit=20': listOf([LEAD]),
    })
    const slow = view.refresh()
    select(element, 'leads')
    await vi.waitFor(() => expect(element.querySelector('tr[data-id=l1]')).not.toBeNull())
    answerCalls()
    await slow
    expect(element.querySelector('tr[data-id=c1]')).toBeNull()
    expect(element.querySelector('table')?.getAttribute('data-kind')).toBe('leads')
  })

  it('shows a refused list with its reason', async () => {
    const { element, view } = worldOf({
      'GET /v1/calls?limit=20': refusal(403, 'insufficient_scope', 'This key lacks the calls:read scope.'),
    })
    await view.refresh()
    expect(element.querySelector('[data-reason]')?.getAttribute('data-reason')).toBe('insufficient_scope')
  })
})
