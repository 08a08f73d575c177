/** Time source; injected wherever expiry, windows or retries depend on it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
