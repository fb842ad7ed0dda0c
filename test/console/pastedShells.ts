import { spawnSync } from 'node:child_process'
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * The shells a copied command is pasted into, each as a terminal would run the paste: `-c` for the line as one
 * script, and the interactive ones fed the line on stdin, where bash and zsh expand history's `!` as a terminal's
 * do. Debian's packages, by their full path: a missing shell is a failure that says what to install, never a skip.
 */
export const SHELLS = [
  {
    name: 'bash -c',
    path: '/usr/bin/bash',
    debian: 'bash',
    args: (line: string) => ['--norc', '--noprofile', '-c', line],
  },
  {
    name: 'bash -i',
    path: '/usr/bin/bash',
    debian: 'bash',
    args: () => ['--norc', '--noprofile', '-i', '+m'],
    stdin: true,
  },
  { name: 'zsh -c', path: '/usr/bin/zsh', debian: 'zsh', args: (line: string) => ['-f', '-c', line] },
  { name: 'zsh -i', path: '/usr/bin/zsh', debian: 'zsh', args: () => ['-f', '-i'], stdin: true },
  { name: 'dash -c', path: '/usr/bin/dash', debian: 'dash', args: (line: string) => ['-c', line] },
  { name: 'sh -i (dash)', path: '/bin/sh', debian: 'dash', args: () => ['-i'], stdin: true },
  { name: 'fish -c', path: '/usr/bin/fish', debian: 'fish', args: (line: string) => ['--no-config', '-c', line] },
  { name: 'fish (stdin)', path: '/usr/bin/fish', debian: 'fish', args: () => ['--no-config'], stdin: true },
  // On a terminal, dash has no line editor: the terminal's line discipline reads each line for it, and keeps 4,095
  // bytes of a longer one (its closing quote too). util-linux's script gives the shell a terminal and types the paste.
  {
    name: 'sh -i on a terminal (dash)',
    path: '/usr/bin/script',
    debian: 'bsdutils',
    args: () => ['--quiet', '--return', '--command', '/bin/sh -i', '/dev/null'],
    stdin: true,
  },
] as const

export type Shell = (typeof SHELLS)[number]

/**
 * `curl`, first on PATH: it writes the words it was given (NUL after each) and, when told `--data-binary @-`, the
 * bytes on its stdin; one numbered pair of files a run, so that a second run of it shows too.
 */
const RECORDER = `#!/bin/sh
n=0
while [ -e "$RECORD_DIR/$n.args" ]; do n=$((n + 1)); done
printf '%s\\0' "$@" > "$RECORD_DIR/$n.args"
previous=
for word in "$@"; do
  if [ "$previous" = --data-binary ] && [ "$word" = @- ]; then cat > "$RECORD_DIR/$n.stdin"; fi
  previous=$word
done
`

/** A request as curl would send it: each part as the bytes it was given, one character a byte (latin1). */
export interface Sent {
  globoff: boolean
  method: string | undefined
  url: string | undefined
  headers: [string, string][]
  body: string | undefined
  unknown: string[]
}

/** What one paste did: the shell's status and stderr, each run of `curl`, and the files it left in its folder. */
export interface Pasted {
  status: number | null
  stderr: string
  sent: Sent[]
  left: string[]
}

