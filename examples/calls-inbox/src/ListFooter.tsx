import { ApiErrorNotice } from './ApiErrorNotice'
import type { PagedList } from './usePagedList'

/** Under a list: the error of its last page, if any, and "Load more" while there is a next page. */
export function ListFooter({ list }: { list: PagedList<unknown> }) {
  return (
    <>
      {list.error != null && <ApiErrorNotice error={list.error} onRetry={list.loadMore} />}
      {list.hasMore && !list.error && (
        <button type="button" className="more" onClick={list.loadMore} disabled={list.loading}>
          {list.loading ? 'Loading…' : 'Load more'}
        </button>
      )}
    </>
  )
}
