//! The page's style and its script: how a step, its caption, its diagram and its screen are laid
//! out at a desktop's and a phone's width, and the script that steps through the lesson (it only
//! shows, hides and moves what the page already holds).

pub(super) const CSS: &str = r##"
:root{color-scheme:light}
*{box-sizing:border-box}
body{margin:0;font:17px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1a1d23;background:#f4f5f7}
header,main,footer{max-width:1240px;margin:0 auto;padding:0 16px}
h1{font-size:1.45rem;line-height:1.25;margin:.5em 0 .1em}
h2{font-size:1.2rem;margin:1em 0 .2em}
h3{font-size:1.05rem;margin:.4em 0 .2em}
.settings{color:#4b5260;margin:.1em 0 .4em}
.controls{position:sticky;top:0;z-index:3;background:#f4f5f7;display:flex;flex-wrap:wrap;gap:6px 10px;align-items:center;max-width:1240px;margin:0 auto;padding:6px 16px;border-bottom:1px solid #d9dde3}
button{font:inherit;font-weight:600;padding:6px 14px;min-height:44px;border:2px solid #1a1d23;background:#fff;color:#1a1d23;border-radius:8px;cursor:pointer}
button:hover:not(:disabled){background:#eef1f6}
button:focus-visible,input:focus-visible{outline:3px solid #7c3aed;outline-offset:2px}
button:disabled{opacity:.35;cursor:default}
#where{font-weight:600;color:#4b5260}
.switch{display:inline-flex;align-items:center;gap:8px;font-weight:600;margin-left:auto;min-height:44px;cursor:pointer}
.switch input{width:22px;height:22px}
.keys{display:none;font-size:.85rem;color:#5b6270}
.diagram{margin:0 0 .6em;background:#fff;border:1px solid #d9dde3;border-radius:10px;overflow-x:auto;min-width:0}
.diagram svg{display:block;width:100%;height:auto}
.diagram figcaption{font-size:.9rem;color:#4b5260;padding:6px 12px 10px}
.steps{list-style:none;margin:0;padding:0}
.fold{list-style:none}
.rest>summary{cursor:pointer;font-weight:700;min-height:44px;padding:8px 0;margin-bottom:10px}
.step{background:#fff;border:1px solid #d9dde3;border-radius:10px;padding:10px 16px;margin:0 0 14px}
.when{margin:0 0 .2em;font-weight:700;color:#4b5260;font-size:.95rem}
.caption{font-size:1.1rem;margin:.25em 0 .5em}
.caption.rejected{border-left:6px solid #b91c1c;padding-left:10px;font-weight:600}
.caption.corrupted{background:#7f1010;color:#fff;padding:6px 10px;border-radius:6px;font-weight:700}
.caption.question{border-left:6px solid #7c3aed;padding-left:10px;font-weight:700}
.summary{border-top:1px solid #d9dde3;margin-top:.4em}
.predict{margin:.2em 0 .6em}
.answers{display:flex;gap:10px;flex-wrap:wrap;margin:0 0 .8em}
.events{margin:.2em 0 .8em;padding-left:1.2em;font-size:.9rem;color:#2b303a}
.events li{margin:.15em 0}
.ui{margin:0;min-width:0}
.ui figcaption{font-size:.8rem;color:#5b6270;margin-top:4px}
.screen{margin:0;padding:8px 10px;border-radius:8px;overflow-x:auto;font-family:"DejaVu Sans Mono",Menlo,Consolas,"Liberation Mono",monospace;font-size:clamp(9px,calc((100vw - 80px) / 49),14px);line-height:1.18;white-space:pre}
.said[hidden]{display:none}
footer{padding-bottom:2em}
.commands{background:#16181d;color:#d8dde6;padding:10px 12px;border-radius:8px;overflow-x:auto;font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:.9rem}
kbd{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;border:1px solid #9aa1ad;border-bottom-width:2px;border-radius:4px;padding:0 4px;background:#fff}
.nojs .js-only{display:none}
.nojs .said:not([data-said=skipped]){display:none}
.nojs .slot{display:none}
.js .step:not(.current){display:none}
.js .run[hidden]{display:none}
.js .rest>summary{display:none}
.js body:not(.single) .run>h2{display:none}
.js .run>.diagram,.js .rest>.diagram{display:none}
@media (max-width:700px){
body{font-size:16px}
h1{font-size:1.2rem}
header .settings{font-size:.9rem}
.keys{display:none}
#where{order:3;flex-basis:100%;font-size:.9rem}
.controls{gap:6px 8px;padding:6px 12px}
.step{padding:10px 12px}
.diagram svg{min-width:840px}
}
@media (min-width:1400px){.keys{display:inline}}
@media (min-width:1100px){
.body{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:0 24px;align-items:start}
.js .body{grid-template-columns:minmax(250px,1fr) minmax(0,3fr);grid-template-areas:"text slot" "ui ui"}
.js .body>.text{grid-area:text}
.js .body>.slot{grid-area:slot;min-width:0}
.js .body>.ui,.js .body>.ui-of{grid-area:ui;justify-self:start}
.screen{font-size:13.5px}
}
"##;

/// Next and Back, the arrow keys, the answers and the switch; it only shows, hides and moves
/// what the page already holds: the run's diagram goes into the current step, drawn up to it.
pub(super) const SCRIPT: &str = r##"
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.remove("nojs");
  root.classList.add("js");
  Array.prototype.forEach.call(document.querySelectorAll("details.rest"), function (d) { d.open = true; });
  var runs = { on: document.getElementById("run-on"), off: document.getElementById("run-off") };
  var state = { on: { i: 0, said: {} }, off: { i: 0, said: {} } };
  var fencing = document.body.getAttribute("data-start") === "off" ? "off" : "on";
  var back = document.getElementById("back"), next = document.getElementById("next");
  var where = document.getElementById("where"), box = document.getElementById("fencing");
  var word = document.getElementById("fencing-word"), nav = document.querySelector(".controls");
  function steps(run) { return Array.prototype.slice.call(runs[run].querySelectorAll(".step")); }
  function ms(el) { return Math.round(parseFloat(el.getAttribute("data-t")) * 1000); }
  // The diagram drawn up to `t`: a question (`before`) keeps its own moment out of sight too.
  function cursor(run, t, before) {
    var figure = runs[run].querySelector(".diagram"), svg = figure && figure.querySelector("svg");
    if (!svg) return;
    var from = +svg.getAttribute("data-from"), until = +svg.getAttribute("data-until");
    var x0 = +svg.getAttribute("data-x0"), x1 = +svg.getAttribute("data-x1");
    Array.prototype.forEach.call(svg.querySelectorAll("[data-t]"), function (el) {
      var at = ms(el);
      el.style.display = (before ? at >= t : at > t) ? "none" : "";
    });
    // The legend's entries still shown close up, so a gap cannot hint at what is to come.
    var legend = Array.prototype.slice.call(svg.querySelectorAll("g.legend")), left = {}, at = {};
    legend.forEach(function (g) {
      var row = g.getAttribute("data-row"), x = +g.getAttribute("data-x");
      left[row] = row in left ? Math.min(left[row], x) : x;
    });
    legend.forEach(function (g) {
      if (g.style.display === "none") return;
      var row = g.getAttribute("data-row"), x = +g.getAttribute("data-x");
      var to = row in at ? at[row] : left[row];
      g.setAttribute("transform", "translate(" + (to - x) + ",0)");
      at[row] = to + +g.getAttribute("data-w");
    });
    var clamped = Math.max(from, Math.min(until, t));
    var x = x0 + (clamped - from) * (x1 - x0) / Math.max(1, until - from);
    // The curtain begins after the marks of this moment, so its verdict shows whole.
    if (!before) {
      Array.prototype.forEach.call(svg.querySelectorAll("g.event[data-t]"), function (g) {
        if (ms(g) === t) { var b = g.getBBox(); if (b.width > 0) x = Math.max(x, b.x + b.width); }
      });
      x += 6;
    }
    var line = svg.querySelector("line.cursor"), curtain = svg.querySelector("rect.curtain");
    if (!line) {
      line = document.createElementNS("http://www.w3.org/2000/svg", "line");
      line.setAttribute("class", "cursor");
      line.setAttribute("stroke", "#7c3aed");
      line.setAttribute("stroke-width", "3");
      line.setAttribute("stroke-dasharray", "10 5");
      line.setAttribute("y1", svg.getAttribute("data-top"));
      line.setAttribute("y2", svg.getAttribute("data-bottom"));
      curtain = document.createElementNS("http://www.w3.org/2000/svg", "rect");
      curtain.setAttribute("class", "curtain");
      curtain.setAttribute("fill", "#fff");
      curtain.setAttribute("fill-opacity", "0.9");
      curtain.setAttribute("y", svg.getAttribute("data-top"));
      curtain.setAttribute("height", svg.getAttribute("data-bottom") - svg.getAttribute("data-top"));
      // Under the labels: those of the moments shown stay readable over it.
      var labels = svg.querySelector("g.labels");
      svg.insertBefore(curtain, labels);
      svg.insertBefore(line, labels);
    }
    curtain.setAttribute("x", x);
    curtain.setAttribute("width", Math.max(0, svg.viewBox.baseVal.width - x));
    line.setAttribute("x1", x);
    line.setAttribute("x2", x);
    line.style.display = t < from || t > until ? "none" : "";
    // A diagram wider than its box (a phone) scrolls to the moment.
    if (figure.scrollWidth > figure.clientWidth) {
      var scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      figure.scrollLeft = Math.max(0, x * scale - figure.clientWidth * 0.6);
    }
  }
  function show() {
    // A page of one run (a student's code, a system with no token) has only that run.
    if (runs.on) runs.on.hidden = fencing !== "on";
    if (runs.off) runs.off.hidden = fencing !== "off";
    var list = steps(fencing), st = state[fencing], cur = list[st.i];
    list.forEach(function (el, j) { el.classList.toggle("current", j === st.i); });
    var kind = cur.getAttribute("data-kind");
    if (kind === "reveal") {
      var said = st.said[cur.getAttribute("data-beat")] || "skipped";
      Array.prototype.forEach.call(cur.querySelectorAll(".said"), function (d) {
        d.hidden = d.getAttribute("data-said") !== said;
      });
    }
    var figure = runs[fencing].querySelector(".diagram"), slot = cur.querySelector(".slot");
    if (figure && slot && figure.parentNode !== slot) slot.appendChild(figure);
    back.disabled = st.i === 0;
    next.disabled = st.i === list.length - 1;
    next.textContent = kind === "question" ? "Skip the question →" : "Next →";
    where.textContent = "Step " + (st.i + 1) + " of " + list.length + " · " + cur.getAttribute("data-when");
    // A page of one run (a student's code) has no switch.
    if (box) {
      box.checked = fencing === "on";
      word.textContent = fencing === "on" ? "ON" : "OFF";
    }
    cursor(fencing, +cur.getAttribute("data-t"), kind === "question");
  }
  // The current step's top just under the controls, if it was scrolled out of sight.
  function reveal() {
    var cur = steps(fencing)[state[fencing].i], top = cur.getBoundingClientRect().top;
    var bar = nav.getBoundingClientRect().bottom;
    if (top < bar || top > window.innerHeight * 0.6) window.scrollBy(0, top - bar - 8);
  }
  function go(d) {
    var list = steps(fencing), st = state[fencing], cur = list[st.i];
    if (d > 0 && cur.getAttribute("data-kind") === "question") {
      var beat = cur.getAttribute("data-beat");
      if (!st.said[beat]) st.said[beat] = "skipped";
    }
    st.i = Math.max(0, Math.min(list.length - 1, st.i + d));
    show();
    reveal();
  }
  function say(said) {
    var list = steps(fencing), st = state[fencing], cur = list[st.i];
    if (cur.getAttribute("data-kind") !== "question") return;
    st.said[cur.getAttribute("data-beat")] = said;
    go(1);
  }
  function flip() {
    if (!runs.on || !runs.off) return;
    var from = steps(fencing)[state[fencing].i];
    var t = +from.getAttribute("data-t"), kind = from.getAttribute("data-kind");
    fencing = fencing === "on" ? "off" : "on";
    var list = steps(fencing), best = 0;
    list.forEach(function (el, j) { if (+el.getAttribute("data-t") <= t) best = j; });
    list.forEach(function (el, j) {
      if (+el.getAttribute("data-t") === t && el.getAttribute("data-kind") === kind) best = j;
    });
    // An answer not yet predicted in this run: ask first.
    var landed = list[best];
    if (landed.getAttribute("data-kind") === "reveal" && best > 0 &&
        !state[fencing].said[landed.getAttribute("data-beat")]) best -= 1;
    state[fencing].i = best;
    show();
    reveal();
  }
  back.addEventListener("click", function () { go(-1); });
  next.addEventListener("click", function () { go(1); });
  if (box) box.addEventListener("change", flip);
  Array.prototype.forEach.call(document.querySelectorAll("[data-say]"), function (b) {
    b.addEventListener("click", function () { say(b.getAttribute("data-say")); });
  });
  document.addEventListener("keydown", function (e) {
    // While the live lesson is shown, the keys are its own.
    if (e.altKey || e.ctrlKey || e.metaKey || root.classList.contains("live")) return;
    var k = e.key;
    if (k === "ArrowRight" || k === "n") { go(1); }
    else if (k === "ArrowLeft") { go(-1); }
    else if (k === "a") { say("accepted"); }
    else if (k === "b") { say("rejected"); }
    else if (k === "f") { flip(); }
    else return;
    e.preventDefault();
  });
  show();
})();
"##;
