import type { Call, CallStatus } from 'call-sandbox'
import { useState } from 'react'
import { api } from './api'
import { formatDuration, formatTime } from './format'
import { ListFooter } from './ListFooter'
import { usePagedList } from './usePagedList'

const STATUSES: CallStatus[] = ['completed', 'in-progress', 'forwarding', 'failed', 'blocked']

/** The calls, newest first, with a status filter and "Load more" by cursor. */
export function CallsInbox({ selectedId, onSelect }: { selectedId?: string; onSelect?: (call: Call) => void }) {
  const [status, setStatus] = useState<CallStatus | ''>('')
  const list = usePagedList(api.calls, status ? { status } : {})

  return (
    <section className="panel" aria-label="Calls">
      <header className="panel-header">
        <h2>Calls</h2>
        <label>
          Status{' '}
          <select value={status} onChange={(event) => setStatus(event.target.value as CallStatus | '')}>
            <option value="">All</option>
            {STATUSES.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </label>
      </header>
      {list.records.length === 0 && list.loading && <p role="status">Loading calls…</p>}
      {list.records.length === 0 && !list.loading && !list.error && (
        <p className="notice" data-testid="empty">
          {status ? `No ${status} calls.` : 'No calls yet. When your assistant answers a call, it shows up here.'}
        </p>
      )}
      {list.records.length > 0 && (
        <ul className="rows" aria-label="Call list">
          {list.records.map((call) => (
            <li key={call.id}>
              <button type="button" className="row" aria-current={call.id === selectedId} onClick={() => onSelect?.(call)} data-call-id={call.id}>
                <span className="row-title">{call.caller_name}</span>
                <span className={`badge badge-${call.status}`}>{call.status}</span>
                <span className="row-meta">
                  {call.caller_phone} · {formatTime(call.started_at)} · {formatDuration(call.duration_seconds)}
                </span>
                <span className="row-summary">{call.summary}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <ListFooter list={list} />
    </section>
  )
}
