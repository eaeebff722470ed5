// The lab page's worker: fencing-lab's checker (WebAssembly) and the student's code, side by
// side in one thread, so that the checker calls the code synchronously, as its Rust calls a
// program natively. The page ends this worker when a call does not return in time, and starts
// another that is told which calls stopped (see src/web/lab.rs). Messages in: `check`, `watch`,
// `keys`, `tick`; out: `call` (the call under way, now and then), `decided` (a check's lines),
// `report`, `view`, `failed`.
"use strict";

var exports = null;
var fresh = []; // module namespaces of the student's code, each loaded anew
var answering = null; // the running instance's answerer
var traceFrom = Infinity; // from this call on, every call is posted before it is made
var lastPost = 0;
var encoder = new TextEncoder();
var decoder = new TextDecoder();

function memory() {
  return new Uint8Array(exports.memory.buffer);
}

function give(text) {
  var bytes = encoder.encode(text);
  if (bytes.length === 0) return 0n;
  var at = exports.fl_alloc(bytes.length);
  memory().set(bytes, at);
  return (BigInt(at) << 32n) | BigInt(bytes.length);
}

function read(at, length) {
  return decoder.decode(memory().subarray(at, at + length));
}

function command(object) {
  var input = encoder.encode(JSON.stringify(object));
  var at = exports.fl_alloc(input.length);
  memory().set(input, at);
  var packed = exports.fl_command(at, input.length);
  return JSON.parse(read(Number(packed >> 32n), Number(packed & 0xffffffffn)));
}

var imports = {
  fencing_lab: {
    now_ms: function () {
      return performance.now();
    },
    student_start: function () {
      var ns = fresh.shift();
      if (!ns) return give("EXHAUSTED: the page ran out of fresh copies of your code");
      try {
        answering = fencingStudent(ns);
      } catch (err) {
        return give("your code could not be started: " + err);
      }
      return 0n;
    },
    student_call: function (number, at, length) {
      var line = read(at, length);
      var now = performance.now();
      if (number >= traceFrom || now - lastPost > 20) {
        lastPost = now;
        postMessage({ kind: "call", n: number, line: line });
      }
      return give(answering.answer(line));
    },
    student_decided: function (at, length) {
      postMessage({ kind: "decided", text: read(at, length) });
    },
  },
};

// The student's module, loaded `copies` times, each a module of its own (its own top-level
// state): a blob URL a copy, its import of the starter's not_implemented.mjs pointed at one
// blob of that file.
function loadCopies(code, notImplemented, copies) {
  var support = URL.createObjectURL(new Blob([notImplemented], { type: "text/javascript" }));
  var source = code.replace(/(["'])\.\/not_implemented\.mjs\1/g, JSON.stringify(support));
  var loads = [];
  for (var i = 0; i < copies; i++) {
    var url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
    loads.push(import(url));
  }
  return Promise.all([import(support)].concat(loads)).then(function (modules) {
    var NotImplemented = modules[0].NotImplemented;
    return modules.slice(1).map(function (ns) {
      return {
        LockService: ns.LockService,
        FencedStorage: ns.FencedStorage,
        NotImplemented: NotImplemented,
      };
    });
  });
}

onmessage = function (event) {
  var m = event.data;
  if (m.kind === "keys" || m.kind === "tick") {
    var op = m.kind === "keys" ? { op: "keys", keys: m.keys } : { op: "tick", ms: m.ms };
    postMessage({ kind: "view", view: command(op) });
    return;
  }
  traceFrom = m.traceFrom === undefined || m.traceFrom === null ? Infinity : m.traceFrom;
  var made = WebAssembly.instantiate(m.module, imports).then(function (instance) {
    exports = instance.exports;
  });
  Promise.all([made, loadCopies(m.code, m.notImplemented, m.copies)])
    .then(function (done) {
      fresh = done[1];
      if (m.kind === "check") {
        var answer = command({ op: "check", stops: m.stops, waited_ms: m.deadline });
        postMessage({ kind: "report", answer: answer });
      } else {
        var view = command({ op: "watch", scenario: m.scenario, width: 80, height: 24 });
        postMessage({ kind: "view", view: view });
      }
    })
    .catch(function (err) {
      var where = err && err.lineNumber ? " (line " + err.lineNumber + ")" : "";
      postMessage({ kind: "failed", error: String(err && err.message ? err.message : err) + where });
    });
};
