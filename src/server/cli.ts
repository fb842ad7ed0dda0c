import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { setFlagsFromString } from 'node:v8'
import { Command, InvalidArgumentError, Option } from 'commander'
import { withUrlsShown } from '../sandbox/credentials.js'
import { baseUrlOf } from '../proxy/baseUrl.js'
import { DEFAULT_UPSTREAM_TIMEOUT_MS, resolveProxyOptions, type ResolvedProxyOptions } from '../proxy/proxyOptions.js'
import { parseInstant } from '../schemas/index.js'
import { inRange, rangeText, SEED_RANGE } from '../schemas/instantRange.js'
import { parseLatency } from '../sandbox/latency.js'
import { parseInterval, type ResolvedOptions } from '../sandbox/options.js'
import { parseJournalBytes } from '../sandbox/JournalBudget.js'
import { parseRateLimit } from '../sandbox/RateLimiter.js'
import { parseSessionTtl } from '../sessions/expiry.js'
import { SCENARIO_NAMES } from '../sandbox/scenarios.js'
import { parseAllowedHosts, parseAllowedOrigins } from './controlAccess.js'
import { DEFAULT_STORE_TIMEOUT_MS, STORE_TIMEOUT_RANGE } from './redisConnection.js'
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  isLoopback,
  REQUEST_TIMEOUT_RANGE,
  type RunningServer,
  type ServerOptions,
  startServer,
} from './startServer.js'

/** What the command was given as URLs: the values of the options that take one, and any argument with `://`. */
const URLS_GIVEN = process.argv.filter(
  (arg, i, args) =>
    arg.includes('://') || /^--(url|proxy|store)=/.test(arg) || /^--(url|proxy|store)$/.test(args[i - 1]!),
)

