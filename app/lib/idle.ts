export function afterLoadWhenIdle(task: () => void): void {
  const idle = () =>
    window.requestIdleCallback ? window.requestIdleCallback(task, { timeout: 5_000 }) : setTimeout(task, 1_000)
  if (document.readyState === 'complete') idle()
  else window.addEventListener('load', idle, { once: true })
}
