// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createControlsView } from '../../console/controls.js'
import { CHOICES, fakeClient, refusal } from './fakeClient.js'

const FIXED = { status: 200, body: { data: { now: '2026-11-20T12:00:00.000Z', mode: 'fixed' } } }
const SETTINGS = { latency: null, error_rate: 0, rate_limit: null, changed: [] }
const RULE = {
  id: 'fault_1',
  path: '/v1/calls',
  after: 0,
  times: 1,
  probability: 1,
  status: 503,
  hits: 0,
  remaining: 1,
}

let stop: (() => void) | undefined
afterEach(() => {
  stop?.()
  vi.useRealTimers()
})

function controlsOf(table: Parameters<typeof fakeClient>[0] = {}, choices = CHOICES) {
  const client = fakeClient({
    'GET /_sandbox/clock': FIXED,
    'GET /_sandbox/faults': { status: 200, body: { data: [] } },
    'GET /_sandbox/settings': { status: 200, body: { data: SETTINGS } },
    ...table,
  })
  const worldChanges: number[] = []
  const view = createControlsView({
    ...client,
    choices,
    root: '/sessions/ci-1',
    session: 'ci-1',
    onWorldChange: () => worldChanges.push(1),
  })
  stop = view.stop
  document.body.replaceChildren(view.element)
  return { client, view, element: view.element, worldChanges }
}
const card = (element: HTMLElement, title: string) => element.querySelector(`[aria-label="${title}"]`) as HTMLElement
const button = (within: HTMLElement, name: string) =>
  [...within.querySelectorAll('button')].find((one) => one.textContent === name) as HTMLButtonElement
const options = (select: Element | null) =>
  [...(select?.querySelectorAll('option') ?? [])].map((one) => one.textContent)
/** Fills the named fields of a card's form. */
const fill = (within: HTMLElement, values: Record<string, string>) => {
  for (const [name, value] of Object.entries(values))
    (within.querySelector(`[name=${name}]`) as HTMLInputElement | HTMLSelectElement).value = value
}
const writes = (client: ReturnType<typeof fakeClient>) => client.sent.filter((sent) => sent.method !== 'GET')

describe('Ring a call', () => {
  it("offers exactly the server's statuses, and the chosen organization's reasons", () => {
    const { element } = controlsOf()
    const ring = card(element, 'Ring a call')
    expect(options(ring.querySelector('select[name=status]'))).toEqual(['default', ...CHOICES.call_statuses])
    expect(options(ring.querySelector('select[name=organization_id]'))).toEqual(['Sparkle Cleaning', 'Bright Dental'])
    expect(options(ring.querySelector('select[name=reason]'))).toEqual(['any', 'cleaning_booking', 'cleaning_quote'])
    const organization = ring.querySelector('select[name=organization_id]') as HTMLSelectElement
    organization.value = CHOICES.organizations[1]!.organization_id
    organization.dispatchEvent(new Event('change'))
    expect(options(ring.querySelector('select[name=reason]'))).toEqual(['any', 'dental_checkup'])
  })

  it('offers no organization to choose when there is one', () => {
    const { element } = controlsOf({}, { ...CHOICES, organizations: CHOICES.organizations.slice(0, 1) })
    expect(card(element, 'Ring a call').querySelector('select[name=organization_id]')).toBeNull()
  })

  it('rings with the reason chosen, says which call rang, and tells the world', async () => {
    const { client, element, worldChanges } = controlsOf({
      'POST /_sandbox/calls': { status: 201, body: { data: { id: 'c9' } } },
    })
    const ring = card(element, 'Ring a call')
    ;(ring.querySelector('select[name=reason]') as HTMLSelectElement).value = 'cleaning_quote'
    ;(ring.querySelector('select[name=status]') as HTMLSelectElement).value = 'failed'
    button(ring, 'Ring').click()
    await vi.waitFor(() => expect(ring.querySelector('[data-call-id=c9]')).not.toBeNull())
    expect(writes(client)).toEqual([
      {
        method: 'POST',
        path: '/_sandbox/calls',
        body: {
          organization_id: CHOICES.organizations[0]!.organization_id,
          reason: 'cleaning_quote',
          status: 'failed',
        },
      },
    ])
    expect(worldChanges).toHaveLength(1)
  })

  it('shows a refusal beside the form, with its reason', async () => {
    const { element } = controlsOf({
      'POST /_sandbox/calls': refusal(422, 'validation_failed', 'The body has bad fields.', 'caller_phone'),
    })
    const ring = card(element, 'Ring a call')
    button(ring, 'Ring').click()
    await vi.waitFor(() => expect(ring.querySelector('.result [data-reason=validation_failed]')).not.toBeNull())
    expect(ring.querySelector('.result')?.textContent).toContain('The parameter: caller_phone.')
  })
})

