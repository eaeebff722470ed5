// A lease lock service with fencing tokens, and the storage it protects.
//
// Idiom: no exceptions. renew, release and write return false to refuse; release and write
// return true when they succeed. State in plain objects (checked with Object.hasOwn, so a lock
// named "constructor" is no different); a released lease stays, marked released.

export class LockService {
  constructor(clock, leaseSeconds = 10, firstToken = 1) {
    this.clock = clock;
    this.leaseSeconds = leaseSeconds;
    this.counter = firstToken;
    this.locks = {};
  }

  current(name) {
    if (!Object.hasOwn(this.locks, name)) return null;
    const lock = this.locks[name];
    if (lock.released || this.clock.now() >= lock.expiresAt) return null;
    return lock;
  }

  acquire(name, clientId) {
    if (this.current(name) !== null) return null;
    const now = this.clock.now();
    this.locks[name] = {
      name,
      clientId,
      token: this.counter,
      grantedAt: now,
      expiresAt: now + this.leaseSeconds,
      released: false,
    };
    this.counter += 1;
    return { ...this.locks[name] };
  }

  renew(name, clientId, token) {
    const lock = this.current(name);
    if (lock === null || lock.clientId !== clientId || lock.token !== token) return false;
    lock.expiresAt = this.clock.now() + this.leaseSeconds;
    return { ...lock };
  }

  release(name, clientId, token) {
    const lock = this.current(name);
    if (lock === null) return false;
    if (lock.clientId !== clientId) return false;
    if (lock.token !== token) return false;
    lock.released = true;
    return true;
  }

  holder(name) {
    const lock = this.current(name);
    return lock === null ? null : lock.clientId;
  }
}

export class FencedStorage {
  constructor() {
    this.values = {};
    this.highest = {};
  }

  write(key, value, token) {
    if (Object.hasOwn(this.highest, key) && token < this.highest[key]) return false;
    this.values[key] = value;
    this.highest[key] = token;
    return true;
  }

  read(key) {
    return Object.hasOwn(this.values, key) ? this.values[key] : null;
  }

  highestToken(key) {
    return Object.hasOwn(this.highest, key) ? this.highest[key] : null;
  }
}
