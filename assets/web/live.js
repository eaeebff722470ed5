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
  // The pinned names' edge shows once the diagram is scrolled, when something passes under it.
  diagram.addEventListener("scroll", function () {
    diagram.classList.toggle("scrolled", diagram.scrollLeft > 0);
  }, { passive: true });

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

  function element(name, attributes) {
    var made = document.createElementNS("http://www.w3.org/2000/svg", name);
    for (var key in attributes) made.setAttribute(key, String(attributes[key]));
    return made;
  }

  // The diagram in a track as wide as it is drawn, with a copy of its lane names over it,
  // sticky at the left: where the diagram scrolls sideways (a phone) a line without its name
  // reads as no one's, and nothing inside an SVG can be sticky.
  function draw(picture) {
    diagram.innerHTML = "<div class=\"track\">" + picture + "</div>";
    var track = diagram.firstChild, svg = track.querySelector("svg");
    if (!svg) return;
    // Never scaled below the size it is drawn at, where its smallest label's size was chosen:
    // a narrower box scrolls instead.
    diagram.style.setProperty("--natural", svg.getAttribute("width") + "px");
    var box = svg.viewBox.baseVal, x0 = +svg.getAttribute("data-x0");
    // A lane's name is the text drawn right after its line.
    var names = Array.prototype.slice.call(svg.querySelectorAll("line.actor + text"));
    if (!x0 || names.length === 0) return;
    var pin = element("svg", {
      "class": "lane-names", "aria-hidden": "true", viewBox: "0 0 " + x0 + " " + box.height,
      "font-family": svg.getAttribute("font-family"),
    });
    pin.style.width = (100 * x0 / box.width) + "%";
    var ys = names.map(function (name) { return +name.getAttribute("y"); });
    names.forEach(function (name, i) {
      // White behind each name, halfway to the lanes beside it (and a unit more, so no seam
      // shows between two), so that what scrolls under the names does not cross them.
      var size = +name.getAttribute("font-size"), gap = Infinity;
      ys.forEach(function (y, j) { if (j !== i) gap = Math.min(gap, Math.abs(y - ys[i])); });
      if (!isFinite(gap)) gap = size * 3;
      var top = ys[i] - size * 0.35 - gap / 2;
      pin.appendChild(element("rect", { x: 0, y: top, width: x0, height: gap + 1, fill: "#fff" }));
      pin.appendChild(element("line", {
        "class": "edge", x1: x0 - 0.5, x2: x0 - 0.5, y1: top, y2: top + gap, stroke: "#9aa1ad",
      }));
      pin.appendChild(name.cloneNode(true));
    });
    track.appendChild(pin);
  }

  // After an answer, its verdict in sight: the whole screen if the window holds it, else its
  // Answer box. On a phone the buttons that answer are below the screen, and a reader may be
  // looking at the diagram, further down.
  function showVerdict() {
    var lines = screen.textContent.replace(/\n$/, "").split("\n"), first = -1, col = -1, last;
    for (var i = 0; i < lines.length && first < 0; i++) {
      col = lines[i].search(/[\u250c\u251c] Answer /);
      if (col >= 0) first = i;
    }
    if (first < 0) return;
    // The box ends where a border meets its left side.
    for (last = first + 1; last < lines.length; last++) {
      var corner = lines[last].charAt(col);
      if (corner === "\u2514" || corner === "\u251c") break;
    }
    var r = screen.getBoundingClientRect(), style = getComputedStyle(screen);
    var top = r.top, bottom = r.bottom, height = window.innerHeight;
    if (bottom - top > height) {
      // Every row of the screen is as tall as the others.
      var pad = parseFloat(style.paddingTop), inside = r.top + screen.clientTop + pad;
      var row = (screen.clientHeight - pad - parseFloat(style.paddingBottom)) / lines.length;
      top = inside + first * row;
      bottom = inside + last * row;
    }
    if (top < 0) window.scrollBy(0, top - 8);
    else if (bottom > height) window.scrollBy(0, Math.min(top - 8, bottom - height + 8));
  }

  // The screen after each command; the diagram once the page is idle again.
  function show(answer) {
    if (!answer.ok) {
      say(answer.error);
      return;
    }
    var asked = view !== null && view.mode === "question";
    view = answer;
    screen.innerHTML = answer.screen;
    if (asked && answer.mode === "main") showVerdict();
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
        if (picture.ok) draw(picture.svg);
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
