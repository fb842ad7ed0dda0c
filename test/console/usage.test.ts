// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { createUsageView } from '../../console/usage.js'
import { noDrift } from '../../src/proxy/Drift.js'
import { CHOICES, fakeClient, refusal } from './fakeClient.js'

const KEY = {
  key: 'sk_sandbox_calls',
  organization_id: '32c2f8c7-f989-4916-b7db-478a1fa9c50b',
  requests: 3,
  endpoints: [{ method: 'GET', path: '/v1/calls', requests: 3, statuses: {}, parameters: [] }],
  untouched_endpoints: [],
  scopes: { granted: ['calls:read'], needed: ['calls:read'], unused: [], missing: ['leads:read'] },
}

function usageOf(table: Parameters<typeof fakeClient>[0]) {
  const client = fakeClient({ 'GET /_sandbox/drift': { status: 200, body: { data: noDrift() } }, ...table })
  const view = createUsageView({ ...client, choices: CHOICES, root: '', session: 'default' })
  document.body.replaceChildren(view.element)
  return { view, element: view.element }
}

describe('the Usage tab', () => {
  it('shows a card per key: its requests, scopes and endpoints', async () => {
    const { element, view } = usageOf({ 'GET /_sandbox/usage': { status: 200, body: { data: [KEY] } } })
    await view.refresh()
    const card = element.querySelector('[data-key=sk_sandbox_calls]')!
    const pairs = [...card.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])
    expect(pairs).toEqual([
      ['Requests', '3'],
      ['Scopes needed', 'calls:read'],
      ['Unused scopes', 'none'],
      ['Missing scopes', 'leads:read'],
    ])
    expect(card.querySelector('li')?.textContent).toBe('GET /v1/calls: 3')
    expect(element.querySelector('.drift')?.textContent).toBe('No proxy: nothing to compare.')
  })

  it('says what fills it when no key has called yet', async () => {
    const { element, view } = usageOf({ 'GET /_sandbox/usage': { status: 200, body: { data: [] } } })
    await view.refresh()
    expect(element.querySelector('.usage-list .empty-state')?.textContent).toContain(
      'No API requests since the last reset',
    )
  })

  it('shows a refusal with its reason', async () => {
    const { element, view } = usageOf({ 'GET /_sandbox/usage': refusal(403, 'forbidden', 'Not from here.') })
    await view.refresh()
    expect(element.querySelector('.usage-list [data-reason=forbidden]')).not.toBeNull()
  })
})
