import type { Meta, StoryObj } from '@storybook/react-vite'
import { sandboxParameters } from 'call-sandbox/storybook'
import { http, HttpResponse } from 'msw'
import { CallsInbox } from './CallsInbox'

const meta = {
  component: CallsInbox,
  parameters: sandboxParameters(),
} satisfies Meta<typeof CallsInbox>
export default meta
type Story = StoryObj<typeof meta>

/** The default world: 300 calls of Harbor Dental Care, 25 a page. */
export const Default: Story = {}
export const Empty: Story = { parameters: sandboxParameters({ scenario: 'empty' }) }
export const Busy: Story = { parameters: sandboxParameters({ scenario: 'busy' }) }
export const Degraded: Story = { parameters: sandboxParameters({ scenario: 'degraded' }) }
export const Loading: Story = { parameters: sandboxParameters({ state: 'loading' }) }
export const Unauthorized: Story = { parameters: sandboxParameters({ state: 'unauthorized' }) }
export const Forbidden: Story = { parameters: sandboxParameters({ state: 'forbidden', missingScope: 'calls:read' }) }
export const RateLimited: Story = { parameters: sandboxParameters({ state: 'rate-limited' }) }
export const ServerError: Story = { parameters: sandboxParameters({ state: 'server-error' }) }

/** A per-story override on top of the sandbox: the list as the API would give it for one unknown caller. */
export const OneUnknownCaller: Story = {
  parameters: { msw: { handlers: { overrides: [http.get('/v1/calls', () => HttpResponse.json(oneUnknownCaller))] } } },
}

const oneUnknownCaller = {
  data: [
    {
      id: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
      caller_phone: '+16175550199',
      caller_name: 'Unknown caller',
      status: 'in-progress',
      duration_seconds: 42,
      summary: 'Call in progress.',
      transcript: '',
      recording_url: 'https://recordings.call-sandbox.example/6f1c2d3e.mp3',
      transfer_status: null,
      started_at: '2026-11-20T11:59:18Z',
      ended_at: null,
      assistant_id: '2cf17ed2-f47c-4d8a-b6d7-bcc00356146d',
      contact_id: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
      created_at: '2026-11-20T11:59:18Z',
    },
  ],
  has_more: false,
  next_cursor: null,
  meta: { request_id: 'req_storybook_override_000000', timestamp: '2026-11-20T12:00:00Z' },
}
