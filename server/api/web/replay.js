// The replay viewer: any game's log, step by step, with the server's verdict and, once the game is over,
// the solver's analysis; it follows a game in progress through the event stream.

import { api, loadEvents } from "./api.js";
import { describe, renderBoard, startRankOf } from "./board.js";
import { tableTitle } from "./lists.js";
import { placesOn, travel } from "./motion.js";
import { showLogged } from "./transparency.js";

const $ = (id) => document.getElementById(id);
const SPEEDS = { slow: 1500, normal: 700, fast: 250 }; // milliseconds per event when playing itself

let replay = null; // {id, version, seq, events, status, source, analysis, timer}

// The cards an event moved, to highlight on the board after it.
function movedCards(event) {
  if (!event) return [];
  if (event.kind === "card_played" || event.kind === "card_moved_to_cell") return [event.data.card];
  if (event.kind === "cards_dealt") return event.data.cards;
  if (event.kind === "action_undone" && event.data.action.kind === "move") return [event.data.action.card];
  return [];
}

// `live`: follow the game as it is played, when it is still on.
export async function openReplay(id, { onError, live = false }) {
  closeReplay();
  try {
    const current = await api(`/games/${id}`);
    replay = { id, version: current.version, seq: 1, events: await loadEvents(id, 0), status: current.status, rules: current.rules };
    $("replay-deal").textContent = tableTitle(current);
  } catch (error) {
    onError(error);
    return false;
  }
  $("replay-game-id").textContent = id;
  $("follow").checked = false;
  $("follow").disabled = replay.status !== "playing";
  if (live && replay.status === "playing") {
    $("follow").checked = true;
    follow();
  }
  $("download").href = `/games/${id}/replay`;
  $("download").download = `osmosis-${id}.json`;
  $("share-link").value = `${location.origin}${location.pathname}#replay=${id}`;
  // A replay starts at the deal; a game followed live, at its latest position.
  await step(live && replay.status === "playing" ? replay.version : 1);
  // The verdict and the solver's analysis come when they come: the replay can be stepped meanwhile.
  showVerdict().catch((error) => { $("verdict").textContent = `No verdict: ${error.message}`; });
  return true;
}

export function closeReplay() {
  stopFollowing();
  stopPlaying();
  replay = null;
}

export function replayShown(id) {
  return replay !== null && replay.id === id;
}

async function step(seq) {
  if (!replay) return;
  replay.seq = Math.max(1, Math.min(replay.version, seq));
  const shown = replay.seq;
  let past;
  try {
    past = await api(`/games/${replay.id}/states/${shown}`);
  } catch (error) {
    $("event-text").textContent = `This position could not be loaded: ${error.message}`;
    stopPlaying();
    return;
  }
  if (!replay || replay.seq !== shown) return; // a later step overtook this one
  const board = $("replay-board");
  const before = board.dataset.game === replay.id ? placesOn(board) : null;
  renderBoard(board, past.state, past.legal_actions, { startRank: startRankOf(replay.rules, past.state) });
  board.dataset.game = replay.id;
  travel(board, before);
  $("position").textContent = `Event ${shown} of ${replay.version}`;
  const event = replay.events[shown - 1];
  showEventText();
  for (const card of movedCards(event)) {
    $("replay-board").querySelector(`.card[data-card="${card}"]`)?.classList.add("moved");
  }
  $("first").disabled = $("back").disabled = shown <= 1;
  $("forward").disabled = $("last").disabled = shown >= replay.version;
  if (shown >= replay.version) stopPlaying();
}

async function showVerdict() {
  const shown = replay;
  $("to-last-winnable").hidden = $("to-lost-by").hidden = true;
  $("verdict").textContent = "";
  $("verdict").className = "";
  $("logged").textContent = "";
  $("logged").className = "";
  showLogged(replay.id, $("logged"), () => replay === shown);
  if (replay.status === "playing") {
    $("verdict").textContent = "In progress: the verdict comes when the game is over.";
    $("analysis").textContent = "";
    return;
  }
  const verdict = await api(`/games/${replay.id}/verification`);
  if (replay !== shown) return; // another replay was opened meanwhile
  $("verdict").textContent = `Verification: ${verdict.summary}`;
  $("verdict").className = verdict.valid ? "won" : "error";
  await showAnalysis();
}

