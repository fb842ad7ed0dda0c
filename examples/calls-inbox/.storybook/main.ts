import type { StorybookConfig } from '@storybook/react-vite'

const config: StorybookConfig = {
  stories: ['../src/**/*.stories.tsx'],
  framework: '@storybook/react-vite',
  // mockServiceWorker.js, for msw-storybook-addon's worker.
  staticDirs: ['../sandbox-worker'],
  core: { disableTelemetry: true },
}
export default config
