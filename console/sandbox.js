// The sandbox this console is served by, and how it talks to it. It reads and steers the root it is served under:
// the bare root, or a session's (`/sessions/{name}/_sandbox/console/`).

import { $ } from './elements.js'

export const root = location.pathname.replace(/\/_sandbox\/console\/?.*$/, '')
export const session = root === '' ? 'default' : decodeURIComponent(root.slice(root.lastIndexOf('/') + 1))
const TOKEN_KEY = 'call-sandbox-admin-token'
/**
 * Marks the console's own reads, which the sandbox then neither journals nor counts (the usage report, the metrics):
 * browsing the world is not a request of the app under test. A write is journaled whatever it carries.
 */
const CONSOLE_HEADERS = { 'X-Sandbox-Console': '1' }

/**
 * A JSON answer of the sandbox: `data` (and a list's `count`, `has_more`, `next_cursor`) when it succeeded, `error`
 * when not; the code reads the one its status says.
 * @template T
 * @typedef {{ status: number, body: { data: T, error: import('./elements.js').ApiError, count: number, has_more: boolean, next_cursor: string | null } }} Answer
 */

/**
 * The control plane, with the admin token when the sandbox wants one (asked once, kept for the tab).
 * @param {string} path
 * @param {RequestInit} [init]
 * @returns {Promise<Answer<unknown>>}
 */
export async function control(path, init = {}) {
  for (let attempt = 0; attempt < 3; attempt++) {
    const token = sessionStorage.getItem(TOKEN_KEY)
    /** @type {Record<string, string>} */
    const headers = { ...CONSOLE_HEADERS, ...(init.body ? { 'Content-Type': 'application/json' } : {}) }
    if (token) headers.Authorization = `Bearer ${token}`
    const response = await fetch(root + path, { ...init, headers })
    if (response.status !== 401) return { status: response.status, body: await response.json() }
    await askToken()
  }
  throw new Error('The admin token was refused.')
}

/** @type {Promise<void> | undefined} */
let asking
function askToken() {
  asking ??= new Promise((resolve) => {
    const dialog = /** @type {HTMLDialogElement} */ ($('#token-dialog'))
    dialog.addEventListener(
      'close',
      () => {
        sessionStorage.setItem(TOKEN_KEY, /** @type {HTMLInputElement} */ (dialog.querySelector('input')).value)
        asking = undefined
        resolve()
      },
      { once: true },
    )
    dialog.showModal()
  })
  return asking
}

/**
 * The API, with a key.
 * @param {string} path
 * @param {string} key
 * @returns {Promise<Answer<unknown>>}
 */
export async function api(path, key) {
  const response = await fetch(root + path, { headers: { ...CONSOLE_HEADERS, Authorization: `Bearer ${key}` } })
  return { status: response.status, body: await response.json() }
}
