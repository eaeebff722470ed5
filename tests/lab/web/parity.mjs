// Parity test: assets/web/student.js (the web page's adapter) answers every request as
// assets/lab/js/adapter.mjs (the adapter `fencing-lab check` runs) does. See README.md here.
//
// For every JavaScript solution and mutant of tests/lab/zoo/js.toml, and one fixture of odd
// return values, throws and bad requests written below: build a `lab init js` folder, record the
// request lines the real checker sends (through a recorder program between the checker and
// adapter.mjs), then replay them to a fresh `node adapter.mjs` and to student.js loaded here
// with vm, and compare the replies line by line as parsed JSON (`language` in hello excepted).
// Exits 1 on any mismatch.
//
//   node tests/lab/web/parity.mjs [--bin PATH] [--keep] [--only NAME] [--print]
//                                 [--student PATH]
//
// Date.now() and performance.now() are frozen in both replays (the checker's own run keeps the
// real clocks): the mutants that read them must answer alike on both sides.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import vm from "node:vm";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "../../..");
const ZOO = path.join(ROOT, "tests/lab/zoo");
let STUDENT_JS = path.join(ROOT, "assets/web/student.js");
const FROZEN_DATE = 1700000000123;
const FROZEN_PERFORMANCE = 4321.5;
const ASYNC_THREW =
  "adapter: an async method cannot be checked in the page (it returned a Promise): " +
  "run fencing-lab check on your folder instead";

const args = process.argv.slice(2);
function option(name, fallback) {
  const i = args.indexOf(name);
  return i === -1 ? fallback : args[i + 1];
}
const BIN = option("--bin", process.env.FENCING_LAB || "/tmp/fl-base/fencing-lab");
const KEEP = args.includes("--keep");
const ONLY = option("--only", null);
STUDENT_JS = path.resolve(option("--student", STUDENT_JS)); // another copy, to test this test
const PRINT = args.includes("--print"); // every request and both replies, for debugging

// ---- the recorder, between the checker and adapter.mjs ---------------------------------------

const RECORDER = `// Runs DIR/adapter.mjs; copies stdin to it and to LOGDIR/session-*.log, its stdout to ours.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
const [dir, logDir] = process.argv.slice(2);
fs.mkdirSync(logDir, { recursive: true });
const name = "session-" + String(Date.now()).padStart(15, "0") + "-" + process.pid + ".log";
const log = fs.openSync(path.join(logDir, name), "w");
const child = spawn(process.execPath, [path.join(dir, "adapter.mjs")], {
  cwd: dir,
  stdio: ["pipe", "pipe", "inherit"],
});
process.stdin.on("data", (chunk) => {
  fs.writeSync(log, chunk);
  child.stdin.write(chunk);
});
process.stdin.on("end", () => child.stdin.end());
child.stdin.on("error", () => {});
process.stdout.on("error", () => {});
child.stdout.pipe(process.stdout);
child.on("exit", (code, signal) => {
  fs.closeSync(log);
  if (signal) process.kill(process.pid, signal);
  process.exit(code ?? 1);
});
`;

const FREEZE = `// Preloaded into the adapter's replay: the same clocks as the in-process replay.
Date.now = () => ${FROZEN_DATE};
performance.now = () => ${FROZEN_PERFORMANCE};
`;

function freezeClocksHere() {
  Date.now = () => FROZEN_DATE;
  performance.now = () => FROZEN_PERFORMANCE;
}

// ---- the odd fixture: what students return and throw, and requests the checker never sends ----

