import type { CallWithMessages } from 'call-sandbox'
import { formatDuration, formatTime } from './format'

/** One call: who called, what came of it, and the conversation, line by line. */
export function CallTranscript({ call }: { call: CallWithMessages }) {
  return (
    <article className="transcript" aria-label={`Call from ${call.caller_name}`}>
      <header>
        <h3>{call.caller_name}</h3>
        <p className="row-meta">
          {call.caller_phone} · {formatTime(call.started_at)} · {formatDuration(call.duration_seconds)} ·{' '}
          <span className={`badge badge-${call.status}`}>{call.status}</span>
          {call.transfer_status && <> · transfer {call.transfer_status}</>}
        </p>
        <p>{call.summary}</p>
      </header>
      <ol className="messages" aria-label="Transcript">
        {call.messages.map((message, i) => (
          <li key={i} className={`message message-${message.role}`}>
            <span className="message-role">{message.role === 'assistant' ? 'Assistant' : 'Caller'}</span>
            {message.content}
          </li>
        ))}
      </ol>
    </article>
  )
}
