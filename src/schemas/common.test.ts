import { describe, expect, it } from 'vitest'
import { Appointment } from './appointment.js'
import { Call } from './call.js'
import { HttpUrl } from './common.js'

describe('HttpUrl', () => {
  it.each([
    'https://recordings.call-sandbox.example/org/call.mp3',
    'http://127.0.0.1:9000/recording.mp3',
    'http://localhost/recording.mp3',
    'HTTPS://Recordings.Example/Call.mp3',
    'https://user@recordings.example:8443/a%20b.mp3?signature=x#t=10',
  ])('accepts %j as it is', (value) => {
    expect(HttpUrl.parse(value)).toBe(value)
  })

  it.each([
    // Schemes a browser runs or opens in place of a page.
    ['javascript:', 'javascript:alert(1)'],
    ['JAVASCRIPT: in capitals', 'JAVASCRIPT:alert(1)'],
    ['javascript: with a tab inside', 'java\tscript:alert(1)'],
    ['javascript: with a newline inside', 'java\nscript:alert(1)'],
    ['javascript: with a carriage return inside', 'JAVA\rSCRIPT:alert(1)'],
    ['javascript: after spaces', '   javascript:alert(1)'],
    ['javascript: after a control character', '\u0001javascript:alert(1)'],
    ['javascript: made to look like a web address', 'javascript://recordings.example/%0Aalert(1)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['data: in capitals', 'DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=='],
    ['vbscript:', 'vbscript:msgbox(1)'],
    ['file:', 'file:///etc/passwd'],
    ['ftp:', 'ftp://files.example/recording.mp3'],
    ['blob:', 'blob:https://recordings.example/1b4e28ba-2fa1-11d2-883f-0016d3cca427'],
    // No scheme at all: relative to whatever page shows it.
    ['a scheme-relative URL', '//evil.example/recording.mp3'],
    ['a path', '/recordings/call.mp3'],
    ['a relative path', 'recordings/call.mp3'],
    ['an http: URL without its slashes', 'https:evil.example'],
    ['an empty string', ''],
    ['text', 'not a url'],
  ])('refuses %s', (_name, value) => {
    const result = HttpUrl.safeParse(value)
    expect(result.success).toBe(false)
    expect(result.error!.issues[0]!.message).toBe('must be an absolute http: or https: URL')
  })

  it.each([
    ['a call', 'recording_url', Call.shape.recording_url],
    ['an appointment', 'calendar_event_link', Appointment.shape.calendar_event_link],
  ])("holds %s's %s to it", (_kind, _field, schema) => {
    expect(schema.safeParse('javascript:alert(1)').success).toBe(false)
    expect(schema.safeParse('https://recordings.example/call.mp3').success).toBe(true)
  })
})
