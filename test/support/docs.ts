import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** The repository, and the Markdown a reader reads: the README, then every file of docs/. */
export const ROOT = resolve(import.meta.dirname, '../..')
export const DOC_FILES = [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name)),
]

/** A file's path from the repository's root, as a test's name shows it. */
export const shown = (file: string) => file.slice(ROOT.length + 1)

/** The targets of a Markdown text's links and images that are paths (not `https:` and the like), anchors aside. */
export function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)]
    .map(([, target]) => target!)
    .filter((target) => !/^[a-z]+:/.test(target))
}

/** The lines of a file's ```sh blocks, a command's continued lines (`\` at the end) joined into one. */
export function shellLines(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].flatMap(([, block]) =>
    block!.replace(/\\\n\s*/g, ' ').split('\n'),
  )
}

/**
 * A server command of the docs: `npx call-sandbox …`, `npm start -- …` or `call-sandbox …`, maybe after variables
 * (`CALL_SANDBOX_ADMIN_TOKEN="$ADMIN_TOKEN" call-sandbox …`), and its arguments.
 */
export interface ServerCommand {
  file: string
  line: string
  /** The command's arguments as a shell would split them, `$NAME` replaced by `env`'s value. */
  args(env: Record<string, string>): string[]
  /** The variables the line sets for the command, `$NAME` replaced likewise. */
  variables(env: Record<string, string>): Record<string, string>
}

const SERVER_COMMAND = /^((?:[A-Z_][A-Z0-9_]*=\S+\s+)*)(?:npx call-sandbox|npm start --|call-sandbox)(?=\s|$)(.*)$/

/** Every server command of the README and docs/, in the order a reader meets them. */
export function serverCommands(): ServerCommand[] {
  return DOC_FILES.flatMap((file) =>
    shellLines(file).flatMap((line) => {
      const match = SERVER_COMMAND.exec(line)
      if (!match) return []
      const rest = match[2]!.replace(/\s+#.*$/, '')
      return [
        {
          file: shown(file),
          line,
          args: (env: Record<string, string>) => shellWords(rest, env),
          variables: (env: Record<string, string>) =>
            Object.fromEntries(
              shellWords(match[1]!, env).map((word) => [
                word.slice(0, word.indexOf('=')),
                word.slice(word.indexOf('=') + 1),
              ]),
            ),
        },
      ]
    }),
  )
}

/** Splits a command line's words as sh does for the plain words and "double quotes" the docs use. */
function shellWords(text: string, env: Record<string, string>): string[] {
  return [...text.matchAll(/(\w+=)?"([^"]*)"|(\S+)/g)].map(([, assigned = '', quoted, word]) =>
    (quoted === undefined ? word! : assigned + quoted).replace(/\$(\w+)/g, (_, name: string) => {
      if (env[name] === undefined) throw new Error(`$${name} in a server command of the docs: give it a value`)
      return env[name]
    }),
  )
}
