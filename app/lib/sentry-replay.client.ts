import { replayIntegration } from '@sentry/react-router'
import { scrub } from './scrub'

// Nothing typed, hidden or personal is recorded: inputs are masked, and password, one-time-code,
// hidden, `data-personal` and `data-secret` elements are blocked (masking would hide their text but
// not their attributes). A TOTP secret would let a replay viewer compute the codes (see ADR 058).
export function replay() {
  return replayIntegration({
    maskAllText: false,
    maskAllInputs: true,
    block: ['input[type="hidden"]', 'input[type="password"]', '[autocomplete="one-time-code"]', '[data-personal]', '[data-secret]'],
    mutationLimit: 10_000,
    mutationBreadcrumbLimit: 750,
    slowClickTimeout: 7_000,
    // The 'options' event is this configuration; its sample-rate keys would read as "session" secrets.
    beforeAddRecordingEvent: (event) => (event.data.tag === 'options' ? event : scrub(event)),
  })
}
