import type { Logger } from "pino";

/**
 * Runs Redis operations for a feature that has a fallback (CONTRACT §24): a failure answers
 * `undefined` so the caller uses its fallback, and the outage is logged once, as is its end.
 */
export class RedisFallback {
  private degraded = false;
  fallbackCount = 0;
  constructor(
    private log: Logger,
    /** e.g. "rate limiting": names the feature in the log lines. */
    private feature: string,
    /** What happens meanwhile, e.g. "counting per process". */
    private meanwhile: string,
  ) {}

  get isDegraded(): boolean {
    return this.degraded;
  }

  async run<T>(operation: () => Promise<T>): Promise<T | undefined> {
    try {
      const value = await operation();
      if (this.degraded) {
        this.degraded = false;
        this.log.warn(`${this.feature}: redis reachable again`);
      }
      return value;
    } catch (error) {
      this.fallbackCount++;
      if (!this.degraded) {
        this.degraded = true;
        this.log.warn({ err: error }, `${this.feature}: redis unreachable, ${this.meanwhile} until it is back`);
      }
      return undefined;
    }
  }
}
