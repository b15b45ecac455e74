/**
 * A signal between the processes that share one store: "something you keep a copy of has
 * changed, drop it". One channel per bus; the message carries nothing but who sent it.
 */
export interface ChangeBus {
  /** Tells every other process on the bus; resolves once the bus has taken the message. */
  publish(): Promise<void>;
  /** `changed` runs on each message of another process; `reset` when messages may have been missed. */
  subscribe(handlers: { changed(): void; reset(): void }): void;
  /** False while a message could be missed (not connected, not yet subscribed). */
  listening(): boolean;
  close(): Promise<void>;
}
