// DO NOT EDIT. Part of the fencing-lab adapter (`fencing-lab lab init js` wrote it).
//
// The starter's methods throw NotImplemented until you write them; the adapter reports such a
// method to `fencing-lab check` as "not implemented yet" instead of as a failure. Anything else
// a method throws is reported as thrown, which refuses.

export class NotImplemented extends Error {
  /** @param {string} method e.g. "LockService.acquire" */
  constructor(method) {
    super(`not implemented yet: ${method}`);
    this.name = "NotImplemented";
    this.method = method;
  }
}
