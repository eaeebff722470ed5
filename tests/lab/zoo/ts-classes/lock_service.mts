// A lease lock service with fencing tokens, and the storage it protects, in TypeScript against
// lock_service.d.ts (compiled with `tsc --strict --target es2022 --module nodenext`).
//
// Idiom: classes with `private readonly` state, a readonly Lease class implementing Api.Lease,
// refusals thrown as an Error subclass; release and write return void.

import type * as Api from "./lock_service.d.ts";

class Refused extends Error {
  override name = "Refused";
}

class Lease implements Api.Lease {
  constructor(
    readonly name: string,
    readonly clientId: string,
    readonly token: number,
    readonly grantedAt: number,
    readonly expiresAt: number,
  ) {}

  liveAt(now: number): boolean {
    return now < this.expiresAt;
  }

  extendedTo(expiresAt: number): Lease {
    return new Lease(this.name, this.clientId, this.token, this.grantedAt, expiresAt);
  }
}

interface Slot {
  lease: Lease;
  released: boolean;
}

export class LockService implements Api.LockService {
  private readonly slots = new Map<string, Slot>();
  private nextToken: number;

  constructor(
    private readonly clock: Api.Clock,
    private readonly leaseSeconds: number = 10,
    firstToken: number = 1,
  ) {
    this.nextToken = firstToken;
  }

  private liveSlot(name: string): Slot | undefined {
    const slot = this.slots.get(name);
    if (slot === undefined || slot.released || !slot.lease.liveAt(this.clock.now())) {
      return undefined;
    }
    return slot;
  }

  acquire(name: string, clientId: string): Api.Lease | null {
    if (this.liveSlot(name) !== undefined) return null;
    const now = this.clock.now();
    const lease = new Lease(name, clientId, this.nextToken, now, now + this.leaseSeconds);
    this.nextToken += 1;
    this.slots.set(name, { lease, released: false });
    return lease;
  }

  renew(name: string, clientId: string, token: number): Api.Lease {
    const slot = this.liveSlot(name);
    if (slot === undefined) throw new Refused(`${name} has no live lease to renew`);
    if (slot.lease.clientId !== clientId) throw new Refused(`${name} is held by ${slot.lease.clientId}`);
    if (slot.lease.token !== token) throw new Refused(`token ${token} is not ${slot.lease.token}`);
    slot.lease = slot.lease.extendedTo(this.clock.now() + this.leaseSeconds);
    return slot.lease;
  }

  release(name: string, clientId: string, token: number): void {
    const slot = this.liveSlot(name);
    if (slot === undefined) throw new Refused(`${name} has no live lease to release`);
    if (slot.lease.clientId !== clientId || slot.lease.token !== token) {
      throw new Refused(`${name} is not held by ${clientId} with token ${token}`);
    }
    slot.released = true;
  }

  holder(name: string): string | null {
    return this.liveSlot(name)?.lease.clientId ?? null;
  }
}

export class FencedStorage implements Api.FencedStorage {
  private readonly values = new Map<string, string>();
  private readonly highest = new Map<string, number>();

  write(key: string, value: string, token: number): void {
    const highest = this.highest.get(key);
    if (highest !== undefined && token < highest) {
      throw new Refused(`token ${token} is older than ${highest} for ${key}`);
    }
    this.values.set(key, value);
    this.highest.set(key, token);
  }

  read(key: string): string | null {
    return this.values.get(key) ?? null;
  }

  highestToken(key: string): number | null {
    return this.highest.get(key) ?? null;
  }
}