const ODD_SOURCE = String.raw`// The parity test's fixture: acquire(name) returns VALUES[name](), renew(name) throws
// THROWS[name](), holder(name) returns VALUES[name] asynchronously when name starts "async".
import { NotImplemented } from "./not_implemented.mjs";

class Lease {
  constructor(token, expiresAt) {
    this.token = token;
    this.expiresAt = expiresAt;
  }
}
class PrivateLease {
  #token = 1;
  #expiresAt = 10;
  get token() { return this.#token; }
  get expiresAt() { return this.#expiresAt; }
}
class Hidden {
  #x = 1;
}
class SnakeLease {
  get expires_at() { return 12; }
}
class WithMethod {
  constructor() { this.name = "file"; }
  token() { return 1; }
}
class LockError extends Error {}
class NamedError extends Error {
  constructor(m) { super(m); this.name = "NamedError"; }
}
class Odd extends Map {}
function fixed(err, stack) {
  Object.defineProperty(err, "stack", { value: stack, writable: true, configurable: true });
  return err;
}
const circular = { token: 1 };
circular.self = circular;
const many = {};
for (let i = 0; i < 150; i++) many["f" + i] = i;
const nullProto = Object.assign(Object.create(null), { token: 3, expiresAt: 13 });
const sparse = [1, , 3];
sparse[9] = 10;
const withExtra = [1, 2];
withExtra.extra = "x";
const sym = Symbol("k");
const tagged = { token: 1 };
Object.defineProperty(tagged, Symbol.toStringTag, { value: "Tagged" });
const big = "x".repeat(400000);

const VALUES = {
  null: () => null,
  undefined: () => undefined,
  true: () => true,
  false: () => false,
  zero: () => 0,
  negzero: () => -0,
  float: () => 1.5,
  nan: () => NaN,
  inf: () => Infinity,
  neginf: () => -Infinity,
  huge: () => 2 ** 53,
  e21: () => 1e21,
  tiny: () => 5e-324,
  bigint: () => 10n,
  bigbig: () => 2n ** 60n,
  negbig: () => -(2n ** 70n),
  empty: () => "",
  plain: () => "plain",
  quote: () => "it's",
  quotes2: () => "it's \"q\"",
  quotes3: () => "it's \"q\" ${"`"}b${"`"}",
  quotes4: () => "it's \"q\" $" + "{x}",
  controls: () => "a\nb\tc\\d\u0001\u007f\u0085\u00a0",
  long: () => "y".repeat(300),
  long100: () => "\u0001".repeat(120) + "'",
  lone: () => "a\ud800b",
  lonelow: () => "\udc00",
  pair: () => "\ud83d\ude00 ok",
  cutpair: () => "z".repeat(196) + "\ud83d\ude00tail",
  obj: () => ({ token: 1, expiresAt: 10 }),
  lease: () => new Lease(2, 12),
  private: () => new PrivateLease(),
  hidden: () => new Hidden(),
  snake: () => new SnakeLease(),
  method: () => new WithMethod(),
  nested: () => ({ a: { b: { c: { d: { e: 1 } } } } }),
  nestedarr: () => ({ list: [1, [2, [3, [4, [5]]]]] }),
  getter: () => ({ get token() { throw new TypeError("no token"); }, expiresAt: 1 }),
  ownGetter: () => Object.defineProperty({ a: 1 }, "token", { get: () => 7, enumerable: true }),
  setter: () => Object.defineProperty({}, "s", { set(v) {}, enumerable: true }),
  getset: () => Object.defineProperty({}, "gs", { get() { return 1; }, set(v) {}, enumerable: true }),
  proto: () => JSON.parse('{"__proto__": {"token": 5}, "token": 2}'),
  keys: () => ({ "a-b": 1, "x y": 2, 1: 3, "it's": 4, "\ud800": 5, _ok: 6, $no: 7 }),
  many: () => many,
  symkey: () => ({ [sym]: 1, token: 2 }),
  symbol: () => Symbol("s"),
  symbolEmpty: () => Symbol(),
  symbolQuote: () => Symbol("it's"),
  fn: () => function f() {},
  arrow: () => () => {},
  cls: () => Lease,
  sub: () => LockError,
  afn: () => async function af() {},
  agen: () => async function* ag() {},
  anonClass: () => new (class { constructor() { this.token = 1; } })(),
  fakeCtor: () => ({ constructor: "not a function", token: 1 }),
  fromProto: () => Object.create(Lease.prototype),
  errProps: () => ({ err: Object.assign(fixed(new Error("p"), "Error: p\n    at x (y.js:1:1)"), { code: "E1" }) }),
  errTop: () => Object.assign(new TypeError("with props"), { code: 7 }),
  inLease: () => new Lease(new Lease(1, new Map([[1, new Lease(2, 3)]])), [new Lease(4, 5)]),
  customObj: () => ({ inner: { [Symbol.for("nodejs.util.inspect.custom")]: (depth) => ({ depth }) } }),
  intKeys: () => ({ b: 1, 2: "two", a: 3, 1: "one" }),
  wide: () => Array.from({ length: 8 }, (_, i) => "\u4e2d".repeat(i + 1)),
  arrNested: () => [[1, 2, 3, 4, 5, 6, 7, 8], { a: [1, 2, 3, 4, 5, 6, 7] }],
  gen: () => function* g() {},
  bound: () => function h() {}.bind(null),
  fnProps: () => Object.assign(function p() {}, { token: 1 }),
  arr0: () => [],
  arr3: () => [1, 2, 3],
  arr7: () => [1, 2, 3, 4, 5, 6, 7],
  arr30: () => Array.from({ length: 30 }, (_, i) => i * 37),
  arrstr: () => Array.from({ length: 12 }, (_, i) => "s" + "t".repeat(i % 4)),
  arrmix: () => [1, "a", null, undefined, true, { token: 1 }, [2], -0],
  sparse: () => sparse,
  arrextra: () => withExtra,
  arrobjs: () => [{ token: 1 }, { token: 2 }, new Lease(3, 4)],
  map0: () => new Map(),
  map: () => new Map([["file", { token: 1 }], ["other", new Lease(2, 3)]]),
  mapdeep: () => new Map([["a", new Map([["b", new Map([["c", 1]])]])]]),
  mapsub: () => new Odd([[1, 2]]),
  set: () => new Set([1, "two", { three: 3 }]),
  set0: () => new Set(),
  bigmap: () => new Map(Array.from({ length: 25 }, (_, i) => [i, i])),
  date: () => new Date(0),
  baddate: () => new Date(NaN),
  dateobj: () => ({ expiresAt: new Date(10000), token: 1 }),
  regexp: () => /a+b/gi,
  error: () => new Error("boom"),
  typeerror: () => new TypeError("bad"),
  lockerror: () => new LockError("held"),
  named: () => new NamedError("named"),
  errEmpty: () => new Error(),
  errNested: () => ({ err: fixed(new Error("inner"), "Error: inner\n    at here (file.js:1:1)") }),
  errNoStack: () => ({ err: fixed(new RangeError("r"), "") }),
  errCause: () => ({ err: fixed(new Error("outer", { cause: 1 }), "Error: outer\n    at a (f.js:1:1)") }),
  circular: () => circular,
  nullproto: () => nullProto,
  nullempty: () => Object.create(null),
  tagged: () => tagged,
  u8: () => new Uint8Array([1, 2, 3]),
  f64: () => ({ t: new Float64Array([0.5, -0]) }),
  buffer: () => ({ b: new ArrayBuffer(3) }),
  dataview: () => ({ d: new DataView(new ArrayBuffer(2)) }),
  weakmap: () => new WeakMap(),
  weakset: () => ({ w: new WeakSet() }),
  boxedNum: () => new Number(3),
  boxedStr: () => new String("ab"),
  boxedBool: () => ({ b: new Boolean(false) }),
  thenable: () => ({ then() {}, token: 1 }),
  custom: () => ({ [Symbol.for("nodejs.util.inspect.custom")]: () => "CUSTOM", token: 4 }),
  args: () => (function () { return arguments; })(1, 2),
  maps: () => ({ leases: new Map([["a", { token: 1, expiresAt: 2 }]]), tokens: new Set([1]) }),
  longobj: () => ({ note: "n".repeat(250), token: 1 }),
  deepobj: () => ({ l1: { l2: { l3: { l4: 1 } }, arr: [[[1]]] }, token: 9 }),
  mixedfields: () => ({ u: undefined, n: null, nan: NaN, neg: -0, big: 3n, s: "s", f: () => 1 }),
  frozen: () => Object.freeze({ token: 1 }),
  toolarge: () => big + big + big,
  toolargeobj: () => ({ a: big, b: big, c: big }),
};

const THROWS = {
  error: () => new Error("refused"),
  errorEmpty: () => new Error(""),
  typeerror: () => new TypeError("x is undefined"),
  lockerror: () => new LockError("held by another"),
  named: () => new NamedError("n"),
  customName: () => Object.assign(new Error("m"), { name: "Custom" }),
  emptyName: () => Object.assign(new Error("m"), { name: "" }),
  string: () => "refused as a string",
  number: () => 42,
  object: () => ({ code: 1 }),
  undefined: () => undefined,
  null: () => null,
  symbol: () => Symbol("thrown"),
  notImplemented: () => new NotImplemented("LockService.renew"),
  lookalike: () => Object.assign(new Error("x"), { name: "NotImplemented", method: "Other.method" }),
  lookalikeNoMethod: () => Object.assign(new Error("x"), { name: "NotImplemented" }),
  lone: () => new Error("bad \ud800 text"),
  hugeMessage: () => new Error("m".repeat(1100000)),
  hugeString: () => "s".repeat(1100000),
  array: () => [1, 2],
  errorLike: () => ({ name: "Error", message: "plain object" }),
};

let failNext = "";

export class LockService {
  constructor(clock, leaseSeconds = 10, firstToken = 1) {
    if (leaseSeconds === -1) throw new RangeError("leaseSeconds must be positive");
    if (leaseSeconds === -2) throw new NotImplemented("LockService.constructor");
    failNext = firstToken === 99 ? "storage" : "";
    this.clock = clock;
    this.leaseSeconds = leaseSeconds;
    this.firstToken = firstToken;
  }

  acquire(name, clientId) {
    if (name === "clock") return { now: this.clock.now(), leaseSeconds: this.leaseSeconds, firstToken: this.firstToken };
    if (name === "echo") return { name, clientId };
    if (name.startsWith("async")) return (async () => VALUES[name.slice(6)]?.())();
    if (name === "promiseReject") return Promise.reject(new Error("later"));
    const make = VALUES[name];
    if (make === undefined) return name;
    return make();
  }

  renew(name, clientId, token) {
    const make = THROWS[name];
    if (make === undefined) return { name, clientId, token };
    throw make();
  }

  release(name, clientId, token) {
    throw new NotImplemented("LockService.release");
  }

  holder(name) {
    return undefined;
  }
}

export class FencedStorage {
  constructor() {
    if (failNext === "storage") throw new Error("storage failed");
  }

  write(key, value, token) {
    return { key, value, token };
  }

  read(key) {
    throw Object.assign(new Error("no"), { name: "NotImplemented", method: 5 });
  }

  highestToken(key) {
    throw new NotImplemented("FencedStorage.highestToken");
  }
}
`;

