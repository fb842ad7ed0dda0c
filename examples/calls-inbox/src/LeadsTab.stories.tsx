import type { Meta, StoryObj } from '@storybook/react-vite'
import { sandboxParameters } from 'call-sandbox/storybook'
import { LeadsTab } from './LeadsTab'

const meta = {
  component: LeadsTab,
  parameters: sandboxParameters(),
} satisfies Meta<typeof LeadsTab>
export default meta
type Story = StoryObj<typeof meta>

export const Default: Story = {}
export const Empty: Story = { parameters: sandboxParameters({ scenario: 'empty' }) }
export const Loading: Story = { parameters: sandboxParameters({ state: 'loading' }) }
/** A key without leads:read (sk_sandbox_calls, say): the API's real 403. */
export const Forbidden: Story = { parameters: sandboxParameters({ state: 'forbidden', missingScope: 'leads:read' }) }
export const RateLimited: Story = { parameters: sandboxParameters({ state: 'rate-limited' }) }
