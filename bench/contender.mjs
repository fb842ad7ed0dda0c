// A plain Node contender of the standalone figure (standalone.mjs), as a child of its own, sending the body file's
// bytes: plain Express, plain node:http, or node:http turning each request into a Fetch `Request` for msw's
// `getResponse` and writing its `Response` out as the sandbox's server does (src/server/fetchExchange.ts).
//
//   node bench/contender.mjs express|node-http|msw-get-response BODY_FILE
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'

const [which, bodyFile = ''] = process.argv.slice(2)
const body = readFileSync(bodyFile)

/** @param {import('node:http').Server} server */
function listening(server) {
  console.log(`listening on http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/`)
}

if (which === 'express') {
  const { default: express } = await import('express')
  const app = express()
  app.disable('x-powered-by') // as the sandbox's app
  app.set('etag', false)
  app.get('/v1/calls', (_request, response) => {
    response.type('application/json').send(body)
  })
  const server = app.listen(0, '127.0.0.1', () => listening(server))
} else if (which === 'node-http') {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body)
  })
  server.listen(0, '127.0.0.1', () => listening(server))
} else if (which === 'msw-get-response') {
  const { getResponse, http, HttpResponse } = await import('msw')
  const handlers = [
    http.get('*/v1/calls', () => new HttpResponse(body, { headers: { 'content-type': 'application/json' } })),
  ]
  let origin = ''
  const server = createServer(async (request, response) => {
    const headers = new Headers()
    for (let i = 0; i < request.rawHeaders.length; i += 2)
      headers.append(request.rawHeaders[i] ?? '', request.rawHeaders[i + 1] ?? '')
    const answer = await getResponse(
      handlers,
      new Request(new URL(request.url ?? '/', origin), { method: request.method, headers }),
    )
    if (!answer) {
      response.writeHead(404).end()
      return
    }
    response.statusCode = answer.status
    answer.headers.forEach((value, name) => {
      response.setHeader(name, value)
    })
    response.end(Buffer.from(await answer.arrayBuffer()))
  })
  server.listen(0, '127.0.0.1', () => {
    origin = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`
    listening(server)
  })
} else {
  throw new Error(`No contender ${which}: express, node-http or msw-get-response.`)
}
