/** The webhook event types of docs/API.md §6.1: what a webhook may subscribe to. */
export const EVENT_TYPES = ['operation.accepted', 'epoch.created', 'agent.status_changed'] as const;

export type EventType = (typeof EVENT_TYPES)[number];
