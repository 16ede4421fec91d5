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
  let earlier = 0;  // events before those received (a long game's welcome carries only the latest)
  let ws = null;
  let pending = false;
  let pendingSeat = null;  // Swine Herd: the seat whose choice was sent and not yet acknowledged
  let handedTo = null;  // Swine Herd, several seats in this browser: the seat the device was passed to
  let myChoices = {};  // Swine Herd: this browser's hidden choices of the moment, seat -> "roll" | "hold"
  let retry = 0;
  let lastHint = null;
  let hintShown = false;
  let hintAskedAt = null;  // "step:seat" of the last hint asked for
  let hintTimer = null;
  let hintStep = null;
  let leaving = false;  // on the way to the rematch: its reply and the room's message both bring it, go once
  let waitingForHint = false;  // the server is preparing the perfect player; ask again when it says "ready"
  let noHints = null;  // the server's reason when it offers no hints for this game (goal too large)
  let overDismissed = false;
  let notice = null;  // a moment worth saying in words (the house rule), kept until the next turn
  let waitFor = "";  // the seats left behind that this player chose to wait for (the panel stays closed)
  let lostSeat = null;  // why this browser's seat is no longer its own (opened after timeouts)
  let toastTimer = null;
  // the name typed into a "Take this seat" form: the seat list is redrawn on every update (someone watching,
  // a roll), and what was typed, and where the cursor was, must survive it
  const nameDraft = { text: "" };

  function loadTokens() {
    try { return (JSON.parse(localStorage.getItem(storeKey)) || {}).tokens || {}; } catch (e) { return {}; }
  }
  function saveTokens() { localStorage.setItem(storeKey, JSON.stringify({ tokens })); }
  function mySeats() { return Object.keys(tokens).map(Number).filter((s) => state && s < state.seats.length); }
  function me() { const mine = mySeats(); return mine.length === 1 ? mine[0] : null; }  // the seat called "You"
  function words() { return PigWords.speaker(state.seats.map((s) => s.name), me(), isGroup()); }
  function name(seat) { return words().who(seat); }
  function names(seats) { return words().all(seats); }
  function isGroup() { return state.decision === "simultaneous"; }
  function inPlay(seat) { return !(state.resigned || []).includes(seat); }
  function post(path, body) {
    return fetch("/api/games/" + encodeURIComponent(code) + "/" + path, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    }).then(async (res) => {
      const data = await res.json();
      if (!res.ok) throw new Error((data.error && data.error.message) || "the server refused");
      return data;
    });
  }

  function actingSeat() {
    if (!state || state.finished || !state.started || state.closed) return null;
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
  function choiceWords(seat) {  // what a seat of this browser chose, in words, while it stays hidden from the others
    const choice = myChoices[seat];
    if (!choice) return words().who(seat) + " chose";
    const who = words().who(seat);
    return choice === "hold"
      ? who + " " + words().verb(seat, "sit", "sits") + " down with " + state.turn_total
      : who + " " + words().verb(seat, "stay", "stays") + " standing";
  }
  function viewSeat() {
    const acting = actingSeat();
    if (acting !== null) return acting;
    if (isGroup() && handover() !== null) return null;  // the next person's advice waits until they have the device
    const mine = mySeats();
    return mine.length ? mine[0] : null;
  }

  // -- connection --------------------------------------------------------------------------
  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    ws = new WebSocket(proto + "://" + location.host + "/ws/" + encodeURIComponent(code));
    ws.onopen = () => {
      retry = 0;
      if (Object.keys(tokens).length) send({ type: "hello", tokens });
    };
    ws.onmessage = (msg) => handle(JSON.parse(msg.data));
    ws.onclose = (event) => {
      pending = false;
      const crowded = event.code === 4429;  // the server's bound on connections: its reason says so
      setStatus(crowded ? capitalized(event.reason) + ". Reconnecting in a few seconds…" : "Connection lost, reconnecting…", false);
      disableControls();
      retry = Math.min(retry + 1, 6);
      setTimeout(connect, (crowded ? 1000 + Math.random() * 2000 : 0) + 300 * retry);
    };
  }
  function send(message) {
    if (ws && ws.readyState === WebSocket.OPEN) { ws.send(JSON.stringify(message)); return true; }
    return false;
  }

  function handle(msg) {
    switch (msg.type) {
      case "welcome":
        state = msg.state; events = msg.events; earlier = msg.earlier || 0; pending = false;
        renderLog(true); render(true);
        break;
      case "history": showEarlier(msg); break;
      case "update":
        state = msg.state; pending = false; pendingSeat = null; handedTo = null; myChoices = {};
        for (const ev of msg.events) events.push(ev);
        noteMoment(msg.events);
        appendLog(msg.events);
        render(msg.events.some((e) => e.type === "Rolled"));
        break;
      case "seats":
        state = msg.state;
        if (msg.freed !== undefined && tokens[String(msg.freed)] !== undefined) loseSeat(String(msg.freed), msg.reason);
        render(false);
        break;
      case "chosen":  // Swine Herd: these seats have chosen (what they chose stays hidden until all have)
        state = msg.state;
        if (pendingSeat !== null && msg.seats.includes(pendingSeat)) { pending = false; pendingSeat = null; }
        render(false);
        break;
      case "choice":  // Swine Herd: my own hidden choice, which this page keeps showing until the reveal
        if (msg.step === state.step) myChoices[msg.seat] = msg.action;
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
        // tokens this room does not know (an old game in this browser) are forgotten; a seat opened after
        // timeouts is said so
        for (const key of msg.refused || []) {
          if ((msg.reasons || {})[key] === "freed") loseSeat(key, null);
          else delete tokens[key];
        }
        if ((msg.refused || []).length) saveTokens();
        if (msg.choices && msg.step === state.step) Object.assign(myChoices, msg.choices);
        render(false);
        break;
      case "hint":
        lastHint = msg; showHint();
        break;
      case "rematch":
        state.rematch = msg.rematch; renderRematch();
        if (msg.how) toast(rematchEnded(msg));
        break;
      case "again":
        state = msg.state; followRematch(true);
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

  function loseSeat(key, reason) {
    // the seat was opened for someone else after repeated timeouts: this browser no longer holds it
    const seat = Number(key);
    const why = reason ? reason.replace(state.seats[seat].name, me() === seat ? "You" : state.seats[seat].name) : "You ran out of time too often";
    lostSeat = why + ", so the seat was opened for someone else. You are watching now.";
    delete tokens[key];
    saveTokens();
  }

  function noteMoment(newEvents) {
    if (newEvents.some((e) => e.type === "Rolled" && e.house_rule)) {
      notice = PigWords.HOUSE_RULE + ".";
    } else if (notice && newEvents.some((e) => e.type === "TurnStarted") && !newEvents.some((e) => e.house_rule)) {
      notice = null;  // the turn after the house rule's has begun
    }
  }

  // -- rendering ---------------------------------------------------------------------------
  function capitalized(text) { return text.charAt(0).toUpperCase() + text.slice(1); }
  function setStatus(text, mine) {
    const el = $("status");
    el.textContent = text;
    el.classList.toggle("mine", !!mine);
  }

  function statusText() {
    if (state.aborted) return [state.closed + ". Nothing was played, so there is no result.", false];
    if (state.closed) return ["This game is closed: " + state.closed + ". Start a new one from the home page.", false];
    if (state.finished) return [words().result(state.winners) + "!", false];
    if (!state.started) {
      const open = state.waiting_for.filter(inPlay);
      const freed = open.filter((seat) => (state.freed || []).includes(seat));
      if (!mySeats().length) return ["A seat is open: take it below to play, or watch", false];
      if (freed.length === open.length) {
        return [PigWords.list(freed.map((seat) => state.seats[seat].name + "'s")) + " seat is open again — anyone with"
          + " this page's link can take it", false];
      }
      return ["Waiting for " + open.length + " more player" + (open.length === 1 ? "" : "s")
        + " — anyone with this page's link can take " + (open.length === 1 ? "the open seat" : "an open seat"), false];
    }
    const seat = state.seats[state.current];
    const acting = actingSeat();
    if (isGroup()) return groupStatus(acting);
    const final = state.final_round ? " (final round)" : "";
    if (!mySeats().length && seat.kind !== "robot") return ["You are watching · " + seat.name + " to move" + final, false];
    if (acting !== null) return [(me() === null ? seat.name + "'s turn" : "Your turn") + final, true];
    if (seat.kind === "robot" && state.preparing) return [seat.name + " is preparing (working out perfect play)…" + final, false];
    if (seat.kind === "robot") return [seat.name + " is thinking…" + final, false];
    return ["Waiting for " + seat.name + final, false];
  }

  function groupStatus(acting) {
    const standing = state.standing.map((up, i) => (up ? i : null)).filter((i) => i !== null);
    const everyone = standing.length === state.seats.filter((s) => inPlay(s.seat)).length;
    const prefix = everyone ? "Everyone is standing. " : "Standing: " + names(standing) + ". ";
    if (rulesStand()) return [prefix + "Everyone stands for the first roll…", false];
    const waiting = state.to_choose || [];
    if (acting !== null) {
      const ask = me() === null ? name(acting) + ": sit down or stay standing?" : "Sit down or stay standing?";
      return [prefix + ask + " Everyone standing chooses at the same time.", true];
    }
    const next = handover();
    if (next !== null) {
      const done = localChosen();
      if (!done.length) return [prefix + "Everyone standing chooses in secret. Pass the device to " + name(next) + ".", true];
      return [names(done) + " " + (done.length > 1 ? "have" : "has") + " chosen (it stays hidden). Pass the device to "
        + name(next) + ".", true];
    }
    // who the table waits for (their choices stay hidden); nobody once all have chosen (the reveal is coming)
    const wait = waiting.length ? "waiting for " + names(waiting) + " to choose" : "everyone has chosen";
    if (localChosen().length) {  // (no "who stands" here: this browser's choices are not revealed yet)
      const chose = localChosen().map(choiceWords).join("; ");
      return [chose + " (hidden from the others until everyone has chosen); " + wait + "…", false];
    }
    const waitLine = wait[0].toUpperCase() + wait.slice(1);
    if (!mySeats().length) return ["You are watching · " + prefix + waitLine, false];
    const mine = mySeats().filter(inPlay);
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
    $("notice").hidden = !notice && !lostSeat;
    $("notice").textContent = [lostSeat, notice].filter(Boolean).join(" ");
    $("turn-total").textContent = state.turn_total;
    renderSets();
    const area = $("dice-area");
    const roll = lastRoll();
    if (roll) {
      PigDice.renderRoll(area, roll, { bustFaces });
      $("roll-caption").textContent = "Last roll: " + name(roll.player) + " · " + words().effect(roll);
      if (animate) for (const d of area.children) { d.classList.remove("roll-anim"); void d.offsetWidth; d.classList.add("roll-anim"); }
    } else {
      area.innerHTML = '<span class="muted">No rolls yet</span>';
      $("roll-caption").textContent = "";
    }
    renderControls();
    renderLeaving();
    renderSeats();
    renderOver();
    renderRematch();
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
    const over = state.finished || !!state.closed;
    $("controls").hidden = over;
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
    $("hint-btn").disabled = acting === null || over || !!noHints;
    const next = isGroup() ? handover() : null;
    const handBtn = $("handover-btn");
    handBtn.hidden = next === null;
    if (next !== null) handBtn.textContent = "I am " + state.seats[next].name + ": show my choice";
    rollBtn.hidden = next !== null;
    holdBtn.hidden = !state.can_hold || next !== null;
    $("resign-btn").hidden = over || !state.started || state.can_abort || !mySeats().some(inPlay);
    $("abort-btn").hidden = over || !state.can_abort || !mySeats().length;
    renderClock();
  }

  // -- leaving: a player who left may be claimed, after the grace period -----------------------
  function renderLeaving() {
    const panel = $("leave-panel");
    panel.replaceChildren();
    const mine = mySeats().filter(inPlay);
    if (state.finished || state.closed || !mine.length) { panel.hidden = true; return; }
    const others = (seat) => !mySeats().includes(seat);
    const left = (state.left_behind || []).filter(others);
    const away = Object.keys(state.away || {}).map(Number).filter((s) => others(s) && inPlay(s) && !left.includes(s));
    const players = state.seats.filter((s) => inPlay(s.seat)).length;
    for (const seat of away) {
      const since = state.away[String(seat)];
      const wait = Math.max(0, Math.ceil(since + state.away_seconds - Date.now() / 1000));
      const then = players === 2 ? "you may claim the win" : "the others may play on without them";
      panel.append(para(name(seat) + " lost the connection. If " + name(seat) + " is not back within " + wait + " s, " + then + "."));
    }
    if (left.length && waitFor !== left.join(",")) {
      for (const seat of left) {
        const why = (state.freed || []).includes(seat)
          ? name(seat) + " ran out of time too often, so the seat was opened."
          : name(seat) + " has been away for more than " + state.away_seconds + " s.";
        panel.append(para(why));
        const claim = button(players === 2 ? "Claim the win" : "Play on without " + name(seat), "btn primary", () => claimSeat(seat));
        claim.dataset.claim = String(seat);
        panel.append(claim);
      }
      panel.append(button("Wait", "btn", () => { waitFor = left.join(","); renderLeaving(); }));
    }
    panel.hidden = !panel.children.length;
  }
  function para(text) { const p = document.createElement("p"); p.textContent = text; return p; }
  function button(text, cls, onClick) {
    const b = document.createElement("button");
    b.type = "button"; b.className = cls; b.textContent = text;
    b.addEventListener("click", onClick);
    return b;
  }
  async function claimSeat(absent) {
    const seat = mySeats().filter(inPlay)[0];
    try { await post("claim", { seat, token: tokens[seat], absent }); } catch (err) { toast(err.message, true); }
  }

  function resignSeat() {
    const mine = mySeats().filter(inPlay);
    const acting = actingSeat();  // the seat being asked (in Swine Herd, the one holding the device)
    if (acting !== null && mine.includes(acting)) return acting;
    return mine.includes(state.current) ? state.current : (mine.length ? mine[0] : null);
  }

  async function resign() {
    const seat = resignSeat();
    if (seat === null) return;
    const who = me() === null ? state.seats[seat].name + " resigns" : "You resign";
    const rest = state.players - (state.resigned || []).length > 2 ? " The others play on without you." : " The other player wins.";
    if (!window.confirm(who + ": you can no longer win this game." + rest)) return;
    try { await post("resign", { seat, token: tokens[seat] }); } catch (err) { toast(err.message, true); }
  }

  async function abortGame() {
    const seat = mySeats()[0];
    if (!window.confirm("Call the game off? Nobody has played yet, so it ends with no result.")) return;
    try { await post("abort", { seat, token: tokens[seat] }); } catch (err) { toast(err.message, true); }
  }

  function renderClock() {
    const clock = $("clock");
    if (!state.deadline || state.finished || state.closed) { clock.hidden = true; return; }
    const left = Math.max(0, Math.ceil(state.deadline - Date.now() / 1000));
    let whose = actingSeat() !== null ? "Your time" : words().whose(state.current) + " time";
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

  function seatMeta(seat) {
    const claim = (state.claims || {})[String(seat.seat)];
    if (claim !== undefined) return "left the game";
    if (!inPlay(seat.seat)) return "resigned";
    if (seat.kind === "robot") return "robot · " + (seat.about || seat.spec);
    if (!seat.taken) return (state.freed || []).includes(seat.seat) ? "seat opened" : "open seat";
    return seat.connected ? "person" : "person · disconnected";
  }

  // Piggy Six for large groups: where both sets of dice are, whose turn is under way with each, and its total
  function renderSets() {
    const box = $("sets-line");
    const other = state.other_set;
    box.hidden = !other || state.finished;
    if (box.hidden) return;
    const here = "Set " + state.set + ": " + name(state.current) + " to move · turn total " + state.turn_total;
    let there = "Set " + other.set + " starts when half the table has played";
    if (other.phase === "rolling") there = "Set " + other.set + ": " + name(other.player) + " · turn total " + other.turn_total;
    else if (other.phase === "waiting") there = "Set " + other.set + " waits for " + name(other.player);
    else if (other.phase === "finished") there = "Set " + other.set + " is put away: this is the last turn";
    box.textContent = "";
    for (const line of state.set < other.set ? [here, there] : [there, here]) {
      const row = document.createElement("div");
      row.textContent = line;
      box.appendChild(row);
    }
  }

  // the set of dice a seat holds while its turn is under way (two sets of dice), or null
  function setHeldBy(seat) {
    const other = state.other_set;
    if (!other || !state.started || state.finished) return null;
    if (seat === state.current) return state.set;
    return other.phase === "rolling" && other.player === seat ? other.set : null;
  }

  function renderSeats() {
    const list = $("seats");
    const typing = list.contains(document.activeElement) ? document.activeElement.dataset.seat : undefined;
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
      const held = setHeldBy(seat.seat);
      if (held !== null) {
        nm.insertAdjacentHTML("beforeend", ' <span class="tag dice-set">set ' + held + "</span>");
        if (seat.seat !== state.current) li.classList.add("other-turn");
      }
      if (isGroup() && state.started && !state.finished) {
        nm.insertAdjacentHTML("beforeend", state.standing[seat.seat] ? ' <span class="tag up">standing</span>' : ' <span class="tag down">seated</span>');
        if ((state.chosen || []).includes(seat.seat)) {
          nm.insertAdjacentHTML("beforeend", ' <span class="tag chosen" title="has chosen; shown when everyone has">✓ chose</span>');
        }
      }
      const meta = document.createElement("div");
      meta.className = "meta";
      meta.textContent = seatMeta(seat);
      if (!inPlay(seat.seat)) li.classList.add("resigned");
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
      if (!seat.taken && inPlay(seat.seat) && mine.size === 0 && !state.closed) li.appendChild(joinForm(seat.seat));
      list.appendChild(li);
    }
    if (typing !== undefined) {  // the player was typing their name: the cursor stays in the box
      const box = list.querySelector('.join-form input[data-seat="' + typing + '"]');
      if (box) { box.focus(); box.setSelectionRange(box.value.length, box.value.length); }
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
    input.value = nameDraft.text;
    input.addEventListener("input", () => { nameDraft.text = input.value; });
    input.dataset.seat = String(seat);
    const btn = document.createElement("button");
    btn.type = "submit"; btn.className = "btn small primary"; btn.textContent = "Take this seat";
    form.append(input, btn);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      btn.disabled = true;
      if (!send({ type: "join", seat, name: input.value.trim() || null })) {
        btn.disabled = false;  // not connected at this moment (reconnecting): nothing was sent, the seat is still free
        toast("Not connected just now: try again in a moment.", true);
      }
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

  function logItems(ev) {
    const li = document.createElement("li");
    const cls = eventClass(ev);
    if (cls) li.className = cls;
    if (ev.type !== "Rolled") {
      li.textContent = words().line(ev);
      return [li];
    }
    const who = document.createElement("span");
    who.textContent = name(ev.player) + " rolled";
    const dice = document.createElement("span");
    dice.className = "mini";
    if ((ev.labels || []).length <= 12) PigDice.renderRoll(dice, ev, { bustFaces });
    else dice.textContent = ev.text;
    const what = document.createElement("span");
    what.className = "muted";
    what.textContent = words().effect(ev);
    li.append(who, dice, what);
    if (!ev.house_rule) return [li];
    const rule = document.createElement("li");
    rule.className = "rule";
    rule.textContent = PigWords.HOUSE_RULE + ".";
    return [li, rule];
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
    if (full) { log.textContent = ""; firstRoll = true; if (earlier > 0) log.append(earlierItem()); }
    appendLog(events);
  }
  function earlierItem() {  // a long game: older moves come a page at a time, when asked for
    const li = document.createElement("li");
    li.className = "earlier";
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Show earlier moves";
    button.onclick = () => { button.disabled = send({ type: "history", before: earlier }); };
    li.append(button);
    return li;
  }
  function showEarlier(msg) {
    const log = $("log");
    const height = log.scrollHeight;
    const top = log.querySelector("li.earlier");
    if (top) top.remove();
    const items = [];
    for (const ev of msg.events) items.push(...logItems(ev));
    earlier = msg.earlier;
    log.prepend(...items);
    if (earlier > 0) log.prepend(earlierItem());
    log.scrollTop += log.scrollHeight - height;  // the lines read stay in view
  }
  function appendLog(newEvents) {
    const log = $("log");
    for (const ev of newEvents) if (logged(ev)) log.append(...logItems(ev));
    log.scrollTop = log.scrollHeight;
  }

  function renderCommitment() {
    const line = $("commitment-line");
    if (!state.commitment) { line.hidden = true; return; }
    line.textContent = "Dice fingerprint, published before the first roll: SHA-256 " + state.commitment
      + (state.salt ? " (secret revealed: " + state.salt + ")" : " (its secret is revealed when the game ends)");
    line.hidden = false;
  }

  // -- the end: standings by result, the rematch ------------------------------------------------
  function standing(seat) {  // sort key: winners first, then those still in by score, then those who left
    const won = state.winners.includes(seat) ? 0 : inPlay(seat) ? 1 : 2;
    return [won, -state.scores[seat]];
  }
  function renderOver() {
    const over = $("game-over");
    if (!state.finished) { over.hidden = true; return; }
    const list = $("final-scores");
    list.textContent = "";
    const order = state.seats.map((s) => s.seat).sort((a, b) => {
      const [x, y] = [standing(a), standing(b)];
      return x[0] - y[0] || x[1] - y[1] || a - b;
    });
    for (const seat of order) {
      const li = document.createElement("li");
      li.textContent = state.seats[seat].name + ": " + state.scores[seat];
      if (state.winners.includes(seat)) { li.className = "win"; li.textContent += "  ★"; }
      else if (!inPlay(seat)) {
        li.className = "gone";
        li.textContent += (state.claims || {})[String(seat)] !== undefined ? " (left the game)" : " (resigned)";
      }
      list.appendChild(li);
    }
    let title = words().result(state.winners) + "!";
    if (me() !== null && !state.winners.includes(me()) && state.seats.length === 2) title = "You lose — " + title;
    $("over-title").textContent = title;
    $("seed-line").textContent = "Dice seed " + state.seed + " · " + state.step + " moves, all kept in the room's log."
      + (state.salt ? " The dice can be checked against the fingerprint published at the start: see the review." : "");
    over.hidden = overDismissed;
  }

  function rematchEnded(ended) {
    const who = name(ended.seat);
    return ended.how === "withdrawn" ? who + " withdrew the rematch offer." : who + " declined the rematch.";
  }

  function renderRematch() {
    for (const id of ["over-rematch", "table-rematch"]) {
      const panel = $(id);
      panel.replaceChildren(...rematchControls());
      panel.hidden = !state.finished || !panel.children.length;
    }
  }

  function rematchControls() {
    const rematch = state.rematch || {};
    const claims = state.claims || {};
    const mine = mySeats().filter((s) => claims[String(s)] === undefined);
    const nodes = [];
    if (rematch.next) {
      const moved = movedTokens();
      const text = Object.keys(moved).length ? "The rematch has started; you keep your seat." : "The rematch has started.";
      nodes.push(para(text));
      nodes.push(button(Object.keys(moved).length ? "Go to the rematch" : "Watch the rematch", "btn primary", () => followRematch(false)));
      nodes[nodes.length - 1].dataset.role = "follow";
      return nodes;
    }
    const offer = rematch.offer;
    if (rematch.ended) nodes.push(para(rematchEnded(rematch.ended)));
    if (!offer) {
      if (mine.length) nodes.push(withRole(button("Rematch", "btn primary", () => answer("yes")), "offer"));
      else if (mySeats().length) nodes.push(para("You left this game, so the others decide on a rematch."));
      return nodes;
    }
    const waiting = offer.waiting_for || [];
    const mineWaiting = mine.filter((s) => waiting.includes(s));
    const by = state.seats[offer.by].name;
    if (mineWaiting.length) {
      nodes.push(para(by + " offers a rematch."));
      nodes.push(withRole(button("Accept", "btn primary", () => answer("yes")), "accept"));
      nodes.push(withRole(button("Decline", "btn", () => answer("no")), "decline"));
    } else if (mine.length) {
      nodes.push(para((mine.includes(offer.by) ? "You offered a rematch" : "You accepted the rematch")
        + "; waiting for " + names(waiting) + "."));
      nodes.push(withRole(button(mine.includes(offer.by) ? "Withdraw the offer" : "Withdraw", "btn", () => answer("no")), "withdraw"));
    } else {
      nodes.push(para(by + " offered a rematch; waiting for " + names(waiting) + "."));
    }
    return nodes;
  }
  function withRole(node, role) { node.dataset.role = role; return node; }

  async function answer(yesOrNo) {
    const mine = {};
    for (const [seat, token] of Object.entries(tokens)) if ((state.claims || {})[seat] === undefined) mine[seat] = token;
    try {
      const reply = await post("rematch", { tokens: mine, answer: yesOrNo });
      state.rematch = reply.rematch;
      if (reply.rematch.next) followRematch(true);
      else renderRematch();
    } catch (err) {
      toast(err.message, true);
    }
  }

  function movedTokens() {
    // a rematch: every person keeps their seat (moved one place) with the token this browser holds
    const next = (state.rematch || {}).next;
    const moved = {};
    if (!next) return moved;
    for (const [old, token] of Object.entries(tokens)) {
      if (next.seats[old] !== undefined && (state.claims || {})[old] === undefined) moved[String(next.seats[old])] = token;
    }
    return moved;
  }

  function followRematch(auto) {
    // those who hold a seat agreed to the rematch: they go at once; spectators, and anyone coming back to this
    // page later, are shown the way (one click)
    if (leaving) return;  // a second navigation would abort the first one under way
    const next = state.rematch.next;
    const moved = movedTokens();
    if (Object.keys(moved).length) localStorage.setItem("pigdice:" + next.code, JSON.stringify({ tokens: moved }));
    if (!auto || Object.keys(moved).length) { leaving = true; location.href = next.url; return; }
    const el = $("banner");
    el.replaceChildren(document.createTextNode("The rematch has started. "));
    const a = document.createElement("a");
    a.href = next.url; a.textContent = "Watch it"; a.id = "rematch-link";
    el.append(a);
    el.hidden = false;
    renderRematch();
  }

  // -- hints -------------------------------------------------------------------------------
  function requestHint() {
    const seat = viewSeat();
    if (seat === null || !state.started || state.finished || state.closed) {
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
    const inPlayCount = state.players - (state.resigned || []).length;
    // with 3+ players this is the chance to be the winner among all of them, not to beat one opponent
    $("win-label").textContent = inPlayCount > 2
      ? "Your chance to be the winner of " + inPlayCount + " (an even share is " + (100 / inPlayCount).toFixed(1) + "%)"
      : "Your chance to win";
    const approx = $("approx");
    const notes = [h.table_note, h.approximate ? "the perfect player is approximate: " + h.approximate : null].filter(Boolean);
    approx.hidden = !notes.length;
    approx.textContent = notes.map((n) => n[0].toUpperCase() + n.slice(1) + ".").join(" ");
    if (hintShown) {
      if (!h.your_turn || !h.best) { $("hint-text").textContent = "Hints are for your turn."; return; }
      const pct = (v) => (100 * v).toFixed(1) + "%";
      let text = "Best: " + optionWords(h.best) + ", chance to win " + pct(h.values[h.best]);
      if (h.table_note) {
        // an approximate table of 3 or more: the options are weighed against the leader alone (a 2-player game),
        // so the chance said is the whole table's, as estimated above, and the 2-player figures are named as such
        text = "Best (approximate): " + optionWords(h.best);
        if (h.win_probability !== null) text += ", your chance to be the winner about " + pct(h.win_probability);
        const duel = Object.entries(h.values).map(([k, v]) => optionWords(k) + " " + pct(v)).join(", ");
        $("hint-text").textContent = text + " (against the leader alone: " + duel + ")";
        return;
      }
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
  $("resign-btn").addEventListener("click", resign);
  $("abort-btn").addEventListener("click", abortGame);
  setInterval(() => { if (state) { renderClock(); if (Object.keys(state.away || {}).length) renderLeaving(); } }, 1000);
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
