// The session's settings: its latency, error rate and rate limit, shown, changed and restored.

import { card, resultOf } from './cards.js'
import { el } from './elements.js'

/** @typedef {import('./choices.js').ViewDeps} ViewDeps */
/** @typedef {import('../src/schemas/index.js').SettingsState} SettingsState */
/** @template T @typedef {import('./sandbox.js').Answer<T>} Answer */

const SETTINGS = '/_sandbox/settings'
/** The windows a rate limit is written with (`60/min`), as the sandbox reads them. */
const WINDOWS = /** @type {const} */ ([
  ['s', 1_000],
  ['min', 60_000],
  ['h', 3_600_000],
])

/** @param {Record<string, unknown>} attributes */
const input = (attributes) => /** @type {HTMLInputElement} */ (el('input', attributes))

/** @param {ViewDeps} deps */
export function createSettingsCard({ control }) {
  const shown = el('dl', { class: 'settings-now' })
  const latency = input({ name: 'latency', placeholder: '250 or 100-400', autocomplete: 'off' })
  const errorRate = input({ name: 'error_rate', type: 'number', min: 0, max: 1, step: 'any', placeholder: '0' })
  const rateLimit = input({ name: 'rate_limit', placeholder: '60/min', autocomplete: 'off' })
  const form = el(
    'form',
    { onsubmit: onSubmit },
    el('p', { class: 'hint wide' }, 'An empty field turns the setting off.'),
    el('label', {}, 'Latency (ms)', latency),
    el('label', {}, 'Error rate (0 to 1)', errorRate),
    el('label', {}, 'Rate limit', rateLimit),
    el('button', { type: 'submit', value: 'save' }, 'Save the settings'),
    el('button', { type: 'submit', value: 'restore' }, 'Restore the starting settings'),
  )
  const { element, result } = card('Settings of this session', shown, form)

  /** @param {SubmitEvent} event */
  async function onSubmit(event) {
    event.preventDefault()
    const restore = /** @type {HTMLButtonElement | null} */ (event.submitter)?.value === 'restore'
    const text = (/** @type {HTMLInputElement} */ field) => field.value.trim()
    const body = {
      latency: text(latency) || null,
      error_rate: text(errorRate) === '' ? null : Number(text(errorRate)),
      rate_limit: rateLimitOf(text(rateLimit)),
    }
    const answer = /** @type {Answer<SettingsState>} */ (
      restore
        ? await control(SETTINGS, { method: 'DELETE' })
        : await control(SETTINGS, { method: 'POST', body: JSON.stringify(body) })
    )
    result.replaceChildren(
      resultOf(answer, restore ? 'Back to the starting settings.' : 'Saved: from the next request on.'),
    )
    if (answer.status < 300) show(answer.body.data)
  }

  async function refresh() {
    const { status, body } = /** @type {Answer<SettingsState>} */ (await control(SETTINGS))
    if (status === 200) show(body.data)
    else result.replaceChildren(resultOf({ status, body }, ''))
  }

  /** @param {SettingsState} settings */
  function show(settings) {
    shown.replaceChildren(...renderSettings(settings))
    latency.value = latencyText(settings.latency)
    errorRate.value = settings.error_rate === 0 ? '' : String(settings.error_rate)
    rateLimit.value = rateLimitText(settings.rate_limit)
  }
  return { element, refresh }
}

/**
 * The settings in effect, as a definition list's terms and values.
 * @param {SettingsState} settings
 */
export function renderSettings(settings) {
  const changed = settings.changed.length > 0 ? settings.changed.join(', ') : 'none: as the session started'
  return [
    ['Latency', latencyText(settings.latency) ? `${latencyText(settings.latency)} ms` : 'none'],
    ['Error rate', settings.error_rate === 0 ? 'none' : String(settings.error_rate)],
    ['Rate limit', rateLimitText(settings.rate_limit) || 'none'],
    ['Changed at run time', changed],
  ].flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)])
}

/** @param {SettingsState['latency']} latency */
function latencyText(latency) {
  if (!latency) return ''
  return latency.min === latency.max ? String(latency.min) : `${latency.min}-${latency.max}`
}

/**
 * A rate limit as the form shows it: `60/min`; a window of no such unit as the object the sandbox also takes.
 * @param {SettingsState['rate_limit']} rateLimit
 */
function rateLimitText(rateLimit) {
  if (!rateLimit) return ''
  const unit = WINDOWS.find(([, ms]) => ms === rateLimit.window_ms)
  return unit ? `${rateLimit.limit}/${unit[0]}` : JSON.stringify(rateLimit)
}

/**
 * The form's rate limit as the sandbox takes it: off when empty, the object when written as one, else the text.
 * @param {string} text
 */
function rateLimitOf(text) {
  if (text === '') return null
  if (!text.startsWith('{')) return text
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
