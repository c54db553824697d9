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

/**
 * One implementation per key, handed over by the wiring: a lower domain that serves routes for
 * things a higher domain owns asks here, instead of importing it (notes find their noteables,
 * reactions their awardables). Like a HookList it is per process; registering a key again
 * replaces nothing but the same implementation.
 */
export class Registry<K extends string, V> {
  private readonly entries = new Map<K, V>();

  /** `what` names the registry in the error for a key nobody registered. */
  constructor(private readonly what: string) {}

  register(key: K, value: V): void {
    const prior = this.entries.get(key);
    if (prior !== undefined && prior !== value) throw new Error(`${this.what}: ${key} is registered twice`);
    this.entries.set(key, value);
  }

  /** The implementation for `key`; a key nobody registered is a wiring mistake (forge.ts). */
  get(key: K): V {
    const value = this.entries.get(key);
    if (value === undefined) throw new Error(`${this.what}: nothing registered for ${key} (forge.ts wires them)`);
    return value;
  }
}
