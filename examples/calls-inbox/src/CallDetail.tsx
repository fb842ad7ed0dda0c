import { useEffect, useState } from 'react'
import type { CallWithMessages } from 'call-sandbox'
import { api } from './api'
import { ApiErrorNotice } from './ApiErrorNotice'
import { CallTranscript } from './CallTranscript'

/** `GET /v1/calls/:call_id`, shown as its transcript. */
export function CallDetail({ callId }: { callId: string }) {
  const [state, setState] = useState<{ call?: CallWithMessages; error?: unknown }>({})

  useEffect(() => {
    const controller = new AbortController()
    setState({})
    api.call(callId, controller.signal).then(
      (call) => setState({ call }),
      (error) => controller.signal.aborted || setState({ error }),
    )
    return () => controller.abort()
  }, [callId])

  if (state.error) return <ApiErrorNotice error={state.error} />
  if (!state.call) return <p role="status">Loading the call…</p>
  return <CallTranscript call={state.call} />
}
