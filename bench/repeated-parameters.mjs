// What a query of 7,000 repeats of one parameter (56 KB) costs the command, against a plain request and a query as
// long of 7,000 names (issue 43: the repeats cost 91-344 ms where a plain request took 2-5 ms). Each is sent ROUNDS
// times, one after the other over a kept-alive socket; the figure is the median time to the end of the answer.
//
// node bench/repeated-parameters.mjs      (after npm run build)
import { killChildren } from './children.mjs'
import { median } from './median.mjs'
import { send, serve } from './servers.mjs'

const ROUNDS = 200
const REPEATS = 7_000

const queries = {
  'a plain request (limit=2)': '/v1/calls?limit=2',
  [`limit=2 repeated ${REPEATS.toLocaleString('en')} times`]: `/v1/calls?${Array(REPEATS).fill('limit=2').join('&')}`,
  [`${REPEATS.toLocaleString('en')} names, once each`]: `/v1/calls?${Array.from({ length: REPEATS }, (_, i) => `a${i}=1`).join('&')}`,
}

try {
  const { url } = await serve([])
  for (const [what, path] of Object.entries(queries)) {
    const times = []
    let status
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now()
      status = await send(url, 'GET', path)
      times.push(performance.now() - started)
    }
    console.log(
      `${what}: ${status}, median ${median(times).toFixed(2)} ms (${path.length.toLocaleString('en')} characters)`,
    )
  }
} finally {
  killChildren()
}
