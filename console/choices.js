// What the forms offer, from the sandbox itself, and what every view is given.

/** @typedef {import('../src/schemas/index.js').Choices} Choices */
/** @template T @typedef {import('./sandbox.js').Answer<T>} Answer */

/**
 * What a view gets: the sandbox's client (`control`, `api`), what its forms offer (`choices`), and the session it
 * shows (`root`: '' at the bare root, or `/sessions/{name}`).
 * @typedef {{
 *   control: (path: string, init?: RequestInit) => Promise<Answer<unknown>>,
 *   api: (path: string, key: string, init?: RequestInit) => Promise<Answer<unknown>>,
 *   choices: Choices,
 *   root: string,
 *   session: string,
 * }} ViewDeps
 */

/** What the forms offer when the sandbox gives no choices: nothing. @type {Choices} */
export const NO_CHOICES = {
  kinds: [],
  call_statuses: [],
  scenarios: [],
  organizations: [],
  fault_rules: { methods: [], outcomes: [], statuses: [], errors: [] },
  keys: [],
}

/**
 * What the forms offer (kinds and their columns, call statuses, reasons, scenarios, fault rules), from the sandbox
 * itself (`GET /_sandbox/choices`), so that the console never offers a value the sandbox refuses; the refusal when the
 * sandbox gives none.
 * @param {ViewDeps['control']} control
 * @returns {Promise<{ choices: Choices } | { error: import('./elements.js').ApiError }>}
 */
export async function loadChoices(control) {
  const { status, body } = /** @type {Answer<Choices>} */ (await control('/_sandbox/choices'))
  return status === 200 ? { choices: body.data } : { error: body.error }
}
