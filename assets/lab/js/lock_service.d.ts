// DO NOT EDIT. Types for lock_service.mjs, for TypeScript (`fencing-lab lab init js` wrote it).
//
// Write your solution in lock_service.mts against these types:
//
//   import type * as Api from "./lock_service.d.ts";
//   export class LockService implements Api.LockService { ... }
//   export class FencedStorage implements Api.FencedStorage { ... }
//
// and compile it next to the adapter:
//
//   tsc --strict --target es2022 --module nodenext lock_service.mts     # writes lock_service.mjs
//
// How your answers are read (the same convention in every language): a thrown error refuses (its
// message is shown in the transcript), whatever its type; returning false refuses; from acquire
// and renew, null (or undefined) is "no lease"; from release and write, returning nothing
// (undefined) or anything but false is success.

/** Where the lock service reads time. Read time only through clock.now(). */
export interface Clock {
  /** The current time in seconds. */
  now(): number;
}

/** One grant of a lock. The checker reads its `token` and `expiresAt`. */
export interface Lease {
  /** The lock's name. */
  name: string;
  /** The client the lock was granted to. */
  clientId: string;
  /** The fencing token of this grant: an integer, higher than every earlier grant's. */
  token: number;
  /** When the lock was granted, in clock seconds. */
  grantedAt: number;
  /** The first moment the lease is no longer live: live while clock.now() < expiresAt. */
  expiresAt: number;
}

/** A lease lock service with one fencing token counter for all its locks. */
export declare class LockService {
  constructor(clock: Clock, leaseSeconds?: number, firstToken?: number);
  /** A new lease with the next token, or null while the lock has a live lease (even the caller's). */
  acquire(name: string, clientId: string): Lease | null;
  /** The caller's live lease, extended to now + leaseSeconds with the same token; refuse
   * otherwise (throw, or return null or false). */
  renew(name: string, clientId: string, token: number): Lease | null | false;
  /** Frees the lock if the caller holds its live lease with this token (returning nothing is
   * success); refuse otherwise (throw, or return false). */
  release(name: string, clientId: string, token: number): boolean | void;
  /** The client id holding a live lease on the lock, or null. */
  holder(name: string): string | null;
}

/** The resource the lock protects. It knows nothing about the lock service: it compares numbers. */
export declare class FencedStorage {
  constructor();
  /** Accepts the write when token >= highestToken(key) (or the key is new; returning nothing is
   * success); refuse otherwise (throw, or return false). */
  write(key: string, value: string, token: number): boolean | void;
  /** The value of the last accepted write to the key, or null. */
  read(key: string): string | null;
  /** The highest token the key has accepted, or null if it was never written. */
  highestToken(key: string): number | null;
}