/** A folder with the recorder on PATH, a home for the shells and an empty working folder, made once per test file. */
export function pasteBench(apiKey: string) {
  // The prefix the run's check for leftovers looks for (test/support/leftovers.ts).
  const root = mkdtempSync(join(tmpdir(), 'call-sandbox-curl-paste-'))
  const [bin, home, record, work] = ['bin', 'home', 'record', 'work'].map((name) => join(root, name)) as [
    string,
    string,
    string,
    string,
  ]
  for (const folder of [bin, home, record, work]) mkdirSync(folder)
  const pasted = join(root, 'pasted.txt')
  writeFileSync(join(bin, 'curl'), RECORDER)
  chmodSync(join(bin, 'curl'), 0o755)
  const env = {
    PATH: `${bin}:/usr/bin:/bin`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    LANG: 'C.UTF-8',
    PS1: '',
    PS2: '',
    HISTFILE: '/dev/null',
    RECORD_DIR: record,
    API_KEY: apiKey,
    CALL_SANDBOX_TEST_RUN: process.env.CALL_SANDBOX_TEST_RUN ?? '',
  }

  /** The command pasted into one shell; `work` is its folder, where no file may appear. */
  function paste(shell: Shell, command: string): Pasted {
    if (!existsSync(shell.path))
      throw new Error(`${shell.path} is missing: install Debian's ${shell.debian} (apt-get install ${shell.debian})`)
    // The paste on stdin from a file: fish reads no script from the socket Node would give it.
    writeFileSync(pasted, 'stdin' in shell ? `${command}\n` : '')
    const stdin = openSync(pasted, 'r')
    const ran = spawnSync(shell.path, shell.args(command), {
      cwd: work,
      env,
      stdio: [stdin, 'pipe', 'pipe'],
      timeout: 20_000,
    })
    closeSync(stdin)
    if (ran.error) throw ran.error
    const runs = readdirSync(record).filter((name) => name.endsWith('.args')).length
    const sent = Array.from({ length: runs }, (_, n) => {
      const stdin = join(record, `${n}.stdin`)
      return sentOf(readFileSync(join(record, `${n}.args`)), existsSync(stdin) ? readFileSync(stdin) : undefined)
    })
    const left = readdirSync(work)
    for (const folder of [record, work])
      for (const name of readdirSync(folder)) rmSync(join(folder, name), { recursive: true })
    return { status: ran.status, stderr: ran.stderr.toString(), sent, left }
  }

  return { paste, work, clean: () => rmSync(root, { recursive: true, force: true }) }
}

/**
 * curl's reading of its words, as far as a copied command uses them: `-X`, `--head`, `-H` (`name: value`, whitespace after the
 * colon skipped; `name;` for an empty value), the URL, `--data-raw` and `--data-binary @-` (the bytes on stdin), and
 * the Content-Type curl adds to a body when it is given none.
 */
function sentOf(args: Buffer, stdin: Buffer | undefined): Sent {
  const words = args.toString('latin1').split('\0').slice(0, -1)
  const sent: Sent = { globoff: false, method: undefined, url: undefined, headers: [], body: undefined, unknown: [] }
  let typed = false
  for (let at = 0; at < words.length; at++) {
    const word = words[at]!
    if (word === '--globoff') sent.globoff = true
    else if (word === '-X') {
      sent.method = words[++at]
      // curl then reads the answer as a GET's: it waits for a body that a HEAD's answer never has.
      if (sent.method === 'HEAD') sent.unknown.push('-X HEAD, where curl waits for a body')
    } else if (word === '--head') sent.method = 'HEAD'
    else if (word === '-H') {
      const [name, value] = headerOf(words[++at]!)
      const type = name.toLowerCase() === 'content-type'
      typed ||= type
      // `Content-Type:` with nothing after it: curl sends no type, not even its own.
      if (!type || value !== '(left out by curl)') sent.headers.push([name, value])
    } else if (word === '--data-raw') sent.body = words[++at]
    else if (word === '--data-binary' && words[at + 1] === '@-') {
      at++
      sent.body = stdin?.toString('latin1')
    } else if (!word.startsWith('-') && sent.url === undefined) sent.url = word
    else sent.unknown.push(word)
  }
  // A body and no type: curl sends it as a form.
  if (sent.body !== undefined && !typed) sent.headers.push(['Content-Type', 'application/x-www-form-urlencoded'])
  return sent
}

function headerOf(word: string): [string, string] {
  const colon = word.indexOf(':')
  if (colon < 0 && word.endsWith(';')) return [word.slice(0, -1), '']
  if (colon < 0) return [word, '(not a header)']
  const value = word.slice(colon + 1).replace(/^[ \t\n\v\f\r]+/, '')
  // curl drops a header whose value is empty after the colon: it does not send it.
  return [word.slice(0, colon), value === '' ? '(left out by curl)' : value]
}

/** The bytes of a text in UTF-8, one character a byte, as `Sent` holds them. */
export const bytesOf = (text: string) => Buffer.from(new TextEncoder().encode(text)).toString('latin1')