const program = new Command()
  .name('call-sandbox')
  // Commander quotes a refused option's value whole: a URL given (--url, --proxy, --store) is shown with its password
  // by its end only, and without its query and fragment.
  .configureOutput({ outputError: (text, write) => write(withUrlsShown(text, URLS_GIVEN)) })
  .description('Serves a seeded, stateful sandbox of the call-handling API over HTTP.')
  .addOption(
    new Option('-p, --port <port>', 'port to listen on (0: any free port)')
      .env('PORT')
      .default(4010)
      .argParser(integer(0, 65_535)),
  )
  .option('--host <host>', 'address to bind', '127.0.0.1')
  .option('--seed <seed>', 'seed of the generated world', integer(0, Number.MAX_SAFE_INTEGER), 1)
  .option(
    '--now <iso>',
    'seed the world at this instant and stop the clock there (default: now, clock running)',
    instant,
  )
  .option('--calls <count>', 'calls of the first organization (default: 300)', integer(0, 1_000_000))
  .option(
    '--organizations <file>',
    'JSON file of organizations and keys, shaped like fixtures/organizations.json',
    json,
  )
  .option(
    '--data <file>',
    'keep every write (contacts, calls, the clock) in this file, a log appended and flushed to disk before each response; a reset empties it',
  )
  .option(
    '--store <url>',
    'redis://host:port[/db]: keep every session in Redis; all servers given the same store act as one sandbox (a fleet). A Redis Cluster: any node, or several, redis://host:port,host:port. Needs the package @redis/client installed beside call-sandbox. file:///path is --data path',
  )
  .option(
    '--store-replicas <n>',
    'with --store: answer a write once n replicas of its Redis primary have it, or 503 after 1 s (auto, the default: 1 where the primary has a replica; 0: never wait)',
    replicaCount,
  )
  .option(
    '--store-timeout <ms>',
    `with --store: how long a command waits for Redis's answer; then the request is answered 503 storage_unavailable, never held while Redis stalls (default ${DEFAULT_STORE_TIMEOUT_MS})`,
    integer(STORE_TIMEOUT_RANGE.min, STORE_TIMEOUT_RANGE.max),
  )
  .addOption(
    new Option(
      '--scenario <name>',
      'a named world: default, empty, busy (5,000 calls), degraded (slow and flaky)',
    ).choices(SCENARIO_NAMES),
  )
  .option('--latency <ms>', 'added latency per API request: 250, or a range 100-400', checked(parseLatency))
  .option(
    '--error-rate <fraction>',
    'fail this fraction of API requests (0 to 1) with a 500 or 503; which ones is decided by the seed',
    fraction,
  )
  .option(
    '--rate-limit <n/window>',
    'requests per key, such as 60/min, 5/s or 1000/h; X-RateLimit-* headers on every response',
    checked(parseRateLimit),
  )
  .option('--live [interval]', 'a caller rings every interval (default 30s; e.g. 10s, 2m)', checked(parseInterval))
  .addOption(
    new Option(
      '--admin-token <token>',
      'the token /_sandbox/ requires (Authorization: Bearer); required when --host is not loopback; give it in the environment to keep it out of ps',
    ).env('CALL_SANDBOX_ADMIN_TOKEN'),
  )
  .option(
    '--make-admin-token',
    'bound beyond loopback without an admin token: make a random one at start and print it, once (the container image does)',
  )
  .option(
    '--allowed-origins <list>',
    'without --admin-token: origins whose pages may call /_sandbox/ (comma-separated, such as http://localhost:5173); other pages are refused',
    checked(parseAllowedOrigins),
  )
  .option(
    '--allowed-hosts <list>',
    'without --admin-token: host names /_sandbox/ answers to beside loopback ones (comma-separated; .example.test: it and its subdomains; all: any)',
    checked(parseAllowedHosts),
  )
  .option('--journal-size <n>', "requests each session's journal keeps (default 1000)", integer(1, 1_000_000))
  .option(
    '--journal-bytes <size>',
    'what the journals of all sessions hold together, in bytes or such as 256MiB or 1GiB; past it, the journal holding the most loses its oldest entries first (default 128MiB)',
    checked(parseJournalBytes),
  )
  .option(
    '--max-sessions <n>',
    'sessions (/sessions/{name}/) whose worlds stay in memory; past it, the least recently used idle one is evicted, its writes, journal and usage kept (default 200)',
    integer(1, 100_000),
  )
  .option(
    '--session-limit <n>',
    'sessions the server keeps in all, in memory or evicted; past it, a new session name is answered 503 session_limit_reached (default 10000)',
    integer(1, 1_000_000),
  )
  .option(
    '--session-ttl <period>',
    'forget a session unused this long: its world, writes, journal and usage; such as 30m, 24h, 7d; 0 or off: never (default 24h; never the default session)',
    // 0, not undefined, for none: undefined would be the default.
    checked((text) => parseSessionTtl(text) ?? 0),
  )
  .option(
    '--proxy <url>',
    "proxy mode: /v1/ requests go to this upstream (the real service's base URL), its responses checked against the contract (GET /_sandbox/drift)",
    upstreamUrl,
  )
  .option(
    '--proxy-timeout <ms>',
    `how long the upstream may take to respond, then 504 (default ${DEFAULT_UPSTREAM_TIMEOUT_MS})`,
    integer(1, 600_000),
  )
  .option(
    '--record <file>',
    'with --proxy: save the upstream responses in this new file, a world to start from with --world (no key or header is written)',
  )
  .option('--world <file>', 'start from a recorded world (a file --record wrote) instead of the seed')
  .option(
    '--request-timeout <ms>',
    `how long a request may take to arrive, headers and body, from its start; then 408 and the connection closes (default ${DEFAULT_REQUEST_TIMEOUT_MS})`,
    integer(REQUEST_TIMEOUT_RANGE.min, REQUEST_TIMEOUT_RANGE.max),
  )
  .option('-q, --quiet', 'no request log')
  .option('--no-metrics', 'no /_sandbox/metrics, and nothing counted for it')
  .addOption(
    new Option('--log <format>', 'the request log: text, a line for people; json, one JSON object a line')
      .choices(['text', 'json'])
      .default('text'),
  )
  .addHelpText(
    'after',
    `
Examples:
  call-sandbox                          http://127.0.0.1:4010, seed 1
  call-sandbox --port 8080 --seed 7 --now 2026-11-20T12:00:00Z
  call-sandbox --scenario degraded --rate-limit 60/min
  call-sandbox --live 10s --data ./sandbox-data.json
  CALL_SANDBOX_ADMIN_TOKEN="$ADMIN_TOKEN" call-sandbox --host 0.0.0.0
  curl -H "Authorization: Bearer sk_sandbox_all" http://127.0.0.1:4010/v1/calls?limit=2
  curl -X POST http://127.0.0.1:4010/_sandbox/calls        (simulate an inbound call)
  curl -H "Authorization: Bearer sk_sandbox_all" http://127.0.0.1:4010/sessions/ci-1/v1/calls
                                                           (a session of its own: any name, made on first use)
  open http://127.0.0.1:4010/docs                          (the API reference)
  call-sandbox --proxy https://api.example.com --record recorded.json
                                                           (the real service, checked; GET /_sandbox/drift)
  call-sandbox --world recorded.json                       (its recorded responses, served by the sandbox)`,
  )

