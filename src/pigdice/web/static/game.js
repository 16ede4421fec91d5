// Game page: one websocket to the room; the server rolls, this page only shows and asks.
"use strict";
(function () {
  const code = document.body.dataset.code;
  const variant = JSON.parse(document.getElementById("variant-data").textContent);
  const $ = (id) => document.getElementById(id);
  const storeKey = "pigdice:" + code;
  const bustFaces = variant.bust_faces || [];  // the faces to blame when a roll busts, read from the rules

  let tokens = loadTokens();
  let state = null;
  let events = [];
  let ws = null;
  let pending = false;
  let pendingSeat = null;  // Swine Herd: the seat whose choice was sent and not yet acknowledged
  let handedTo = null;  // Swine Herd, several seats in this browser: the seat the device was passed to
  let retry = 0;
  let lastHint = null;
  let hintShown = false;
  let hintAskedAt = null;  // "step:seat" of the last hint asked for
  let hintTimer = null;
  let hintStep = null;
  let waitingForHint = false;  // the server is preparing the perfect player; ask again when it says "ready"
  let noHints = null;  // the server's reason when it offers no hints for this game (goal too large)
  let overDismissed = false;
  let rematchUrl = null;  // the rematch someone in this room started
  let toastTimer = null;

  function loadTokens() {
    try { return (JSON.parse(localStorage.getItem(storeKey)) || {}).tokens || {}; } catch (e) { return {}; }
  }
  function saveTokens() { localStorage.setItem(storeKey, JSON.stringify({ tokens })); }
  function mySeats() { return Object.keys(tokens).map(Number).filter((s) => state && s < state.seats.length); }
  function actingSeat() {
    if (!state || state.finished || !state.started) return null;
    if (isGroup()) {
      const waiting = localToChoose();
      if (!waiting.length || handover() !== null) return null;
      return waiting[0];
    }
    return tokens[state.current] !== undefined ? state.current : null;
  }
  // -- Swine Herd: everyone standing chooses at once; the choices are shown once all have chosen --------
  function rulesStand() {  // nothing to bank yet: the rules have everyone stand for the first roll
    return isGroup() && (state.legal_actions || []).length === 1 && state.legal_actions[0] === "roll";
  }
  function localToChoose() {  // this browser's seats still to choose now, in seat order
    if (!state || state.finished || !state.started || state.closed || rulesStand()) return [];
    const mine = new Set(mySeats());
    return (state.to_choose || []).filter((s) => mine.has(s));
  }
  function localChosen() {  // this browser's seats that have chosen in this moment
    const mine = new Set(mySeats());
    return (state.chosen || []).filter((s) => mine.has(s));
  }
  function handover() {
    // several seats of this moment in one browser (hot seat): each is asked only once the device is passed to
    // them, so nobody answers for someone else or sees their choice, buttons or hint
    const waiting = localToChoose();
    if (!waiting.length || waiting.length + localChosen().length < 2 || handedTo === waiting[0]) return null;
    return waiting[0];
  }
  function names(seats) {
    const list = seats.map(name);
    return list.length <= 1 ? list.join("") : list.slice(0, -1).join(", ") + " and " + list[list.length - 1];
  }
  function verb(who, plural, singular) { return who === "You" ? plural : singular; }
  function viewSeat() {
    const acting = actingSeat();
    if (acting !== null) return acting;
    if (isGroup() && handover() !== null) return null;  // the next person's advice waits until they have the device
    const mine = mySeats();
    return mine.length ? mine[0] : null;
  }
  function name(seat) { return seat < 0 ? "Everyone" : state.seats[seat].name; }
  function isGroup() { return state.decision === "simultaneous"; }

  // -- connection --------------------------------------------------------------------------
  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    ws = new WebSocket(proto + "://" + location.host + "/ws/" + encodeURIComponent(code));
    ws.onopen = () => {
      retry = 0;
      if (Object.keys(tokens).length) send({ type: "hello", tokens });
    };
    ws.onmessage = (msg) => handle(JSON.parse(msg.data));
    ws.onclose = () => {
      pending = false;
      setStatus("Connection lost, reconnecting…", false);
      disableControls();
      retry = Math.min(retry + 1, 6);
      setTimeout(connect, 300 * retry);
    };
  }
  function send(message) {
    if (ws && ws.readyState === WebSocket.OPEN) { ws.send(JSON.stringify(message)); return true; }
    return false;
  }

  function handle(msg) {
    switch (msg.type) {
      case "welcome":
        state = msg.state; events = msg.events; pending = false;
        renderLog(true); render(true);
        break;
      case "update":
        state = msg.state; pending = false; pendingSeat = null; handedTo = null;
        for (const ev of msg.events) events.push(ev);
        appendLog(msg.events);
        render(msg.events.some((e) => e.type === "Rolled"));
        break;
      case "seats":
        state = msg.state; render(false);
        break;
      case "chosen":  // Swine Herd: these seats have chosen (what they chose stays hidden until all have)
        state = msg.state;
        if (pendingSeat !== null && msg.seats.includes(pendingSeat)) { pending = false; pendingSeat = null; }
        render(false);
        break;
      case "ready":
        state = msg.state; render(false);
        toast("The perfect player is ready.");
        if (waitingForHint) { waitingForHint = false; hintAskedAt = null; requestHint(); }
        break;
      case "closed":
        state = msg.state; render(false);
        break;
      case "joined":
        tokens[String(msg.seat)] = msg.token; saveTokens();
        toast("You took seat " + (msg.seat + 1) + ".");
        render(false);
        break;
      case "hello":
        // tokens this room does not know (an old game in this browser) are forgotten
        if (msg.refused && msg.refused.length) { for (const key of msg.refused) delete tokens[key]; saveTokens(); render(false); }
        break;
      case "hint":
        lastHint = msg; showHint();
        break;
      case "again":
        showBanner(msg);
        break;
      case "watchers":
        if (state) { state.spectators = msg.spectators; renderSeats(); }
        break;
      case "error":
        pending = false; pendingSeat = null;
        if (msg.code === "no_hint") { noHints = msg.message; $("hint-btn").disabled = true; $("hint-text").textContent = msg.message; break; }
        if (msg.code === "unknown_room") { setStatus("No room has that code.", false); ws.onclose = null; break; }
        if (msg.code === "preparing") { waitingForHint = true; $("hint-text").textContent = "The perfect player is working out its advice; it appears here when ready."; break; }
        toast(msg.message, true);
        render(false);
        break;
      default:
        break;
    }
  }

  // -- rendering ---------------------------------------------------------------------------
  function setStatus(text, mine) {
    const el = $("status");
    el.textContent = text;
    el.classList.toggle("mine", !!mine);
  }

  function statusText() {
    if (state.closed) return ["This game is closed: " + state.closed + ". Start a new one from the home page.", false];
    if (state.finished) {
      const w = state.winners.map(name);
      return [w.join(" and ") + (w.length === 1 ? " wins!" : " share the victory!"), false];
    }
    if (!state.started) {
      const open = state.waiting_for.length;
      return ["Waiting for " + open + " more player" + (open === 1 ? "" : "s") + " — share the link", false];
    }
    const seat = state.seats[state.current];
    const acting = actingSeat();
    if (isGroup()) return groupStatus(acting);
    const final = state.final_round ? " (final round)" : "";
    if (!mySeats().length && seat.kind !== "robot") return ["You are watching · " + seat.name + " to move" + final, false];
    if (acting !== null) {
      return [(mySeats().length > 1 ? seat.name + "'s turn" : "Your turn") + final, true];
    }
    if (seat.kind === "robot" && state.preparing) return [seat.name + " is preparing (working out perfect play)…" + final, false];
    if (seat.kind === "robot") return [seat.name + " is thinking…" + final, false];
    if (!seat.taken) return ["Waiting for someone to take seat " + (seat.seat + 1), false];
    return ["Waiting for " + seat.name + final, false];
  }

  function groupStatus(acting) {
    const standing = state.standing.map((up, i) => (up ? i : null)).filter((i) => i !== null);
    const prefix = "Standing: " + names(standing) + ". ";
    if (rulesStand()) return [prefix + "Everyone stands for the first roll…", false];
    const waiting = state.to_choose || [];
    const several = mySeats().length > 1;
    if (acting !== null) {
      const ask = several ? name(acting) + ": sit down or stay standing?" : "Sit down or stay standing?";
      return [prefix + ask + " Everyone standing chooses at the same time.", true];
    }
    const next = handover();
    if (next !== null) {
      const done = localChosen().map(name);
      if (!done.length) return [prefix + "Everyone standing chooses in secret. Pass the device to " + name(next) + ".", true];
      return [names(localChosen()) + " " + (done.length > 1 || done[0] === "You" ? "have" : "has")
        + " chosen (it stays hidden). Pass the device to " + name(next) + ".", true];
    }
    // who the table waits for (their choices stay hidden); nobody once all have chosen (the reveal is coming)
    const wait = waiting.length ? "waiting for " + names(waiting) + " to choose" : "everyone has chosen";
    if (localChosen().length) {
      const who = several ? names(localChosen()) + " chose" : "You chose";
      return [prefix + who + "; " + wait + "…", false];
    }
    const waitLine = wait[0].toUpperCase() + wait.slice(1);
    if (!mySeats().length) return ["You are watching · " + prefix + waitLine, false];
    const mine = mySeats().filter((s) => !(state.resigned || []).includes(s));
    if (mine.length === 1 && !state.standing[mine[0]]) return ["You sat down this turn. " + prefix + waitLine, false];
    if (waiting.some((s) => state.seats[s].kind === "robot") && state.preparing) {
      return [prefix + "The robots are preparing (working out perfect play)…", false];
    }
    return [prefix + waitLine, false];
  }

  function lastRoll() {
    for (let i = events.length - 1; i >= 0; i--) if (events[i].type === "Rolled") return events[i];
    return null;
  }

  function render(animate) {
    if (!state) return;
    const [text, mine] = statusText();
    setStatus(text, mine);
    $("turn-total").textContent = state.turn_total;
    const area = $("dice-area");
    const roll = lastRoll();
    if (roll) {
      PigDice.renderRoll(area, roll, { bustFaces });
      $("roll-caption").textContent = "Last roll: " + name(roll.player) + " · " + describeEffect(roll);
      if (animate) for (const d of area.children) { d.classList.remove("roll-anim"); void d.offsetWidth; d.classList.add("roll-anim"); }
    } else {
      area.innerHTML = '<span class="muted">No rolls yet</span>';
      $("roll-caption").textContent = "";
    }
    renderControls();
    renderSeats();
    renderOver();
    renderCommitment();
    const hintKey = state.step + ":" + viewSeat();
    if (hintStep !== hintKey) {  // advice is for one position and one seat: forget it when either changes
      hintStep = hintKey;
      hintShown = false;
      $("hint-text").textContent = "";
    }
    // ask for the win chance once the table is quiet (robots can move several times a second)
    clearTimeout(hintTimer);
    if (hintAskedAt !== hintKey) hintTimer = setTimeout(requestHint, 150);
  }

  function disableControls() {
    $("roll-btn").disabled = true; $("hold-btn").disabled = true; $("hint-btn").disabled = true;
    $("handover-btn").hidden = true;
  }

  function renderControls() {
    const acting = actingSeat();
    const legal = state.legal_actions || [];
    const rollBtn = $("roll-btn"), holdBtn = $("hold-btn");
    const canAct = acting !== null && !pending;
    const rolls = legal.filter((a) => a.startsWith("roll"));
    rollBtn.disabled = !canAct || rolls.length === 0;
    holdBtn.disabled = !canAct || !legal.includes("hold");
    holdBtn.hidden = !state.can_hold;
    if (isGroup()) { rollBtn.textContent = "Stay standing"; holdBtn.textContent = "Sit down"; }
    else if (state.decision === "dice-per-turn") { rollBtn.textContent = "Throw"; }
    else { rollBtn.textContent = "Roll"; holdBtn.textContent = "Hold"; }
    const choice = $("dice-choice");
    choice.hidden = !state.chooses_dice;
    if (state.chooses_dice) {
      const input = $("dice-count");
      input.min = state.choices[0];
      input.max = state.choices[state.choices.length - 1];
      clampDice();
    }
    $("hint-btn").disabled = acting === null || state.finished || !!noHints;
    const next = isGroup() ? handover() : null;
    const handBtn = $("handover-btn");
    handBtn.hidden = next === null;
    if (next !== null) handBtn.textContent = "I am " + name(next) + ": show my choice";
    rollBtn.hidden = next !== null;
    holdBtn.hidden = !state.can_hold || next !== null;
    const resigned = new Set(state.resigned || []);
    $("resign-btn").hidden = state.finished || !state.started || !mySeats().some((s) => !resigned.has(s));
    renderClock();
  }

  function resignSeat() {
    const resigned = new Set(state.resigned || []);
    const mine = mySeats().filter((s) => !resigned.has(s));
    const acting = actingSeat();  // the seat being asked (in Swine Herd, the one holding the device)
    if (acting !== null && mine.includes(acting)) return acting;
    return mine.includes(state.current) ? state.current : (mine.length ? mine[0] : null);
  }

  async function resign() {
    const seat = resignSeat();
    if (seat === null) return;
    const who = mySeats().length > 1 ? name(seat) + " resigns" : "You resign";
    const rest = state.players - (state.resigned || []).length > 2 ? " The others play on without you." : " The other player wins.";
    if (!window.confirm(who + ": you can no longer win this game." + rest)) return;
    try {
      const res = await fetch("/api/games/" + encodeURIComponent(code) + "/resign", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ seat, token: tokens[seat] }),
      });
      const body = await res.json();
      if (!res.ok) throw new Error((body.error && body.error.message) || "could not resign");
    } catch (err) {
      toast(err.message, true);
    }
  }

  function renderClock() {
    const clock = $("clock");
    if (!state.deadline || state.finished) { clock.hidden = true; return; }
    const left = Math.max(0, Math.ceil(state.deadline - Date.now() / 1000));
    let whose = actingSeat() !== null ? "Your time" : name(state.current) + "'s time";
    if (isGroup()) whose = localToChoose().length ? "Your time to choose" : "Time to choose";
    clock.textContent = whose + ": " + left + " s";
    clock.classList.toggle("urgent", left <= 15);
    clock.hidden = false;
  }

  function clampDice() {
    const input = $("dice-count");
    const lo = state.choices[0], hi = state.choices[state.choices.length - 1];
    let n = Math.round(Number(input.value) || lo);
    n = Math.max(lo, Math.min(hi, n));
    input.value = n;
    return n;
  }

  function renderSeats() {
    const list = $("seats");
    list.textContent = "";
    const mine = new Set(mySeats());
    for (const seat of state.seats) {
      const li = document.createElement("li");
      li.className = "seat";
      const choosing = isGroup() ? (state.to_choose || []).includes(seat.seat) : seat.seat === state.current;
      if (!state.finished && state.started && choosing) li.classList.add("current");
      if (state.finished && state.winners.includes(seat.seat)) li.classList.add("winner");
      const left = document.createElement("div");
      const nm = document.createElement("div");
      nm.className = "name";
      const dot = document.createElement("span");
      dot.className = "dot" + (seat.connected ? " on" : "");
      dot.title = seat.connected ? "connected" : "not connected";
      nm.append(dot, document.createTextNode(seat.name));
      if (mine.has(seat.seat)) nm.insertAdjacentHTML("beforeend", ' <span class="tag you">you</span>');
      if (isGroup() && state.started && !state.finished) {
        nm.insertAdjacentHTML("beforeend", state.standing[seat.seat] ? ' <span class="tag up">standing</span>' : ' <span class="tag down">seated</span>');
        if ((state.chosen || []).includes(seat.seat)) {
          nm.insertAdjacentHTML("beforeend", ' <span class="tag chosen" title="has chosen; shown when everyone has">✓ has chosen</span>');
        }
      }
      const meta = document.createElement("div");
      meta.className = "meta";
      const gone = (state.resigned || []).includes(seat.seat);
      meta.textContent = seat.kind === "robot" ? "robot · " + (seat.about || seat.spec)
        : gone ? "resigned" : !seat.taken ? "open seat" : seat.connected ? "person" : "person · disconnected";
      if (gone) li.classList.add("resigned");
      left.append(nm, meta);
      const score = document.createElement("div");
      score.className = "score";
      score.textContent = state.scores[seat.seat];
      const bar = document.createElement("div");
      bar.className = "bar";
      const fill = document.createElement("span");
      fill.style.width = Math.min(100, (100 * state.scores[seat.seat]) / state.goal) + "%";
      bar.appendChild(fill);
      li.append(left, score, bar);
      if (!seat.taken && mine.size === 0) li.appendChild(joinForm(seat.seat));
      list.appendChild(li);
    }
    const watching = state.spectators || 0;
    $("spectators").textContent = watching ? watching + " watching" : "";
  }

  function joinForm(seat) {
    const form = document.createElement("form");
    form.className = "join-form";
    form.style.gridColumn = "1 / -1";
    const input = document.createElement("input");
    input.type = "text"; input.maxLength = 24; input.placeholder = "Your name";
    input.setAttribute("aria-label", "your name");
    const btn = document.createElement("button");
    btn.type = "submit"; btn.className = "btn small primary"; btn.textContent = "Take this seat";
    form.append(input, btn);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      btn.disabled = true;
      send({ type: "join", seat, name: input.value.trim() || null });
    });
    return form;
  }

  function eventClass(ev) {
    if (ev.type === "TurnStarted") return "turn";
    if (ev.type === "Busted" || ev.type === "ScoreReset") return "bad";
    if (ev.type === "Banked") return "good";
    if (ev.type === "GameOver") return "over";
    return "";
  }

  function logItem(ev) {
    const li = document.createElement("li");
    const cls = eventClass(ev);
    if (cls) li.className = cls;
    if (ev.type === "Rolled") {
      const who = document.createElement("span");
      who.textContent = name(ev.player) + " rolled";
      const dice = document.createElement("span");
      dice.className = "mini";
      if ((ev.labels || []).length <= 12) {
        PigDice.renderRoll(dice, ev, { bustFaces });
      } else {
        dice.textContent = ev.text;
      }
      const what = document.createElement("span");
      what.className = "muted";
      what.textContent = describeEffect(ev);
      li.append(who, dice, what);
    } else if (isGroup() && ev.type === "StayedStanding") {
      const who = name(ev.player);
      li.textContent = who + " " + verb(who, "stay", "stays") + " standing";
    } else if (isGroup() && ev.type === "Banked") {
      const who = name(ev.player);
      li.textContent = who + " " + verb(who, "sit", "sits") + " down, banking " + ev.points + ": score " + ev.score;
    } else if (isGroup() && ev.type === "TimedOut") {
      const who = name(ev.player);
      li.textContent = who + " ran out of time and " + verb(who, "sit", "sits") + " down with nothing";
    } else if (ev.type === "Busted" && ev.lost === 0) {
      const who = name(ev.player);
      li.textContent = (who === "You" ? "Your" : who + "'s") + " turn is over";
    } else {
      li.textContent = ev.line;
    }
    return li;
  }

  function describeEffect(ev) {
    const e = ev.effect || {};
    const amount = e.amount;
    switch (e.kind) {
      case "add": return "+" + amount + " → turn total " + ev.turn_total;
      case "double": return "doubles the turn total → " + ev.turn_total;
      case "subtract": return "−" + amount + " → turn total " + ev.turn_total;
      case "set": return "turn total set to " + ev.turn_total;
      case "bust": return "bust!";
      case "reset-score": return "whole score lost!";
      case "bank": return "banks and ends the turn";
      default: return ev.text;
    }
  }

  let firstRoll = true;  // Swine Herd: before a turn's first roll, which the rules have everyone stand for
  function logged(ev) {
    // a turn's first roll is everyone's by the rules: its "stays standing" lines say nothing, so they are left out
    if (!isGroup()) return true;
    if (ev.type === "TurnStarted") firstRoll = true;
    if (ev.type === "Rolled") firstRoll = false;
    return !(firstRoll && ev.type === "StayedStanding");
  }
  function renderLog(full) {
    const log = $("log");
    if (full) { log.textContent = ""; firstRoll = true; }
    for (const ev of events) if (logged(ev)) log.appendChild(logItem(ev));
    log.scrollTop = log.scrollHeight;
  }
  function appendLog(newEvents) {
    const log = $("log");
    for (const ev of newEvents) if (logged(ev)) log.appendChild(logItem(ev));
    log.scrollTop = log.scrollHeight;
  }

  function renderCommitment() {
    const line = $("commitment-line");
    if (!state.commitment) { line.hidden = true; return; }
    line.textContent = "Dice fingerprint, published before the first roll: SHA-256 " + state.commitment
      + (state.salt ? " (secret revealed: " + state.salt + ")" : " (its secret is revealed when the game ends)");
    line.hidden = false;
  }

  function renderOver() {
    const over = $("game-over");
    if (!state.finished) { over.hidden = true; return; }
    const list = $("final-scores");
    list.textContent = "";
    const order = state.seats.map((s) => s.seat).sort((a, b) => state.scores[b] - state.scores[a]);
    for (const seat of order) {
      const li = document.createElement("li");
      li.textContent = name(seat) + ": " + state.scores[seat];
      if (state.winners.includes(seat)) { li.className = "win"; li.textContent += "  ★"; }
      list.appendChild(li);
    }
    const w = state.winners.map(name);
    const mine = new Set(mySeats());
    let title = w.join(" and ") + (w.length === 1 ? " wins!" : " share the victory!");
    if (mine.size === 1 && state.winners.includes([...mine][0])) title = "You win!";
    else if (mine.size === 1 && state.seats.length === 2) title = "You lose — " + title;
    $("over-title").textContent = title;
    $("seed-line").textContent = "Dice seed " + state.seed + " · " + state.step + " moves, all kept in the room's log."
      + (state.salt ? " The dice can be checked against the fingerprint published at the start: see the review." : "");
    $("again-btn").hidden = mine.size === 0;
    over.hidden = overDismissed;
  }

  // -- hints -------------------------------------------------------------------------------
  function requestHint() {
    const seat = viewSeat();
    if (seat === null || !state.started || state.finished) {
      $("win-chance").textContent = "—"; $("approx").hidden = true; $("hint-text").textContent = "";
      return;
    }
    if (noHints) { $("hint-text").textContent = noHints; return; }
    const key = state.step + ":" + seat;
    if (hintAskedAt === key) return;  // asked already; the reply shows it
    if (send({ type: "hint", seat, token: tokens[seat] })) hintAskedAt = key;
  }

  function optionWords(key) {
    if (key.startsWith("roll:")) {
      const n = key.slice(5);
      return (state.decision === "dice-per-turn" ? "throw " : "roll ") + n + (n === "1" ? " die" : " dice");
    }
    return { hold: "hold", roll: "roll", sit: "sit down", stand: "stay standing" }[key] || key;
  }

  function showHint() {
    const h = lastHint;
    if (!h || h.step !== state.step || h.seat !== viewSeat()) return;
    $("win-chance").textContent = h.win_probability === null ? "—" : (100 * h.win_probability).toFixed(1) + "%";
    const inPlay = state.players - (state.resigned || []).length;
    // with 3+ players this is the chance to be the winner among all of them, not to beat one opponent
    $("win-label").textContent = inPlay > 2
      ? "Your chance to be the winner of " + inPlay + " (an even share is " + (100 / inPlay).toFixed(1) + "%)"
      : "Your chance to win";
    const approx = $("approx");
    approx.hidden = !h.approximate;
    approx.textContent = h.approximate ? "approximate: " + h.approximate : "";
    if (hintShown) {
      if (!h.your_turn || !h.best) { $("hint-text").textContent = "Hints are for your turn."; return; }
      const pct = (v) => (100 * v).toFixed(1) + "%";
      let text = "Best: " + optionWords(h.best) + ": " + pct(h.values[h.best]);
      if (h.best.startsWith("roll:")) {
        // one line for a choice among many dice counts; the dice counter is set to the best count
        if (h.values.hold !== undefined) text += " (hold: " + pct(h.values.hold) + ")";
        $("dice-count").value = h.best.slice(5);
        clampDice();
      } else {
        const others = Object.entries(h.values).filter(([k]) => k !== h.best).map(([k, v]) => optionWords(k) + ": " + pct(v));
        if (others.length) text += " (" + others.join(", ") + ")";
      }
      if (h.mix) {  // Swine Herd: where the equilibrium mixes, the perfect player chooses at random
        const chances = Object.entries(h.mix).map(([k, v]) => optionWords(k) + " " + pct(v)).join(", ");
        text += ". Both are worth the same here; the perfect player chooses at random so it cannot be read: " + chances;
      }
      $("hint-text").textContent = text;
    }
  }

  // -- actions -----------------------------------------------------------------------------
  function act(kind) {
    const seat = actingSeat();
    if (seat === null || pending) return;
    let action = kind;
    if (kind === "roll" && state.chooses_dice) action = "roll:" + clampDice();
    if (kind === "hold" && state.turn_total === 0 && !isGroup()
        && !window.confirm("Hold with nothing to bank? Your turn passes to the next player.")) return;
    if (send({ type: "action", seat, token: tokens[seat], action, expected_step: state.step })) {
      pending = true;
      if (isGroup()) pendingSeat = seat;
      renderControls();
    }
  }

  function toast(message, bad) {
    const el = $("toast");
    el.textContent = message;
    el.classList.toggle("bad", !!bad);
    el.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { el.hidden = true; }, 3500);
  }

  function showBanner(msg) {
    // a rematch: every person keeps their seat (moved one place) with the token this browser holds
    const moved = {};
    for (const [old, token] of Object.entries(tokens)) {
      if (msg.seats && msg.seats[old] !== undefined) moved[String(msg.seats[old])] = token;
    }
    if (Object.keys(moved).length) localStorage.setItem("pigdice:" + msg.code, JSON.stringify({ tokens: moved }));
    const el = $("banner");
    el.innerHTML = "";
    el.append(document.createTextNode(Object.keys(moved).length
      ? "The rematch has started; you keep your seat, and the next player in turn starts. "
      : "A new game has started in this group. "));
    const a = document.createElement("a");
    a.href = msg.url; a.textContent = Object.keys(moved).length ? "Go to the rematch" : "Watch the next game";
    a.id = "rematch-link";
    el.appendChild(a);
    el.hidden = false;
    if (Object.keys(moved).length) { rematchUrl = msg.url; $("again-btn").textContent = "Go to the rematch"; }
  }

  async function playAgain() {
    if (rematchUrl) { location.href = rematchUrl; return; }  // someone else started it: join it
    const btn = $("again-btn");
    btn.disabled = true;
    try {
      const res = await fetch("/api/games/" + encodeURIComponent(code) + "/again", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ tokens }),
      });
      const data = await res.json();
      if (!res.ok) throw new Error((data.error && data.error.message) || "could not start a new game");
      localStorage.setItem("pigdice:" + data.code, JSON.stringify({ tokens: data.tokens }));
      location.href = data.url;
    } catch (err) {
      toast(err.message, true);
      btn.disabled = false;
    }
  }

  $("roll-btn").addEventListener("click", () => act("roll"));
  $("hold-btn").addEventListener("click", () => act("hold"));
  $("handover-btn").addEventListener("click", () => { handedTo = handover(); render(false); });
  $("hint-btn").addEventListener("click", () => {
    hintShown = true;
    if (lastHint && lastHint.step === state.step && lastHint.seat === viewSeat()) showHint();
    else { clearTimeout(hintTimer); requestHint(); }
  });
  $("dice-minus").addEventListener("click", () => { $("dice-count").value = Number($("dice-count").value) - 1; clampDice(); });
  $("dice-plus").addEventListener("click", () => { $("dice-count").value = Number($("dice-count").value) + 1; clampDice(); });
  $("dice-count").addEventListener("change", clampDice);
  $("again-btn").addEventListener("click", playAgain);
  $("resign-btn").addEventListener("click", resign);
  setInterval(() => { if (state) renderClock(); }, 1000);
  $("close-over").addEventListener("click", () => { overDismissed = true; $("game-over").hidden = true; });
  $("copy-link").addEventListener("click", async () => {
    const link = location.origin + "/play/" + code;
    try { await navigator.clipboard.writeText(link); toast("Link copied: " + link); } catch (e) { toast(link); }
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.target instanceof HTMLInputElement) return;
    if (ev.key === "r") act("roll");
    if (ev.key === "h" || ev.key === "s") act("hold");
  });
  connect();
})();
