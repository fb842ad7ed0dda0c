import { describe, expect, it } from 'vitest'
import { SANDBOXES_KEPT, storySandbox } from './storySandbox.js'

describe('storySandbox', () => {
  it('gives stories of the same options one sandbox, keeping the last kinds of story shown', async () => {
    // The journal size tells one kind of story from another without seeding a world of its own for each.
    const shown = (size: number) => storySandbox({ journalSize: size })
    const first = shown(1)
    const second = shown(2)
    expect(shown(1)).toBe(first)
    for (let size = 3; size <= SANDBOXES_KEPT; size++) shown(size)
    // Shown again, the first is the newest; one kind more lets the least recently shown go: the second.
    expect(shown(1)).toBe(first)
    shown(SANDBOXES_KEPT + 1)
    expect(shown(1)).toBe(first)
    const secondAgain = shown(2)
    expect(secondAgain).not.toBe(second)
    await Promise.all([first.ready, second.ready, secondAgain.ready])
  })
})
