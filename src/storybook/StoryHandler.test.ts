import { HttpHandler } from 'msw'
import { expect, it } from 'vitest'
import { StoryHandler } from './StoryHandler.js'

it('refuses an msw that does not reset its handlers (before 2.15), naming the version to install', () => {
  // msw 2 declares reset() on RequestHandler, msw 3 on the Handler above it: take it off wherever it is.
  const removed: [{ reset?: () => void }, () => void][] = []
  for (
    let prototype: { reset?: () => void } | null = HttpHandler.prototype as unknown as { reset?: () => void };
    prototype;
    prototype = Object.getPrototypeOf(prototype)
  ) {
    const reset = Object.getOwnPropertyDescriptor(prototype, 'reset')?.value
    if (typeof reset === 'function') {
      removed.push([prototype, reset])
      delete prototype.reset
    }
  }
  try {
    expect(() => new StoryHandler()).toThrow(/needs msw 2\.15 or later.*npm install msw@\^2\.15/)
  } finally {
    for (const [prototype, reset] of removed) prototype.reset = reset
  }
  if (removed.length > 0) expect(new StoryHandler()).toBeInstanceOf(StoryHandler)
})
