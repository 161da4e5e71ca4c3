import { replayIntegration } from '@sentry/react-router'
import { scrub } from './scrub'

/**
 * Session Replay (ADR 030), loaded after the page is interactive. Page text is kept, so a replay
 * still shows what went wrong, but nothing typed, nothing hidden and no account address:
 * - every input's value is masked (a typed address, password or code becomes asterisks);
 * - hidden inputs (the CSRF token), password and one-time-code fields are blocked: recorded as
 *   empty boxes, with neither value nor length;
 * - elements marked `data-personal` (those showing the account's address, in their text, title or
 *   link) are blocked too: masking would hide their text but not their attributes;
 * - elements marked `data-secret` (an authenticator app's shared secret and its QR code) are
 *   blocked: whoever watches replays could compute the account's codes from them (ADR 058);
 * - the replay's own events (navigations, network spans, breadcrumbs) go through scrub() like
 *   every other report. The DOM events rrweb makes cannot be rewritten: the rules above keep
 *   secrets out of them.
 */
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