describe('Reset', () => {
  it('asks first, naming the scenario and the session; Cancel changes nothing', async () => {
    const { client, element, worldChanges } = controlsOf()
    const reset = card(element, 'Reset')
    ;(reset.querySelector('select') as HTMLSelectElement).value = 'empty'
    button(reset, 'Reset the world…').click()
    const question = reset.querySelector('.confirm p')?.textContent
    expect(question).toContain('scenario empty')
    expect(question).toContain('for everyone using the session ci-1')
    button(reset, 'Cancel').click()
    expect(reset.querySelector('.confirm')).toBeNull()
    expect(writes(client)).toEqual([])
    expect(worldChanges).toEqual([])
  })

  it('Escape cancels too', () => {
    const { client, element } = controlsOf()
    const reset = card(element, 'Reset')
    button(reset, 'Reset the world…').click()
    reset.querySelector('.confirm')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }))
    expect(reset.querySelector('.confirm')).toBeNull()
    expect(writes(client)).toEqual([])
  })

  it('resets once confirmed, then reads the clock, the rules and the settings again and tells the world', async () => {
    const { client, element, worldChanges } = controlsOf({
      'POST /_sandbox/reset': { status: 200, body: { data: {} } },
    })
    const reset = card(element, 'Reset')
    ;(reset.querySelector('select') as HTMLSelectElement).value = 'empty'
    button(reset, 'Reset the world…').click()
    button(reset, 'Reset to empty').click()
    await vi.waitFor(() => expect(worldChanges).toHaveLength(1))
    expect(writes(client)).toEqual([{ method: 'POST', path: '/_sandbox/reset', body: { scenario: 'empty' } }])
    expect(reset.querySelector('.done')?.textContent).toBe('The world is the scenario empty again.')
    expect(client.sent.filter((sent) => sent.method === 'GET').map((sent) => sent.path)).toEqual([
      '/_sandbox/clock',
      '/_sandbox/faults',
      '/_sandbox/settings',
    ])
  })
})

describe('Clock', () => {
  it('stands still when fixed, and says so', async () => {
    vi.useFakeTimers({ now: Date.parse('2030-01-01T00:00:00Z') })
    const { element, view } = controlsOf()
    await view.refresh()
    const now = element.querySelector('.clock-now')!
    expect(now.textContent).toBe('2026-11-20T12:00:00.000Z')
    vi.advanceTimersByTime(5_000)
    expect(now.textContent).toBe('2026-11-20T12:00:00.000Z')
    expect(element.querySelector('.clock-mode')?.textContent).toContain('fixed')
  })

  it('ticks while it runs', async () => {
    vi.useFakeTimers({ now: Date.parse('2030-01-01T00:00:00Z') })
    const { element, view } = controlsOf({
      'GET /_sandbox/clock': { status: 200, body: { data: { now: '2026-11-20T12:00:00.000Z', mode: 'running' } } },
    })
    await view.refresh()
    vi.advanceTimersByTime(3_000)
    expect(element.querySelector('.clock-now')?.textContent).toBe('2026-11-20T12:00:03.000Z')
  })

  it('does not start ticking when its answer comes after its tab was left', async () => {
    vi.useFakeTimers({ now: Date.parse('2030-01-01T00:00:00Z') })
    let answer: (value: any) => void = () => {}
    const { element, view } = controlsOf({ 'GET /_sandbox/clock': () => new Promise((resolve) => (answer = resolve)) })
    const tab = document.createElement('section')
    tab.append(element)
    document.body.replaceChildren(tab)
    const reading = view.refresh()
    // The tab is left while the clock is being read.
    tab.hidden = true
    view.stop()
    answer({ status: 200, body: { data: { now: '2026-11-20T12:00:00.000Z', mode: 'running' } } })
    await reading
    vi.advanceTimersByTime(3_000)
    expect(element.querySelector('.clock-now')?.textContent).toBe('2026-11-20T12:00:00.000Z')
  })

  it('advances by the seconds given and tells the world', async () => {
    const { client, element, worldChanges } = controlsOf({
      'POST /_sandbox/clock': { status: 200, body: { data: { now: '2026-11-20T13:00:00.000Z', mode: 'fixed' } } },
    })
    const clock = card(element, 'Clock')
    ;(clock.querySelector('input[name=advance]') as HTMLInputElement).value = '3600'
    button(clock, 'Advance').click()
    await vi.waitFor(() => expect(worldChanges).toHaveLength(1))
    expect(writes(client)).toEqual([{ method: 'POST', path: '/_sandbox/clock', body: { advance_seconds: 3600 } }])
  })
})

