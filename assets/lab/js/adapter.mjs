// DO NOT EDIT. fencing-lab's adapter for JavaScript and TypeScript (`fencing-lab lab init js`
// wrote it). `fencing-lab check .` runs `node adapter.mjs`, which loads your ./lock_service.mjs
// and answers the checker's requests on stdin, one JSON object a line, with one JSON reply a line
// on stdout (protocol version 2: docs/lab-protocol.md in fencing-lab). Needs Node 18 or later, no
// npm packages.
//
// The adapter judges nothing: it calls your method and reports what happened, `returned` (the
// value, as JSON, and how util.inspect writes it as `shown`) or `threw` (the error's message).
// fencing-lab decides what that means, with the same convention for every language: throwing
// refuses, false refuses, null or undefined from acquire or renew is "no lease", and nothing (or
// anything but false) from release or write is success.
//
// Your console.log (and anything else written to process.stdout or to file descriptor 1) goes to
// stderr, so debugging output cannot break the protocol.

import { spawnSync } from "node:child_process";
import { Console } from "node:console";
import fs, { existsSync, statSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { inspect } from "node:util";

// Replies go to the real stdout; everything else written there goes to stderr.
const writeReply = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);
// So do writes straight to file descriptor 1 (fs.writeSync(1, ...)), as a Python adapter's
// are: the same program gets the same verdict in every language.
for (const name of ["writeSync", "write", "writevSync", "writev", "appendFileSync", "appendFile"]) {
  const original = fs[name];
  if (typeof original === "function") {
    fs[name] = function (fd, ...rest) {
      return original.call(this, fd === 1 ? 2 : fd, ...rest);
    };
  }
}
syncBuiltinESMExports();
const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr });
for (const method of Object.keys(toStderr)) {
  if (typeof toStderr[method] === "function") console[method] = toStderr[method].bind(toStderr);
}
// The checker went away: nothing left to answer.
process.stdout.on("error", () => process.exit(0));
process.stderr.on("error", () => {});

const SOURCE = new URL("./lock_service.mjs", import.meta.url);
const TYPESCRIPT = [".mts", ".ts"]
  .map((ext) => new URL(`./lock_service${ext}`, import.meta.url))
  .filter((url) => existsSync(url));

/** Where a module that failed to compile went wrong, as node prints it: file:line, the source
 * line and a caret under the place. */
const PLACE = /^(file:\/\/[^\n]*?|\/[^\n]*?|[A-Za-z]:\\[^\n]*?):(\d+)\r?\n([^\n]*)\r?\n( *)(\^?)/m;

function placeIn(text) {
  const match = typeof text === "string" ? PLACE.exec(text) : null;
  if (match === null) return null;
  let file = match[1];
  try {
    if (file.startsWith("file://")) file = fileURLToPath(file);
  } catch {}
  // An error at the end of the file ("Unexpected end of input") has no caret: say the line.
  if (match[5] === "") return { where: `${file}:${match[2]}`, source: match[3], caret: "^ (the end of the file)" };
  return { where: `${file}:${match[2]}:${match[4].length + 1}`, source: match[3], caret: `${match[4]}^` };
}

/** The place of a syntax error. Node 20 keeps it out of the error a dynamic import throws, so a
 * second node compiles the module again to print it (nothing runs: the module does not link). */
function syntaxErrorPlace(err) {
  const stack = String(err.stack);
  const place = placeIn(stack);
  if (place !== null) return place;
  // Thrown by running code (JSON.parse at the top of your module): the stack says where.
  const frames = stack.split("\n").filter((l) => /^\s+at /.test(l) && l.includes("file://"));
  if (frames.some((frame) => !frame.includes(import.meta.url))) return null;
  try {
    const child = spawnSync(
      process.execPath,
      ["--input-type=module", "-e", "await import(process.argv[1])", SOURCE.href],
      { encoding: "utf8", timeout: 10000, stdio: ["ignore", "ignore", "pipe"] },
    );
    return placeIn(child.stderr);
  } catch {
    return null;
  }
}

