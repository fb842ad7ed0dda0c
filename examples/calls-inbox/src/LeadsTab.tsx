import { api } from './api'
import { formatTime } from './format'
import { ListFooter } from './ListFooter'
import { usePagedList } from './usePagedList'

/** The leads the assistant qualified, newest first. */
export function LeadsTab() {
  const list = usePagedList(api.leads)

  return (
    <section className="panel" aria-label="Leads">
      <header className="panel-header">
        <h2>Leads</h2>
      </header>
      {list.records.length === 0 && list.loading && <p role="status">Loading leads…</p>}
      {list.records.length === 0 && !list.loading && !list.error && (
        <p className="notice" data-testid="empty">
          No leads yet.
        </p>
      )}
      {list.records.length > 0 && (
        <table className="leads">
          <thead>
            <tr>
              <th>Caller</th>
              <th>Interest</th>
              <th>Urgency</th>
              <th>Status</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {list.records.map((lead) => (
              <tr key={lead.id} data-lead-id={lead.id}>
                <td>
                  {lead.caller_name}
                  <div className="row-meta">{lead.caller_phone}</div>
                </td>
                <td>{lead.interest}</td>
                <td>
                  <span className={`badge badge-${lead.urgency}`}>{lead.urgency}</span>
                </td>
                <td>{lead.status}</td>
                <td>{formatTime(lead.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ListFooter list={list} />
    </section>
  )
}
