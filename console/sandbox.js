// How the console talks to the sandbox it is served by: the bare root, or a session's
// (`/sessions/{name}/_sandbox/console/`). Nothing here reads the page's address: console.js hands the root in.

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
 * What a view is given to talk to the sandbox.
 * @typedef {object} Client
 * @property {(path: string, init?: RequestInit) => Promise<Answer<unknown>>} control The control plane, with the admin token when the sandbox wants one.
 * @property {(path: string, key: string, init?: RequestInit) => Promise<Answer<unknown>>} api The API, with a key.
 * @property {(path: string, init?: RequestInit) => Promise<{ status: number, text: string }>} send A request as it is, answered as text: a replay.
 * @property {string} root The root the console is served under: '' or `/sessions/{name}`.
 * @property {string} session The session's name: `default` at the bare root.
 */

/**
 * The root a console page at `pathname` is served under: what comes before `/_sandbox/console/`.
 * @param {string} pathname
 */
export const rootOf = (pathname) => pathname.replace(/\/_sandbox\/console\/?.*$/, '')

/**
 * A client of the sandbox at `root`; the admin token is asked once through `askToken` and kept for the tab.
 * @param {string} root
 * @param {{ fetch?: typeof fetch, storage?: Pick<Storage, 'getItem' | 'setItem'>, askToken?: () => Promise<string> }} [using]
 * @returns {Client}
 */
export function createClient(root, using = {}) {
  const send = using.fetch ?? ((input, init) => fetch(input, init))
  const storage = using.storage ?? sessionStorage
  const askToken = using.askToken ?? askTokenInDialog
  /** @type {Promise<void> | undefined} */
  let asking
  return {
    root,
    session: root === '' ? 'default' : decodeURIComponent(root.slice(root.lastIndexOf('/') + 1)),
    async control(path, init = {}) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const token = storage.getItem(TOKEN_KEY)
        /** @type {Record<string, string>} */
        const headers = { ...CONSOLE_HEADERS, ...(init.body ? { 'Content-Type': 'application/json' } : {}) }
        if (token) headers.Authorization = `Bearer ${token}`
        const response = await send(root + path, { ...init, headers })
        if (response.status !== 401) return { status: response.status, body: await response.json() }
        // Several views may be refused at once: one question, and each waits for its answer.
        asking ??= askToken().then((answer) => {
          storage.setItem(TOKEN_KEY, answer)
          asking = undefined
        })
        await asking
      }
      throw new Error('The admin token was refused.')
    },
    async api(path, key, init = {}) {
      const headers = {
        ...CONSOLE_HEADERS,
        ...(init.body ? { 'Content-Type': 'application/json' } : {}),
        Authorization: `Bearer ${key}`,
      }
      const response = await send(root + path, { ...init, headers })
      return { status: response.status, body: await response.json() }
    },
    // A replay: sent as the app sent it, without the console's mark, so the sandbox journals it as any request.
    async send(path, init = {}) {
      const response = await send(root + path, init)
      return { status: response.status, text: await response.text() }
    },
  }
}

/** The page's token dialog, opened; what was typed in it once it closes. */
function askTokenInDialog() {
  return new Promise((resolve) => {
    const dialog = /** @type {HTMLDialogElement} */ (document.querySelector('#token-dialog'))
    dialog.addEventListener(
      'close',
      () => resolve(/** @type {HTMLInputElement} */ (dialog.querySelector('input')).value),
      { once: true },
    )
    dialog.showModal()
  })
}
