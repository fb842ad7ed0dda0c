/**
 * The Dockerfile, without a container engine: its instructions read, the files it copies laid out in a folder as the
 * image would hold them, its command run there with its environment, and its health check run against that.
 */
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { freePort } from '../support/freePort.mjs'
import { killChildren, listening, runProgram } from '../support/cli.js'
import { tempFolder } from '../support/tempFolder.js'
import { expectServesEverything, ROOT } from './programs.js'

afterEach(killChildren)

/** The Dockerfile's instructions in order: continued lines joined, comments left out. */
function instructions(text: string): { name: string; args: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'))
    .map((line) => {
      const [, name, args] = /^\s*(\w+)\s+(.*)$/.exec(line)!
      return { name: name!.toUpperCase(), args: args!.trim() }
    })
}

const dockerfile = instructions(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))
const one = (name: string) => {
  const found = dockerfile.filter((instruction) => instruction.name === name)
  expect(found, name).toHaveLength(1)
  return found[0]!.args
}
/** The banner's line that prints an admin token the server made. */
const MADE_TOKEN = /admin token, made at start and printed only here: (\S+)/
/** An exec-form argument list (JSON), which runs with no shell; the image has one, but the tests hold to this form. */
const execForm = (args: string): string[] => JSON.parse(args)
const environment = Object.fromEntries(
  dockerfile
    .filter(({ name }) => name === 'ENV')
    .flatMap(({ args }) => args.split(/\s+/).map((pair) => pair.split('=') as [string, string])),
)

/**
 * The image's files, laid out below a temp folder as its root, and how to run a command of the image there: `node`
 * is this Node (the one file runs on 20.19 and later; the image has 24), and a path of the image is one below the
 * folder.
 */
function layOut() {
  const root = tempFolder('image')
  for (const { args } of dockerfile.filter(({ name }) => name === 'COPY')) {
    const [from, to, ...more] = args.split(/\s+/)
    expect(more, `COPY ${args}: one file to one absolute path`).toEqual([])
    expect(to).toMatch(/^\//)
    mkdirSync(dirname(join(root, to!)), { recursive: true })
    cpSync(join(ROOT, from!), join(root, to!))
  }
  const inImage = ([command, ...args]: string[]) => [
    command === 'node' ? process.execPath : command!,
    ...args.map((arg) => (arg.startsWith('/') ? join(root, arg) : arg)),
  ]
  return { root, inImage }
}

describe('the Dockerfile', () => {
  it('copies only the one file, which .dockerignore lets into the build context', () => {
    expect(one('FROM')).toMatch(/^node:24(-slim)?$/)
    const copied = dockerfile.filter(({ name }) => name === 'COPY').map(({ args }) => args.split(/\s+/)[0])
    expect(copied).toEqual(['dist/call-sandbox.cjs'])
    const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    expect(ignore.split('\n')).toEqual(expect.arrayContaining(['*', '!dist/call-sandbox.cjs']))
  })

  it('runs as a user other than root, exposes 4010, and listens on every interface with an admin token', () => {
    expect(one('USER')).not.toMatch(/^(root|0)(:|$)/)
    expect(one('EXPOSE')).toBe('4010')
    expect(environment.PORT).toBe('4010')
    expect(execForm(one('ENTRYPOINT'))).toEqual([
      'node',
      '/sandbox/call-sandbox.cjs',
      '--host',
      '0.0.0.0',
      '--make-admin-token',
    ])
    // No token is baked into the image: each run brings its own.
    expect(Object.keys(environment)).not.toContain('CALL_SANDBOX_ADMIN_TOKEN')
  })

  it('without an admin token, makes a random one at start, prints it once, and that token guards the control plane', async () => {
    const { root, inImage } = layOut()
    const start = async () => {
      const env = { ...environment, PORT: String(await freePort()) }
      const server = runProgram(inImage([...execForm(one('ENTRYPOINT')), ...execForm(one('CMD'))]), env, root)
      const { url } = await listening(server)
      const printed = await server.waitForOutput((text) => MADE_TOKEN.test(text), 'the admin token made at start')
      return { server, local: url.replace('0.0.0.0', '127.0.0.1'), token: MADE_TOKEN.exec(printed)![1]! }
    }
    const { server, local, token } = await start()
    // 24 random bytes, in base64url: 192 bits no one guesses.
    expect(token).toMatch(/^[\w-]{32}$/)
    const reset = (headers: Record<string, string>) =>
      fetch(`${local}/_sandbox/reset`, { method: 'POST', headers }).then(({ status }) => status)
    expect(await reset({})).toBe(401)
    expect(await reset({ Authorization: `Bearer ${token}` })).toBe(200)
    const output = () => server.stdout() + server.stderr()
    expect(output().split(token)).toHaveLength(2)
    // Requests are logged, the token they carried is not: printed once means once.
    expect(await reset({ Authorization: `Bearer ${token}` })).toBe(200)
    server.child.kill('SIGTERM')
    await server.exit()
    expect(output().split(token)).toHaveLength(2)
    expect((await start()).token).not.toBe(token)
  })

  it('with a token: serves everything, passes its health check, and the token guards the control plane', async () => {
    const { root, inImage } = layOut()
    const env = { ...environment, PORT: String(await freePort()), CALL_SANDBOX_ADMIN_TOKEN: 'a-token-for-the-test' }
    const command = [...execForm(one('ENTRYPOINT')), ...execForm(one('CMD')), '--quiet']
    const server = runProgram(inImage(command), env, root)
    const { url } = await listening(server)
    expect(url).toBe(`http://0.0.0.0:${env.PORT}`)
    expect(server.stdout()).not.toMatch(MADE_TOKEN)
    const local = url.replace('0.0.0.0', '127.0.0.1')

    const [, check] = /\bCMD\s+(\[.*\])$/.exec(one('HEALTHCHECK'))!
    const healthCheck = () =>
      promisify(execFile)(inImage(execForm(check!))[0]!, inImage(execForm(check!)).slice(1), { env })
    await expect(healthCheck()).resolves.toBeDefined()

    const reset = (headers: Record<string, string>) =>
      fetch(`${local}/_sandbox/reset`, { method: 'POST', headers }).then(({ status }) => status)
    expect(await reset({})).toBe(401)
    expect(await reset({ Origin: 'https://elsewhere.example' })).toBe(401)
    const admin = { Authorization: 'Bearer a-token-for-the-test' }
    expect(await reset(admin)).toBe(200)
    // The console's and /docs' files want no token (the console asks for it); metrics do.
    expect((await fetch(`${local}/_sandbox/metrics`)).status).toBe(401)
    await expectServesEverything(local, admin)

    server.child.kill('SIGTERM')
    expect((await server.exit()).code).toBe(0)
    await expect(healthCheck()).rejects.toMatchObject({ code: 1 })
  })

  it('run with --host 127.0.0.1 (docker run --network host), it needs no token and keeps the loopback rules', async () => {
    const { root, inImage } = layOut()
    const env = { ...environment, PORT: String(await freePort()) }
    const server = runProgram(inImage([...execForm(one('ENTRYPOINT')), '--host', '127.0.0.1', '--quiet']), env, root)
    const { url } = await listening(server)
    const reset = (headers: Record<string, string>) =>
      fetch(`${url}/_sandbox/reset`, { method: 'POST', headers }).then(({ status }) => status)
    expect(await reset({ Origin: 'https://elsewhere.example' })).toBe(403)
    expect(await reset({})).toBe(200)
  })
})
