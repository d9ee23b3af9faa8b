// The table's clock and count, in its head: the time since the game began (ticking while it is on; a competition
// game's: the time left on the entrant's clock), its actions
// (the line that stood: moves, deals and redeals, less those taken back), and its cards home.

import { loadEvents } from "./api.js";
import { counted } from "./board.js";

const $ = (id) => document.getElementById(id);
// Actions as the server counts them everywhere (boards, a player's page, service/players/stats.py): moves, deals
// and redeals, not a resignation or a hint.
const COUNTED = new Set(["card_played", "card_moved_to_cell", "cards_dealt", "waste_redealt"]);

// The actions of a game's line that stood: those its log holds, less the ones its undos took back.
export function actionsThatStood(events, undos) {
  return events.filter((event) => COUNTED.has(event.kind)).length - undos;
}

let tally = null; // {id, version, logged}: the actions the game's log holds up to `version`, taken back or not
let shown = null; // the game the head shows
let ticking = null;

// "0:07", "12:30", "1:02:03".
export function clockText(seconds) {
  const [hours, minutes] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60];
  const ss = String(seconds % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${ss}` : `${minutes}:${ss}`;
}

// The time a game took, as the table's clock showed it at its end.
export function timePlayed(game) {
  return clockText(Math.max(0, Math.floor((Date.parse(game.updated_at) - Date.parse(game.created_at)) / 1000)));
}

// The events an action's answer appended to the game at `fromVersion`: counted without reading the log again.
export function countAppended(id, fromVersion, toVersion, events) {
  if (tally && tally.id === id && tally.version === fromVersion) {
    tally = { id, version: toVersion, logged: tally.logged + events.filter((event) => COUNTED.has(event.kind)).length };
  }
}

export function showFigures(game, visible) {
  shown = game;
  $("game-figures").hidden = !visible;
  $("figure-home").textContent = `${game.score} of 52 home`;
  tick();
  clearInterval(ticking);
  ticking = visible && game.status === "playing" ? setInterval(tick, 1000) : null;
  if (tally && tally.id === game.id && tally.version === game.version) {
    $("figure-actions").textContent = counted(tally.logged - game.undos, "action");
    return;
  }
  const { id, version } = game;
  loadEvents(id, 0).then((events) => {
    const upto = events.filter((event) => event.seq <= version);
    tally = { id, version, logged: upto.filter((event) => COUNTED.has(event.kind)).length };
    if (shown === game) $("figure-actions").textContent = counted(tally.logged - game.undos, "action");
  }, () => { if (shown === game) $("figure-actions").textContent = ""; });
}

export function stopFigures() {
  clearInterval(ticking);
  ticking = null;
}

function tick() {
  if (!shown) return;
  const clock = shown.competition;
  $("figure-clock").setAttribute("aria-label", clock && shown.status === "playing" ? "time left" : "time played");
  if (clock && shown.status === "playing") {
    const left = Math.max(0, Math.ceil((Date.parse(clock.deadline) - Date.now()) / 1000));
    $("figure-clock").textContent = `${clockText(left)} left`;
    $("figure-clock").classList.toggle("running-out", left <= 30);
    return;
  }
  $("figure-clock").classList.remove("running-out");
  $("figure-clock").textContent = shown.status === "playing"
    ? clockText(Math.max(0, Math.floor((Date.now() - Date.parse(shown.created_at)) / 1000)))
    : timePlayed(shown);
}
