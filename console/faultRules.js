// The session's fault rules: listed, added (with the sandbox's own choices), removed.

import { card, resultOf } from './cards.js'
import { el } from './elements.js'

/** @typedef {import('./choices.js').ViewDeps} ViewDeps */
/** @typedef {import('../src/schemas/index.js').FaultRule} FaultRule */
/** @template T @typedef {import('./sandbox.js').Answer<T>} Answer */

const FAULTS = '/_sandbox/faults'

/** What each of a rule's outcomes is called in the form. */
const OUTCOME_LABELS = /** @type {Record<string, string>} */ ({
  status: 'answer an error status',
  delay_ms: 'answer late',
  error: 'fail the connection',
})

/** @param {ViewDeps} deps */
export function createFaultRulesCard({ control, choices }) {
  const { methods, outcomes, statuses, errors } = choices.fault_rules
  const list = el('div', { class: 'fault-rules' })
  const outcome = el(
    'select',
    { name: 'outcome', onchange: () => showOutcome() },
    ...outcomes.map((one) => el('option', { value: one }, OUTCOME_LABELS[one] ?? one)),
  )
  /** The field of each outcome: only the chosen one shows, and only it is sent. */
  const outcomeFields = /** @type {Record<string, HTMLElement>} */ ({
    status: el(
      'label',
      {},
      'Status',
      el('select', { name: 'status' }, ...statuses.map((one) => el('option', {}, String(one)))),
    ),
    delay_ms: el(
      'label',
      {},
      'Delay (ms)',
      el('input', { name: 'delay_ms', type: 'number', min: 1, max: 60000, value: '2000' }),
    ),
    error: el('label', {}, 'Error', el('select', { name: 'error' }, ...errors.map((one) => el('option', {}, one)))),
  })
  const form = el(
    'form',
    { onsubmit: onSubmit },
    el(
      'label',
      {},
      'Path',
      el('input', { name: 'path', required: true, maxlength: 512, placeholder: '/v1/calls or /v1/calls*' }),
    ),
    el(
      'label',
      {},
      'Method',
      el(
        'select',
        { name: 'method' },
        el('option', { value: '' }, 'any'),
        ...methods.map((one) => el('option', {}, one)),
      ),
    ),
    el('label', {}, 'Key', el('input', { name: 'key', maxlength: 200, placeholder: 'any', autocomplete: 'off' })),
    el('label', {}, 'It will', outcome),
    ...outcomes.map((one) => outcomeFields[one]),
    el('label', {}, 'After (requests)', el('input', { name: 'after', type: 'number', min: 0, value: '0' })),
    el('label', {}, 'Times (empty: until removed)', el('input', { name: 'times', type: 'number', min: 1, value: '1' })),
    el('button', { type: 'submit' }, 'Add the rule'),
  )
  const { element, result } = card('Fault rules', list, form)
  showOutcome()

  function showOutcome() {
    const chosen = /** @type {HTMLSelectElement} */ (outcome).value
    for (const [name, field] of Object.entries(outcomeFields)) field.hidden = name !== chosen
  }

  /** @param {Event} event */
  async function onSubmit(event) {
    event.preventDefault()
    const fields = new FormData(/** @type {HTMLFormElement} */ (form))
    const chosen = String(fields.get('outcome'))
    /** @type {Record<string, unknown>} */
    const rule = { path: fields.get('path') }
    for (const name of ['method', 'key']) if (fields.get(name)) rule[name] = fields.get(name)
    rule.after = Number(fields.get('after') || 0)
    rule.times = fields.get('times') === '' ? null : Number(fields.get('times'))
    rule[chosen] = chosen === 'error' ? fields.get('error') : Number(fields.get(chosen))
    const answer = /** @type {Answer<FaultRule>} */ (
      await control(FAULTS, { method: 'POST', body: JSON.stringify(rule) })
    )
    result.replaceChildren(resultOf(answer, answer.status < 300 ? `Added ${answer.body.data.id}.` : ''))
    await refresh()
  }

  async function refresh() {
    const { status, body } = /** @type {Answer<FaultRule[]>} */ (await control(FAULTS))
    if (status !== 200) return list.replaceChildren(resultOf({ status, body }, ''))
    list.replaceChildren(renderFaultRules(body.data, remove))
  }

  /** @param {FaultRule} rule */
  async function remove(rule) {
    const answer = await control(`${FAULTS}/${encodeURIComponent(rule.id)}`, { method: 'DELETE' })
    result.replaceChildren(resultOf(answer, `Removed ${rule.id}.`))
    await refresh()
  }
  return { element, refresh }
}

/**
 * The rules as a table, each with what it meets, what it does, how far it has gone, and a button that removes it.
 * @param {FaultRule[]} rules
 * @param {(rule: FaultRule) => void} onRemove
 */
export function renderFaultRules(rules, onRemove) {
  if (rules.length === 0)
    return el('p', { class: 'empty-state' }, 'No fault rules: every API request is answered as usual.')
  const head = ['Rule', 'Meets', 'Does', 'After', 'Hits', 'Remaining', '']
  return el(
    'div',
    { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'The fault rules' },
    el(
      'table',
      {},
      el('thead', {}, el('tr', {}, ...head.map((name) => el('th', { scope: 'col' }, name)))),
      el(
        'tbody',
        {},
        ...rules.map((rule) =>
          el(
            'tr',
            { 'data-rule': rule.id },
            el('td', {}, rule.id),
            el('td', {}, `${rule.method ?? 'any method'} ${rule.path}${rule.key ? ` with ${rule.key}` : ''}`),
            el('td', {}, doesOf(rule)),
            el('td', {}, String(rule.after)),
            el('td', {}, String(rule.hits)),
            el('td', {}, rule.remaining === null ? 'until removed' : String(rule.remaining)),
            el(
              'td',
              {},
              el(
                'button',
                { type: 'button', 'aria-label': `Remove ${rule.id}`, onclick: () => onRemove(rule) },
                'Remove',
              ),
            ),
          ),
        ),
      ),
    ),
  )
}

/** @param {FaultRule} rule */
function doesOf(rule) {
  const chance = rule.probability < 1 ? ` (${Math.round(rule.probability * 100)}% of them)` : ''
  if (rule.status !== undefined) return `answers ${rule.status}${chance}`
  if (rule.delay_ms !== undefined) return `waits ${rule.delay_ms} ms${chance}`
  return `fails the connection (${rule.error})${chance}`
}