function oddRequests() {
  const lines = [];
  let id = 0;
  const add = (request) => lines.push(JSON.stringify({ id: id++, ...request }));
  const raw = (line) => lines.push(line);
  add({ op: "hello" });
  add({ op: "acquire", name: "x", client_id: "c" }); // before any new
  add({ op: "new", lease_seconds: -1 }); // the constructor throws
  add({ op: "acquire", name: "x", client_id: "c" }); // the last new failed
  add({ op: "new", lease_seconds: -2 });
  add({ op: "new", first_token: 99 }); // FencedStorage's constructor throws
  add({ op: "holder", name: "x" });
  add({ op: "new", lease_seconds: "ten" });
  add({ op: "new", first_token: 1.5 });
  add({ op: "new", lease_seconds: 5, first_token: 7 });
  add({ op: "acquire", name: "clock", client_id: "c" });
  add({ op: "new", first_token: 3 });
  add({ op: "acquire", name: "clock", client_id: "c" });
  add({ op: "new", lease_seconds: null, first_token: null });
  add({ op: "acquire", name: "clock", client_id: "c" });
  add({ op: "new" });
  add({ op: "clock", now: 2.5 });
  add({ op: "acquire", name: "clock", client_id: "c" });
  add({ op: "clock", now: "soon" });
  add({ op: "clock" });
  add({ op: "clock", now: 1e308 });
  for (const name of VALUE_NAMES) add({ op: "acquire", name, client_id: "c" });
  for (const name of THROW_NAMES) add({ op: "renew", name, client_id: "c", token: 1 });
  add({ op: "acquire", name: "echo", client_id: "c\ud800" });
  add({ op: "acquire", name: "echo\udc00", client_id: "\ud83d\ude00" });
  add({ op: "renew", name: "ok", client_id: "c", token: 2 ** 53 - 1 });
  add({ op: "renew", name: "ok", client_id: "c", token: 1.5 });
  add({ op: "renew", name: "ok", client_id: "c", token: "1" });
  add({ op: "renew", name: "ok", client_id: "c" });
  add({ op: "release", name: "ok", client_id: "c", token: 1 });
  add({ op: "holder", name: "ok" });
  add({ op: "holder", name: 5 });
  add({ op: "write", key: "k", value: "v", token: 1 });
  add({ op: "write", key: "k", value: 1, token: 1 });
  add({ op: "write", key: "k", value: "v", token: [1] });
  add({ op: "write", key: "k", value: "v", token: { a: 1 } });
  add({ op: "read", key: "k" });
  add({ op: "read", key: null });
  add({ op: "highest_token", key: "k" });
  add({ op: "acquire", name: "x".repeat(300), client_id: 7 });
  add({ op: "acquire", client_id: "c" });
  add({ op: "nope" });
  add({ op: 5 });
  add({ op: { deep: ["x".repeat(300)] } });
  add({});
  for (const name of ["async", "async-obj", "async-lease", "promiseReject"]) {
    add({ op: "acquire", name, client_id: "c" });
  }
  raw(JSON.stringify({ op: "hello", id: "a string id" }));
  raw(JSON.stringify({ op: "hello", id: { nested: [1] } }));
  raw(JSON.stringify({ op: "hello" }));
  raw(JSON.stringify({ op: "hello", id: null }));
  raw('{"op":"hello","id":1e400}');
  raw('{"op":"acquire","name":"\\ud800","client_id":"\\udfff","id":900}');
  raw('{"__proto__":{"op":"hello"},"id":901}');
  raw('{"op":"hello","op":"read","key":"dup","id":902}');
  raw("not json");
  raw("{");
  raw("[1, 2]");
  raw("42");
  raw('"text"');
  raw("null");
  raw("");
  raw("   ");
  raw("\t");
  raw('\uFEFF{"op":"hello","id":903}');
  raw('  {"op":"hello","id":904}  ');
  raw('{"op":"hello","id":905}\r');
  add({ op: "acquire", name: "toolarge", client_id: "c" });
  return lines;
}
const VALUE_NAMES = [...ODD_SOURCE.slice(ODD_SOURCE.indexOf("const VALUES"), ODD_SOURCE.indexOf("const THROWS"))
  .matchAll(/^  (\w+): \(\) =>/gm)].map((m) => m[1]);
