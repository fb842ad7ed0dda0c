import { RequestHandler } from 'msw'
import { expect, it } from 'vitest'
import { StoryHandler } from './StoryHandler.js'

it('refuses an msw that does not reset its handlers (before 2.15), naming the version to install', () => {
  const prototype = RequestHandler.prototype as unknown as { reset?: () => void }
  const reset = prototype.reset
  delete prototype.reset
  try {
    expect(() => new StoryHandler()).toThrow(/needs msw 2\.15 or later.*npm install msw@\^2\.15/)
  } finally {
    if (reset) prototype.reset = reset
  }
  if (reset) expect(new StoryHandler()).toBeInstanceOf(StoryHandler)
})
