import type { Preview } from '@storybook/react-vite'
import { mswLoader } from 'msw-storybook-addon/csf3'
import '../src/styles.css'

const preview: Preview = {
  // Before each story: reset the worker's handlers, then use the story's parameters.msw.
  loaders: [mswLoader()],
}
export default preview