const THROW_NAMES = [...ODD_SOURCE.slice(ODD_SOURCE.indexOf("const THROWS"), ODD_SOURCE.indexOf("let failNext"))
  .matchAll(/^  (\w+): \(\) =>/gm)].map((m) => m[1]);

// ---- the zoo -------------------------------------------------------------------------------

function readManifest(file) {
  const py = spawnSync(
    "python3",
    ["-c", 'import tomllib,json,sys; print(json.dumps(tomllib.load(open(sys.argv[1],"rb"))))', file],
    { encoding: "utf8" },
  );
  if (py.status !== 0) throw new Error(`cannot read ${file}: ${py.stderr}`);
  return JSON.parse(py.stdout);
}

function zooEntries() {
  const manifest = readManifest(path.join(ZOO, "js.toml"));
  const entries = [];
  const solutions = new Map();
  for (const solution of manifest.solution ?? []) {
    const text = fs.readFileSync(path.join(ZOO, solution.name, "lock_service.mjs"), "utf8");
    solutions.set(solution.name, text);
    entries.push({ name: solution.name, source: text });
  }
  for (const mutant of manifest.mutant ?? []) {
    if (mutant.file !== "lock_service.mjs") throw new Error(`${mutant.name}: file ${mutant.file}`);
    let text = solutions.get(mutant.base);
    if (text === undefined) throw new Error(`${mutant.name}: no base ${mutant.base}`);
    const edits = mutant.edit ?? [{ find: mutant.find, replace: mutant.replace }];
    for (const { find, replace } of edits) {
      const count = text.split(find).length - 1;
      if (count !== 1) throw new Error(`${mutant.name}: find occurs ${count} times: ${JSON.stringify(find)}`);
      text = text.replace(find, () => replace);
    }
    entries.push({ name: mutant.name, source: text });
  }
  return entries;
}

