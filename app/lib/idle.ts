/**
 * Runs `task` once the page has loaded and the browser is idle (at most 5 s after load where
 * requestIdleCallback exists, 1 s after it elsewhere): for work that must not weigh on a first visit.
 */
export function afterLoadWhenIdle(task: () => void): void {
  const idle = () =>
    window.requestIdleCallback ? window.requestIdleCallback(task, { timeout: 5_000 }) : setTimeout(task, 1_000)
  if (document.readyState === 'complete') idle()
  else window.addEventListener('load', idle, { once: true })
}
