// Words for players and events. "You" is said only on your own screen, for the one seat you play there (a
// hot-seat screen with several seats names each of them); the rest of the sentence agrees: "You win", "Ann wins".
"use strict";
window.PigWords = (function () {
  function list(words) {
    return words.length <= 1 ? words.join("") : words.slice(0, -1).join(", ") + " and " + words[words.length - 1];
  }

  // names: the seats' names in seat order; me: the seat shown as "You" (null: nobody, e.g. a spectator)
  function speaker(names, me, simultaneous) {
    const isMe = (seat) => me !== null && me !== undefined && seat === me;
    const who = (seat) => (seat < 0 ? "Everyone" : isMe(seat) ? "You" : names[seat]);
    const whose = (seat) => (isMe(seat) ? "Your" : names[seat] + "'s");
    const verb = (seat, plural, singular) => (isMe(seat) || seat < 0 ? plural : singular);
    const all = (seats) => list(seats.map(who));
    const lower = (text) => (text === "You" ? "you" : text);

    function effect(ev) {
      const e = ev.effect || {};
      switch (e.kind) {
        case "add": return "+" + e.amount + " → turn total " + ev.turn_total;
        case "double": return "doubles the turn total → " + ev.turn_total;
        case "subtract": return "−" + e.amount + " → turn total " + ev.turn_total;
        case "set": return "turn total set to " + ev.turn_total;
        case "bust": return "bust!";
        case "reset-score": return "whole score lost!";
        case "bank": return "banks and ends the turn";
        default: return ev.text || "";
      }
    }

    function result(winners) {
      if (winners.length === 1) return who(winners[0]) + " " + verb(winners[0], "win", "wins");
      return all(winners) + " share the victory";
    }

    // one line of plain text for an event (the game page draws a roll's dice itself)
    function line(ev) {
      const p = ev.player;
      switch (ev.type) {
        case "Rolled": {
          const text = who(p) + " rolled " + ev.text + ": " + effect(ev);
          return ev.house_rule ? text + ". " + HOUSE_RULE : text;
        }
        case "Busted": return ev.lost === 0 ? whose(p) + " turn is over" : who(p) + " lost the turn total of " + ev.lost;
        case "ScoreReset": return who(p) + " lost the whole score of " + ev.lost_score + "!";
        case "Banked": return simultaneous
          ? who(p) + " " + verb(p, "sit", "sits") + " down, banking " + ev.points + ": score " + ev.score
          : who(p) + " banked " + ev.points + " points: score " + ev.score;
        case "StayedStanding": return who(p) + " " + verb(p, "stay", "stays") + " standing";
        case "TurnStarted": return "Turn " + (ev.turn + 1) + ": " + who(p);
        case "Resigned":
          if (ev.claimed_by !== undefined && ev.claimed_by !== null) {
            const by = who(ev.claimed_by);
            const gone = who(p) + " " + verb(p, "were", "was") + " away too long and left the game: ";
            return gone + (ev.ends ? by + " claimed the win" : by + " " + verb(ev.claimed_by, "play", "plays") + " on without "
              + (isMe(p) ? "you" : "them"));
          }
          return who(p) + " resigned";
        case "TimedOut": return simultaneous
          ? who(p) + " ran out of time and " + verb(p, "sit", "sits") + " down with nothing"
          : who(p) + " ran out of time: the turn passes" + (ev.lost ? ", losing the turn total of " + ev.lost : "");
        case "FinalRoundStarted": return who(ev.by) + " reached the goal; last chance for " + lower(all(ev.players) || "nobody");
        case "GameOver": return "Game over: " + result(ev.winners);
        default: return ev.line || ev.type;
      }
    }

    return { who, whose, verb, all, line, effect, result, isMe };
  }

  const HOUSE_RULE = "The roll took everyone standing to the goal, so by the house rule they all sit down";
  return { list, speaker, HOUSE_RULE };
})();