function loadFailure(err) {
  const lines = ["adapter: cannot load lock_service.mjs:"];
  if (err && err.code === "ERR_MODULE_NOT_FOUND") {
    lines.push(String(err.message));
  } else if (err instanceof SyntaxError) {
    const place = syntaxErrorPlace(err);
    if (place === null) {
      // Node's own frames say nothing about your file, and would hide the error's first line.
      lines.push(...String(err.stack).split("\n").filter((l) => !/^\s+at .*\(?node:internal/.test(l)));
    } else {
      lines.push(place.where, place.source, place.caret, `SyntaxError: ${err.message}`, `    at ${place.where}`);
    }
  } else {
    lines.push(String((err && err.stack) || err));
  }
  for (const url of TYPESCRIPT) {
    const name = fileURLToPath(url).split(/[\\/]/).pop();
    lines.push(
      name.endsWith(".mts")
        ? "TypeScript: compile lock_service.mts with tsc first; it writes lock_service.mjs, which " +
            "the adapter loads: `npx -p typescript tsc --strict --target es2022 --module nodenext " +
            "lock_service.mts`"
        : "TypeScript: lock_service.ts compiles to lock_service.js, which the adapter does not " +
            "load: rename it lock_service.mts and compile it with tsc first: `npx -p typescript " +
            "tsc --strict --target es2022 --module nodenext lock_service.mts`",
    );
  }
  process.stderr.write(lines.join("\n") + "\n");
  process.exit(1);
}

let LockService;
let FencedStorage;
try {
  ({ LockService, FencedStorage } = await import("./lock_service.mjs"));
} catch (err) {
  loadFailure(err);
}
for (const [name, value] of [["LockService", LockService], ["FencedStorage", FencedStorage]]) {
  if (typeof value !== "function") {
    process.stderr.write(`adapter: lock_service.mjs must export a class ${name}\n`);
    process.exit(1);
  }
}
let NotImplemented = null;
try {
  ({ NotImplemented } = await import("./not_implemented.mjs"));
} catch {} // a solution that no longer uses the starter's file
for (const url of TYPESCRIPT) {
  try {
    if (url.pathname.endsWith(".mts") && statSync(url).mtimeMs > statSync(SOURCE).mtimeMs) {
      process.stderr.write(
        "adapter: lock_service.mts is newer than lock_service.mjs: compile it again with tsc\n",
      );
    }
  } catch {}
}

// The manual clock: now() is the last time a `clock` request set (0 at first and after `new`).
let time = 0;
const clock = { now: () => time };

let service = null;
let storage = null;
let noObjects = "adapter: no `new` request yet";

/** A request the adapter cannot carry out: the reply's `threw` text. */
class AdapterError {
  constructor(message) {
    this.message = message;
  }
}

const SHOWN_MAX = 200;
const DEPTH_MAX = 3;
const FIELDS_MAX = 100;
const LINE_MAX = 1000000; // the protocol's limit is 1 MiB a reply line
const EXTRA_NAMES = ["token", "expiresAt", "expires_at"]; // getters a lease class may have
const SHOW = { depth: 2, breakLength: Infinity, maxArrayLength: 20, maxStringLength: 200 };
const DESCRIBE = { depth: 1, breakLength: Infinity, maxArrayLength: 10, maxStringLength: 200 };
const toStringTag = Object.prototype.toString;
const hasOwn = Object.prototype.hasOwnProperty;

// JSON text must be Unicode: a lone surrogate in a string becomes U+FFFD.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const wellFormed =
  typeof "".isWellFormed === "function"
    ? (s) => (s.isWellFormed() ? s : s.toWellFormed())
    : (s) => s.replace(LONE_SURROGATE, "\uFFFD");

/** At most 200 characters, well-formed (a surrogate pair cut in two becomes U+FFFD). */
function cut(text) {
  return wellFormed(text.length > SHOWN_MAX ? `${text.slice(0, SHOWN_MAX - 3)}...` : text);
}

function isError(value) {
  try {
    return value instanceof Error || toStringTag.call(value) === "[object Error]";
  } catch {
    return false;
  }
}

/** What a value is, in words, for a value JSON cannot carry (a function, an array, a Map...). */
function describe(value) {
  try {
    if (isError(value)) return cut(errorText(value, true));
    return cut(inspect(value, DESCRIBE));
  } catch {}
  try {
    return cut(String(value));
  } catch {
    return `[${typeof value}]`;
  }
}

/** How JavaScript writes the returned value, at most 200 characters. */
function shown(value) {
  switch (typeof value) {
    case "undefined":
      return "undefined";
    case "boolean":
      return value ? "true" : "false";
    case "number":
      return Object.is(value, -0) ? "-0" : String(value);
    case "bigint":
      return cut(`${value}n`);
    default:
      if (value === null) return "null";
      if (isError(value)) return describe(value); // its name and message, not its stack
      try {
        return cut(inspect(value, SHOW));
      } catch {
        return describe(value);
      }
  }
}

/** The value as JSON: null and undefined as null, booleans, numbers and strings as themselves, a
 * plain object or class instance as an object of its fields (to depth 3), anything else as a
 * string saying what it is. */
function jsonValue(value, depth) {
  switch (typeof value) {
    case "string":
      return wellFormed(value);
    case "number":
      return Number.isFinite(value) ? value : null;
    case "boolean":
      return value;
    case "undefined":
      return null;
    case "bigint":
      return value >= -Number.MAX_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER
        ? Number(value)
        : String(value);
    case "object":
      if (value === null) return null;
      return objectValue(value, depth);
    default: // a function, a symbol
      return describe(value);
  }
}

function put(object, key, value) {
  if (key === "__proto__") {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

function fieldValue(value, key) {
  try {
    return value[key];
  } catch (err) {
    return `(reading ${key} threw ${messageOf(err)})`;
  }
}

function objectValue(value, depth) {
  try {
    // Plain objects and class instances; an array, a Map, a Date, an Error... is described.
    if (depth >= DEPTH_MAX || toStringTag.call(value) !== "[object Object]") return describe(value);
    const out = {};
    const keys = Object.keys(value);
    const count = Math.min(keys.length, FIELDS_MAX);
    for (let i = 0; i < count; i++) {
      const key = keys[i];
      put(out, wellFormed(key), jsonValue(fieldValue(value, key), depth + 1));
    }
    for (const key of EXTRA_NAMES) {
      if (!hasOwn.call(out, key) && key in value) {
        const field = fieldValue(value, key);
        if (typeof field !== "function") out[key] = jsonValue(field, depth + 1);
      }
    }
    return out;
  } catch {
    return describe(value);
  }
}

/** An Error's name and message: `TypeError: x is undefined`; a plain Error's name only when
 * `always`. The name is the error's `name`, or its class's when `name` is plain "Error". */
function errorText(err, always) {
  const message = err.message === undefined ? "" : String(err.message);
  let name = typeof err.name === "string" ? err.name : "";
  if (name === "" || name === "Error") {
    const ctor = err.constructor;
    name = typeof ctor === "function" && ctor !== Error && ctor.name ? ctor.name : "Error";
  }
  if (name === "Error" && !always) return message || "Error";
  return message ? `${name}: ${message}` : name;
}

/** What a thrown value says: an error's message, with its class name unless it is plain Error. */
function messageOf(err) {
  try {
    if (isError(err)) return wellFormed(errorText(err, false));
    if (typeof err === "string") return wellFormed(err);
  } catch {}
  return describe(err); // a thrown value that is not an Error: 42, { code: 1 }, undefined
}

function isNotImplemented(err) {
  try {
    if (NotImplemented !== null && err instanceof NotImplemented) return true;
    return err instanceof Error && err.name === "NotImplemented" && typeof err.method === "string";
  } catch {
    return false;
  }
}

function fieldText(value) {
  if (value === undefined) return "nothing (the field is missing)";
  try {
    return JSON.stringify(value).slice(0, 200);
  } catch {
    return String(value);
  }
}

function text(request, name) {
  const value = request[name];
  if (typeof value === "string") return value;
  throw new AdapterError(`adapter: request field '${name}' must be a string, got ${fieldText(value)}`);
}

function integer(request, name) {
  const value = request[name];
  if (Number.isInteger(value)) return value;
  throw new AdapterError(`adapter: request field '${name}' must be an integer, got ${fieldText(value)}`);
}

function number(request, name) {
  const value = request[name];
  if (Number.isFinite(value)) return value;
  throw new AdapterError(`adapter: request field '${name}' must be a number, got ${fieldText(value)}`);
}

function lockService() {
  if (service === null) throw new AdapterError(noObjects);
  return service;
}

function fencedStorage() {
  if (storage === null) throw new AdapterError(noObjects);
  return storage;
}

function returned(value) {
  const json = jsonValue(value, 0);
  let text = shown(value);
  // A class whose fields are private (#token behind a getter) inspects as `Lease {}`: show the
  // fields the checker reads instead.
  if (text.endsWith("{}") && json !== null && typeof json === "object" && Object.keys(json).length > 0) {
    try {
      text = cut(`${text.slice(0, -2)}${inspect(json, SHOW)}`);
    } catch {}
  }
  return { returned: json, shown: text };
}

/** The reply for what your method returned; an async method's promise is awaited. */
function result(value) {
  let promise = false;
  try {
    promise = value instanceof Promise;
  } catch {} // a revoked Proxy
  return promise ? value.then(returned) : returned(value);
}

/** The method being called, for a `not_implemented` reply; null while the adapter works. */
let calling = null;

/** The reply to one request, without its id, or a promise of it. Throws what your code threw. */
function answer(request) {
  switch (request.op) {
    case "hello":
      return { hello: "fencing-lab-adapter", language: `node ${process.versions.node}` };
    case "new": {
      time = 0;
      service = null;
      storage = null;
      noObjects = "adapter: no LockService and FencedStorage: the last `new` failed";
      const args = [clock];
      const hasLease = request.lease_seconds !== undefined && request.lease_seconds !== null;
      const hasFirst = request.first_token !== undefined && request.first_token !== null;
      // An absent field is undefined, so the constructor's default applies.
      if (hasLease || hasFirst) args.push(hasLease ? number(request, "lease_seconds") : undefined);
      if (hasFirst) args.push(integer(request, "first_token"));
      calling = "LockService.constructor";
      const created = new LockService(...args);
      calling = "FencedStorage.constructor";
      const store = new FencedStorage();
      service = created;
      storage = store;
      return { done: true };
    }
    case "clock":
      time = number(request, "now");
      return { done: true };
    case "acquire": {
      const s = lockService();
      const name = text(request, "name");
      const clientId = text(request, "client_id");
      calling = "LockService.acquire";
      return result(s.acquire(name, clientId));
    }
    case "renew": {
      const s = lockService();
      const name = text(request, "name");
      const clientId = text(request, "client_id");
      const token = integer(request, "token");
      calling = "LockService.renew";
      return result(s.renew(name, clientId, token));
    }
    case "release": {
      const s = lockService();
      const name = text(request, "name");
      const clientId = text(request, "client_id");
      const token = integer(request, "token");
      calling = "LockService.release";
      return result(s.release(name, clientId, token));
    }
    case "holder": {
      const s = lockService();
      const name = text(request, "name");
      calling = "LockService.holder";
      return result(s.holder(name));
    }
    case "write": {
      const s = fencedStorage();
      const key = text(request, "key");
      const value = text(request, "value");
      const token = integer(request, "token");
      calling = "FencedStorage.write";
      return result(s.write(key, value, token));
    }
    case "read": {
      const s = fencedStorage();
      const key = text(request, "key");
      calling = "FencedStorage.read";
      return result(s.read(key));
    }
    case "highest_token": {
      const s = fencedStorage();
      const key = text(request, "key");
      calling = "FencedStorage.highestToken";
      return result(s.highestToken(key));
    }
    default: {
      const op = request.op;
      throw new AdapterError(`unknown op ${typeof op === "string" ? op : fieldText(op)}`);
    }
  }
}

/** The reply for an error: what the adapter could not do, a method not written yet, or what your
 * code threw (any value, of any type). */
function failure(err) {
  if (err instanceof AdapterError) return { threw: err.message };
  if (isNotImplemented(err)) {
    let method = null;
    try {
      method = typeof err.method === "string" ? err.method : null;
    } catch {}
    return { not_implemented: method || calling || "a method" };
  }
  return { threw: messageOf(err) };
}

function send(id, body) {
  const reply = { id, ...body };
  let line;
  try {
    line = JSON.stringify(reply);
  } catch (err) {
    line = JSON.stringify({ id: null, threw: `adapter: reply is not JSON: ${messageOf(err)}` });
  }
  if (line.length > LINE_MAX / 3 && Buffer.byteLength(line) > LINE_MAX) {
    if ("returned" in reply) {
      reply.returned = `a value too large to send (${Buffer.byteLength(line)} bytes of JSON): ${reply.shown}`;
    } else if (typeof reply.threw === "string") {
      reply.threw = `${cut(reply.threw)} (cut from ${reply.threw.length} characters)`;
    }
    line = JSON.stringify(reply);
  }
  writeReply(line + "\n");
}

/** Answers one request line; returns a promise when your method returned one, else nothing. */
function handle(line) {
  if (line.trim() === "") return undefined;
  let request;
  try {
    request = JSON.parse(line);
  } catch (err) {
    send(null, { threw: `adapter: request is not JSON: ${messageOf(err)}` });
    return undefined;
  }
  if (typeof request !== "object" || request === null || Array.isArray(request)) {
    send(null, { threw: `adapter: request is not JSON: not an object: ${fieldText(request)}` });
    return undefined;
  }
  const id = request.id === undefined ? null : request.id;
  calling = null;
  let body;
  try {
    body = answer(request);
  } catch (err) {
    send(id, failure(err));
    return undefined;
  }
  if (body !== null && typeof body.then === "function") {
    return body.then(
      (b) => send(id, b),
      (err) => send(id, failure(err)),
    );
  }
  send(id, body);
  return undefined;
}

// Requests are answered strictly one at a time, in order: lines that arrive while an async
// method is pending wait in the queue.
const queue = [];
let head = 0;
let busy = false;
let ended = false;

function drain() {
  busy = true;
  while (head < queue.length) {
    const line = queue[head];
    queue[head++] = undefined;
    const pending = handle(line);
    if (pending !== undefined) {
      pending.then(drain);
      return;
    }
  }
  queue.length = 0;
  head = 0;
  busy = false;
  if (ended) finish();
}

/** End of input: the checker is done. Exit once the replies are written, even if your code left
 * timers running. */
function finish() {
  writeReply("", () => process.exit(0));
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  queue.push(line);
  if (!busy) drain();
});
lines.on("close", () => {
  ended = true;
  if (!busy) finish();
});
