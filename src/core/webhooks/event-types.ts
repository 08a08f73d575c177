/** The webhook event kinds (docs/webhooks.md). Dependency-free: the console's browser bundle imports it too. */
export const EVENT_TYPES = ['click', 'conversion', 'search', 'feedback'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
