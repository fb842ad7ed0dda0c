import type { Meta, StoryObj } from '@storybook/react-vite'
import { fixtures } from 'call-sandbox/storybook'
import { CallTranscript } from './CallTranscript'

/** A component that takes its data as props: the default world's records, no request. */
const meta = {
  component: CallTranscript,
  args: { call: fixtures.callsWithMessages.find((call) => call.status === 'completed')! },
} satisfies Meta<typeof CallTranscript>
export default meta
type Story = StoryObj<typeof meta>

export const Completed: Story = {}
export const Transferred: Story = { args: { call: fixtures.callsWithMessages.find((call) => call.transfer_status === 'completed')! } }
export const OnTheLine: Story = { args: { call: fixtures.callsWithMessages.find((call) => call.status === 'in-progress')! } }
export const Blocked: Story = { args: { call: fixtures.callsWithMessages.find((call) => call.status === 'blocked')! } }
