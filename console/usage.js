// Usage per key, and drift in proxy mode.

import { $, el } from './elements.js'
import { control } from './sandbox.js'

/** @template T @typedef {import('./sandbox.js').Answer<T>} Answer */

export async function refreshUsage() {
  const usage = /** @type {Answer<import('../src/schemas/index.js').KeyUsage[]>} */ (await control('/_sandbox/usage'))
  $('#usage-list tbody').replaceChildren(
    ...usage.body.data.map((key) =>
      el(
        'tr',
        {},
        el('td', {}, key.key),
        el('td', {}, String(key.requests)),
        el('td', {}, key.scopes.needed.join(', ')),
        el('td', {}, key.scopes.unused.join(', ')),
        el('td', {}, key.scopes.missing.join(', ')),
        el(
          'td',
          {},
          key.endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path} (${endpoint.requests})`).join('; '),
        ),
      ),
    ),
  )
  const drift = /** @type {Answer<import('../src/schemas/index.js').DriftReport>} */ (await control('/_sandbox/drift'))
  $('#drift').textContent =
    drift.body.data.upstream === null ? 'No proxy: nothing to compare.' : JSON.stringify(drift.body.data, null, 2)
}
