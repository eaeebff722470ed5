// A lease lock service with fencing tokens, and the storage it protects.
//
// Idiom: classes with private #fields; a lease is an immutable class instance whose fields are
// read through getters, replaced by a new one on renew. renew returns null to refuse, release
// throws an Error, write throws a RangeError. Time comes from one #now() helper.

class Lease {
  #name;
  #clientId;
  #token;
  #grantedAt;
  #expiresAt;

  constructor(name, clientId, token, grantedAt, expiresAt) {
    this.#name = name;
    this.#clientId = clientId;
    this.#token = token;
    this.#grantedAt = grantedAt;
    this.#expiresAt = expiresAt;
  }

  get name() {
    return this.#name;
  }

  get clientId() {
    return this.#clientId;
  }

  get token() {
    return this.#token;
  }

  get grantedAt() {
    return this.#grantedAt;
  }

  get expiresAt() {
    return this.#expiresAt;
  }

  isLiveAt(now) {
    return now < this.#expiresAt;
  }

  renewedUntil(expiresAt) {
    return new Lease(this.#name, this.#clientId, this.#token, this.#grantedAt, expiresAt);
  }
}

export class LockService {
  #clock;
  #leaseSeconds;
  #nextToken;
  #leases = new Map();

  constructor(clock, leaseSeconds = 10, firstToken = 1) {
    this.#clock = clock;
    this.#leaseSeconds = leaseSeconds;
    this.#nextToken = firstToken;
  }

  #now() {
    return this.#clock.now();
  }

  #live(name) {
    const lease = this.#leases.get(name);
    return lease !== undefined && lease.isLiveAt(this.#now()) ? lease : undefined;
  }

  acquire(name, clientId) {
    if (this.#live(name) !== undefined) return null;
    const now = this.#now();
    const lease = new Lease(name, clientId, this.#nextToken, now, now + this.#leaseSeconds);
    this.#nextToken += 1;
    this.#leases.set(name, lease);
    return lease;
  }

  renew(name, clientId, token) {
    const lease = this.#live(name);
    if (lease === undefined || lease.clientId !== clientId || lease.token !== token) return null;
    const renewed = lease.renewedUntil(this.#now() + this.#leaseSeconds);
    this.#leases.set(name, renewed);
    return renewed;
  }

  release(name, clientId, token) {
    const lease = this.#live(name);
    if (lease === undefined) throw new Error(`${name} has no live lease`);
    if (lease.clientId !== clientId || lease.token !== token) {
      throw new Error(`${name} is not held by ${clientId} with token ${token}`);
    }
    this.#leases.delete(name);
  }

  holder(name) {
    return this.#live(name)?.clientId ?? null;
  }
}

export class FencedStorage {
  #entries = new Map();

  write(key, value, token) {
    const entry = this.#entries.get(key);
    if (entry && token < entry.token) {
      throw new RangeError(`token ${token} is older than ${entry.token} for ${key}`);
    }
    this.#entries.set(key, { value, token });
  }

  read(key) {
    return this.#entries.has(key) ? this.#entries.get(key).value : null;
  }

  highestToken(key) {
    return this.#entries.has(key) ? this.#entries.get(key).token : null;
  }
}