program
  .command('mcp')
  .summary('an MCP server over stdio for coding agents, driving a sandbox (docs/guides/mcp.md)')
  .description(
    'An MCP server over stdio for coding agents: tools to call the API, read the journal and why a request was refused, reset, move the clock, ring a call, add faults and manage sessions. It runs a sandbox of its own with the options above (--seed, --now, --scenario, ...), or steers a running one (--url, its admin token in CALL_SANDBOX_ADMIN_TOKEN). See docs/guides/mcp.md.',
  )
  .option(
    '--url <url>',
    'a running sandbox to steer, such as http://127.0.0.1:4010, instead of one of its own',
    checked((text) =>
      baseUrlOf(text, {
        name: '--url',
        what: "the sandbox's absolute URL",
        example: 'http://127.0.0.1:4010',
        credentials: 'its admin token goes in CALL_SANDBOX_ADMIN_TOKEN.',
      }),
    ),
  )
  .action(async ({ url }: { url?: string }) => {
    try {
      const { adminToken, ...rest } = program.opts<CommandOptions>()
      if (url !== undefined) {
        const ignored = program.options.filter(
          (option) =>
            option.attributeName() !== 'adminToken' && program.getOptionValueSource(option.attributeName()) === 'cli',
        )
        if (ignored.length > 0)
          throw new Error(
            `${ignored[0]!.long} shapes the mcp command's own sandbox; with --url, the running one is as it was started.`,
          )
      }
      const { runMcp } = await import('./mcp/runMcp.js')
      await runMcp({ url, adminToken, server: serverOptionsOf(rest) })
    } catch (error) {
      console.error(`call-sandbox mcp: ${withUrlsShown(describe(error), URLS_GIVEN)}`)
      process.exit(1)
    }
  })
program.action(main)

type CommandOptions = {
  port: number
  host: string
  seed: number
  now?: number
  calls?: number
  organizations?: unknown
  data?: string
  store?: string
  storeReplicas?: number | 'auto'
  storeTimeout?: number
  scenario?: (typeof SCENARIO_NAMES)[number]
  latency?: ReturnType<typeof parseLatency>
  errorRate?: number
  rateLimit?: ReturnType<typeof parseRateLimit>
  live?: number
  adminToken?: string
  makeAdminToken?: boolean
  allowedOrigins?: string[]
  allowedHosts?: string[] | 'all'
  journalSize?: number
  journalBytes?: number
  maxSessions?: number
  sessionLimit?: number
  sessionTtl?: number
  proxy?: string
  proxyTimeout?: number
  record?: string
  world?: string
  requestTimeout?: number
  quiet?: boolean
  metrics: boolean
  log: 'text' | 'json'
}

/**
 * @note A function, not top-level await: the command is bundled as CommonJS,
 * which `bin.ts` requires.
 */
