// DO NOT EDIT. fencing-lab's adapter for JavaScript and TypeScript (`fencing-lab lab init js`
// wrote it). `fencing-lab check .` runs `node adapter.mjs`, which loads your ./lock_service.mjs
// and answers the checker's requests on stdin, one JSON object a line, with one JSON reply a line
// on stdout (the protocol: docs/lab-protocol.md in fencing-lab). Needs Node 18 or later, no npm
// packages.
//
// Your console.log (and anything else written to process.stdout) goes to stderr, so debugging
// output cannot break the protocol.

import { Console } from "node:console";
import { createInterface } from "node:readline";
import { NotImplemented } from "./not_implemented.mjs";

// Replies go to the real stdout; everything else written there goes to stderr.
const writeReply = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);
const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr });
for (const method of Object.keys(toStderr)) {
  if (typeof toStderr[method] === "function") console[method] = toStderr[method].bind(toStderr);
}
// The checker went away: nothing left to answer.
process.stdout.on("error", () => process.exit(0));

let LockService;
let FencedStorage;
try {
  ({ LockService, FencedStorage } = await import("./lock_service.mjs"));
} catch (err) {
  process.stderr.write(
    `adapter: cannot load lock_service.mjs: ${
      (err && err.code === "ERR_MODULE_NOT_FOUND" ? err.message : err && err.stack) || err
    }\n` +
      "(TypeScript: compile lock_service.mts into lock_service.mjs first, e.g. " +
      "`tsc --strict --target es2022 --module nodenext lock_service.mts`)\n",
  );
  process.exit(1);
}
for (const [name, value] of [["LockService", LockService], ["FencedStorage", FencedStorage]]) {
  if (typeof value !== "function") {
    process.stderr.write(`adapter: lock_service.mjs must export a class ${name}\n`);
    process.exit(1);
  }
}

// The manual clock: now() is the last time a `clock` request set (0 at first and after `new`).
let time = 0;
const clock = { now: () => time };

let service = null;
let storage = null;
let newFailed = "no `new` request yet";

/** A method refused: the reply's `refused` text. */
class Refusal {
  constructor(message) {
    this.message = message;
  }
}

function describe(value) {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return `${value}n`;
  if (value === null || typeof value !== "object") return String(value);
  try {
    return JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? Number(v) : v));
  } catch {
    return String(value);
  }
}

/** An error's text for a `refused` reply: the message, with the class name unless it is Error. */
function messageOf(err) {
  if (err instanceof Error) {
    const name = err.name || "Error";
    const message = err.message || "";
    if (name === "Error") return message || "Error";
    return message ? `${name}: ${message}` : name;
  }
  return `threw ${describe(err)}`;
}

function isNotImplemented(err) {
  return err instanceof NotImplemented || (err instanceof Error && err.name === "NotImplemented");
}

function number(value) {
  return typeof value === "bigint" ? Number(value) : value;
}

/** What acquire or renew returned, as the reply's `lease`. */
function leaseOf(method, lease) {
  if (typeof lease !== "object" || lease === null || !("token" in lease) ||
      lease.token === undefined) {
    throw new Refusal(
      `${method} returned ${describe(lease)}, not a lease (an object with a token)`,
    );
  }
  let expiresAt = null;
  if ("expiresAt" in lease && lease.expiresAt !== undefined) expiresAt = lease.expiresAt;
  else if ("expires_at" in lease && lease.expires_at !== undefined) expiresAt = lease.expires_at;
  return { token: number(lease.token), expires_at: number(expiresAt) };
}

/** A release or write: undefined and true are success, null and false a refusal. */
function doneOf(result) {
  if (result === null || result === false) throw new Refusal(`returned ${result}`);
  return { done: true };
}

function field(request, name, type) {
  const value = request[name];
  if (typeof value !== type) {
    throw new Refusal(`adapter: request field '${name}' must be a ${type}, got ${describe(value)}`);
  }
  return value;
}

function lockService() {
  if (service === null) throw new Refusal(`no LockService: ${newFailed}`);
  return service;
}

function fencedStorage() {
  if (storage === null) throw new Refusal(`no FencedStorage: ${newFailed}`);
  return storage;
}

