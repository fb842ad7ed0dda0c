// 4. The CLI until it listens, against a bare node start on the same binary; its RSS a second after it listens. On
// Node 24 the CLI starts from Node's compile cache (bin.ts enables it), in a temp folder of its own which a first
// start, not measured, fills; Node 20 has no compile cache.
import { readdirSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { launch, stop, waitFor } from './children.mjs'
import { median } from './median.mjs'
import {
  benchFigure,
  CLI,
  megabytes,
  nodeTwentyFour,
  removeTempDir,
  row,
  rssOf,
  seconds,
  spread,
  tempDir,
} from './shared.mjs'

/**
 * A way to start a process, and what each start measured.
 * @typedef {{ node: string, args: string[], env?: Record<string, string>, runs: { ms: number, rss: number }[] }} Start
 */

await benchFigure('start-up', async () => {
  /** @param {Start} start */
  const startUp = async ({ node, args, env }) => {
    const start = performance.now()
    const child = launch(node, args, { env: { ...process.env, ...env } })
    await waitFor(child, /listening on/)
    const ms = performance.now() - start
    await sleep(1_000)
    const rss = rssOf(child.pid)
    await stop(child)
    return { ms, rss }
  }
  const { path: node24Path, version: node24Version } = await nodeTwentyFour()
  const compileCache = tempDir('bench-compile-cache-')
  const bareArgs = ['-e', "console.log('listening on nothing'); setInterval(() => {}, 60_000)"]
  // The floor of the stack: an Express app of one route, from the same compile cache.
  const expressArgs = [
    '-e',
    "const app = require('express')(); app.get('/', (q, r) => r.json({})); const server = app.listen(0, '127.0.0.1', () => console.log('listening on ' + server.address().port))",
  ]
  const cliArgs = [CLI, '--port', '0', '--quiet']
  const withCache = { NODE_COMPILE_CACHE: compileCache }
  /** @type {{ on: string, how: string, cli: Start, bare: Start, express?: Start, goal: import("./shared.mjs").Goal }[]} */
  const pairs = [
    {
      on: `Node ${node24Version}`,
      how: 'from its compile cache',
      cli: { node: node24Path, args: cliArgs, env: withCache, runs: [] },
      bare: { node: node24Path, args: bareArgs, env: withCache, runs: [] },
      express: { node: node24Path, args: expressArgs, env: withCache, runs: [] },
      goal: ['<=', 3],
    },
    {
      on: `Node ${process.version}`,
      how: 'no compile cache there',
      cli: { node: process.execPath, args: cliArgs, runs: [] },
      bare: { node: process.execPath, args: bareArgs, runs: [] },
      goal: 'none (reported)',
    },
  ]
  const order = pairs.flatMap(({ cli, bare, express }) => [bare, cli, ...(express ? [express] : [])])
  for (const contender of order) await startUp(contender) // warm-up; the CLI's first start on Node 24 fills the cache
  if (readdirSync(compileCache).length === 0)
    throw new Error(`The CLI's first start on ${pairs[0].on} left no compile cache in ${compileCache}.`)
  for (let i = 0; i < 5; i++) {
    for (const contender of i % 2 === 0 ? order : [...order].reverse()) contender.runs.push(await startUp(contender))
  }
  removeTempDir(compileCache)
  /** @param {Start} start */
  const ms = ({ runs }) => median(runs.map((one) => one.ms))
  /** @param {Start} start */
  const rss = ({ runs }) => median(runs.map((one) => one.rss))
  for (const { on, how, cli, bare } of pairs) {
    spread(
      `CLI start-up, ${on}, ${how}`,
      cli.runs.map((one) => one.ms),
      seconds,
    )
    spread(
      `bare node start, ${on}`,
      bare.runs.map((one) => one.ms),
      seconds,
    )
    spread(
      `CLI RSS, ${on}`,
      cli.runs.map((one) => one.rss),
      megabytes,
    )
  }
  for (const { on, how, cli, bare, express, goal } of pairs) {
    const what = `call-sandbox CLI start until it listens (default world), ${on}, ${how}`
    row(what, seconds(ms(cli)), `bare node until it prints, ${on}: ${seconds(ms(bare))}`, ms(cli) / ms(bare), goal)
    if (express) {
      spread(
        `plain Express start, ${on}`,
        express.runs.map((one) => one.ms),
        seconds,
      )
      row(
        `plain Express, one route, until it listens, ${on}, ${how}`,
        seconds(ms(express)),
        `bare node until it prints, ${on}: ${seconds(ms(bare))}`,
        ms(express) / ms(bare),
        'none (the floor)',
      )
    }
  }
  /** @param {number} value */
  const underMegabytes = (value) => `<= 100 MB (${value <= 100 * 1024 * 1024 ? 'met' : 'missed'})`
  for (const { on, cli, bare } of pairs) {
    const what = `call-sandbox CLI RSS at idle, 1 s after it listens (default world), ${on}`
    row(
      what,
      megabytes(rss(cli)),
      `bare node idling: ${megabytes(rss(bare))}`,
      rss(cli) / rss(bare),
      underMegabytes(rss(cli)),
    )
  }
})
