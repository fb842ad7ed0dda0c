import { useCallback, useEffect, useRef, useState } from 'react'
import type { Page } from './api'

export interface PagedList<T> {
  records: T[]
  /** The first page, or the next one, is on its way. */
  loading: boolean
  error: unknown
  hasMore: boolean
  /** Fetches the next page with the last page's `next_cursor` (or the first page again after an error). */
  loadMore: () => void
}

/** A list endpoint page by page: the first page for `filters`, then the next one by cursor. */
export function usePagedList<T>(
  fetchPage: (query: URLSearchParams, signal: AbortSignal) => Promise<Page<T>>,
  filters: Record<string, string> = {},
  limit = 25,
): PagedList<T> {
  const [records, setRecords] = useState<T[]>([])
  const [cursor, setCursor] = useState<string | null>(null)
  const [hasMore, setHasMore] = useState(false)
  const [loading, setLoading] = useState(true)
  const [error, setError] = useState<unknown>(null)
  const controller = useRef<AbortController | null>(null)
  const query = new URLSearchParams({ ...filters, limit: String(limit) }).toString()

  const load = useCallback(
    (after: string | null) => {
      controller.current?.abort()
      const current = (controller.current = new AbortController())
      setLoading(true)
      setError(null)
      const params = new URLSearchParams(query)
      if (after) params.set('cursor', after)
      fetchPage(params, current.signal).then(
        (page) => {
          setRecords((earlier) => (after ? [...earlier, ...page.data] : page.data))
          setCursor(page.next_cursor)
          setHasMore(page.has_more)
          setLoading(false)
        },
        (failure) => {
          if (current.signal.aborted) return
          setError(failure)
          setLoading(false)
        },
      )
    },
    [fetchPage, query],
  )

  useEffect(() => {
    setRecords([])
    load(null)
    return () => controller.current?.abort()
  }, [load])

  return { records, loading, error, hasMore, loadMore: () => load(cursor) }
}
