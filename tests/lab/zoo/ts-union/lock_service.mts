// A lease lock service with fencing tokens, and the storage it protects, in TypeScript against
// lock_service.d.ts (compiled with `tsc --strict --target es2022 --module nodenext`).
//
// Idiom: each lock's state is a discriminated union ("held" or "released"), narrowed with
// `switch`; renew returns null to refuse, release and write return a boolean (false refuses).

import type { Clock, Lease, LockService as LockServiceApi, FencedStorage as FencedStorageApi } from "./lock_service.d.ts";

type LockState =
  | { kind: "held"; clientId: string; token: number; grantedAt: number; expiresAt: number }
  | { kind: "released"; token: number };

type Held = Extract<LockState, { kind: "held" }>;

function leaseOf(name: string, held: Held): Lease {
  return {
    name,
    clientId: held.clientId,
    token: held.token,
    grantedAt: held.grantedAt,
    expiresAt: held.expiresAt,
  };
}

export class LockService implements LockServiceApi {
  readonly #clock: Clock;
  readonly #leaseSeconds: number;
  #nextToken: number;
  readonly #locks: Record<string, LockState> = Object.create(null);

  constructor(clock: Clock, leaseSeconds = 10, firstToken = 1) {
    this.#clock = clock;
    this.#leaseSeconds = leaseSeconds;
    this.#nextToken = firstToken;
  }

  #held(name: string): Held | null {
    const state: LockState | undefined = this.#locks[name];
    if (state === undefined) return null;
    switch (state.kind) {
      case "released":
        return null;
      case "held":
        return this.#clock.now() < state.expiresAt ? state : null;
    }
  }

  acquire(name: string, clientId: string): Lease | null {
    if (this.#held(name) !== null) return null;
    const now = this.#clock.now();
    const held: Held = {
      kind: "held",
      clientId,
      token: this.#nextToken,
      grantedAt: now,
      expiresAt: now + this.#leaseSeconds,
    };
    this.#nextToken += 1;
    this.#locks[name] = held;
    return leaseOf(name, held);
  }

  renew(name: string, clientId: string, token: number): Lease | null {
    const held = this.#held(name);
    if (held === null || held.clientId !== clientId || held.token !== token) return null;
    const renewed: Held = { ...held, expiresAt: this.#clock.now() + this.#leaseSeconds };
    this.#locks[name] = renewed;
    return leaseOf(name, renewed);
  }

  release(name: string, clientId: string, token: number): boolean {
    const held = this.#held(name);
    if (held === null) return false;
    if (held.clientId !== clientId) return false;
    if (held.token !== token) return false;
    this.#locks[name] = { kind: "released", token };
    return true;
  }

  holder(name: string): string | null {
    return this.#held(name)?.clientId ?? null;
  }
}

type Entry = { readonly value: string; readonly highest: number };

export class FencedStorage implements FencedStorageApi {
  readonly #entries = new Map<string, Entry>();

  write(key: string, value: string, token: number): boolean {
    const entry = this.#entries.get(key);
    if (entry !== undefined && token < entry.highest) return false;
    this.#entries.set(key, { value, highest: token });
    return true;
  }

  read(key: string): string | null {
    const entry = this.#entries.get(key);
    return entry === undefined ? null : entry.value;
  }

  highestToken(key: string): number | null {
    const entry = this.#entries.get(key);
    return entry === undefined ? null : entry.highest;
  }
}
