// Your games in this browser, with no account: the seats it holds (the tokens the game pages keep as
// "pigdice:CODE") and an anonymous player key with the practice progress ("pigdice-player").
"use strict";
const PigMine = (function () {
  const PLAYER = "pigdice-player";
  const MAX_GAMES = 60;  // the newest games sent for a history or a practice session (the server's limit)

  function randomKey() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function player() {
    let p = {};
    try { p = JSON.parse(localStorage.getItem(PLAYER)) || {}; } catch (e) { p = {}; }
    if (typeof p.key !== "string" || !/^[0-9a-f]{32}$/.test(p.key)) p.key = randomKey();
    if (!p.seen || typeof p.seen !== "object") p.seen = {};
    if (!p.practice || typeof p.practice !== "object") p.practice = {};
    return p;
  }

  function save(p) { localStorage.setItem(PLAYER, JSON.stringify(p)); }

  // every seat this browser holds, the games it saw first sent last: [{code, seat, token}]
  function seats(p) {
    const found = [];
    const now = Date.now();
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      const match = /^pigdice:([A-Za-z0-9_-]{8,64})$/.exec(key || "");
      if (!match) continue;
      let tokens = {};
      try { tokens = (JSON.parse(localStorage.getItem(key)) || {}).tokens || {}; } catch (e) { continue; }
      if (!(match[1] in p.seen)) p.seen[match[1]] = now;
      for (const [seat, token] of Object.entries(tokens)) {
        if (/^\d+$/.test(seat) && typeof token === "string") found.push({ code: match[1], seat: Number(seat), token });
      }
    }
    found.sort((a, b) => p.seen[a.code] - p.seen[b.code]);
    return found.slice(-MAX_GAMES);
  }

  async function post(url, p) {
    const res = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ key: p.key, games: seats(p) }),
    });
    const body = await res.json();
    if (!res.ok) throw new Error((body.error && body.error.message) || "could not load " + url);
    return body;
  }

  return { player, save, seats, post };
})();
