import { fixtures } from 'call-sandbox/storybook'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import {
  collectScripts,
  launchChromium,
  mswCopies,
  newPage,
  pageErrors,
  screenshot,
  workerIntegrity,
} from './support/browser.js'

/*
 * The example's static Storybook: each preset of call-sandbox/storybook
 * behind msw-storybook-addon's mswLoader, one story at a time.
 */

const storybookUrl = inject('storybookUrl')
const msw = inject('msw')
let browser: Browser
let page: Page
/** The scripts the current story's page loaded. */
let scripts: () => Promise<string[]>

beforeAll(async () => {
  browser = await launchChromium()
})
afterEach(() => expect(pageErrors.splice(0)).toEqual([]))
afterAll(() => browser?.close())

/**
 * Opens one story on its own, as the Storybook's canvas shows it, in a fresh
 * page: msw's worker unregisters itself when the last page it served goes,
 * and a navigation races with that.
 */
async function openStory(id: string): Promise<Page> {
  await page?.context().close()
  page = await newPage(browser)
  scripts = collectScripts(page)
  await page.goto(`${storybookUrl}/iframe.html?id=${id}&viewMode=story`)
  await page.locator('#storybook-root > *').first().waitFor()
  return page
}

const callRows = (view: Page) => view.locator('[data-call-id]')

describe('the Storybook of the example', () => {
  it(`shows the seeded calls in the default story, as the fixtures have them, under the service worker of msw ${msw.version} and its one copy`, async () => {
    await openStory('callsinbox--default')
    await callRows(page).nth(24).waitFor()
    expect(await callRows(page).count()).toBe(25)
    expect(await callRows(page).evaluateAll((rows) => rows.map((row) => row.getAttribute('data-call-id')))).toEqual(
      fixtures.calls.slice(0, 25).map((call) => call.id),
    )
    expect(await workerIntegrity(page)).toEqual({ packageVersion: msw.version, checksum: msw.checksum })
    expect(mswCopies(await scripts())).toBe(1)
    expect((await scripts()).some((text) => text.includes(msw.checksum))).toBe(true)
    await screenshot(page, 'storybook-calls-default')
  })

  it('walks the cursor with "Load more" in the default story', async () => {
    await page.getByRole('button', { name: 'Load more' }).click()
    await callRows(page).nth(49).waitFor()
    expect(await callRows(page).evaluateAll((rows) => rows.map((row) => row.getAttribute('data-call-id')))).toEqual(
      fixtures.calls.slice(0, 50).map((call) => call.id),
    )
  })

  it.each([
    ['callsinbox--empty', 'No calls yet.'],
    ['leadstab--empty', 'No leads yet.'],
  ])('shows the empty state in %s', async (id, text) => {
    await openStory(id)
    await expect(page.getByTestId('empty').textContent()).resolves.toContain(text)
    await screenshot(page, `storybook-${id.replace('--', '-')}`)
  })

  it.each([
    ['callsinbox--unauthorized', '401', 'Your API key was not accepted. Check the key in your settings.'],
    ['callsinbox--forbidden', '403', 'Your API key lacks the calls:read scope.'],
    ['leadstab--forbidden', '403', 'Your API key lacks the leads:read scope.'],
    ['callsinbox--rate-limited', '429', 'Too many requests. Try again in 1 s.'],
    ['callsinbox--server-error', '500', 'The API failed (500). Try again in a moment.'],
  ])('shows the error state of %s: %s', async (id, status, headline) => {
    await openStory(id)
    const alert = page.getByRole('alert')
    await alert.waitFor()
    expect(await alert.getAttribute('data-status')).toBe(status)
    expect(await alert.locator('strong').textContent()).toBe(headline)
    await screenshot(page, `storybook-${id.replace('--', '-')}`)
  })

  it('keeps the loading story loading', async () => {
    await openStory('callsinbox--loading')
    await page.waitForTimeout(1_500)
    expect(await page.getByRole('status').textContent()).toBe('Loading calls…')
    expect(await callRows(page).count()).toBe(0)
    await screenshot(page, 'storybook-calls-loading')
  })

  it('shows the busy world, page after page', async () => {
    await openStory('callsinbox--busy')
    await callRows(page).nth(24).waitFor()
    for (let pages = 2; pages <= 4; pages++) {
      await page.getByRole('button', { name: 'Load more' }).click()
      await callRows(page)
        .nth(pages * 25 - 1)
        .waitFor()
    }
    expect(await page.getByRole('button', { name: 'Load more' }).isVisible()).toBe(true)
    await screenshot(page, 'storybook-calls-busy')
  })

  it('shows the degraded world slowly: loading first, then calls or a 5xx', async () => {
    await openStory('callsinbox--degraded')
    expect(await page.getByRole('status').textContent()).toBe('Loading calls…')
    await page.locator('[data-call-id], [role=alert]').first().waitFor({ timeout: 10_000 })
    const alert = page.getByRole('alert')
    if (await alert.count()) expect(['500', '503']).toContain(await alert.getAttribute('data-status'))
    await screenshot(page, 'storybook-calls-degraded')
  })

  it('puts a per-story override on top of the sandbox', async () => {
    await openStory('callsinbox--one-unknown-caller')
    await callRows(page).first().waitFor()
    expect(await callRows(page).locator('.row-title').allTextContents()).toEqual(['Unknown caller'])
  })

  it('renders a component from the typed fixtures, with no request', async () => {
    const call = fixtures.callsWithMessages.find((candidate) => candidate.status === 'completed')!
    await openStory('calltranscript--completed')
    expect(await page.getByRole('list', { name: 'Transcript' }).locator('li').count()).toBe(call.messages.length)
    expect(await page.locator('h3').textContent()).toBe(call.caller_name)
    await screenshot(page, 'storybook-transcript-fixtures')
  })

  it('shows the leads tab forbidden and the calls still working in the app story without leads:read', async () => {
    await openStory('app--leads-without-scope')
    await page.getByRole('alert').waitFor()
    expect(await page.getByRole('alert').getAttribute('data-status')).toBe('403')
    await screenshot(page, 'storybook-app-leads-without-scope')
    await page.getByRole('tab', { name: 'Calls' }).click()
    await callRows(page).nth(24).waitFor()
  })

  it('does not let the loading story leak into the next one', async () => {
    const manager = await newPage(browser)
    await manager.goto(`${storybookUrl}/?path=/story/callsinbox--loading`)
    const canvas = manager.frameLocator('#storybook-preview-iframe')
    await canvas.getByText('Loading calls…').waitFor()
    await manager.locator('#callsinbox--default').click()
    await canvas.locator('[data-call-id]').nth(24).waitFor()
    await screenshot(manager, 'storybook-manager-after-loading')
    await manager.context().close()
  })
})