async function main(): Promise<void> {
  const options = program.opts<CommandOptions>()
  keepShortLivedObjectsYoung()
  try {
    const started = performance.now()
    // Made here, not baked into an image or written in a guide, where everyone could read it.
    const madeToken =
      options.makeAdminToken && options.adminToken === undefined && !isLoopback(options.host)
        ? randomBytes(24).toString('base64url')
        : undefined
    const running = await startServer(serverOptionsOf({ ...options, adminToken: madeToken ?? options.adminToken }))
    const { sandbox } = running
    const width = Math.max(...sandbox.apiKeys.map(({ key }) => key.length))
    const lines = [
      `call-sandbox listening on ${running.url} (seed ${sandbox.options.seed}, ${sandbox.db.count('calls')} calls, ready in ${Math.round(performance.now() - started)} ms)`,
      `clock: ${sandbox.clock.iso()}${sandbox.options.fixedClock ? ' (stopped)' : ''}; scenario: ${sandbox.options.scenario}${describeFaults(sandbox.options)}`,
      'API keys (Authorization: Bearer <key>):',
      ...sandbox.apiKeys.map(
        ({ key, organization, scopes }) =>
          `  ${key.padEnd(width)}  ${organization.organization_name}: ${scopes.join(', ')}`,
      ),
      // Quoted: zsh (macOS's shell) takes an unquoted ? as a pattern.
      `try: curl -H "Authorization: Bearer ${sandbox.apiKeys[0]?.key}" "${running.url}/v1/calls?limit=2"`,
      `sessions: ${running.url}/sessions/<name>/ is an API root of its own (any name, made on first use; ${describeSessionLimits(sandbox.sessions)}); list them at ${running.url}/_sandbox/sessions`,
      `API reference: ${running.url}/docs; controls: ${running.url}/_sandbox/health (${describeControlAccess(sandbox.options.adminToken, options.allowedOrigins)})`,
      ...(madeToken ? [`admin token, made at start and printed only here: ${madeToken}`] : []),
      `console: ${running.url}/_sandbox/console/ (requests live, the world, the clock, sessions)${options.metrics ? `; metrics: ${running.url}/_sandbox/metrics` : ''}`,
      ...(running.restored ? [describeRestored(running.restored)] : []),
      ...(sandbox.proxy ? [describeProxy(sandbox.proxy.options, running.url, options.record)] : []),
      ...(options.world
        ? [`world: recorded in ${options.world} (the keys above stand in for the keys that recorded it)`]
        : []),
    ]
    // Before the banner: a supervisor may stop the server as soon as it reads that it listens.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        console.log(`${signal}: closing`)
        running.close().then(
          () => process.exit(0),
          () => process.exit(1),
        )
      })
    }
    console.log(lines.join('\n'))
  } catch (error) {
    // A store's URL the message quotes may carry a password (`--store redis://:password@host`) or a token.
    console.error(`call-sandbox: ${withUrlsShown(describe(error), URLS_GIVEN)}`)
    process.exit(1)
  }
}

program.parse()

/**
 * Turns off V8's allocation-site pretenuring in the command's process, before it answers anything.
 *
 * @note V8 makes the objects of a place in the code (a literal) old from birth once most of them outlived a young
 * collection there, as a world's records and a journal's entries do. Under a flood of big headers, each request's
 * 60 KiB header then outlived the young collections though nothing held it at the next full one (a sampling heap
 * profile: 215 MB of header strings for 4,000 requests), as a dead old object still pointing at it would make it: the
 * old generation grew until a full collection, and 16,000 such requests over 40 sessions peaked at 450 to 550 MB of
 * RSS (49 MB of journal, 128 MiB allowed), against 195 MB without pretenuring (bench/hostile.mjs). The command owns
 * its process; a program that starts a server of its own (`startServer`) keeps its own flags.
 */
function keepShortLivedObjectsYoung(): void {
  setFlagsFromString('--no-allocation-site-pretenuring')
}

/** The server's options from the command's: the ones the command and `mcp` share. */
function serverOptionsOf(options: Omit<CommandOptions, 'adminToken'> & { adminToken?: string }): ServerOptions {
  const { proxy, proxyTimeout, log: logFormat, makeAdminToken: _, ...rest } = options
  if (proxyTimeout !== undefined && proxy === undefined)
    throw new Error('--proxy-timeout goes with --proxy <upstream URL>.')
  for (const [given, name] of [
    [options.storeReplicas, '--store-replicas'],
    [options.storeTimeout, '--store-timeout'],
  ] as const) {
    if (given !== undefined && options.store === undefined)
      throw new Error(`${name} goes with --store redis://host:port.`)
  }
  return {
    ...rest,
    logFormat,
    organizations: options.organizations as never,
    proxy: proxy === undefined ? undefined : { upstream: proxy, timeoutMs: proxyTimeout },
  }
}

