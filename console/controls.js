// Controls: reset, the clock, a call.

import { $, el, reasonOf } from './elements.js'
import { control } from './sandbox.js'

/** @template T @typedef {import('./sandbox.js').Answer<T>} Answer */

export async function refreshClock() {
  const { body } = /** @type {Answer<import('../src/schemas/index.js').ClockState>} */ (
    await control('/_sandbox/clock')
  )
  $('#clock-now').textContent = body.data ? `${body.data.now} (${body.data.mode})` : ''
}

/** @param {Answer<unknown>} answer */
export function said({ status, body }) {
  $('#control-result').replaceChildren(status < 300 ? el('p', {}, `Done (${status}).`) : reasonOf(body.error))
}

$('#reset-form').addEventListener('submit', async (event) => {
  event.preventDefault()
  const scenario = new FormData(/** @type {HTMLFormElement} */ (event.target)).get('scenario')
  said(await control('/_sandbox/reset', { method: 'POST', body: JSON.stringify({ scenario }) }))
  refreshClock()
})
$('#clock-form').addEventListener('submit', async (event) => {
  event.preventDefault()
  const form = new FormData(/** @type {HTMLFormElement} */ (event.target))
  const body =
    /** @type {HTMLButtonElement | null} */ (event.submitter)?.value === 'set'
      ? { now: form.get('now') }
      : { advance_seconds: Number(form.get('advance')) }
  said(await control('/_sandbox/clock', { method: 'POST', body: JSON.stringify(body) }))
  refreshClock()
})
$('#call-form').addEventListener('submit', async (event) => {
  event.preventDefault()
  const body = Object.fromEntries(
    [...new FormData(/** @type {HTMLFormElement} */ (event.target))].filter(([, value]) => value !== ''),
  )
  const answer = /** @type {Answer<{ id: string }>} */ (
    await control('/_sandbox/calls', { method: 'POST', body: JSON.stringify(body) })
  )
  said(answer)
  if (answer.status === 201)
    $('#control-result').append(el('p', { 'data-call-id': answer.body.data.id }, `Call ${answer.body.data.id} rang.`))
})
