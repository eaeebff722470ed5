// A correct solution of the fencing-lab lab (tests/lab/correct/js): the starter with every method
// written. The rules are quoted in assets/lab/js/lock_service.mjs.

/** @typedef {import("./lock_service.d.ts").Clock} Clock */
/** @typedef {import("./lock_service.d.ts").Lease} Lease */

export class LockService {
  /**
   * @param {Clock} clock
   * @param {number} leaseSeconds
   * @param {number} firstToken
   */
  constructor(clock, leaseSeconds = 10, firstToken = 1) {
    this.clock = clock;
    this.leaseSeconds = leaseSeconds;
    this.nextToken = firstToken;
    /** The latest grant of each lock name. @type {Map<string, {clientId: string, token: number, grantedAt: number, expiresAt: number, released: boolean}>} */
    this.grants = new Map();
  }

  static isLive(grant, now) {
    return grant !== undefined && !grant.released && now < grant.expiresAt;
  }

  acquire(name, clientId) {
    const now = this.clock.now();
    if (LockService.isLive(this.grants.get(name), now)) return null;
    const token = this.nextToken;
    this.nextToken += 1;
    const grant = { clientId, token, grantedAt: now, expiresAt: now + this.leaseSeconds, released: false };
    this.grants.set(name, grant);
    return { name, clientId, token, grantedAt: grant.grantedAt, expiresAt: grant.expiresAt };
  }

  /** The caller's live grant on `name` with `token`, or a thrown Error saying why not. */
  held(name, clientId, token, now) {
    const grant = this.grants.get(name);
    if (grant === undefined || grant.released) {
      throw new Error(`${clientId} does not hold lock '${name}'`);
    }
    if (grant.clientId !== clientId) {
      if (LockService.isLive(grant, now)) {
        throw new Error(`lock '${name}' is held by ${grant.clientId}, not by ${clientId}`);
      }
      throw new Error(`${clientId} does not hold lock '${name}'`);
    }
    if (grant.token !== token) {
      throw new Error(`token ${token} is not ${clientId}'s current lease on '${name}' (${grant.token})`);
    }
    if (!LockService.isLive(grant, now)) {
      throw new Error(`${clientId}'s lease on '${name}' expired at ${grant.expiresAt} s`);
    }
    return grant;
  }

  renew(name, clientId, token) {
    const now = this.clock.now();
    const grant = this.held(name, clientId, token, now);
    grant.expiresAt = now + this.leaseSeconds;
    return { name, clientId, token, grantedAt: grant.grantedAt, expiresAt: grant.expiresAt };
  }

  release(name, clientId, token) {
    const now = this.clock.now();
    this.held(name, clientId, token, now).released = true;
  }

  holder(name) {
    const grant = this.grants.get(name);
    return LockService.isLive(grant, this.clock.now()) ? grant.clientId : null;
  }
}

export class FencedStorage {
  constructor() {
    /** For each key, its value and highest token. @type {Map<string, {value: string, token: number}>} */
    this.entries = new Map();
  }

  write(key, value, token) {
    const entry = this.entries.get(key);
    if (entry !== undefined && token < entry.token) {
      throw new Error(`token ${token} is older than token ${entry.token}, the highest key '${key}' has accepted`);
    }
    this.entries.set(key, { value, token });
  }

  read(key) {
    const entry = this.entries.get(key);
    return entry === undefined ? null : entry.value;
  }

  highestToken(key) {
    const entry = this.entries.get(key);
    return entry === undefined ? null : entry.token;
  }
}
