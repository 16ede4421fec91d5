// Dice as pictures: SVG pips for 1-6, a text tile for other labels (H, T, pig positions).
"use strict";
(function () {
  const PIPS = {
    1: [[50, 50]],
    2: [[28, 28], [72, 72]],
    3: [[26, 26], [50, 50], [74, 74]],
    4: [[28, 28], [72, 28], [28, 72], [72, 72]],
    5: [[26, 26], [74, 26], [50, 50], [26, 74], [74, 74]],
    6: [[28, 24], [72, 24], [28, 50], [72, 50], [28, 76], [72, 76]],
  };
  const NS = "http://www.w3.org/2000/svg";

  function pipDie(n, bad) {
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 100 100");
    svg.setAttribute("class", "die" + (bad ? " bad" : ""));
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", String(n));
    const rect = document.createElementNS(NS, "rect");
    rect.setAttribute("x", "4"); rect.setAttribute("y", "4");
    rect.setAttribute("width", "92"); rect.setAttribute("height", "92");
    rect.setAttribute("rx", "18");
    svg.appendChild(rect);
    for (const [cx, cy] of PIPS[n]) {
      const c = document.createElementNS(NS, "circle");
      c.setAttribute("cx", cx); c.setAttribute("cy", cy); c.setAttribute("r", "9");
      svg.appendChild(c);
    }
    return svg;
  }

  function labelDie(label) {
    const el = document.createElement("span");
    el.className = "die-label" + (label.length > 2 ? " word" : "") + (/^[HT]$/.test(label) ? " special" : "");
    el.textContent = label;
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", label);
    return el;
  }

  // One die from its label; `bustFaces` lists the labels of faces that hurt (e.g. ["1"] in Pig).
  function die(label, bustFaces, bust) {
    if (/^[1-6]$/.test(label)) return pipDie(Number(label), bustFaces.includes(label));
    const el = labelDie(label);
    if (bust) el.classList.add("bad");
    return el;
  }

  // All dice of a Rolled event (labels are what the server rolled; a mishap has none).
  function renderRoll(container, event, opts) {
    container.textContent = "";
    const labels = event.labels || [];
    const bad = event.effect && (event.effect.kind === "bust" || event.effect.kind === "reset-score");
    const bustFaces = (opts && opts.bustFaces) || [];
    if (labels.length === 0) {
      const el = labelDie(event.text || "?");
      el.classList.add("word");
      container.appendChild(el);
      return;
    }
    container.classList.toggle("many", labels.length > 6);
    for (const label of labels) container.appendChild(die(label, bad ? bustFaces : [], bad));
  }

  window.PigDice = { die, renderRoll };
})();