// The solver's analysis, once the game is over: was the deal winnable, and where was it lost.
async function showAnalysis() {
  const shown = replay;
  $("analysis").textContent = "Analysing the deal…";
  let analysis;
  try {
    analysis = await api(`/games/${shown.id}/analysis`);
  } catch (error) {
    if (replay === shown) $("analysis").textContent = `No analysis: ${error.message}`;
    return;
  }
  if (replay !== shown) return;
  replay.analysis = analysis;
  const { deal, summary, last_winnable: lastWinnable, lost_by: lostBy } = replay.analysis;
  const verdicts = { winnable: "The deal was winnable", unwinnable: "The deal could not be won", unknown: "Undecided" };
  const verdict = verdicts[deal.verdict];
  const said = summary.toLowerCase().startsWith(verdict.toLowerCase()); // "the deal could not be won: …" says it
  $("analysis").textContent = said ? `Solver: ${summary}.` : `Solver: ${verdict}: ${summary}.`;
  $("to-last-winnable").hidden = !lastWinnable;
  $("to-lost-by").hidden = !lostBy;
  showEventText();
}

function showEventText() {
  const event = replay.events[replay.seq - 1];
  $("event-text").textContent = event ? describe(event) + turningPoint(replay.seq) : "";
}

function turningPoint(seq) {
  const analysis = replay.analysis;
  if (analysis?.lost_by?.seq === seq) return " This lost the game: the position before it could still be won.";
  if (analysis?.last_winnable?.seq === seq) return " The last position that could still be won.";
  return "";
}

function follow() {
  stopFollowing();
  const source = new EventSource(`/games/${replay.id}/events/stream?after=${replay.version}`);
  // The stream opens with the game as it is now; the events after the replay's version follow it.
  source.addEventListener("game", (message) => { replay.status = JSON.parse(message.data).status; });
  source.onmessage = async (message) => {
    const event = JSON.parse(message.data);
    if (event.seq <= replay.events.length) return;
    replay.events.push(event);
    const atEnd = replay.seq === replay.version;
    replay.version = event.seq;
    if (event.kind === "seeds_revealed") { replay.status = "over"; stopFollowing(); await showVerdict(); }
    if (atEnd) await step(replay.version);
    else $("position").textContent = `Event ${replay.seq} of ${replay.version}`;
  };
  replay.source = source;
}

function stopFollowing() {
  if (replay && replay.source) { replay.source.close(); replay.source = null; }
}

function play() {
  stopPlaying();
  if (replay.seq >= replay.version) step(1);
  $("autoplay").textContent = "Pause";
  $("autoplay").setAttribute("aria-pressed", "true");
  replay.timer = setInterval(() => step(replay.seq + 1), SPEEDS[$("speed").value]);
}

function stopPlaying() {
  if (replay && replay.timer) { clearInterval(replay.timer); replay.timer = null; }
  $("autoplay").textContent = "Play";
  $("autoplay").setAttribute("aria-pressed", "false");
}

async function share() {
  $("share-link").hidden = false;
  $("share-link").select();
  try {
    await navigator.clipboard.writeText($("share-link").value);
    $("share-status").textContent = "Link copied.";
  } catch {
    $("share-status").textContent = "Copy the link above.";
  }
}

export function wireReplay() {
  $("first").addEventListener("click", () => step(1));
  $("back").addEventListener("click", () => step(replay.seq - 1));
  $("forward").addEventListener("click", () => step(replay.seq + 1));
  $("last").addEventListener("click", () => step(replay.version));
  $("autoplay").addEventListener("click", () => (replay.timer ? stopPlaying() : play()));
  $("speed").addEventListener("change", () => { if (replay.timer) play(); });
  $("follow").addEventListener("change", () => ($("follow").checked ? follow() : stopFollowing()));
  $("to-last-winnable").addEventListener("click", () => step(replay.analysis.last_winnable.seq));
  $("to-lost-by").addEventListener("click", () => step(replay.analysis.lost_by.seq));
  $("share").addEventListener("click", share);
  document.addEventListener("keydown", (event) => {
    if ($("replay").hidden || event.target.tagName === "INPUT" || event.target.tagName === "SELECT" || !replay) return;
    const moves = { ArrowLeft: replay.seq - 1, ArrowRight: replay.seq + 1, Home: 1, End: replay.version };
    if (event.key in moves) { event.preventDefault(); stopPlaying(); step(moves[event.key]); }
    if (event.key === " ") { event.preventDefault(); replay.timer ? stopPlaying() : play(); }
  });
}