/** The reply to one request, without its id. `method` is set for the error report. */
async function answer(request, call) {
  switch (request.op) {
    case "hello":
      return { hello: "fencing-lab-adapter", language: `node ${process.versions.node}` };
    case "new": {
      time = 0;
      service = null;
      storage = null;
      const args = [clock];
      const hasLease = request.lease_seconds !== undefined && request.lease_seconds !== null;
      const hasFirst = request.first_token !== undefined && request.first_token !== null;
      if (hasLease || hasFirst) args.push(hasLease ? field(request, "lease_seconds", "number") : undefined);
      if (hasFirst) args.push(field(request, "first_token", "number"));
      newFailed = "the last `new` failed";
      call.method = "LockService.constructor";
      const created = new LockService(...args);
      call.method = "FencedStorage.constructor";
      storage = new FencedStorage();
      service = created;
      return { done: true };
    }
    case "clock":
      time = field(request, "now", "number");
      return { done: true };
    case "acquire": {
      const s = lockService();
      const args = [field(request, "name", "string"), field(request, "client_id", "string")];
      call.method = "LockService.acquire";
      const lease = await s.acquire(...args);
      if (lease === null || lease === undefined || lease === false) return { lease: null };
      return { lease: leaseOf("acquire", lease) };
    }
    case "renew": {
      const s = lockService();
      const args = [
        field(request, "name", "string"),
        field(request, "client_id", "string"),
        field(request, "token", "number"),
      ];
      call.method = "LockService.renew";
      const lease = await s.renew(...args);
      if (lease === null || lease === false) throw new Refusal(`returned ${lease}`);
      if (lease === undefined) throw new Refusal("returned undefined, not the renewed lease");
      return { lease: leaseOf("renew", lease) };
    }
    case "release": {
      const s = lockService();
      const args = [
        field(request, "name", "string"),
        field(request, "client_id", "string"),
        field(request, "token", "number"),
      ];
      call.method = "LockService.release";
      return doneOf(await s.release(...args));
    }
    case "holder": {
      const s = lockService();
      const name = field(request, "name", "string");
      call.method = "LockService.holder";
      const holder = await s.holder(name);
      return { holder: holder === undefined ? null : holder };
    }
    case "write": {
      const s = fencedStorage();
      const args = [
        field(request, "key", "string"),
        field(request, "value", "string"),
        field(request, "token", "number"),
      ];
      call.method = "FencedStorage.write";
      return doneOf(await s.write(...args));
    }
    case "read": {
      const s = fencedStorage();
      const key = field(request, "key", "string");
      call.method = "FencedStorage.read";
      const value = await s.read(key);
      return { value: value === undefined ? null : value };
    }
    case "highest_token": {
      const s = fencedStorage();
      const key = field(request, "key", "string");
      call.method = "FencedStorage.highestToken";
      const token = await s.highestToken(key);
      return { token: token === undefined ? null : number(token) };
    }
    default:
      throw new Refusal(`adapter: unknown op ${describe(request.op)}`);
  }
}

function send(reply) {
  let line;
  try {
    line = JSON.stringify(reply, (_key, v) => (typeof v === "bigint" ? Number(v) : v));
  } catch (err) {
    line = JSON.stringify({ id: reply.id, refused: `adapter: reply is not JSON: ${messageOf(err)}` });
  }
  writeReply(line + "\n");
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === "") continue;
  let request;
  try {
    request = JSON.parse(line);
  } catch (err) {
    process.stderr.write(`adapter: request is not JSON: ${line}\n`);
    send({ id: null, refused: `adapter: request is not JSON: ${messageOf(err)}` });
    continue;
  }
  if (typeof request !== "object" || request === null || Array.isArray(request)) {
    send({ id: null, refused: "adapter: request is not a JSON object" });
    continue;
  }
  const id = request.id === undefined ? null : request.id;
  const call = { method: null };
  try {
    send({ id, ...(await answer(request, call)) });
  } catch (err) {
    if (err instanceof Refusal) {
      send({ id, refused: err.message });
    } else if (isNotImplemented(err)) {
      send({ id, not_implemented: String(err.method || call.method || err.message) });
    } else {
      send({ id, refused: messageOf(err) });
    }
  }
}
