// The live lesson in a page: fencing-lab's simulation, its terminal screen and its diagram,
// compiled to WebAssembly and inlined in this page (gzipped, base64), driven by the same keys as
// the terminal UI and by buttons for them. Nothing is fetched: it works opened from a file.
// Without WebAssembly (or without JavaScript) the page's steps below are the lesson.
(function () {
  "use strict";
  var root = document.documentElement;
  var live = document.getElementById("live");
  var data = document.getElementById("fencing-lab-module");
  if (!live || !data || !window.WebAssembly || !window.DecompressionStream) return;
  var screen = document.getElementById("screen");
  var diagram = document.getElementById("live-diagram");
  var status = document.getElementById("live-status");
  var picker = document.getElementById("lesson");
  var exports = null;
  var encoder = new TextEncoder();
  var decoder = new TextDecoder();
  var view = null;
  var timer = null;
  var drawing = null;

  function bytes(base64) {
    var text = atob(base64);
    var out = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
    return out;
  }

  function memory() {
    return new Uint8Array(exports.memory.buffer);
  }

  // One command to the module: JSON in, JSON out.
  function command(object) {
    var input = encoder.encode(JSON.stringify(object));
    var at = exports.fl_alloc(input.length);
    memory().set(input, at);
    var packed = exports.fl_command(at, input.length);
    var start = Number(packed >> 32n);
    var length = Number(packed & 0xffffffffn);
    return JSON.parse(decoder.decode(memory().subarray(start, start + length)));
  }

  function say(text) {
    status.textContent = text;
  }

  // The screen after each command; the diagram once the page is idle again.
  function show(answer) {
    if (!answer.ok) {
      say(answer.error);
      return;
    }
    view = answer;
    screen.innerHTML = answer.screen;
    live.dataset.mode = answer.mode;
    live.dataset.t = String(answer.t);
    document.getElementById("live-time").textContent = "t = " + answer.time;
    var playing = answer.playing;
    if (playing && timer === null) {
      var last = performance.now();
      timer = setInterval(function () {
        var now = performance.now();
        var elapsed = Math.round(now - last);
        last = now;
        show(command({ op: "tick", ms: elapsed }));
      }, 50);
    } else if (!playing && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
    if (drawing === null) {
      drawing = setTimeout(function () {
        drawing = null;
        var picture = command({ op: "diagram" });
        if (picture.ok) diagram.innerHTML = picture.svg;
        live.dataset.drawnAt = live.dataset.t;
      }, 0);
    }
  }

  function press(keys) {
    if (exports) show(command({ op: "keys", keys: keys }));
  }

  function begin() {
    var settings = {
      op: "lesson",
      scenario: picker.value,
      fencing: live.dataset.fencing !== "off",
      check: live.dataset.check,
      system: live.dataset.system,
      width: 80,
      height: 24,
    };
    show(command(settings));
  }

  // The terminal's keys, as a browser names them; buttons carry theirs in data-key.
  var KEYS = {
    ArrowRight: "ArrowRight", ArrowLeft: "ArrowLeft", ArrowUp: "ArrowUp", ArrowDown: "ArrowDown",
    Enter: "Enter", Escape: "Escape", Tab: "Tab", " ": "space",
  };
  document.addEventListener("keydown", function (e) {
    if (!root.classList.contains("live") || e.altKey || e.ctrlKey || e.metaKey) return;
    var target = e.target;
    if (target && (target.tagName === "SELECT" || target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return;
    var name = KEYS[e.key] || (e.key.length === 1 ? e.key : null);
    if (e.key === "Tab" && e.shiftKey) name = "Shift+Tab";
    if (name === null) return;
    // Tab moves the focus unless the help or the picker wants it.
    if (e.key === "Tab" && view && view.mode !== "help" && view.mode !== "picker") return;
    e.preventDefault();
    press(name);
  });
  live.addEventListener("click", function (e) {
    var button = e.target.closest("button[data-key]");
    if (!button) return;
    press(button.dataset.key);
  });
  picker.addEventListener("change", begin);
  document.getElementById("to-steps").addEventListener("click", function () {
    root.classList.remove("live");
  });
  var back = document.getElementById("to-live");
  if (back) back.addEventListener("click", function () {
    root.classList.add("live");
    screen.focus();
  });

  var stream = new Blob([bytes(data.textContent.trim())])
    .stream()
    .pipeThrough(new DecompressionStream("gzip"));
  new Response(stream)
    .arrayBuffer()
    .then(function (module) {
      return WebAssembly.instantiate(module, {
        fencing_lab: {
          now_ms: function () { return performance.now(); },
          // The lesson page runs no student's code: the lab page's worker does.
          student_start: function () { return 0n; },
          student_call: function () { return 0n; },
          student_decided: function () {},
        },
      });
    })
    .then(function (made) {
      exports = made.instance.exports;
      root.classList.add("live");
      live.hidden = false;
      begin();
      // When the first screen was up, in ms since the page began to load.
      live.dataset.ready = String(Math.round(performance.now()));
      say("");
    })
    .catch(function (err) {
      say("The live lesson could not start here (" + err + "): the steps below are the lesson.");
    });
})();
