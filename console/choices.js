// What the forms offer, from the sandbox itself.

import { $, el, reasonOf } from './elements.js'
import { control } from './sandbox.js'

/** @typedef {import('../src/schemas/index.js').Choices} Choices */

/**
 * What the forms offer (kinds and their columns, call statuses, reasons, scenarios), from the sandbox itself
 * (`GET /_sandbox/choices`), so that the console never offers a value the sandbox refuses.
 */
/** @type {Choices} */
export let choices = { kinds: [], call_statuses: [], scenarios: [], organizations: [], keys: [] }
export async function loadChoices() {
  const { status, body } = /** @type {import('./sandbox.js').Answer<Choices>} */ (await control('/_sandbox/choices'))
  if (status !== 200) {
    $('#control-result').replaceChildren(reasonOf(body.error))
    return
  }
  choices = body.data
  /** @param {string} name @param {readonly string[]} values */
  const fill = (name, values) => $(`[data-choices="${name}"]`).append(...values.map((value) => el('option', {}, value)))
  fill(
    'kinds',
    choices.kinds.map(({ kind }) => kind),
  )
  fill('scenarios', choices.scenarios)
  fill('call_statuses', choices.call_statuses)
  // A simulated call without organization_id rings the first organization: its reasons are the ones to suggest.
  const reasons = choices.organizations[0]?.reasons ?? []
  $('#reasons').replaceChildren(...reasons.map((reason) => el('option', { value: reason })))
}
