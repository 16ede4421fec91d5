// Your history: the finished games this browser played, reviewed exactly, as totals, a chart and a table.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const points = (x, signed) => (x === null || x === undefined ? "–" : (signed && x > 0 ? "+" : "") + (100 * x).toFixed(1));
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function result(g) {
    if (g.result === 1) return "won";
    if (g.result === 0 || g.result === null) return "lost";
    return "shared (" + g.result.toFixed(2) + ")";
  }

  function totals(h) {
    const list = $("history-totals");
    list.replaceChildren();
    let line = h.finished + (h.finished === 1 ? " game" : " games") + ", " + h.wins + " won";
    if (h.expected_wins !== null) line += " (" + h.expected_wins.toFixed(1) + " expected from the starting chances)";
    list.append(el("li", "", line + "."));
    if (h.average_luck !== null) list.append(el("li", "", "The dice's average luck: " + points(h.average_luck, true) + " points of winning chance a game."));
    const r = h.rating;
    if (r.rating !== null) {
      list.append(el("li", "", "Performance Rating " + r.rating.toFixed(1) + " over " + r.decisions + " decisions: you play like " + (r.band === "perfect" ? "the perfect player" : (r.band === "world class" ? "world class" : "a" + (/^[aeiou]/.test(r.band) ? "n " : " ") + r.band)) + "."));
    }
    $("history-summary").hidden = false;
  }

  function table(h) {
    const body = $("history-table").querySelector("tbody");
    body.replaceChildren();
    h.entries.forEach((g, i) => {
      const row = el("tr", g.result === 1 ? "won" : "");
      const link = el("a", "", g.game);
      link.href = "/review/" + encodeURIComponent(g.source);
      const cells = [String(i + 1), (g.played_at || "").slice(0, 16).replace("T", " "), null, g.opponents.join(", "), result(g),
        points(g.dice, true), points(g.others, true), g.error === null ? "–" : "−" + points(g.error), g.rating.rating === null ? "–" : g.rating.rating.toFixed(1)];
      for (const text of cells) {
        const cell = el("td");
        if (text === null) cell.append(link); else cell.textContent = text;
        row.append(cell);
      }
      body.append(row);
    });
    $("history-skipped").textContent = h.skipped.length ? "Left out: " + h.skipped.join("; ") + "." : "";
    $("history-card").hidden = false;
  }

  function chart(h) {
    if (typeof Plotly === "undefined" || !h.entries.length) return;
    const x = h.entries.map((g, i) => i + 1);
    const traces = [
      { x, y: h.entries.map((g) => g.rating.rating), name: "rating, one game", mode: "markers", marker: { color: "#1c7ed6", size: 8 } },
      { x, y: h.trend, name: "rating, the last 10 games", mode: "lines", line: { color: "#d6336c", width: 3 } },
      { x, y: h.entries.map((g) => 100 * (g.dice || 0)), name: "the dice's luck (points)", type: "bar", yaxis: "y2", opacity: 0.45,
        marker: { color: h.entries.map((g) => (g.result >= 0.5 ? "#2b8a3e" : "#c92a2a")) } },
    ];
    $("history-chart-card").hidden = false;
    Plotly.newPlot("history-chart", traces, {
      margin: { t: 10, r: 50, b: 40, l: 50 }, xaxis: { title: "game", dtick: 1 },
      yaxis: { title: "Performance Rating", rangemode: "tozero" },
      yaxis2: { title: "the dice's luck (points)", overlaying: "y", side: "right", zeroline: true },
      legend: { orientation: "h" },
    }, { displaylogo: false, responsive: true });
  }

  async function load() {
    const p = PigMine.player();
    $("player-key").textContent = p.key.slice(0, 8) + "…";
    PigMine.save(p);
    let h;
    try {
      h = await PigMine.post("/api/history", p);
    } catch (err) {
      $("history-status").textContent = err.message;
      return;
    }
    PigMine.save(p);
    if (!h.entries.length) {
      $("history-status").textContent = "No finished game in this browser yet. Play one from the home page: it appears here once it is over.";
      return;
    }
    $("history-status").hidden = true;
    totals(h);
    chart(h);
    table(h);
  }
  load();
})();
