// Game review, like an analysis board: the chance-to-win chart, the decision list and the replay share one
// cursor (click the chart or a decision, drag the slider, or press ← →); busts are drawn red; the dice check.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const code = document.body.dataset.code;
  const COLORS = ["#d6336c", "#1c7ed6", "#2b8a3e", "#e67700", "#7048e8", "#0c8599", "#c2255c", "#5c940d", "#862e9c", "#495057"];
  const BUST = "#d64545";
  const WORDS = { hold: "hold", roll: "roll", sit: "sit down", stand: "stay standing" };
  let review = null;
  let game = null;  // the room's state and events (/api/games/{code})
  let moves = [];  // moves[k - 1]: { events, scores, turnTotal, bust } after move k
  let cursor = 0;  // the table after this many moves; the decision of move cursor + 1 is the one looked at
  let chartDrawn = false;

  const pct = (x, digits) => (100 * x).toFixed(digits === undefined ? 1 : digits) + "%";
  function option(name) {
    if (name.startsWith("roll:")) {
      const n = name.slice(5);
      return "roll " + n + (n === "1" ? " die" : " dice");
    }
    return WORDS[name] || name;
  }
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function words() { return PigWords.speaker(game.state.seats.map((s) => s.name), null, game.state.decision === "simultaneous"); }

  async function getJSON(url) {
    const res = await fetch(url);
    const body = await res.json();
    if (!res.ok) {
      const error = new Error((body.error && body.error.message) || "could not load " + url);
      error.status = res.status;
      throw error;
    }
    return body;
  }

  // -- the game itself: every move, its events, the scores after it ----------------------------------
  async function loadGame() {
    game = await getJSON("/api/games/" + encodeURIComponent(code));
    const players = game.state.players;
    const scores = new Array(players).fill(0);
    let turnTotal = 0;
    const byStep = new Map();
    for (const e of game.events) {
      if (!byStep.has(e.step)) byStep.set(e.step, []);
      byStep.get(e.step).push(e);
    }
    moves = [];
    for (let step = 1; step <= game.state.step; step++) {
      const list = byStep.get(step) || [];
      for (const e of list) {
        if (e.type === "Rolled") turnTotal = e.turn_total;
        else if (e.type === "Banked") { scores[e.player] = e.score; turnTotal = 0; }
        else if (e.type === "ScoreReset") { scores[e.player] = 0; turnTotal = 0; }
        else if (e.type === "Busted" || e.type === "TimedOut" || e.type === "TurnStarted") turnTotal = 0;
      }
      const bust = list.some((e) => (e.type === "Busted" && e.lost > 0) || e.type === "ScoreReset");
      moves.push({ events: list, scores: scores.slice(), turnTotal, bust });
    }
    const next = (game.state.rematch || {}).next;
    if (next) {
      const banner = $("rematch-banner");
      banner.replaceChildren(document.createTextNode("The rematch of this game has started. "));
      const link = el("a", "", "Go to the rematch");
      link.href = next.url;
      banner.append(link);
      banner.hidden = false;
    }
    const slider = $("replay-step");
    slider.max = String(moves.length);
    slider.addEventListener("input", () => moveTo(Number(slider.value)));
    $("replay-prev").addEventListener("click", () => moveTo(cursor - 1));
    $("replay-next").addEventListener("click", () => moveTo(cursor + 1));
    $("replay-card").hidden = !moves.length;
    moveTo(moves.length);
  }

  async function loadReview() {
    try {
      review = await getJSON("/api/games/" + encodeURIComponent(code) + "/review");
    } catch (err) {
      $("review-status").textContent = err.message;
      if (err.status === 503) setTimeout(loadReview, 3000);
      return;
    }
    $("review-status").hidden = true;
    drawSummary();
    drawDecisions();
    drawChart();
    moveTo(cursor);
  }

  function drawSummary() {
    const list = $("review-summary");
    list.replaceChildren();
    for (const seat of review.seats) {
      const item = el("li");
      item.append(el("strong", "", seat.name));
      const marks = Object.entries(seat.marks).filter(([, n]) => n > 0).map(([m, n]) => n + " " + (n === 1 ? m : m === "inaccuracy" ? "inaccuracies" : m + "s"));
      let text = ": " + seat.decisions + (seat.decisions === 1 ? " decision, " : " decisions, ") + pct(seat.given_away, 1) + " of winning chance given away in all";
      text += marks.length ? " (" + marks.join(", ") + ")." : ", no marked decision.";
      item.append(document.createTextNode(text));
      if (seat.worst_move !== null) {
        const link = el("a", "", " Worst: move " + seat.worst_move);
        link.href = "#move-" + seat.worst_move;
        link.addEventListener("click", (e) => { e.preventDefault(); moveTo(seat.worst_move - 1); });
        item.append(link);
      }
      for (const line of [seat.luck_line, seat.rating_line]) {
        if (line) item.append(el("div", "small review-luck", line));
      }
      list.append(item);
    }
    $("review-note").textContent = review.exact
      ? "Exact: the perfect player's chances are computed, not estimated." + (review.finished ? "" : " The game is still running: this is the review so far.")
      : "Approximate: " + review.approximate + ".";
    $("summary-card").hidden = false;
  }

  // -- the chart: every seat's chance to win, busts in red, a marker at the cursor --------------------
  function drawChart() {
    const points = review.decisions.filter((d) => d.win_by_seat !== null);
    if (!points.length || typeof Plotly === "undefined") return;
    const x = points.map((d) => d.move);
    const traces = review.names.map((name, seat) => ({
      x, y: points.map((d) => d.win_by_seat[seat]), name, mode: "lines", line: { shape: "hv", color: COLORS[seat % COLORS.length] },
      hovertemplate: name + " %{y:.1%}<extra>move %{x}</extra>",
    }));
    const marked = points.filter((d) => d.mark);
    traces.push({
      x: marked.map((d) => d.move), y: marked.map((d) => d.win_by_seat[d.seat]), name: "marked decisions", mode: "markers",
      marker: { size: 10, symbol: "x", color: marked.map((d) => (d.mark === "blunder" ? "#c92a2a" : d.mark === "mistake" ? "#e8590c" : "#f59f00")) },
      text: marked.map((d) => review.names[d.seat] + ": " + d.mark), hovertemplate: "%{text}<extra>move %{x}</extra>",
    });
    const busts = points.filter((d) => moves[d.move - 1] && moves[d.move - 1].bust);
    traces.push({
      x: busts.map((d) => d.move), y: busts.map((d) => d.win_by_seat[d.seat]), name: "bust", mode: "markers",
      marker: { size: 9, color: BUST, symbol: "circle" },
      text: busts.map((d) => review.names[d.seat] + " busts"), hovertemplate: "%{text}<extra>move %{x}</extra>",
    });
    traces.push(...luckTraces());
    $("luck-note").hidden = !review.luck;
    $("chart-card").hidden = false;  // shown before drawing, so the chart takes the card's width
    $("chart-note").textContent = review.chart_note ? "With this many players " + review.chart_note + "." : "";
    const layout = {
      margin: { t: 10, r: review.luck ? 60 : 10, b: 40, l: 50 }, yaxis: { range: [0, 1], tickformat: ".0%", title: "chance to win" },
      xaxis: { title: "move" }, shapes: [cursorLine()], legend: { orientation: "h" },
    };
    if (review.luck) layout.yaxis2 = { title: "points of winning chance", overlaying: "y", side: "right", zeroline: true, showgrid: false };
    Plotly.newPlot("advantage-chart", traces, layout, { displaylogo: false, responsive: true });
    $("advantage-chart").on("plotly_click", (event) => { if (event.points.length) moveTo(event.points[0].x - 1); });
    chartDrawn = true;
  }

  // luck and skill: every seat's luck so far (the dice and the others' choices) and the chance its own play gave
  // away so far, in points on the right axis; its luckiest and unluckiest rolls marked on its chance line
  function luckTraces() {
    const luck = review.luck;
    if (!luck) return [];
    const last = luck.timeline.length - 1;
    const moves = Array.from({ length: last + 1 }, (_, m) => m);
    const traces = [];
    review.names.forEach((name, seat) => {
      const lucky = new Array(last + 1).fill(0);
      const lost = new Array(last + 1).fill(0);
      for (const r of luck.rolls) lucky[r.move] += r.luck[seat];
      for (const c of luck.choices) {
        if (c.seat === seat) lost[c.move] += c.error;
        else lucky[c.move] += c.others[seat];
      }
      for (let m = 1; m <= last; m++) { lucky[m] += lucky[m - 1]; lost[m] += lost[m - 1]; }
      const color = COLORS[seat % COLORS.length];
      traces.push({
        x: moves, y: lucky.map((v) => 100 * v), name: name + ": luck", yaxis: "y2", mode: "lines",
        line: { color, width: 1.5, dash: "dot" }, hovertemplate: name + "'s luck so far %{y:+.1f} points<extra>move %{x}</extra>",
      });
      traces.push({
        x: moves, y: lost.map((v) => -100 * v), name: name + ": play", yaxis: "y2", mode: "lines",
        line: { color, width: 1.5, dash: "dash" }, hovertemplate: name + "'s play so far %{y:.1f} points<extra>move %{x}</extra>",
      });
    });
    const marks = { x: [], y: [], text: [], symbol: [], color: [] };
    review.seats.forEach((seat) => {
      for (const [which, symbol, color] of [["luckiest", "star", "#2b8a3e"], ["unluckiest", "triangle-down", "#c92a2a"]]) {
        const move = seat[which];
        if (move === null || move === undefined) continue;
        const roll = luck.rolls.find((r) => r.move === move);
        marks.x.push(move);
        marks.y.push(luck.timeline[move][seat.seat]);
        marks.text.push(seat.name + "'s " + which + " roll: " + roll.throw + " (" + (100 * roll.luck[seat.seat]).toFixed(1) + " points)");
        marks.symbol.push(symbol);
        marks.color.push(color);
      }
    });
    traces.push({
      x: marks.x, y: marks.y, text: marks.text, name: "luckiest and unluckiest rolls", mode: "markers",
      marker: { size: 14, symbol: marks.symbol, color: marks.color, line: { color: "#1f2330", width: 1 } },
      hovertemplate: "%{text}<extra>move %{x}</extra>",
    });
    return traces;
  }

  function cursorLine() {
    const at = cursor + 1;  // the move about to be made at the cursor (the decision looked at)
    return { type: "line", x0: at, x1: at, y0: 0, y1: 1, line: { color: "#1f2330", width: 2, dash: "dot" } };
  }

  // -- the decisions ------------------------------------------------------------------------------
  function describe(d) {
    const others = d.scores.map((s, p) => (p === d.seat ? null : review.names[p] + " " + s)).filter((t) => t !== null).join(", ");
    return review.names[d.seat] + " at " + d.scores[d.seat] + " (" + others + "), turn total " + d.turn_total + ": " + option(d.taken);
  }

  function drawDecisions() {
    const list = $("decisions");
    list.replaceChildren();
    for (const d of review.decisions) {
      const bust = moves[d.move - 1] && moves[d.move - 1].bust;
      const item = el("li", "decision" + (d.mark ? " mark-" + d.mark : "") + (bust ? " bust" : ""));
      item.id = "move-" + d.move;
      item.tabIndex = 0;
      item.append(el("span", "muted", "move " + d.move + " · "));
      item.append(document.createTextNode(describe(d)));
      if (d.loss !== null && d.loss >= 0.0005) item.append(el("span", "loss", " −" + pct(d.loss, 1)));
      if (d.mark) item.append(el("span", "mark mark-" + d.mark, d.mark));
      if (bust) item.append(el("span", "bust-tag", "bust"));
      item.addEventListener("click", () => moveTo(d.move - 1));
      item.addEventListener("keydown", (e) => { if (e.key === "Enter") moveTo(d.move - 1); });
      list.append(item);
    }
    if (!review.decisions.length) list.append(el("li", "muted", "No decisions yet."));
  }

  function showDecision(d) {
    $("decision-title").textContent = "Move " + d.move + (d.final_round ? " (last turn)" : "");
    const detail = $("decision-detail");
    detail.replaceChildren();
    detail.append(el("p", "", describe(d) + "."));
    const table = el("table", "options-table");
    const head = el("tr");
    for (const h of ["choice", "chance to win", ""]) head.append(el("th", "", h));
    table.append(head);
    const entries = Object.entries(d.values).sort((a, b) => b[1] - a[1]);
    for (const [name, value] of entries.slice(0, 12)) {
      const row = el("tr", name === d.taken ? "taken" : "");
      row.append(el("td", "", option(name)));
      row.append(el("td", "", pct(value, 2)));
      row.append(el("td", "muted", (name === d.best ? "best" : "") + (name === d.taken ? (name === d.best ? ", chosen" : "chosen") : "")));
      table.append(row);
    }
    detail.append(table);
    if (d.loss !== null) {
      detail.append(el("p", d.mark ? "mark-text mark-" + d.mark : "muted", d.loss < 0.00005 ? "The best choice (or as good as it)." : "Gave away " + pct(d.loss, 2) + " of winning chance" + (d.mark ? ": " + d.mark + "." : ".")));
    }
    $("decision-card").hidden = false;
  }

  // -- the one cursor ----------------------------------------------------------------------------
  function moveTo(step) {
    if (!game) return;
    cursor = Math.max(0, Math.min(moves.length, step));
    showMove();
    const d = review && review.decisions.find((x) => x.move === cursor + 1);
    for (const node of document.querySelectorAll(".decision.selected")) node.classList.remove("selected");
    if (d) {
      const item = $("move-" + d.move);
      if (item) { item.classList.add("selected"); item.scrollIntoView({ block: "nearest" }); }
      showDecision(d);
    }
    if (chartDrawn) Plotly.relayout("advantage-chart", { shapes: [cursorLine()] });
  }

  function showMove() {
    $("replay-step").value = String(cursor);
    const upcoming = review && review.decisions.find((x) => x.move === cursor + 1);
    $("replay-where").textContent = (cursor ? "after move " + cursor + " of " + moves.length : "before the first move")
      + (upcoming ? " · next: " + review.names[upcoming.seat] + " decides" : "");
    const names = game.state.seats.map((s) => s.name);
    const move = cursor ? moves[cursor - 1] : { events: [], scores: names.map(() => 0), turnTotal: 0, bust: false };
    const area = $("replay-dice");
    area.replaceChildren();
    const rolled = move.events.find((e) => e.type === "Rolled");
    if (rolled && window.PigDice) PigDice.renderRoll(area, rolled, {});
    else area.append(el("span", "muted", cursor ? "no roll on this move" : "before the first roll"));
    const scores = $("replay-scores");
    scores.replaceChildren();
    names.forEach((name, seat) => scores.append(el("li", "", name + ": " + move.scores[seat])));
    scores.append(el("li", "muted", "turn total: " + move.turnTotal));
    const list = $("replay-events");
    list.replaceChildren();
    const say = words();
    for (const e of move.events) {
      const bad = (e.type === "Busted" && e.lost > 0) || e.type === "ScoreReset";
      list.append(el("li", bad ? "bust" : "", say.line(e)));
    }
  }

  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.altKey || e.ctrlKey || e.metaKey) return;
    const step = { ArrowLeft: -1, ArrowRight: 1 }[e.key];
    if (step !== undefined) { e.preventDefault(); moveTo(cursor + step); }
    if (e.key === "Home") { e.preventDefault(); moveTo(0); }
    if (e.key === "End") { e.preventDefault(); moveTo(moves.length); }
  });

  async function loadDice() {
    let body;
    try {
      body = await getJSON("/api/games/" + encodeURIComponent(code) + "/verify");
    } catch (err) {
      $("dice-verdict").textContent = err.message;
      return;
    }
    const digest = body.commitment_digest;
    $("dice-commitment").textContent = digest
      ? "Before the first roll the server published this fingerprint of the dice: SHA-256 " + digest + "."
      : "This game was started before the server published dice fingerprints.";
    const verdicts = {
      matches: "The game is over and the server revealed its secret: it matches the fingerprint, and every die in the game is what that secret rolls.",
      secret: "The secret behind the fingerprint is revealed when the game ends; then every die can be checked.",
      none: "Every die in the game is what the revealed seed rolls.",
      "does not match": "The revealed secret does NOT match the fingerprint.",
    };
    let verdict = verdicts[body.commitment] || "";
    if (body.commitment !== "secret" && body.problems.length) verdict = "Problems: " + body.problems.join("; ");
    $("dice-verdict").textContent = verdict;
    const dice = body.dice;
    const tbody = $("dice-table").querySelector("tbody");
    tbody.replaceChildren();
    for (const f of dice.faces) {
      const row = el("tr");
      for (const text of [f.die, f.face, String(f.seen), f.expected.toFixed(1)]) row.append(el("td", "", text));
      tbody.append(row);
    }
    $("dice-table").hidden = !dice.faces.length;
    $("dice-test").textContent = dice.p_value === null
      ? "Not enough throws yet for a test of fairness."
      : dice.throws + " throws. Chi-square test: p = " + dice.p_value.toFixed(3) + " (the chance that fair dice look at least this uneven; only a value below 0.001 is worth a second look)." + (dice.notes.length ? " " + dice.notes.join(" ") : "");
  }

  loadGame().then(loadReview, (err) => { $("review-status").textContent = err.message; });
  loadDice();
})();
