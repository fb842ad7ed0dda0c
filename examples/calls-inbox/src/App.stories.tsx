import type { Meta, StoryObj } from '@storybook/react-vite'
import { sandboxParameters } from 'call-sandbox/storybook'
import { App } from './App'

const meta = {
  component: App,
  parameters: { layout: 'fullscreen', ...sandboxParameters() },
} satisfies Meta<typeof App>
export default meta
type Story = StoryObj<typeof meta>

export const Inbox: Story = {}
export const Leads: Story = { args: { initialTab: 'leads' } }
/** The calls work, the leads tab shows what a key without leads:read gets. */
export const LeadsWithoutScope: Story = {
  args: { initialTab: 'leads' },
  parameters: sandboxParameters({ state: 'forbidden', missingScope: 'leads:read' }),
}
