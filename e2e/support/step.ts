import { spawn } from 'node:child_process'

/**
 * Runs a command to its end; its output shows only when it fails, and is what it resolves to. An `env` value left
 * undefined unsets that variable.
 */
export async function step(
  title: string,
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
): Promise<string> {
  const started = performance.now()
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const code = await new Promise<number | null>((exited) => child.on('close', exited))
  if (code !== 0) throw new Error(`${title} failed (${command} ${args.join(' ')} in ${cwd}, exit ${code}):\n${output}`)
  console.log(`${title}: ${((performance.now() - started) / 1_000).toFixed(1)} s`)
  return output
}
