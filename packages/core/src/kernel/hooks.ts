/**
 * Reactions one domain hands to another through the wiring (forge.ts), so that the domain
 * whose event it is never names the domains that react: ci's pipeline hooks, the repository's
 * push hooks, the issues' hooks. The domain that owns the event keeps one list and runs the
 * reactions in registration order, inside the transaction of the change.
 *
 * A list is per process, not per forge: every forge wires the same reactions, and
 * registering one again is a no-op.
 */
export class HookList<H extends object> {
  private readonly hooks: H[] = [];

  /** Adds a domain's reactions (once per `hooks` object). */
  register(hooks: H): void {
    if (!this.hooks.includes(hooks)) this.hooks.push(hooks);
  }

  /** The registered reactions, in registration order. */
  all(): readonly H[] {
    return this.hooks;
  }
}
