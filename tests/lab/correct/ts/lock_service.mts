// A correct solution of the fencing-lab lab in TypeScript (tests/lab/correct/ts), written against
// lock_service.d.ts. Compile it to lock_service.mjs next to the adapter:
//
//   tsc --strict --target es2022 --module nodenext lock_service.mts

import type * as Api from "./lock_service.d.ts";

/** The latest grant of one lock name, kept after expiry and release to explain refusals. */
interface Grant {
  clientId: string;
  token: number;
  grantedAt: number;
  expiresAt: number;
  released: boolean;
}

function isLive(grant: Grant, now: number): boolean {
  return !grant.released && now < grant.expiresAt;
}

export class LockService implements Api.LockService {
  private readonly grants = new Map<string, Grant>();
  private nextToken: number;

  constructor(
    private readonly clock: Api.Clock,
    private readonly leaseSeconds: number = 10,
    firstToken: number = 1,
  ) {
    this.nextToken = firstToken;
  }

  acquire(name: string, clientId: string): Api.Lease | null {
    const now = this.clock.now();
    const current = this.grants.get(name);
    if (current !== undefined && isLive(current, now)) return null;
    const token = this.nextToken;
    this.nextToken += 1;
    const grant: Grant = {
      clientId,
      token,
      grantedAt: now,
      expiresAt: now + this.leaseSeconds,
      released: false,
    };
    this.grants.set(name, grant);
    return { name, clientId, token, grantedAt: grant.grantedAt, expiresAt: grant.expiresAt };
  }

  /** The caller's live grant on `name` with `token`, or a thrown Error saying why not. */
  private held(name: string, clientId: string, token: number, now: number): Grant {
    const grant = this.grants.get(name);
    if (grant === undefined || grant.released) {
      throw new Error(`${clientId} does not hold lock '${name}'`);
    }
    if (grant.clientId !== clientId) {
      if (isLive(grant, now)) {
        throw new Error(`lock '${name}' is held by ${grant.clientId}, not by ${clientId}`);
      }
      throw new Error(`${clientId} does not hold lock '${name}'`);
    }
    if (grant.token !== token) {
      throw new Error(`token ${token} is not ${clientId}'s current lease on '${name}' (${grant.token})`);
    }
    if (!isLive(grant, now)) {
      throw new Error(`${clientId}'s lease on '${name}' expired at ${grant.expiresAt} s`);
    }
    return grant;
  }

  renew(name: string, clientId: string, token: number): Api.Lease {
    const now = this.clock.now();
    const grant = this.held(name, clientId, token, now);
    grant.expiresAt = now + this.leaseSeconds;
    return { name, clientId, token, grantedAt: grant.grantedAt, expiresAt: grant.expiresAt };
  }

  release(name: string, clientId: string, token: number): void {
    const now = this.clock.now();
    this.held(name, clientId, token, now).released = true;
  }

  holder(name: string): string | null {
    const grant = this.grants.get(name);
    return grant !== undefined && isLive(grant, this.clock.now()) ? grant.clientId : null;
  }
}

export class FencedStorage implements Api.FencedStorage {
  /** For each key, its value and highest token. */
  private readonly entries = new Map<string, { value: string; token: number }>();

  write(key: string, value: string, token: number): void {
    const entry = this.entries.get(key);
    if (entry !== undefined && token < entry.token) {
      throw new Error(
        `token ${token} is older than token ${entry.token}, the highest key '${key}' has accepted`,
      );
    }
    this.entries.set(key, { value, token });
  }

  read(key: string): string | null {
    return this.entries.get(key)?.value ?? null;
  }

  highestToken(key: string): number | null {
    return this.entries.get(key)?.token ?? null;
  }
}