// ---- running things ------------------------------------------------------------------------

function run(command, argv, options = {}) {
  const result = spawnSync(command, argv, { encoding: "utf8", maxBuffer: 1 << 30, ...options });
  if (result.error) throw result.error;
  return result;
}

function labInit(dir, source) {
  const init = run(BIN, ["lab", "init", "js", dir]);
  if (init.status !== 0) throw new Error(`lab init ${dir}: ${init.stderr}`);
  fs.writeFileSync(path.join(dir, "lock_service.mjs"), source);
}

/** The report without what differs between two runs of one check: how the program is named
 * (the folder, or the recorder's command line) and the time it took. */
function normalReport(text, program) {
  return text
    .split(`--impl ${program}`)
    .join("PROGRAM")
    .split(`-- ${program}`)
    .join("PROGRAM")
    .split(` ${program}`)
    .join(" PROGRAM")
    .replace(/ calls in [0-9.]+ s$/m, " calls in T s");
}

function recordSessions(dir, work) {
  const recorder = path.join(work, "recorder.mjs");
  const logDir = path.join(dir + ".logs");
  fs.rmSync(logDir, { recursive: true, force: true });
  const direct = run(BIN, ["check", dir]);
  const recorded = run(BIN, ["check", "--", process.execPath, recorder, dir, logDir]);
  const problems = [];
  if (direct.status !== recorded.status) {
    problems.push(`check exits ${direct.status} on the folder but ${recorded.status} through the recorder`);
  }
  const command = [process.execPath, recorder, dir, logDir].join(" ");
  let mine = normalReport(direct.stdout, dir);
  let theirs = normalReport(recorded.stdout, command);
  if (mine !== theirs) {
    // A program that reads the real clock (Date.now, performance.now) writes other expiries in
    // every run: if two runs on the folder differ too, compare them without their decimal numbers.
    const again = normalReport(run(BIN, ["check", dir]).stdout, dir);
    if (again !== mine) {
      const mask = (text) => text.replace(/\d+\.\d+/g, "N.N");
      mine = mask(mine);
      theirs = mask(theirs);
    }
  }
  if (mine !== theirs) {
    problems.push("the check's report through the recorder differs from its report on the folder");
  }
  const sessions = fs.existsSync(logDir)
    ? fs.readdirSync(logDir).sort().map((f) => fs.readFileSync(path.join(logDir, f), "utf8"))
    : [];
  return { sessions, problems, direct, recorded };
}

