// A lease lock service with fencing tokens, and the storage it protects.
//
// Idiom: a lease is live while the time since its grant (or last renew) is under the lease
// length, `now - since < leaseSeconds`, rather than `now < expiresAt`; with times that are not
// exact in binary the two can disagree in the last bit at the very end of a lease, and the
// checker must judge both alike. Otherwise as js-throw-map.

export class LockError extends Error {
  constructor(message) {
    super(message);
    this.name = "LockError";
  }
}

export class StaleTokenError extends Error {
  constructor(message) {
    super(message);
    this.name = "StaleTokenError";
  }
}

export class LockService {
  constructor(clock, leaseSeconds = 10, firstToken = 1) {
    this.clock = clock;
    this.leaseSeconds = leaseSeconds;
    this.nextToken = firstToken;
    this.leases = new Map(); // name -> the lock's current lease
  }

  liveLease(name) {
    const lease = this.leases.get(name);
    // Live while the time since its grant or last renew is under the lease length.
    if (lease && this.clock.now() - lease.since < this.leaseSeconds) return lease;
    return null;
  }

  acquire(name, clientId) {
    if (this.liveLease(name)) return null;
    const now = this.clock.now();
    const lease = {
      name,
      clientId,
      token: this.nextToken++,
      grantedAt: now,
      expiresAt: now + this.leaseSeconds,
      since: now,
    };
    this.leases.set(name, lease);
    return { ...lease };
  }

  renew(name, clientId, token) {
    const lease = this.liveLease(name);
    if (!lease) throw new LockError(`no live lease on ${name}`);
    if (lease.clientId !== clientId) throw new LockError(`${name} is held by ${lease.clientId}`);
    if (lease.token !== token) throw new LockError(`token ${token} is not ${lease.token}`);
    lease.since = this.clock.now();
    lease.expiresAt = lease.since + this.leaseSeconds;
    return { ...lease };
  }

  release(name, clientId, token) {
    const lease = this.liveLease(name);
    if (!lease || lease.clientId !== clientId || lease.token !== token) {
      throw new LockError(`${clientId} does not hold ${name} with token ${token}`);
    }
    this.leases.delete(name);
  }

  holder(name) {
    return this.liveLease(name)?.clientId ?? null;
  }
}

export class FencedStorage {
  constructor() {
    this.entries = new Map(); // key -> { value, highest }
  }

  write(key, value, token) {
    const entry = this.entries.get(key);
    if (entry !== undefined && token < entry.highest) {
      throw new StaleTokenError(`token ${token} is older than ${entry.highest} for ${key}`);
    }
    this.entries.set(key, { value, highest: token });
  }

  read(key) {
    return this.entries.get(key)?.value ?? null;
  }

  highestToken(key) {
    return this.entries.get(key)?.highest ?? null;
  }
}
