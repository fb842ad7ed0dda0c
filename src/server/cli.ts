#!/usr/bin/env node
import { readFileSync } from 'node:fs'
import { Command, InvalidArgumentError, Option } from 'commander'
import { parseInstant } from '../schemas/index.js'
import { parseLatency } from './latency.js'
import { startServer } from './startServer.js'

const program = new Command()
  .name('call-sandbox')
  .description('Serves a seeded, stateful sandbox of the call-handling API over HTTP.')
  .addOption(new Option('-p, --port <port>', 'port to listen on (0: any free port)').env('PORT').default(4010).argParser(integer(0, 65_535)))
  .option('--host <host>', 'address to bind', '127.0.0.1')
  .option('--seed <seed>', 'seed of the generated world', integer(0, Number.MAX_SAFE_INTEGER), 1)
  .option('--now <iso>', 'seed the world at this instant and stop the clock there (default: now, clock running)', instant)
  .option('--calls <count>', 'calls of the first organization (default: 300)', integer(0, 1_000_000))
  .option('--organizations <file>', 'JSON file of organizations and keys, shaped like fixtures/organizations.json', json)
  .option('--data <file>', 'keep what is written (contacts, calls) in this file across restarts; a reset empties it')
  .option('--latency <ms>', 'added latency per API request: 250, or a range 100-400', latency)
  .option('-q, --quiet', 'no request log')
  .addHelpText(
    'after',
    `
Examples:
  call-sandbox                          http://127.0.0.1:4010, seed 1
  call-sandbox --port 8080 --seed 7 --now 2026-11-20T12:00:00Z
  curl -H "Authorization: Bearer sk_sandbox_all" http://127.0.0.1:4010/v1/calls?limit=2`,
  )

const options = program.parse().opts<{
  port: number
  host: string
  seed: number
  now?: number
  calls?: number
  organizations?: unknown
  data?: string
  latency?: ReturnType<typeof parseLatency>
  quiet?: boolean
}>()

try {
  const started = performance.now()
  const running = await startServer({ ...options, organizations: options.organizations as never })
  const { sandbox } = running
  const width = Math.max(...sandbox.apiKeys.map(({ key }) => key.length))
  const lines = [
    `call-sandbox listening on ${running.url} (seed ${sandbox.options.seed}, ${sandbox.db.count('calls')} calls, ready in ${Math.round(performance.now() - started)} ms)`,
    `clock: ${sandbox.clock.iso()}${sandbox.options.fixedClock ? ' (stopped)' : ''}`,
    'API keys (Authorization: Bearer <key>):',
    ...sandbox.apiKeys.map(({ key, organization, scopes }) => `  ${key.padEnd(width)}  ${organization.organization_name}: ${scopes.join(', ')}`),
    `try: curl -H "Authorization: Bearer ${sandbox.apiKeys[0]?.key}" ${running.url}/v1/calls?limit=2`,
  ]
  console.log(lines.join('\n'))
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.log(`${signal}: closing`)
      running.close().then(
        () => process.exit(0),
        () => process.exit(1),
      )
    })
  }
} catch (error) {
  console.error(`call-sandbox: ${describe(error)}`)
  process.exit(1)
}

function integer(min: number, max: number) {
  return (text: string): number => {
    const value = Number(text)
    if (!/^\d+$/.test(text) || value < min || value > max) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`)
    return value
  }
}

function instant(text: string): number {
  const ms = parseInstant(text)
  if (ms === undefined) throw new InvalidArgumentError('expected an ISO 8601 date-time such as 2026-11-20T12:00:00Z.')
  return ms
}

function json(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new InvalidArgumentError(`cannot read ${file} as JSON: ${describe(error)}`)
  }
}

function latency(text: string) {
  try {
    return parseLatency(text)
  } catch (error) {
    throw new InvalidArgumentError(describe(error))
  }
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code
  if (code === 'EADDRINUSE') return `the port is in use (${(error as Error).message}); pick another with --port.`
  if (code === 'EACCES') return `not allowed to listen there (${(error as Error).message}).`
  return error instanceof Error ? error.message : String(error)
}
