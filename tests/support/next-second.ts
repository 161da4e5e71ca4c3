/**
 * Waits into the clock's next second (50 ms into it), so that what follows happens in a later second
 * than what came before. Revocation is recorded to the second (ADR 005): a session made in the same
 * second as its revocation would survive it. Up to 1.05 s, half that on average, where a fixed
 * 1.1 s wait always took 1.1 s.
 */
export function intoTheNextSecond(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1_050 - (Date.now() % 1_000)))
}
