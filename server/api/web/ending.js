// The end of a game: what happened and why, the figures, whether the deal could have been won, and where to go
// next; shown above the table, so that it is in the first screen.

import { api, loadEvents } from "./api.js";
import { counted } from "./board.js";
import { actionsThatStood, timePlayed } from "./figures.js";
import { shareText } from "./players.js";

const $ = (id) => document.getElementById(id);

const ENDINGS = { won: "You won!", lost: "Game over", resigned: "You resigned" };

// `over`: the finished game; `stillShown()`: whether the table still shows it (the answers come later).
export async function showGameOver(over, stillShown) {
  $("game-over").hidden = false;
  $("game-over").dataset.game = over.id;
  $("game-over-title").textContent = ENDINGS[over.status];
  const reason = over.state.end_reason;
  $("game-over-why").textContent = over.status === "resigned" ? "You gave the game up."
    : `${reason[0].toUpperCase()}${reason.slice(1)}.`;
  $("same-deal").hidden = over.deal.kind !== "number";
  $("next-deal").textContent = over.deal.kind === "number" ? `Deal ${over.deal.deal_number + 1}` : "Another deal";
  $("game-over-title").focus({ preventScroll: true });
  // However far the page was scrolled (a phone's player at the foot of the table), the end is in view: scrolled to
  // once this turn's table is drawn, whose status line above the panel may change its height.
  const calm = matchMedia("(prefers-reduced-motion: reduce)").matches;
  requestAnimationFrame(() => $("game-over").scrollIntoView({ block: "nearest", behavior: calm ? "auto" : "smooth" }));
  $("game-over-figures").textContent = `${over.score} of 52 cards home.`;
  $("share-result").hidden = true;
  $("copy-status").textContent = "";
  $("game-over-analysis").textContent = "Was the deal winnable? Asking the solver…";
  try {
    const events = await loadEvents(over.id, 0);
    if (!stillShown()) return;
    const actions = actionsThatStood(events, over.undos);
    $("share-text").textContent = shareText(over, actions);
    $("share-result").hidden = false;
    const hints = over.hints ? `, ${counted(over.hints, "hint")}` : "";
    const undos = over.undos ? `, ${counted(over.undos, "undo")} (so on no board)` : "";
    $("game-over-figures").textContent = `${over.score} of 52 cards home, ${counted(actions, "action")}${hints}` +
      `${undos}, ${timePlayed(over)}.`;
    if (over.deal.kind === "daily" && !over.deal.server_seed) {
      $("game-over-analysis").textContent = "The solver's word on today's deal comes once the day closes, at " +
        "midnight UTC: until then it would show the deal to players still at it.";
      return;
    }
    const analysis = await api(`/games/${over.id}/analysis`);
    if (stillShown()) $("game-over-analysis").textContent = `Solver: ${analysis.summary}.`;
  } catch (error) {
    if (stillShown()) $("game-over-analysis").textContent = `No analysis: ${error.message}`;
  }
}
