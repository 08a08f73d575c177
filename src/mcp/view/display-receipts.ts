/**
 * Display receipts from the view: an impression counts as displayed once its card has been at
 * least half visible for one second (the IAB/MRC viewability rule for display ads), and each
 * impression is reported once per view. IntersectionObserver measures against the top-level
 * viewport even inside the host's iframe, so a card scrolled out of the chat is not counted.
 */
const VISIBLE_SHARE = 0.5;
const VISIBLE_MS = 1000;
/** record_display takes at most 10 ids a call. */
const BATCH = 10;

export type SendReceipts = (impressionIds: string[]) => Promise<void>;

export class DisplayReceipts {
  private readonly timers = new Map<Element, number>();
  private readonly sent = new Set<string>();
  private readonly pending = new Set<string>();
  private flushing: Promise<void> | null = null;
  private readonly observer = new IntersectionObserver((entries) => this.onChange(entries), { threshold: [0, VISIBLE_SHARE] });

  constructor(private readonly send: SendReceipts) {}

  /** Starts watching a card; `data-impression-id` names its impression. */
  watch(card: HTMLElement): void {
    this.observer.observe(card);
  }

  /** Stops watching every card (a new result replaces the cards); receipts already due still go out. */
  reset(): void {
    this.observer.disconnect();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private onChange(entries: IntersectionObserverEntry[]): void {
    for (const entry of entries) {
      const card = entry.target as HTMLElement;
      const id = card.dataset.impressionId;
      if (!id || this.sent.has(id)) continue;
      const visible = entry.isIntersecting && entry.intersectionRatio >= VISIBLE_SHARE;
      const timer = this.timers.get(card);
      if (visible && timer === undefined) {
        this.timers.set(
          card,
          window.setTimeout(() => this.due(card, id), VISIBLE_MS),
        );
      } else if (!visible && timer !== undefined) {
        clearTimeout(timer);
        this.timers.delete(card);
      }
    }
  }

  private due(card: HTMLElement, id: string): void {
    this.timers.delete(card);
    this.observer.unobserve(card);
    if (this.sent.has(id)) return;
    this.sent.add(id);
    this.pending.add(id);
    // Cards that become due together (one screenful) go out in one call.
    queueMicrotask(() => void this.flush());
  }

  private async flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = (async () => {
      while (this.pending.size > 0) {
        const batch = [...this.pending].slice(0, BATCH);
        for (const id of batch) this.pending.delete(id);
        await this.send(batch);
      }
    })().finally(() => (this.flushing = null));
    return this.flushing;
  }
}
