// The lab in a browser tab: the student's lock_service.mjs, checked by fencing-lab's own checker
// (WebAssembly, inlined in this page) in a worker beside it, then the lesson played on it. A call
// that does not return within the deadline ends the worker; the check starts again in a new one,
// told that call stopped, as `fencing-lab check` starts a program again (src/web/lab.rs).
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var editor = $("impl");
  var report = $("report");
  var status = $("lab-status");
  var screen = $("screen");
  var watching = $("watching");
  var starter = $("starter").textContent;
  var notImplemented = $("not-implemented").textContent;
  var workerSource = $("worker").textContent + "\n" + $("student").textContent;
  var workerUrl = URL.createObjectURL(new Blob([workerSource], { type: "text/javascript" }));
  // How long a call may take here: longer than any JavaScript this lab needs, short enough that
  // a loop costs a student a second, not the two a program natively gets to start again.
  var DEADLINE = 1000;
  var MOST_STOPS = 24; // as `check` starts a program again at most
  var module = null;
  var worker = null;
  var busy = false;
  // Whether the worker owes an answer: only then does its silence count against the deadline.
  var owed = false;
  var heard = 0;

  function say(text) {
    status.textContent = text;
  }

  function bytes(base64) {
    var text = atob(base64);
    var out = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
    return out;
  }

  function end() {
    if (worker) worker.terminate();
    worker = null;
  }

  // One run of a worker: resolves with its last message, or with a stop (the call under way
  // when nothing was heard for the deadline).
  function run(message, onMessage) {
    end();
    return new Promise(function (resolve) {
      heard = performance.now();
      owed = true;
      var last = null;
      worker = new Worker(workerUrl);
      var watchdog = setInterval(function () {
        if (owed && performance.now() - heard > DEADLINE) {
          clearInterval(watchdog);
          end();
          resolve({ kind: "stopped", last: last });
        }
      }, 100);
      worker.onmessage = function (e) {
        heard = performance.now();
        var m = e.data;
        if (m.kind === "view" || m.kind === "report" || m.kind === "failed") owed = false;
        if (m.kind === "call") {
          last = m;
          return;
        }
        if (onMessage(m)) {
          clearInterval(watchdog);
          resolve(m);
        }
      };
      worker.onerror = function (e) {
        clearInterval(watchdog);
        end();
        resolve({ kind: "failed", error: e.message || "the worker failed" });
      };
      worker.postMessage(message);
    });
  }

  async function check() {
    if (busy || !module) return;
    busy = true;
    watching.hidden = true;
    var stops = [];
    var traceFrom = null;
    var copies = 8;
    report.textContent = "";
    say("Checking…");
    try {
      for (;;) {
        var lines = [];
        var result = await run(
          {
            kind: "check", module: module, code: editor.value, notImplemented: notImplemented,
            stops: stops, traceFrom: traceFrom, copies: copies, deadline: DEADLINE,
          },
          function (m) {
            if (m.kind === "decided") {
              lines.push(m.text);
              report.textContent = lines.join("");
              return false;
            }
            return true;
          }
        );
        if (result.kind === "stopped") {
          var at = result.last;
          if (traceFrom === null || !at || at.n < traceFrom) {
            // Where it stopped is known to the last call heard; run again, every call from
            // there heard, so the next silence names its call.
            traceFrom = at ? at.n : 0;
          } else {
            // Later stops come after this one: heard exactly from here on.
            stops.push(at.n);
            traceFrom = at.n + 1;
            if (stops.length > MOST_STOPS) {
              say("Your code stopped answering more than " + MOST_STOPS + " times (the last at " +
                JSON.parse(at.line).op + "): the check stopped there.");
              break;
            }
          }
          say("Your code did not answer within " + DEADLINE / 1000 + " s (" + stops.length +
            " so far); the check goes on with it started again…");
          continue;
        }
        if (result.kind === "failed") {
          say("Your code could not run: " + result.error);
          break;
        }
        var answer = result.answer;
        if (!answer.ok) {
          say(answer.error);
          break;
        }
        if (answer.text.indexOf("EXHAUSTED") >= 0 && copies < 256) {
          copies *= 4; // a program whose state outlives `new` needs a fresh copy for each path
          continue;
        }
        report.textContent = answer.text;
        // The report as `check --format json` gives it, for whoever reads the page's state.
        window.__fencingLabReport = answer.report;
        report.dataset.passed = String(answer.passed);
        report.dataset.total = String(answer.total);
        say(answer.passed + " of " + answer.total + " checks passed.");
        break;
      }
    } finally {
      busy = false;
    }
  }

  async function watch() {
    if (busy || !module) return;
    say("Playing the lesson on your code…");
    var result = await run(
      {
        kind: "watch", module: module, code: editor.value, notImplemented: notImplemented,
        scenario: $("watch").dataset.scenario, copies: 2,
      },
      function (m) {
        if (m.kind === "view") {
          show(m.view);
          return false;
        }
        return true;
      }
    );
    if (result.kind === "stopped") say("Your code stopped answering during the lesson.");
    else if (result.kind === "failed") say("Your code could not run: " + result.error);
  }

  function show(view) {
    if (!view.ok) {
      say(view.error);
      return;
    }
    watching.hidden = false;
    screen.innerHTML = view.screen;
    watching.dataset.mode = view.mode;
    watching.dataset.t = String(view.t);
    say("");
  }

  function press(keys) {
    if (!worker || watching.hidden) return;
    heard = performance.now();
    owed = true;
    worker.postMessage({ kind: "keys", keys: keys });
  }

  $("check").addEventListener("click", check);
  $("watch").addEventListener("click", watch);
  $("reset").addEventListener("click", function () {
    editor.value = starter;
  });
  watching.addEventListener("click", function (e) {
    var button = e.target.closest("button[data-key]");
    if (button) press(button.dataset.key);
  });
  var KEYS = { ArrowRight: "ArrowRight", ArrowLeft: "ArrowLeft", Enter: "Enter", Escape: "Escape", " ": "space" };
  screen.addEventListener("keydown", function (e) {
    var name = KEYS[e.key] || (e.key.length === 1 ? e.key : null);
    if (name === null || e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault();
    press(name);
  });
  // A tab in the editor indents rather than leaving it.
  editor.addEventListener("keydown", function (e) {
    if (e.key !== "Tab" || e.shiftKey) return;
    e.preventDefault();
    var at = editor.selectionStart;
    editor.setRangeText("  ", at, editor.selectionEnd, "end");
  });

  if (!window.WebAssembly || !window.DecompressionStream || !window.Worker) {
    say("This browser cannot run the checker here; run fencing-lab check on your folder.");
    return;
  }
  var stream = new Blob([bytes($("fencing-lab-module").textContent.trim())])
    .stream()
    .pipeThrough(new DecompressionStream("gzip"));
  new Response(stream)
    .arrayBuffer()
    .then(function (wasm) { return WebAssembly.compile(wasm); })
    .then(function (compiled) {
      module = compiled;
      document.documentElement.classList.add("ready");
      say("Ready: edit your code, then press Check.");
    })
    .catch(function (err) {
      say("The checker could not start in this browser (" + err + ").");
    });
})();
