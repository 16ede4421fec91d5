// Strategy explorer: the solved policy as a plotly.js surface (or Hog's heat map) and a 2D slice.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  let data = null;
  const PINKS = [[0, "#fde7ef"], [0.5, "#f06a8f"], [1, "#7a1638"]];

  function params() {
    return { variant: $("ex-variant").value, goal: Number($("ex-goal").value) || 100 };
  }

  async function load() {
    const { variant, goal } = params();
    $("ex-status").textContent = "Solving…";
    const query = new URLSearchParams({ goal: String(goal) });
    history.replaceState(null, "", "/explore?variant=" + encodeURIComponent(variant) + "&goal=" + goal);
    try {
      const res = await fetch("/api/explore/" + encodeURIComponent(variant) + "?" + query);
      const body = await res.json();
      if (!res.ok) throw new Error((body.error && body.error.message) || "could not load the strategy");
      data = body;
      $("ex-status").textContent = "";
      draw();
    } catch (err) {
      $("ex-status").textContent = err.message;
    }
  }

  // what the surface's height is: the total to hold at, or in Swine Herd the total to sit down at
  const heightWords = () => (data.kind === "sit" ? "sit down at turn total" : "hold at turn total");
  const heightShort = () => (data.kind === "sit" ? "sit at" : "hold at");

  function note() {
    if (data.kind === "sit") {
      $("ex-note").textContent = "Goal " + data.goal + ". " + data.note;
      return;
    }
    const first = (100 * data.first_player_wins).toFixed(2) + "%";
    let text = "Goal " + data.goal + ". Between two perfect players the first player wins " + first + ".";
    if (data.approximate) text += " Shown with the first-to-goal, turn-based policy: " + data.approximate + ".";
    if (data.kind === "hold" && data.chooses_dice) text += " The player also picks how many dice to roll; only the hold boundary is shown.";
    $("ex-note").textContent = text;
  }

  function draw() {
    note();
    const axis = data.axis;
    const layout3d = {
      margin: { l: 0, r: 0, t: 30, b: 0 },
      title: { text: data.title + (data.kind === "dice" ? ": dice to throw"
        : data.kind === "sit" ? ": when to sit down while the other stands" : ": roll/hold boundary"), font: { size: 15 } },
      scene: {
        xaxis: { title: { text: "your score" } },
        yaxis: { title: { text: "opponent score" } },
        zaxis: { title: { text: data.kind === "dice" ? "dice" : heightWords() } },
        camera: { eye: { x: -1.6, y: -1.6, z: 1.1 } },
      },
      paper_bgcolor: "rgba(0,0,0,0)",
    };
    const z = data.kind === "dice" ? data.dice : data.threshold;
    const hover = data.kind === "dice"
      ? "you %{x}, opponent %{y}<br>throw %{z} dice<br>P(win) %{customdata:.3f}<extra></extra>"
      : "you %{x}, opponent %{y}<br>" + heightShort() + " %{z}<br>P(win) %{customdata:.3f}<extra></extra>";
    let traces;
    if (data.kind === "dice") {
      traces = [{ type: "heatmap", x: axis, y: axis, z, customdata: data.win, hovertemplate: hover, colorscale: PINKS,
        colorbar: { title: { text: "dice" } } }];
      layout3d.xaxis = { title: { text: "your score" } };
      layout3d.yaxis = { title: { text: "opponent score" } };
      layout3d.margin = { l: 60, r: 10, t: 40, b: 50 };
    } else {
      traces = [{ type: "surface", x: axis, y: axis, z, customdata: data.win, hovertemplate: hover, colorscale: PINKS,
        showscale: false, contours: { z: { show: true, usecolormap: true, project: { z: false } } } }];
    }
    Plotly.react("surface", traces, layout3d, { responsive: true, displaylogo: false });
    const slider = $("slice");
    slider.max = String(data.goal - 1);
    if (Number(slider.value) > data.goal - 1) slider.value = "0";
    drawSlice();
  }

  function drawSlice() {
    if (!data) return;
    const j = Number($("slice").value);
    $("slice-value").textContent = String(j);
    const axis = data.axis;
    const rows = data.kind === "dice" ? data.dice : data.threshold;
    const traces = [
      { type: "scatter", mode: "lines", name: data.kind === "dice" ? "dice to throw" : heightShort(), x: axis, y: rows[j],
        line: { color: "#e0487a", width: 3, shape: data.kind === "dice" ? "hv" : "linear" } },
      { type: "scatter", mode: "lines", name: "P(win) at turn start", x: axis, y: data.win[j], yaxis: "y2",
        line: { color: "#4a5aa8", width: 2, dash: "dot" } },
    ];
    const layout = {
      margin: { l: 55, r: 55, t: 10, b: 45 },
      xaxis: { title: { text: "your score" } },
      yaxis: { title: { text: data.kind === "dice" ? "dice" : heightWords() }, rangemode: "tozero" },
      yaxis2: { title: { text: "P(win)" }, overlaying: "y", side: "right", range: [0, 1] },
      legend: { orientation: "h", y: 1.12 },
      paper_bgcolor: "rgba(0,0,0,0)",
    };
    Plotly.react("slice-plot", traces, layout, { responsive: true, displaylogo: false });
  }

  $("explore-form").addEventListener("submit", (ev) => { ev.preventDefault(); load(); });
  $("ex-variant").addEventListener("change", load);
  $("slice").addEventListener("input", drawSlice);
  load();
})();
