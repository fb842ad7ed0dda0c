// Usage per key, and drift in proxy mode.

import { resultOf } from './cards.js'
import { el } from './elements.js'

/** @typedef {import('./choices.js').ViewDeps} ViewDeps */
/** @typedef {import('../src/schemas/index.js').KeyUsage} KeyUsage */
/** @typedef {import('../src/schemas/index.js').DriftReport} DriftReport */
/** @template T @typedef {import('./sandbox.js').Answer<T>} Answer */

/** @param {ViewDeps} deps */
export function createUsageView({ control }) {
  const usage = el('div', { class: 'usage-list' })
  const drift = el('div', { class: 'drift' })
  const element = el(
    'div',
    { class: 'usage' },
    el('h2', {}, 'Usage per key'),
    usage,
    el('h2', {}, 'Drift (proxy mode)'),
    drift,
  )

  async function refresh() {
    const keys = /** @type {Answer<KeyUsage[]>} */ (await control('/_sandbox/usage'))
    usage.replaceChildren(keys.status === 200 ? renderUsage(keys.body.data) : resultOf(keys, ''))
    const report = /** @type {Answer<DriftReport>} */ (await control('/_sandbox/drift'))
    drift.replaceChildren(report.status === 200 ? renderDrift(report.body.data) : resultOf(report, ''))
  }
  return { element, refresh }
}

/**
 * One card per key (cards, not a wide table, so that it reads at 390 px): its requests, its scopes needed, unused and
 * missing, and the endpoints it called.
 * @param {KeyUsage[]} keys
 */
export function renderUsage(keys) {
  if (keys.length === 0)
    return el('p', { class: 'empty-state' }, 'No API requests since the last reset: a request with a key shows here.')
  return el(
    'div',
    { class: 'key-cards' },
    ...keys.map((key) =>
      el(
        'article',
        { class: 'key-usage', 'data-key': key.key },
        el('h3', {}, key.key),
        el(
          'dl',
          {},
          ...[
            ['Requests', String(key.requests)],
            ['Scopes needed', key.scopes.needed.join(', ') || 'none'],
            ['Unused scopes', key.scopes.unused.join(', ') || 'none'],
            ['Missing scopes', key.scopes.missing.join(', ') || 'none'],
          ].flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]),
        ),
        el(
          'ul',
          { class: 'endpoints' },
          ...key.endpoints.map((endpoint) => el('li', {}, `${endpoint.method} ${endpoint.path}: ${endpoint.requests}`)),
        ),
      ),
    ),
  )
}

/** @param {DriftReport} report */
export function renderDrift(report) {
  if (report.upstream === null) return el('p', { class: 'empty-state' }, 'No proxy: nothing to compare.')
  return el('pre', { tabindex: 0 }, JSON.stringify(report, null, 2))
}