/** Lines as adapter.mjs's readline reads them. */
function splitLines(text) {
  const lines = text.split(/\r?\n|\r(?!\n)/);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function adapterReplies(dir, input, freeze) {
  const result = run(process.execPath, ["--import", pathToFileURL(freeze).href, path.join(dir, "adapter.mjs")], {
    cwd: dir,
    input,
  });
  return { replies: splitLines(result.stdout), status: result.status, stderr: result.stderr };
}

async function studentReplies(dir, lines, session) {
  const suffix = session === 0 ? "" : `?session=${session}`;
  const mod = await import(pathToFileURL(path.join(dir, "lock_service.mjs")).href + suffix);
  let NotImplemented;
  try {
    ({ NotImplemented } = await import(pathToFileURL(path.join(dir, "not_implemented.mjs")).href));
  } catch {}
  const ns = { ...mod, NotImplemented };
  const student = globalThis.fencingStudent(ns);
  const replies = [];
  for (const line of lines) {
    const reply = student.answer(line);
    if (typeof reply !== "string") throw new Error(`answer returned ${typeof reply}`);
    if (reply !== "") replies.push(reply);
  }
  return replies;
}

function parse(line) {
  try {
    return { ok: true, value: JSON.parse(line) };
  } catch (err) {
    return { ok: false, error: String(err) };
  }
}

function compare(name, adapterLines, studentLines, summary) {
  const count = Math.max(adapterLines.length, studentLines.length);
  for (let i = 0; i < count; i++) {
    const a = adapterLines[i];
    const s = studentLines[i];
    summary.lines++;
    let same = false;
    let expected = false;
    if (a !== undefined && s !== undefined) {
      const pa = parse(a);
      const ps = parse(s);
      if (pa.ok && ps.ok) {
        const av = pa.value;
        const sv = ps.value;
        if (av && sv && typeof av === "object" && typeof sv === "object" && "hello" in av && "hello" in sv) {
          delete av.language;
          delete sv.language;
        }
        same = isDeepStrictEqual(av, sv);
        if (!same && sv && sv.threw === ASYNC_THREW && Object.keys(sv).length === 2 && av && av.id === sv.id) {
          expected = true; // adapter.mjs awaited the promise; the page cannot
        }
      }
      if (a === s) summary.identical++;
    }
    if (same) continue;
    if (expected) {
      summary.asyncDifferences++;
      continue;
    }
    summary.mismatches++;
    if (summary.shown.length < 8) summary.shown.push({ entry: name, line: i + 1, adapter: a, student: s });
  }
}

// ---- static checks of student.js -------------------------------------------------------------

function staticChecks(source) {
  const problems = [];
  // ES2020 syntax at most: node's own acorn parses the file as a classic script.
  try {
    const acornSource = process.binding("natives")["internal/deps/acorn/acorn/dist/acorn"];
    const module = { exports: {} };
    new Function("module", "exports", acornSource)(module, module.exports);
    module.exports.parse(source, { ecmaVersion: 2020, sourceType: "script" });
  } catch (err) {
    if (err instanceof SyntaxError || /\(\d+:\d+\)/.test(String(err.message))) {
      problems.push(`student.js is not ES2020: ${err.message}`);
    } else {
      console.error(`note: no acorn to check the ES2020 syntax (${err.message})`);
    }
  }
  if (/^\s*(import|export)\b/m.test(source)) {
    problems.push("student.js has an import or export: it must be a classic script");
  }
  const code = source.replace(/\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "");
  const banned = [
    [/\(\?<[=!]/, "a regular-expression lookbehind (Safari before 16.4 cannot parse it)"],
    [/\bBuffer\b/, "Buffer (a Node API)"],
    [/\bprocess\./, "process (a Node API)"],
    [/\brequire\s*\(/, "require (a Node API)"],
    [/\.replaceAll\s*\(/, "String.prototype.replaceAll (ES2021)"],
    [/\bObject\.hasOwn\s*\(/, "Object.hasOwn (ES2022)"],
    [/\.at\s*\(/, "Array.prototype.at (ES2022)"],
    [/\.findLast(Index)?\s*\(/, "findLast (ES2023)"],
    [/\bstructuredClone\b/, "structuredClone"],
  ];
  for (const [pattern, what] of banned) if (pattern.test(code)) problems.push(`student.js uses ${what}`);
  const top = vm.runInNewContext(`${source}\n;typeof fencingStudent`, {});
  if (top !== "function") problems.push("student.js defines no global function fencingStudent");
  // Without node's globals (and without TextEncoder): loads and answers.
  const sandbox = vm.createContext({});
  vm.runInContext(source, sandbox);
  sandbox.ns = {
    LockService: class {
      acquire() {
        return { token: 1, expiresAt: 10, when: new Date(0), all: new Map([[1, [1, 2]]]) };
      }
    },
    FencedStorage: class {},
  };
  const out = vm.runInContext(
    `(() => { const s = fencingStudent(ns); return [s.answer('{"id":0,"op":"hello"}'), s.answer('{"id":1,"op":"new"}'),
      s.answer('{"id":2,"op":"acquire","name":"a","client_id":"b"}'), s.answer('{"id":3,"op":"read","key":"k"}')]; })()`,
    sandbox,
  );
  const want = [
    '{"id":0,"hello":"fencing-lab-adapter","language":"javascript (in this browser)"}',
    '{"id":1,"done":true}',
    '{"id":2,"returned":{"token":1,"expiresAt":10,"when":"1970-01-01T00:00:00.000Z","all":"Map(1) { 1 => [ 1, 2 ] }"},' +
      '"shown":"{ token: 1, expiresAt: 10, when: 1970-01-01T00:00:00.000Z, all: Map(1) { 1 => [ 1, 2 ] } }"}',
    '{"id":3,"threw":"TypeError: s.read is not a function"}',
  ];
  if (JSON.stringify(Array.from(out)) !== JSON.stringify(want)) {
    problems.push(`student.js in a bare context answered ${JSON.stringify(Array.from(out))}`);
  }
  let threw = null;
  try {
    vm.runInContext("fencingStudent({ LockService: class {} })", sandbox);
  } catch (err) {
    threw = err.message;
  }
  if (threw !== "adapter: lock_service.mjs must export a class FencedStorage") {
    problems.push(`student.js without FencedStorage: ${threw}`);
  }
  return problems;
}

// ---- main ----------------------------------------------------------------------------------

async function main() {
  const source = fs.readFileSync(STUDENT_JS, "utf8");
  const problems = staticChecks(source);
  freezeClocksHere();
  vm.runInThisContext(source, { filename: STUDENT_JS });
  if (typeof globalThis.fencingStudent !== "function") throw new Error("no fencingStudent");

  const work = fs.mkdtempSync(path.join(os.tmpdir(), "fl-parity-"));
  fs.writeFileSync(path.join(work, "recorder.mjs"), RECORDER);
  const freeze = path.join(work, "freeze.mjs");
  fs.writeFileSync(freeze, FREEZE);

  const entries = zooEntries();
  entries.push({ name: "odd-values (this test's fixture)", source: ODD_SOURCE, odd: true });
  const summary = { entries: 0, sessions: 0, lines: 0, identical: 0, mismatches: 0, asyncDifferences: 0, shown: [] };

  for (const entry of entries) {
    if (ONLY !== null && !entry.name.includes(ONLY)) continue;
    const dir = path.join(work, entry.name.replace(/[^A-Za-z0-9_-]+/g, "_"));
    labInit(dir, entry.source);
    let sessions;
    if (entry.odd) {
      sessions = [oddRequests().join("\n") + "\n"];
    } else {
      const recorded = recordSessions(dir, work);
      for (const problem of recorded.problems) problems.push(`${entry.name}: ${problem}`);
      sessions = recorded.sessions;
      if (sessions.length === 0) problems.push(`${entry.name}: the recorder logged no session`);
    }
    summary.entries++;
    let entryLines = 0;
    const before = summary.mismatches;
    for (let n = 0; n < sessions.length; n++) {
      const input = sessions[n];
      const lines = splitLines(input);
      const adapter = adapterReplies(dir, input, freeze);
      if (adapter.status !== 0) problems.push(`${entry.name}: the adapter's replay exited ${adapter.status}: ${adapter.stderr.slice(-500)}`);
      const student = await studentReplies(dir, lines, n);
      compare(entry.name, adapter.replies, student, summary);
      if (PRINT) {
        const requests = lines.filter((l) => l.trim() !== "");
        for (let i = 0; i < Math.max(adapter.replies.length, student.length); i++) {
          console.log(`> ${String(requests[i]).slice(0, 300)}\n< ${String(adapter.replies[i]).slice(0, 400)}`);
          if (adapter.replies[i] !== student[i]) console.log(`S ${String(student[i]).slice(0, 400)}`);
        }
      }
      summary.sessions++;
      entryLines += Math.max(adapter.replies.length, student.length);
    }
    const bad = summary.mismatches - before;
    console.log(`${bad === 0 ? "ok  " : "FAIL"} ${entry.name}: ${sessions.length} session(s), ${entryLines} lines${bad ? `, ${bad} mismatches` : ""}`);
  }

  console.log(
    `\n${summary.entries} entries, ${summary.sessions} sessions, ${summary.lines} reply lines compared ` +
      `(${summary.identical} byte for byte), ${summary.mismatches} mismatches` +
      (summary.asyncDifferences ? `, ${summary.asyncDifferences} async replies that differ by design` : ""),
  );
  for (const m of summary.shown) {
    console.log(`\n${m.entry}, reply ${m.line}:\n  adapter.mjs: ${String(m.adapter).slice(0, 600)}\n  student.js:  ${String(m.student).slice(0, 600)}`);
  }
  for (const problem of problems) console.log(`problem: ${problem}`);
  if (!KEEP) fs.rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
  process.exit(summary.mismatches === 0 && problems.length === 0 ? 0 : 1);
}

await main();
