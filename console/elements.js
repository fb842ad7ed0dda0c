// How the console builds its page: plain DOM, no framework, and nothing in a record's text ever runs.

/** @typedef {import('../src/schemas/index.js').ErrorEnvelope['error']} ApiError */
/** @typedef {import('../src/schemas/index.js').FieldError} FieldError */
/**
 * A refusal's `details`: what a 403 lacks, the nearest name to an unknown one, or a 422's bad fields.
 * @typedef {{ required_scope?: string, key_scopes: string[], did_you_mean?: string } & FieldError[]} RefusalDetails
 */

/**
 * The page's element `selector` finds: the page has every one the script asks for.
 * @param {string} selector
 * @returns {HTMLElement}
 */
export const $ = (selector) => /** @type {HTMLElement} */ (document.querySelector(selector))

/**
 * Builds an element: `el('td', { class: 's4' }, 'text', child)`.
 * @param {string} tag
 * @param {Record<string, unknown>} [attributes] `on…`: a listener; `true`: there, empty; `false` or undefined: left out
 * @param {...(Node | string | undefined | null)} children
 * @returns {HTMLElement}
 */
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (name.startsWith('on')) element.addEventListener(name.slice(2), /** @type {EventListener} */ (value))
    else if (value !== undefined && value !== false) element.setAttribute(name, value === true ? '' : String(value))
  }
  element.append(...children.filter((child) => child !== undefined && child !== null))
  return element
}

/**
 * Makes everything on the page but `inside` inert (a drawer over the page, as a modal dialog is: the keyboard and a
 * screen reader stay in it): each sibling of it and of each of its ancestors. Gives back how to undo that, which leaves
 * inert what was so before.
 * @param {HTMLElement} inside
 * @returns {() => void}
 */
export function inertOutside(inside) {
  /** @type {Element[]} */
  const made = []
  for (let node = inside; node.parentElement; node = node.parentElement) {
    for (const sibling of node.parentElement.children) {
      if (sibling === node || sibling.hasAttribute('inert')) continue
      sibling.setAttribute('inert', '')
      made.push(sibling)
    }
  }
  return () => {
    for (const element of made) element.removeAttribute('inert')
  }
}

/**
 * A link to `url` only when it leads to a web page (http: or https:, as the browser reads it); any other value
 * (`javascript:`, `data:`) is shown as text, never made a link that could run in this page, where the token is kept.
 * @param {string} url
 * @param {string} text
 */
export function link(url, text) {
  /** @type {URL | undefined} */
  let target
  try {
    target = new URL(url, location.href)
  } catch {}
  if (target?.protocol === 'http:' || target?.protocol === 'https:') return el('a', { href: target.href }, text)
  return el('span', { class: 'not-a-link' }, `${text} (not an http(s) URL, so not a link): ${url}`)
}

/**
 * Which check refused the request, and what to change; for a missing scope, which of the sandbox's `keys` has it.
 * @param {ApiError} error
 * @param {ReadonlyArray<{ key: string, scopes: readonly string[] }>} [keys]
 */
export function reasonOf(error, keys = []) {
  const details = /** @type {RefusalDetails} */ (error.details ?? {})
  const hints = []
  if (error.param) hints.push(`The parameter: ${error.param}.`)
  const scope = details.required_scope
  if (scope) {
    hints.push(`Missing scope: ${scope} (the key has ${details.key_scopes.join(', ') || 'none'}).`)
    const having = keys.filter(({ scopes }) => scopes.includes(scope)).map(({ key }) => key)
    hints.push(
      having.length > 0
        ? `Keys with ${scope}: ${having.join(', ')}.`
        : `None of the sandbox's keys has ${scope}: give one to an organization (--organizations).`,
    )
  }
  if (details.did_you_mean) hints.push(`Did you mean ${details.did_you_mean}?`)
  if (Array.isArray(details)) for (const field of details) hints.push(`${field.field}: ${field.message}`)
  return el(
    'div',
    { class: 'reason', 'data-reason': error.code },
    el('strong', {}, `${error.code}: `),
    error.message,
    ...hints.map((hint) => el('p', {}, hint)),
  )
}