describe('Fault rules', () => {
  it("offers the server's methods, outcomes and statuses, and shows only the chosen outcome's field", () => {
    const { element } = controlsOf()
    const faults = card(element, 'Fault rules')
    expect(options(faults.querySelector('select[name=method]'))).toEqual(['any', 'GET', 'POST'])
    expect(options(faults.querySelector('select[name=status]'))).toEqual(['400', '429', '500', '503'])
    expect(options(faults.querySelector('select[name=error]'))).toEqual(['network'])
    const shown = () =>
      ['status', 'delay_ms', 'error'].filter(
        (name) => !(faults.querySelector(`[name=${name}]`)!.parentElement as HTMLElement).hidden,
      )
    expect(shown()).toEqual(['status'])
    const outcome = faults.querySelector('select[name=outcome]') as HTMLSelectElement
    outcome.value = 'delay_ms'
    outcome.dispatchEvent(new Event('change'))
    expect(shown()).toEqual(['delay_ms'])
  })

  it('adds a rule as the form says, lists it, and removes it', async () => {
    let rules: unknown[] = []
    const { client, element, view } = controlsOf({
      'GET /_sandbox/faults': () => ({ status: 200, body: { data: rules } }),
      'POST /_sandbox/faults': () => {
        rules = [RULE]
        return { status: 201, body: { data: RULE } }
      },
      'DELETE /_sandbox/faults/fault_1': () => {
        rules = []
        return { status: 200, body: { data: RULE } }
      },
    })
    await view.refresh()
    const faults = card(element, 'Fault rules')
    expect(faults.querySelector('.empty-state')?.textContent).toContain('No fault rules')
    fill(faults, { path: '/v1/calls', method: 'GET', status: '503' })
    button(faults, 'Add the rule').click()
    await vi.waitFor(() => expect(faults.querySelector('tr[data-rule=fault_1]')).not.toBeNull())
    expect(writes(client)[0]).toEqual({
      method: 'POST',
      path: '/_sandbox/faults',
      body: { path: '/v1/calls', method: 'GET', after: 0, times: 1, status: 503 },
    })
    expect(faults.querySelector('tr[data-rule=fault_1]')?.textContent).toContain('answers 503')
    button(faults, 'Remove').click()
    await vi.waitFor(() => expect(faults.querySelector('tr[data-rule=fault_1]')).toBeNull())
    expect(writes(client)[1]).toMatchObject({ method: 'DELETE', path: '/_sandbox/faults/fault_1' })
  })

  it('sends times null for a rule until removed', async () => {
    const { client, element } = controlsOf({ 'POST /_sandbox/faults': refusal(422, 'validation_failed', 'Bad.') })
    const faults = card(element, 'Fault rules')
    ;(faults.querySelector('input[name=path]') as HTMLInputElement).value = '/v1/*'
    ;(faults.querySelector('input[name=times]') as HTMLInputElement).value = ''
    button(faults, 'Add the rule').click()
    await vi.waitFor(() => expect(faults.querySelector('.result [data-reason]')).not.toBeNull())
    expect((writes(client)[0]!.body as { times: unknown }).times).toBeNull()
  })
})

describe("The session's settings", () => {
  it('shows them, saves an edit (an empty field: off) and restores the starting ones', async () => {
    const changed = {
      latency: { min: 100, max: 400 },
      error_rate: 0.2,
      rate_limit: { limit: 60, window_ms: 60_000 },
      changed: ['latency', 'error_rate', 'rate_limit'],
    }
    const { client, element, view } = controlsOf({
      'POST /_sandbox/settings': { status: 200, body: { data: changed } },
      'DELETE /_sandbox/settings': { status: 200, body: { data: SETTINGS } },
    })
    await view.refresh()
    const settings = card(element, 'Settings of this session')
    expect(settings.querySelector('dl')?.textContent).toContain('Latencynone')
    fill(settings, { latency: '100-400', error_rate: '0.2', rate_limit: '60/min' })
    button(settings, 'Save the settings').click()
    await vi.waitFor(() => expect(writes(client)).toHaveLength(1))
    await vi.waitFor(() => expect(settings.querySelector('dl')?.textContent).toContain('Latency100-400 ms'))
    expect(writes(client)[0]).toEqual({
      method: 'POST',
      path: '/_sandbox/settings',
      body: { latency: '100-400', error_rate: 0.2, rate_limit: '60/min' },
    })
    expect((settings.querySelector('input[name=rate_limit]') as HTMLInputElement).value).toBe('60/min')
    button(settings, 'Restore the starting settings').click()
    await vi.waitFor(() => expect(writes(client)[1]).toMatchObject({ method: 'DELETE', path: '/_sandbox/settings' }))
    await vi.waitFor(() => expect(settings.querySelector('dl')?.textContent).toContain('Latencynone'))
  })
})
