// A lease lock service with fencing tokens, and the storage it protects.
//
// Idiom: old-style constructor functions with methods on the prototype, defaults with `??`, and
// every grant kept in one array searched from the end. renew returns undefined to refuse,
// release and write return false to refuse and nothing when they succeed.

export function LockService(clock, leaseSeconds, firstToken) {
  this.clock = clock;
  this.leaseSeconds = leaseSeconds ?? 10;
  this.firstToken = firstToken ?? 1;
  this.nextToken = this.firstToken;
  this.grants = []; // every grant of every lock, oldest first
}

LockService.prototype.latest = function (name) {
  return this.grants.findLast((g) => g.name === name);
};

LockService.prototype.isLive = function (grant) {
  return grant !== undefined && !grant.released && this.clock.now() < grant.expiresAt;
};

LockService.prototype.acquire = function (name, clientId) {
  if (this.isLive(this.latest(name))) return null;
  const now = this.clock.now();
  const grant = {
    name: name,
    clientId: clientId,
    token: this.nextToken++,
    grantedAt: now,
    expiresAt: now + this.leaseSeconds,
    released: false,
  };
  this.grants.push(grant);
  return Object.assign({}, grant);
};

LockService.prototype.renew = function (name, clientId, token) {
  const grant = this.latest(name);
  if (!this.isLive(grant) || grant.clientId !== clientId || grant.token !== token) return undefined;
  grant.expiresAt = this.clock.now() + this.leaseSeconds;
  return Object.assign({}, grant);
};

LockService.prototype.release = function (name, clientId, token) {
  const grant = this.latest(name);
  if (!this.isLive(grant)) return false;
  if (grant.clientId !== clientId || grant.token !== token) return false;
  grant.released = true;
};

LockService.prototype.holder = function (name) {
  const grant = this.latest(name);
  return this.isLive(grant) ? grant.clientId : null;
};

export function FencedStorage() {
  this.store = new Map();
}

FencedStorage.prototype.write = function (key, value, token) {
  const old = this.store.get(key);
  if (old !== undefined && token < old.token) return false;
  this.store.set(key, { value: value, token: token });
};

FencedStorage.prototype.read = function (key) {
  const entry = this.store.get(key);
  return entry === undefined ? null : entry.value;
};

FencedStorage.prototype.highestToken = function (key) {
  const entry = this.store.get(key);
  return entry === undefined ? null : entry.token;
};
