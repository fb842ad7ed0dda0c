// What the Controls and Sessions tabs share: a titled card, an action's result beside it, an in-page confirmation.

import { el, reasonOf } from './elements.js'

/** @template T @typedef {import('./sandbox.js').Answer<T>} Answer */

/**
 * A card of the Controls tab: its title, its form, and the place its result shows (`result`).
 * @param {string} title
 * @param {...Node} children
 */
export function card(title, ...children) {
  const result = el('output', { class: 'result', 'aria-live': 'polite' })
  const heading = el('h2', {}, title)
  const element = el('section', { class: 'card', 'aria-label': title }, heading, ...children, result)
  return { element, result }
}

/**
 * An action's result, for its card: what it did, or which check refused it and what to change.
 * @param {Answer<unknown>} answer
 * @param {string} done what it did, in words
 */
export function resultOf({ status, body }, done) {
  return status < 300 ? el('p', { class: 'done' }, done) : reasonOf(body.error)
}

/**
 * Asks, in the page, before an action that others feel: the question, then the action's button and Cancel (Escape
 * cancels too). Focus goes to Cancel, the safe choice, and back to `returnTo` once answered.
 * @param {{ question: string, confirm: string, onConfirm: () => unknown, returnTo?: HTMLElement }} options
 */
export function confirmation({ question, confirm, onConfirm, returnTo }) {
  const close = () => {
    box.remove()
    returnTo?.focus()
  }
  const cancel = el('button', { type: 'button', onclick: close }, 'Cancel')
  const box = el(
    'div',
    {
      class: 'confirm',
      role: 'group',
      'aria-label': 'Confirm',
      onkeydown: (/** @type {KeyboardEvent} */ event) => event.key === 'Escape' && close(),
    },
    el('p', {}, question),
    el(
      'button',
      {
        type: 'button',
        class: 'danger',
        onclick: () => {
          close()
          onConfirm()
        },
      },
      confirm,
    ),
    cancel,
  )
  queueMicrotask(() => cancel.focus())
  return box
}
