import type { Faker } from '@faker-js/faker'
import type { Message } from '../schemas/index.js'
import type { ScriptLine } from './fixtures.js'
import { iso } from './iso.js'

/** Values for the `{placeholders}` of fixture texts. */
export type Slots = Partial<
  Record<
    'business' | 'assistant' | 'caller_name' | 'caller_first' | 'service' | 'appointment_day' | 'appointment_time',
    string
  >
>

const compiled = new Map<string, string[]>()

/**
 * Fills `{name}` placeholders; a placeholder without a value stays as written.
 *
 * @note Templates are split once and cached: a 100,000-call seed fills
 * about a million of them.
 */
export function fill(template: string, slots: Slots): string {
  let parts = compiled.get(template)
  if (!parts) {
    parts = template.split(/\{(\w+)\}/)
    compiled.set(template, parts)
  }
  if (parts.length === 1) return template
  const filled = parts.slice()
  for (let i = 1; i < filled.length; i += 2) {
    const name = filled[i] as keyof Slots
    filled[i] = slots[name] ?? `{${name}}`
  }
  // @note join, not +=: a joined string is one flat string, where += leaves a
  // rope of pieces that a seeded world would keep by the million.
  return filled.join('')
}

/** A conversation as it is kept: the transcript, and when each of its lines was said. */
export interface Conversation {
  /** One `Assistant: …` or `Caller: …` line per message. */
  transcript: string
  /** Epoch ms of each message, in order. */
  times: number[]
  /** When the last message was finished being said. */
  end: number
}

const SPEAKER = { assistant: 'Assistant', caller: 'Caller' } as const

/**
 * Speaks script lines: the first a second or two after `startMs`, each next
 * one after the previous was said (about 15 characters a second) and a pause.
 *
 * @example
 * const { transcript, times } = speak(faker, reason.script, slots, Date.parse(call.started_at))
 */
export function speak(faker: Faker, lines: readonly ScriptLine[], slots: Slots, startMs: number): Conversation {
  let at = startMs + faker.number.int({ min: 800, max: 2_500 })
  const said: string[] = []
  const times: number[] = []
  let end = at
  for (const [role, template] of lines) {
    // A transcript line is a message: a caller's name must not break it.
    const content = fill(template, slots).replace(/[\r\n]+/g, ' ')
    said.push(`${SPEAKER[role]}: ${content}`)
    times.push(at)
    end = at + Math.round((content.length / 15) * 1_000)
    at = end + faker.number.int({ min: 600, max: 3_000 })
  }
  return { transcript: said.join('\n'), times, end }
}

/**
 * How many lines (messages) a transcript has: one a line, none in an empty one.
 *
 * @example
 * linesOf('Assistant: Hello.\nCaller: Hi.') // 2
 */
export function linesOf(transcript: string): number {
  return transcript === '' ? 0 : transcript.split('\n').length
}

/**
 * The messages of a conversation, read back from its transcript.
 *
 * @note Only the transcript and the times are stored: the messages say the
 * same words, and keeping both doubled a seeded world's memory.
 */
export function messagesOf(transcript: string, times: readonly number[]): Message[] {
  if (transcript === '') return []
  return transcript.split('\n').map((line, i) => {
    const role = line.startsWith('Assistant: ') ? 'assistant' : 'caller'
    return { role, content: line.slice(SPEAKER[role].length + 2), timestamp: iso(times[i]!) }
  })
}
