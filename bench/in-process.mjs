// 2. In process, on each major of msw (msw 3 on Node 24): the sandbox's handlers in msw's setupServer and a real
// fetch, against a bare msw handler on the same URL returning the same bytes, measured both ways
// (in-process-child.mjs): each contender in a process of its own, as a consumer's test file is, in interleaved
// rounds of fresh processes; and both in one process, where the bare handler pays for the seeded world's heap too.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { median } from './median.mjs'
import {
  benchFigure,
  kilobytes,
  mswRuntime,
  PAGE,
  perSecond,
  ROOT,
  removeTempDir,
  row,
  run,
  sandboxAnswer,
  spread,
  tempDir,
} from './shared.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CHILD = join(ROOT, 'bench/in-process-child.mjs')

await benchFigure('in-process', async () => {
  const dir = tempDir('bench-call-sandbox-in-process-')
  const bodyFile = join(dir, 'page.json')
  const body = await sandboxAnswer(PAGE)
  writeFileSync(bodyFile, body)
  for (const major of /** @type {const} */ ([2, 3])) {
    const { node, flags, label } = await mswRuntime(major)
    /** @param {string} which @returns {Promise<{ ours: number[], theirs: number[] }>} */
    const child = async (which) => JSON.parse(await run(node, [...flags, CHILD, which, bodyFile]))
    /** @type {number[]} */
    const ours = []
    /** @type {number[]} */
    const theirs = []
    for (let i = 0; i < ROUNDS; i++) {
      const pair = [
        async () => ours.push(median((await child('sandbox')).ours)),
        async () => theirs.push(median((await child('bare')).theirs)),
      ]
      for (const measure of i % 2 === 0 ? pair : pair.reverse()) await measure()
    }
    const together = await child('both')
    spread(`in process, sandbox alone, ${label}`, ours, perSecond)
    spread(`in process, bare msw alone, ${label}`, theirs, perSecond)
    spread(`in process, sandbox beside bare msw, ${label}`, together.ours, perSecond)
    spread(`in process, bare msw beside the sandbox, ${label}`, together.theirs, perSecond)
    const what = `in process, ${label}: GET ${PAGE} through msw setupServer + fetch (${kilobytes(body.length)})`
    const baseline = 'bare msw http.get returning the same bytes (a Buffer)'
    row(
      `${what}, each in a process of its own (median of ${ROUNDS} fresh processes each)`,
      perSecond(median(ours)),
      `${baseline}: ${perSecond(median(theirs))}`,
      median(ours) / median(theirs),
      ['>=', 0.75],
    )
    row(
      `${what}, both in one process`,
      perSecond(median(together.ours)),
      `${baseline}, beside the seeded world: ${perSecond(median(together.theirs))}`,
      median(together.ours) / median(together.theirs),
      'reported',
    )
  }
  removeTempDir(dir)
})
