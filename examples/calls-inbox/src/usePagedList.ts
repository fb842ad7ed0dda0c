import { useCallback, useEffect, useState } from 'react'
import type { Page } from './api'

type Fetch<T> = (query: URLSearchParams, signal: AbortSignal) => Promise<Page<T>>

export type ListState<T> =
  | { phase: 'loading' }
  | { phase: 'failed'; error: unknown; retry: () => void }
  | { phase: 'ready'; records: T[]; hasMore: boolean; loadingMore: boolean; moreError: unknown; loadMore: () => void }

/** A list endpoint, page by page: the first page for `filters`, then the next by cursor on `loadMore()`. */
export function usePagedList<T>(fetchPage: Fetch<T>, filters: Record<string, string>, limit = 25): ListState<T> {
  const [attempt, setAttempt] = useState(0)
  const [state, setState] = useState<ListState<T>>({ phase: 'loading' })
  const key = JSON.stringify(filters)

  useEffect(() => {
    const controller = new AbortController()
    const query = (cursor?: string) => new URLSearchParams({ ...filters, limit: String(limit), ...(cursor && { cursor }) })
    const show = (records: T[], page: Page<T>, loadingMore = false, moreError: unknown = null): void => {
      const loadMore = () => {
        show(records, page, true)
        fetchPage(query(page.next_cursor!), controller.signal).then(
          (next) => show([...records, ...next.data], next),
          (error) => controller.signal.aborted || show(records, page, false, error),
        )
      }
      setState({ phase: 'ready', records, hasMore: page.has_more, loadingMore, moreError, loadMore })
    }
    setState({ phase: 'loading' })
    fetchPage(query(), controller.signal).then(
      (page) => show(page.data, page),
      (error) => controller.signal.aborted || setState({ phase: 'failed', error, retry: () => setAttempt((n) => n + 1) }),
    )
    return () => controller.abort()
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `key` stands for the filters
  }, [fetchPage, key, limit, attempt])

  return state
}

/** One record, fetched again whenever `id` changes. */
export function useRecord<T>(fetchRecord: (id: string, signal: AbortSignal) => Promise<T>, id: string) {
  const [state, setState] = useState<{ phase: 'loading' } | { phase: 'failed'; error: unknown } | { phase: 'ready'; record: T }>({ phase: 'loading' })
  const load = useCallback(() => {
    const controller = new AbortController()
    setState({ phase: 'loading' })
    fetchRecord(id, controller.signal).then(
      (record) => setState({ phase: 'ready', record }),
      (error) => controller.signal.aborted || setState({ phase: 'failed', error }),
    )
    return () => controller.abort()
  }, [fetchRecord, id])
  useEffect(load, [load])
  return state
}
