// Your lock service and the storage it protects. Fill in every method that throws NotImplemented,
// then run `fencing-lab check .` to see which rules pass.
//
// The rules the checker tests (from the seed problem):
//
// - "A lease granted at time t is live while now < t + lease_seconds. At exactly t + lease_seconds
//   it has expired and the lock is free."
// - "One counter for the whole service: the first grant gets first_token, every later grant (of
//   any lock name) gets the next integer. A token is never handed out twice. renew keeps the
//   token; only a new grant makes a new one." A refused acquire uses no token.
// - "acquire on a lock with a live lease returns None, even when the caller is the holder (use
//   renew to keep a lock)." (None is null in JavaScript.)
// - "An expired lease can't be renewed or released, even if nobody has taken the lock since: the
//   client must acquire again and gets a new token. A late release must never free someone
//   else's lock."
// - "The storage knows nothing about the lock service: it only compares numbers. A write is
//   accepted when token >= highest_token(key) (the holder may write several times with its
//   token), and then the key's value and highest token are updated. A rejected write changes
//   nothing. Each key keeps its own highest token, like the lesson's fence_token column
//   (section 2.2)."
// - "Read time only through clock.now() (seconds)." Never Date.now() or performance.now().
//
// How your answers are read (the same convention in every language):
//
// - Throwing refuses, whatever you throw; the message is shown in the checker's transcript, so
//   say why, e.g.
//     throw new Error(`token ${token} is older than ${highest}`);
//   A bug's error (a TypeError, a ReferenceError, ...) refuses too, and the transcript shows it.
// - Returning false refuses.
// - From acquire and renew, null (or undefined) is "no lease" (a refusal); a lease object (with a
//   token and an expiresAt) is the grant.
// - From release and write, returning nothing (undefined), or anything but false, is success. To
//   refuse, throw or return false.
//
// Print debugging output with console.log or console.error: the adapter sends both to stderr.
// Types for TypeScript and for your editor are in lock_service.d.ts.

import { NotImplemented } from "./not_implemented.mjs";

/** @typedef {import("./lock_service.d.ts").Clock} Clock */
/** @typedef {import("./lock_service.d.ts").Lease} Lease */

export class LockService {
  /**
   * A lock service whose leases last `leaseSeconds` and whose first grant gets `firstToken`.
   *
   * @param {Clock} clock  the only source of time: clock.now(), in seconds
   * @param {number} leaseSeconds  how long a lease lasts
   * @param {number} firstToken  the token of the service's first grant
   */
  constructor(clock, leaseSeconds = 10, firstToken = 1) {
    this.clock = clock;
    this.leaseSeconds = leaseSeconds;
    this.nextToken = firstToken;
    // Add what you need, e.g. the latest grant of each lock name: this.grants = new Map();
  }

  /**
   * Grants the lock to `clientId` if no live lease holds it.
   *
   * Returns a lease `{ name, clientId, token, grantedAt, expiresAt }` with the next token of the
   * service's one counter and `expiresAt = clock.now() + leaseSeconds`; or null while the lock
   * has a live lease, even the caller's own (it must renew instead). A refused acquire uses no
   * token.
   *
   * @param {string} name
   * @param {string} clientId
   * @returns {Lease | null}
   */
  acquire(name, clientId) {
    throw new NotImplemented("LockService.acquire");
  }

  /**
   * Extends the caller's live lease to `clock.now() + leaseSeconds`, keeping its token, and
   * returns the lease with the new `expiresAt`.
   *
   * Refuses (throw, or return null or false) when the lease has expired (even if nobody took the
   * lock since), when another client holds the lock, when `token` is not the caller's current
   * grant, or when the caller holds nothing. A refused renew changes nothing.
   *
   * @param {string} name
   * @param {string} clientId
   * @param {number} token
   * @returns {Lease | null | false}
   */
  renew(name, clientId, token) {
    throw new NotImplemented("LockService.renew");
  }

  /**
   * Frees the lock if the caller holds its live lease with `token`; afterwards holder(name) is
   * null and anyone may acquire it. Returning nothing (or true) is success.
   *
   * Refuses (throw, or return false) in the same cases as renew: a late release never frees
   * someone else's lock. Returning null or undefined does not refuse.
   *
   * @param {string} name
   * @param {string} clientId
   * @param {number} token
   * @returns {boolean | void}
   */
  release(name, clientId, token) {
    throw new NotImplemented("LockService.release");
  }

  /**
   * The client id holding a live lease on the lock, or null (never granted, released, or expired).
   *
   * @param {string} name
   * @returns {string | null}
   */
  holder(name) {
    throw new NotImplemented("LockService.holder");
  }
}

export class FencedStorage {
  /** An empty store. It knows nothing about the lock service. */
  constructor() {
    // Add what you need, e.g. for each key its value and highest token: this.entries = new Map();
  }

  /**
   * Writes `value` under `key` if `token >= highestToken(key)`, or if the key was never written;
   * then the key's value and highest token are updated. Returning nothing (or true) is success.
   *
   * Refuses (throw, or return false) a write whose token is lower than the key's highest; a
   * rejected write changes nothing. Returning null or undefined does not refuse. Each key keeps
   * its own highest token.
   *
   * @param {string} key
   * @param {string} value
   * @param {number} token
   * @returns {boolean | void}
   */
  write(key, value, token) {
    throw new NotImplemented("FencedStorage.write");
  }

  /**
   * The value of the last accepted write to `key`, or null.
   *
   * @param {string} key
   * @returns {string | null}
   */
  read(key) {
    throw new NotImplemented("FencedStorage.read");
  }

  /**
   * The highest token `key` has accepted, or null if it was never written.
   *
   * @param {string} key
   * @returns {number | null}
   */
  highestToken(key) {
    throw new NotImplemented("FencedStorage.highestToken");
  }
}