function describeRestored({ path, entries, sessions, writes }: NonNullable<RunningServer['restored']>): string {
  if (entries === 0 && sessions === 0 && writes === 0) return `data: ${path} (new: every write is kept there)`
  const what = [`${writes} writes since the seed`, `${entries} log entries`, `${sessions} sessions`]
  return `data: ${path}, restored: ${what.join(', ')}`
}

function describeSessionLimits({
  maxSessions,
  sessionLimit,
  sessionTtl,
}: RunningServer['sandbox']['sessions']): string {
  const limits = `up to ${maxSessions.toLocaleString('en')} in memory, ${sessionLimit.toLocaleString('en')} in all`
  return sessionTtl === undefined ? limits : `${limits}, each forgotten after ${describeDuration(sessionTtl)} unused`
}

/** Milliseconds in the largest unit that divides them: `24 h`, `90 min`, `1500 ms`. */
function describeDuration(ms: number): string {
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['min', 60_000],
    ['s', 1_000],
  ]
  const [unit, size] = units.find(([, size]) => ms % size === 0) ?? ['ms', 1]
  return `${ms / size} ${unit}`
}

function describeControlAccess(adminToken: string | undefined, allowedOrigins: string[] | undefined): string {
  if (adminToken !== undefined) return 'with the admin token'
  if (allowedOrigins === undefined) return 'curl and the console; pages of other origins only with --allowed-origins'
  return `curl, the console and pages of ${allowedOrigins.join(', ')}`
}

function integer(min: number, max: number) {
  return (text: string): number => {
    const value = Number(text)
    if (!/^\d+$/.test(text) || value < min || value > max)
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`)
    return value
  }
}

function instant(text: string): number {
  const ms = parseInstant(text)
  if (ms === undefined) throw new InvalidArgumentError('expected an ISO 8601 date-time such as 2026-11-20T12:00:00Z.')
  if (!inRange(ms, SEED_RANGE))
    throw new InvalidArgumentError(
      `expected an instant from ${rangeText(SEED_RANGE)}: the world reaches 90 days back and weeks ahead of it.`,
    )
  return ms
}

function json(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new InvalidArgumentError(`cannot read ${file} as JSON: ${describe(error)}`)
  }
}

/** An option's parser whose errors commander shows as the option's own. */
function checked<T>(parse: (text: string) => T) {
  return (text: string): T => {
    try {
      return parse(text)
    } catch (error) {
      throw new InvalidArgumentError(describe(error))
    }
  }
}

function replicaCount(text: string): number | 'auto' {
  if (text === 'auto') return text
  if (!/^\d+$/.test(text) || Number(text) > 100)
    throw new InvalidArgumentError('expected auto, or a number of replicas from 0 to 100.')
  return Number(text)
}

function fraction(text: string): number {
  const value = Number(text)
  if (!/^(0|1|0?\.\d+|1\.0*)$/.test(text) || value > 1)
    throw new InvalidArgumentError('expected a number from 0 to 1, such as 0.1.')
  return value
}

function describeFaults({ latency, errorRate, rateLimit, live }: ResolvedOptions): string {
  const faults = [
    latency && `latency ${latency.min === latency.max ? latency.min : `${latency.min}-${latency.max}`} ms`,
    errorRate > 0 && `error rate ${errorRate}`,
    rateLimit && `rate limit ${rateLimit.limit} per ${rateLimit.windowMs / 1_000} s`,
    live !== undefined && `a live call every ${live / 1_000} s`,
  ].filter(Boolean)
  return faults.length > 0 ? `; ${faults.join(', ')}` : ''
}

function upstreamUrl(text: string): string {
  return checked(resolveProxyOptions)(text).upstream
}

function describeProxy({ upstream, timeoutMs }: ResolvedProxyOptions, url: string, record: string | undefined): string {
  const recording = record ? `; recording to ${record}` : ''
  return `proxy: ${url}/v1/ goes to ${upstream}/v1/ (timeout ${timeoutMs} ms), held to the contract: ${url}/_sandbox/drift${recording}`
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code
  if (code === 'EADDRINUSE') return `the port is in use (${(error as Error).message}); pick another with --port.`
  if (code === 'EACCES') return `not allowed to listen there (${(error as Error).message}).`
  return error instanceof Error ? error.message : String(error)
}
