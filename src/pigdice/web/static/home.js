// Home page: build the seat list, create a game through the API, keep the seat tokens.
"use strict";
(function () {
  const variants = JSON.parse(document.getElementById("variants-data").textContent);
  const byName = Object.fromEntries(variants.map((v) => [v.name, v]));
  const form = document.getElementById("create-form");
  const variantSel = document.getElementById("variant");
  const goalInput = document.getElementById("goal");
  const summary = document.getElementById("variant-summary");
  const list = document.getElementById("seat-list");
  const errorBox = document.getElementById("create-error");
  const startBtn = document.getElementById("start");
  // the rules a player may change per variant, in words: {key, label, kind, value, choices | low, high}
  const settingsByVariant = JSON.parse(document.getElementById("settings-data").textContent);
  const settingsBox = document.getElementById("variant-settings");

  function current() { return byName[variantSel.value]; }

  function seatRow(kind, spec) {
    const li = document.createElement("li");
    li.className = "seat-row";
    li.dataset.kind = kind;
    const num = document.createElement("span");
    num.className = "num";
    const who = document.createElement("select");
    who.setAttribute("aria-label", "seat kind");
    for (const [value, text] of [["you", "Me"], ["friend", "Friend (open)"], ["robot", "Robot"]]) {
      const opt = document.createElement("option");
      opt.value = value; opt.textContent = text;
      who.appendChild(opt);
    }
    who.value = kind;
    const specInput = document.createElement("input");
    specInput.type = "text";
    specInput.maxLength = 64;
    specInput.setAttribute("list", "robot-specs");
    specInput.setAttribute("aria-label", "robot strategy");
    specInput.value = spec || current().default_robot;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "btn small";
    remove.textContent = "×";
    remove.title = "Remove this seat";
    remove.addEventListener("click", () => { if (list.children.length > 1) { li.remove(); renumber(); } });
    const cell = document.createElement("div");
    cell.className = "seat-spec";
    const note = document.createElement("span");
    note.className = "muted small";
    cell.append(specInput, note);
    const sync = () => {
      li.dataset.kind = who.value;
      specInput.hidden = who.value !== "robot";
      note.hidden = who.value === "robot";
      note.textContent = who.value === "you" ? "you play this seat" : "a friend joins with the room link";
    };
    who.addEventListener("change", sync);
    li.append(num, who, cell, remove);
    sync();
    return li;
  }

  function renumber() {
    [...list.children].forEach((li, i) => { li.querySelector(".num").textContent = String(i + 1); });
  }

  function addSeat(kind, spec) { list.appendChild(seatRow(kind, spec)); renumber(); }

  function setPlayers(specs) {
    list.textContent = "";
    for (const spec of specs) {
      const word = spec.trim().toLowerCase();
      if (word === "you" || word === "me") addSeat("you");
      else if (word === "friend" || word === "open") addSeat("friend");
      else addSeat("robot", spec.trim());
    }
  }

  function capitalized(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

  // a chance is shown in percent; "1/100" or "0.01" from the server is 1
  function percentOf(value) {
    const text = String(value);
    if (text.includes("/")) { const [a, b] = text.split("/"); return 100 * Number(a) / Number(b); }
    return 100 * Number(text);
  }

  function settingField(setting) {
    const label = document.createElement("label");
    label.className = "field";
    let input;
    if (setting.kind === "choice") {
      input = document.createElement("select");
      for (const [value, words] of setting.choices) {
        const opt = document.createElement("option");
        opt.value = value; opt.textContent = capitalized(words);
        input.appendChild(opt);
      }
      input.value = setting.value;
      label.append(setting.label, input);
    } else {
      input = document.createElement("input");
      input.type = "number";
      if (setting.kind === "count") {
        input.min = setting.low; input.max = setting.high; input.step = "1";
        input.value = setting.value;
        label.append(setting.label, input);
      } else {
        input.min = "0"; input.max = "99.99"; input.step = "any";
        input.value = String(percentOf(setting.value));
        label.append(setting.label + " in %", input);
      }
    }
    input.dataset.key = setting.key;
    input.dataset.kind = setting.kind;
    input.dataset.initial = input.value;
    return label;
  }

  function showSettings() {
    settingsBox.textContent = "";
    for (const setting of settingsByVariant[variantSel.value] || []) settingsBox.appendChild(settingField(setting));
    settingsBox.hidden = !settingsBox.children.length;
  }

  // the settings changed from the variant's own, as the API's parameters
  function settingParams() {
    const params = {};
    for (const input of settingsBox.querySelectorAll("[data-key]")) {
      if (input.value === input.dataset.initial) continue;
      const label = input.closest("label").firstChild.textContent;
      if (input.dataset.kind === "choice") { params[input.dataset.key] = input.value; continue; }
      const number = Number(input.value);
      if (input.value.trim() === "" || !Number.isFinite(number)) throw new Error(label + ": enter a number");
      if (input.dataset.kind === "count") {
        if (!Number.isInteger(number)) throw new Error(label + ": enter a whole number");
        params[input.dataset.key] = number;
      } else {
        if (number < 0 || number >= 100) throw new Error(label + ": enter a percentage from 0 to below 100");
        params[input.dataset.key] = String(number / 100);
      }
    }
    return params;
  }

  function onVariant() {
    showSettings();
    const v = current();
    summary.textContent = v.summary + " " + v.players_min + "–" + v.players_max + " players.";
    goalInput.value = v.goal;
    // a Hog robot needs a number of dice, other robots a hold point
    for (const input of list.querySelectorAll("input[list=robot-specs]")) {
      const isDice = /^dice:\d+$/.test(input.value);
      if (v.decision === "dice-per-turn" && !isDice) input.value = v.default_robot;
      if (v.decision !== "dice-per-turn" && isDice && !v.chooses_dice) input.value = v.default_robot;
    }
  }

  function players() {
    return [...list.children].map((li) => {
      const kind = li.querySelector("select").value;
      return kind === "robot" ? li.querySelector("input").value.trim() : kind;
    });
  }

  function showError(message) {
    errorBox.textContent = message;
    errorBox.hidden = !message;
  }

  async function create(body) {
    showError("");
    startBtn.disabled = true;
    try {
      const res = await fetch("/api/games", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
      const data = await res.json();
      if (!res.ok) throw new Error((data.error && data.error.message) || "could not create the game");
      localStorage.setItem("pigdice:" + data.code, JSON.stringify({ tokens: data.tokens }));
      location.href = data.url;
    } catch (err) {
      showError(err.message);
      startBtn.disabled = false;
    }
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const body = { variant: variantSel.value, players: players() };
    const goal = Number(goalInput.value);
    if (!Number.isInteger(goal) || goal < 1) { showError("the goal must be a whole number of at least 1"); return; }
    body.goal = goal;
    for (const [id, key] of [["endgame", "endgame"], ["ties", "ties"], ["final-turn", "final_turn"]]) {
      const value = document.getElementById(id).value;
      if (value) body[key] = value;
    }
    try {
      const params = settingParams();
      if (Object.keys(params).length) body.params = params;
    } catch (err) { showError(err.message); return; }
    const name = document.getElementById("your-name").value.trim();
    if (name) body.name = name;
    create(body);
  });

  document.querySelectorAll("[data-add]").forEach((btn) => btn.addEventListener("click", () => addSeat(btn.dataset.add)));
  document.querySelectorAll(".quick").forEach((btn) => btn.addEventListener("click", () => {
    const body = { variant: btn.dataset.variant, players: btn.dataset.players.split(",") };
    if (btn.dataset.goal) body.goal = Number(btn.dataset.goal);
    create(body);
  }));
  variantSel.addEventListener("change", onVariant);

  const query = new URLSearchParams(location.search);
  if (query.get("variant") && byName[query.get("variant")]) variantSel.value = query.get("variant");
  setPlayers(["you", current().default_robot]);
  onVariant();
  if (query.get("goal")) goalInput.value = query.get("goal");
})();
