// What a query of 7,000 repeats of one parameter (56 KB) costs the command, against a plain request and a query as
// long of 7,000 names (issue 43: the repeats cost 91-344 ms where a plain request took 2-5 ms). Each is sent ROUNDS
// times, one after the other over a kept-alive socket; the figure is the median time to the end of the answer.
//
// Then the time to read a page of the journal's last 100 entries, all of such requests. Arguments are the server's:
// node bench/repeated-parameters.mjs [--store redis://127.0.0.1:6379/0]      (after npm run build)
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
  const { url } = await serve(process.argv.slice(2))
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
  const times = []
  for (let round = 0; round < 20; round++) {
    const started = performance.now()
    await send(url, 'GET', '/_sandbox/requests?limit=100')
    times.push(performance.now() - started)
  }
  console.log(`a journal page of 100 such entries: median ${median(times).toFixed(2)} ms`)
} finally {
  killChildren()
}
