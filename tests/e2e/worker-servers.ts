/**
 * The servers a worker's tests asked for (fixtures.ts `perWorker`), each started once and kept for
 * the next tests, the least recently used stopped beyond a few.
 *
 * A worker-scoped fixture would do the same, but Playwright gives each set of worker fixtures
 * workers of their own: every spec with a portal of its own cost two new workers, each a Node
 * process, a Chromium and a page pool (ADR 055).
 */
interface Kept {
  value: Promise<unknown>
  stop(): Promise<unknown>
}

/** Specs run one after another in a worker: a few kept portals cover a worker's current spec and its neighbours. */
const KEPT = 3

export class WorkerServers {
  /** In the order of their last use, the most recent last. */
  private readonly kept = new Map<symbol, Kept>()

  async get<T>(key: symbol, start: () => Promise<T>, stop: (value: T) => Promise<unknown>): Promise<T> {
    let kept = this.kept.get(key)
    if (kept) this.kept.delete(key)
    else {
      const value = start()
      kept = { value, stop: async () => stop(await value) }
      // A start that fails is forgotten: the next test tries again, and reports its own failure.
      value.catch(() => this.kept.get(key) === kept && this.kept.delete(key))
      while (this.kept.size >= KEPT) await this.stopOldest()
    }
    this.kept.set(key, kept)
    return kept.value as Promise<T>
  }

  private async stopOldest() {
    const [key, oldest] = this.kept.entries().next().value!
    this.kept.delete(key)
    await oldest.stop().catch(() => {})
  }

  async close(): Promise<void> {
    while (this.kept.size > 0) await this.stopOldest()
  }
}
