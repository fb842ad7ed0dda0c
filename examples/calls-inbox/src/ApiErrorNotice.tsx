import { ApiProblem } from './api'

/** What an API error means for the person looking at the screen, and what they can do. */
export function ApiErrorNotice({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const problem = error instanceof ApiProblem ? error : new ApiProblem(0, 'unknown', String(error))
  const retry = onRetry && (
    <button type="button" onClick={onRetry}>
      Try again
    </button>
  )
  return (
    <div className="notice notice-error" role="alert" data-status={problem.status} data-code={problem.code}>
      <strong>{headline(problem)}</strong>
      <p>{problem.message}</p>
      {problem.status !== 401 && problem.status !== 403 && retry}
    </div>
  )
}

function headline(problem: ApiProblem): string {
  switch (problem.status) {
    case 0:
      return 'The API cannot be reached.'
    case 401:
      return 'Your API key was not accepted. Check the key in your settings.'
    case 403:
      return `Your API key lacks the ${problem.details.required_scope ?? 'needed'} scope.`
    case 429:
      return `Too many requests. Try again in ${problem.retryAfter ?? 'a few'} s.`
    default:
      return problem.status >= 500 ? `The API failed (${problem.status}). Try again in a moment.` : `The request failed (${problem.status}).`
  }
}
