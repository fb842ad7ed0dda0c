// Controls: reset (once confirmed), the clock (ticking while it runs), ring a call, fault rules, the session's settings.

import { card, confirmation, resultOf } from './cards.js'
import { el } from './elements.js'
import { createFaultRulesCard } from './faultRules.js'
import { createSettingsCard } from './settings.js'

/** @typedef {import('./choices.js').ViewDeps} ViewDeps */
/** @typedef {import('../src/schemas/index.js').ClockState} ClockState */
/** @template T @typedef {import('./sandbox.js').Answer<T>} Answer */

/** How often a running clock's shown time moves on. */
const TICK_MS = 1_000

/**
 * The Controls tab. `onWorldChange` is told after a reset or a clock change, for the views that show the world.
 * @param {ViewDeps & { onWorldChange?: () => void }} deps
 */
export function createControlsView(deps) {
  const reset = createResetCard(deps)
  const clock = createClockCard(deps)
  const call = createCallCard(deps)
  const faults = createFaultRulesCard(deps)
  const settings = createSettingsCard(deps)
  reset.afterReset = () => {
    clock.refresh()
    faults.refresh()
    settings.refresh()
  }
  const element = el(
    'div',
    { class: 'controls' },
    reset.element,
    clock.element,
    call.element,
    faults.element,
    settings.element,
  )
  return {
    element,
    refresh: () => Promise.all([clock.refresh(), faults.refresh(), settings.refresh()]),
    /** Stops the clock's ticking (its tab closed, or a test's view thrown away); `refresh` starts it again. */
    stop: () => clock.stop(),
  }
}

/** @param {ViewDeps & { onWorldChange?: () => void }} deps */
function createResetCard({ control, choices, session, onWorldChange }) {
  const scenario = el('select', { name: 'scenario' }, ...choices.scenarios.map((name) => el('option', {}, name)))
  const ask = el('button', { type: 'submit' }, 'Reset the world…')
  const form = el('form', { onsubmit: onSubmit }, el('label', {}, 'Scenario', scenario), ask)
  const { element, result } = card('Reset', form)
  const self = { element, afterReset: () => {} }

  /** @param {Event} event */
  function onSubmit(event) {
    event.preventDefault()
    const name = /** @type {HTMLSelectElement} */ (scenario).value
    element.querySelector('.confirm')?.remove()
    form.after(
      confirmation({
        question: `Reset to the scenario ${name}? This resets the world for everyone using the session ${session}: its records, clock, journal and fault rules.`,
        confirm: `Reset to ${name}`,
        returnTo: ask,
        onConfirm: async () => {
          const answer = await control('/_sandbox/reset', { method: 'POST', body: JSON.stringify({ scenario: name }) })
          result.replaceChildren(resultOf(answer, `The world is the scenario ${name} again.`))
          self.afterReset()
          onWorldChange?.()
        },
      }),
    )
  }
  return self
}

/** @param {ViewDeps & { onWorldChange?: () => void }} deps */
function createClockCard({ control, onWorldChange }) {
  const now = el('output', { class: 'clock-now' })
  const mode = el('span', { class: 'clock-mode' })
  const advance = el('input', { name: 'advance', type: 'number', value: '900', min: -315360000, max: 315360000 })
  const setTo = el('input', { name: 'now', placeholder: '2026-11-20T09:00:00Z' })
  const form = el(
    'form',
    { onsubmit: onSubmit },
    el('p', { class: 'wide' }, 'Now: ', now, ' ', mode),
    el('label', {}, 'Advance by seconds', advance),
    el('button', { type: 'submit', value: 'advance' }, 'Advance'),
    el('label', {}, 'Set to', setTo),
    el('button', { type: 'submit', value: 'set' }, 'Set'),
  )
  const { element, result } = card('Clock', form)
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let ticking

  /** @param {SubmitEvent} event */
  async function onSubmit(event) {
    event.preventDefault()
    const body =
      /** @type {HTMLButtonElement | null} */ (event.submitter)?.value === 'set'
        ? { now: /** @type {HTMLInputElement} */ (setTo).value }
        : { advance_seconds: Number(/** @type {HTMLInputElement} */ (advance).value) }
    const answer = /** @type {Answer<ClockState>} */ (
      await control('/_sandbox/clock', { method: 'POST', body: JSON.stringify(body) })
    )
    result.replaceChildren(resultOf(answer, answer.status < 300 ? `The clock says ${answer.body.data.now}.` : ''))
    await refresh()
    if (answer.status < 300) onWorldChange?.()
  }

  /** The sandbox's clock; while it runs, its shown time moves on with the page's, from the instant it was read. */
  async function refresh() {
    const { status, body } = /** @type {Answer<ClockState>} */ (await control('/_sandbox/clock'))
    stop()
    if (status !== 200) return
    const read = { at: Date.now(), now: Date.parse(body.data.now) }
    now.textContent = body.data.now
    mode.textContent = body.data.mode === 'running' ? '(running)' : '(fixed: it moves only when set or advanced)'
    now.dataset.mode = body.data.mode
    // Not behind another tab: the answer may come after the Controls tab was left (its stop already called).
    if (body.data.mode === 'running' && !element.closest('[hidden]')) {
      ticking = setInterval(() => {
        now.textContent = new Date(read.now + Date.now() - read.at).toISOString()
      }, TICK_MS)
    }
  }
  function stop() {
    clearInterval(ticking)
    ticking = undefined
  }
  return { element, refresh, stop }
}

/** @param {ViewDeps & { onWorldChange?: () => void }} deps */
function createCallCard({ control, choices, onWorldChange }) {
  const organizations = choices.organizations
  const organization = el(
    'select',
    { name: 'organization_id', onchange: () => fillReasons() },
    ...organizations.map((one) => el('option', { value: one.organization_id }, one.organization_name)),
  )
  const reason = el('select', { name: 'reason' })
  const status = el(
    'select',
    { name: 'status' },
    el('option', { value: '' }, 'default'),
    ...choices.call_statuses.map((one) => el('option', {}, one)),
  )
  const phone = el('input', { name: 'caller_phone', placeholder: '+14155550123', autocomplete: 'off' })
  const form = el(
    'form',
    { onsubmit: onSubmit },
    // One organization: nothing to choose, and the call rings it.
    organizations.length > 1 ? el('label', {}, 'Organization', organization) : undefined,
    el('label', {}, 'Reason', reason),
    el('label', {}, 'Status', status),
    el('label', {}, 'Caller phone', phone),
    el('button', { type: 'submit' }, 'Ring'),
  )
  const { element, result } = card('Ring a call', form)
  fillReasons()

  function fillReasons() {
    const id = /** @type {HTMLSelectElement} */ (organization).value
    const reasons = organizations.find((one) => one.organization_id === id)?.reasons ?? []
    reason.replaceChildren(el('option', { value: '' }, 'any'), ...reasons.map((one) => el('option', {}, one)))
  }

  /** @param {Event} event */
  async function onSubmit(event) {
    event.preventDefault()
    const fields = Object.fromEntries(
      [...new FormData(/** @type {HTMLFormElement} */ (form))].filter(([, value]) => value !== ''),
    )
    const answer = /** @type {Answer<{ id: string }>} */ (
      await control('/_sandbox/calls', { method: 'POST', body: JSON.stringify(fields) })
    )
    result.replaceChildren(resultOf(answer, 'Rung.'))
    if (answer.status !== 201) return
    result.append(el('p', { 'data-call-id': answer.body.data.id }, `Call ${answer.body.data.id} rang.`))
    onWorldChange?.()
  }
  return { element }
}
