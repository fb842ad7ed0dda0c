/**
 * Counts the turns of the event loop from now until `stop()`: how often other
 * work (a request, a timer) could have run meanwhile.
 *
 * @example
 * const turns = countTurns()
 * await seedWorldInSlices(options)
 * expect(turns.stop()).toBeGreaterThan(1)
 */
export function countTurns(): { stop(): number } {
  let turns = 0
  let running = true
  const tick = () => {
    turns++
    if (running) setImmediate(tick)
  }
  setImmediate(tick)
  return {
    stop: () => {
      running = false
      return turns
    },
  }
}
