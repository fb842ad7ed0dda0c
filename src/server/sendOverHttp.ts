import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import type { ProxyOptions, UpstreamReply, UpstreamSend } from '../proxy/proxyOptions.js'

/** Connections to the upstream, kept alive between requests. */
const agents = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) }
const DECODERS: Record<string, (bytes: Buffer) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
}

/**
 * The proxy's requests to the upstream over node:http: the global fetch's
 * spec machinery (a web stream for every body, a Response to read it
 * from) costs about half a millisecond a request, which the proxy adds to
 * every answer. It reads the whole answer, and fails as fetch does: a
 * TypeError whose `cause` is the system's error.
 *
 * @example
 * const proxy = new UpstreamProxy({ upstream: 'https://api.example.com', send: sendOverHttp })
 */
export const sendOverHttp: UpstreamSend = ({ url, method, headers, body, signal }) =>
  new Promise((resolve, reject) => {
    const target = new URL(url)
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest
    const fail = (error: Error) =>
      reject(signal.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }))
    const request = send(
      target,
      { method, headers: Object.fromEntries(headers), agent: agents[target.protocol as 'http:' | 'https:'], signal },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('error', fail)
        response.on('end', () => {
          try {
            resolve(replyOf(response, Buffer.concat(chunks)))
          } catch (error) {
            fail(error as Error)
          }
        })
      },
    )
    request.on('error', fail)
    request.end(body)
  })

/** The answer: its headers as sent (a repeated one repeated), its body decoded. */
function replyOf(response: IncomingMessage, bytes: Buffer): UpstreamReply {
  const headers = new Headers()
  for (let i = 0; i < response.rawHeaders.length; i += 2)
    headers.append(response.rawHeaders[i]!, response.rawHeaders[i + 1]!)
  const encoding = headers.get('content-encoding')?.trim().toLowerCase()
  const decode = encoding ? DECODERS[encoding] : undefined
  const decoded = decode ? decode(bytes) : bytes
  return {
    status: response.statusCode!,
    headers,
    bytes: new Uint8Array(decoded.buffer as ArrayBuffer, decoded.byteOffset, decoded.byteLength),
  }
}

/**
 * Proxy options that send over node:http, unless they say how to send.
 *
 * @example
 * createSandbox({ proxy: sendingOverHttp('https://api.example.com') })
 */
export function sendingOverHttp(proxy: string | ProxyOptions): ProxyOptions {
  const options = typeof proxy === 'string' ? { upstream: proxy } : proxy
  return { ...options, send: options.send ?? sendOverHttp }
}
