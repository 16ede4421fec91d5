// Practice: the positions of your finished games where you gave away the most, asked until answered right;
// Leitner boxes kept in this browser (the intervals come from the server, one source with `pigdice practice`).
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const WORDS = { hold: "hold", roll: "roll", sit: "sit down", stand: "stay standing" };
  const DAY = 86400000;
  let p = null;
  let queue = [];
  let intervals = [0, 1, 3, 7, 21, 60];
  let card = null;
  let firstTry = 0;
  let answered = new Set();

  function option(name) {
    if (name.startsWith("roll:")) { const n = name.slice(5); return "roll " + n + (n === "1" ? " die" : " dice"); }
    return WORDS[name] || name;
  }
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function today() { return new Date(new Date().toISOString().slice(0, 10)).getTime(); }
  function state(key) { return p.practice[key] || { box: 0, due: 0, asked: 0, right: 0 }; }

  function show() {
    card = queue[0] || null;
    if (!card) {
      $("practice-card").hidden = true;
      const status = $("practice-status");
      status.hidden = false;
      status.textContent = answered.size
        ? "Done for today: " + answered.size + " positions, " + firstTry + " right the first time. They come back when they are due."
        : "Nothing is due today: every position you practised comes back later.";
      return;
    }
    $("practice-status").hidden = true;
    $("practice-card").hidden = false;
    $("practice-count").textContent = queue.length + (queue.length === 1 ? " position" : " positions") + " left in this session";
    $("practice-game").textContent = card.game;
    $("practice-question").textContent = card.question;
    const buttons = $("practice-options");
    buttons.replaceChildren();
    for (const name of card.options) {
      const button = el("button", "btn big", option(name));
      button.type = "button";
      button.dataset.option = name;
      button.addEventListener("click", () => answer(name));
      buttons.append(button);
    }
    $("practice-answer").hidden = true;
  }

  function answer(name) {
    const best = Math.max(...Object.values(card.values));
    const right = card.values[name] >= best - 1e-9;
    const s = state(card.key);
    s.asked += 1;
    if (right) { s.right += 1; s.box = Math.min(s.box + 1, intervals.length - 1); } else { s.box = 0; }
    s.due = today() + intervals[s.box] * DAY;
    p.practice[card.key] = s;
    PigMine.save(p);
    if (right && !answered.has(card.key)) firstTry += 1;
    answered.add(card.key);
    queue.shift();
    if (!right) queue.push(card);
    for (const button of $("practice-options").querySelectorAll("button")) {
      button.disabled = true;
      if (button.dataset.option === name) button.classList.add(right ? "primary" : "wrong");
    }
    $("practice-verdict").textContent = (right ? "Right. " : "Not the best: you will see this one again. ") + card.answer;
    $("practice-verdict").className = right ? "mark-text good" : "mark-text mark-mistake";
    const body = $("practice-values").querySelector("tbody");
    body.replaceChildren();
    for (const [option_, value] of Object.entries(card.values).sort((a, b) => b[1] - a[1])) {
      const row = el("tr", option_ === name ? "taken" : "");
      row.append(el("td", "", option(option_)), el("td", "", (100 * value).toFixed(1) + "% to win"),
        el("td", "muted", option_ === card.best ? "best" : ""));
      body.append(row);
    }
    $("practice-game-note").textContent = "In the game you chose to " + option(card.taken) + " and gave away " + (100 * card.loss).toFixed(1) + " points.";
    $("practice-answer").hidden = false;
    $("practice-next").focus();
  }

  async function load() {
    p = PigMine.player();
    PigMine.save(p);
    let body;
    try {
      body = await PigMine.post("/api/practice", p);
    } catch (err) {
      $("practice-status").textContent = err.message;
      return;
    }
    intervals = body.intervals || intervals;
    const now = today();
    const due = body.cards.filter((c) => state(c.key).due <= now);
    due.sort((a, b) => state(a.key).box - state(b.key).box || b.loss - a.loss);
    queue = due.slice(0, body.session || 10);
    if (!body.cards.length) {
      $("practice-status").textContent = "No mistake to practise yet: positions appear here from your finished games (a point of winning chance given away or more).";
      return;
    }
    show();
  }
  $("practice-next").addEventListener("click", show);
  load();
})();
