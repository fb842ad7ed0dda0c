import { useEffect, useState } from 'react'
import type { Organization } from 'call-sandbox'
import { api } from './api'
import { CallDetail } from './CallDetail'
import { CallsInbox } from './CallsInbox'
import { LeadsTab } from './LeadsTab'

/** The inbox: calls with their transcripts, and the leads, under the organization's name. */
export function App({ initialTab = 'calls' }: { initialTab?: 'calls' | 'leads' }) {
  const [tab, setTab] = useState(initialTab)
  const [selectedId, setSelectedId] = useState<string>()
  const [organization, setOrganization] = useState<Organization>()

  useEffect(() => {
    const controller = new AbortController()
    api.me(controller.signal).then(setOrganization, () => undefined)
    return () => controller.abort()
  }, [])

  return (
    <div className="app">
      <header className="app-header">
        <h1>{organization?.organization_name ?? 'Calls inbox'}</h1>
        <nav role="tablist">
          {(['calls', 'leads'] as const).map((name) => (
            <button key={name} type="button" role="tab" aria-selected={tab === name} onClick={() => setTab(name)}>
              {name === 'calls' ? 'Calls' : 'Leads'}
            </button>
          ))}
        </nav>
      </header>
      {tab === 'calls' ? (
        <main className="split">
          <CallsInbox selectedId={selectedId} onSelect={(call) => setSelectedId(call.id)} />
          <div className="panel">{selectedId ? <CallDetail callId={selectedId} /> : <p className="notice">Pick a call to read its transcript.</p>}</div>
        </main>
      ) : (
        <main>
          <LeadsTab />
        </main>
      )}
    </div>
  )
}
