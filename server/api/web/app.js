// The reference front end. What is playable comes from the game's legal_actions alone (reasons.js only
// words a refusal), and everything it does goes through the public HTTP API, as any third party's front
// end would. Routes are the address's fragment: #game=ID (a table), #replay=ID (a replay), #watch=ID (a
// replay following the game live), nothing (the start page), so back and forward move between them.

import { api, loadEvents } from "./api.js";
import { counted, describe, hintText, movesByCard, renderBoard } from "./board.js";
import { wireDragging } from "./dragging.js";
import { whyNot } from "./reasons.js";
import { dealName, listGamesInProgress, listMyGames, remember, tableTitle, tokenOf } from "./lists.js";
import { shareText, showBoards, showDaily, showMe, showProfile, wirePlayers } from "./players.js";
import { closeReplay, openReplay, replayShown, wireReplay } from "./replay.js";
import { loadSettings, saveSettings } from "./settings.js";

const $ = (id) => document.getElementById(id);
const AUTO_MOVE_DELAY = 250; // milliseconds between auto-moves: slow enough to see each card go

let game = null;      // the game body last received
let token = null;     // its player token, kept in localStorage by game id
let cellMode = false; // the next card clicked goes to the cell
let inFlight = false; // an action or hint is on its way: a double click or a repeated key sends nothing more
let settings = loadSettings();
let autoMoveTimer = null;

// --- playing -----------------------------------------------------------------------------------------

function say(text, kind = "") {
  const status = $("status");
  status.textContent = text;
  status.className = kind;
}

function show(section) {
  for (const id of ["start", "table", "replay", "profile", "boards"]) $(id).hidden = id !== section;
  if (section !== "table") document.title = "Osmosis";
}

function chosenMove(moves) {
  if (!moves) return null;
  const toCell = moves.find((m) => m.to === "cell");
  const toFoundation = moves.find((m) => m.to !== "cell");
  return cellMode ? toCell || toFoundation : toFoundation || toCell;
}

let descriptions = {}; // the presets' descriptions, by name

function renderGame() {
  $("table-title").textContent = tableTitle(game);
  document.title = `${tableTitle(game)} · Osmosis`;
  $("game-id").textContent = game.id;
  $("table-about").textContent = game.variant
    ? `${game.variant}, ${dealName(game.deal)}: ${descriptions[game.variant]}`
    : `Custom rules (draw ${game.rules.draw}), ${dealName(game.deal)}.`;
  $("table").dataset.version = game.version;
  const drawAction = stockAction();
  const play = game.status === "playing"
    ? { chosen: chosenMove, onPlay: playCard, onRefused: explainRefusal, onDraw: () => act(drawAction), drawAction }
    : null;
  // A won table ends tidy, each foundation ace to king, whatever order the cards were played in.
  const foundationOrder = game.status === "won" ? "rank" : settings.foundationOrder;
  renderBoard($("board"), game.state, game.legal_actions,
    { play, freeCells: game.rules.free_cells > 0, foundationOrder, groupWaste: game.rules.waste_access === "group" });
  $("auto-move").checked = settings.autoMove;
  $("foundation-order").value = settings.foundationOrder;
  $("draw").disabled = !drawAction;
  $("draw").firstChild.textContent = drawAction?.kind === "redeal" ? "Redeal " : "Draw ";
  $("cell-mode").hidden = !game.rules.free_cells;
  $("cell-mode").setAttribute("aria-pressed", String(cellMode));
  $("resign").disabled = $("ask-hint").disabled = game.status !== "playing";
  $("draw").classList.remove("hinted");
  if (game.status !== "playing") $("confirm-resign").hidden = true;
  if (game.status === "playing") $("game-over").hidden = true;
  else if ($("game-over").hidden || $("game-over").dataset.game !== game.id) showGameOver();
  if (game.status === "won") say("You won! All 52 cards are on the foundations.", "won");
  else if (game.status === "lost") say(`Game over: ${game.state.end_reason}.`, "lost");
  else if (game.status === "resigned") say("You resigned.", "lost");
  scheduleAutoMove();
}

// A card that can go only one place (one foundation, and no cell to choose instead) is played for the
// player when auto-move is on, one card at a time, each announced.
function onlyPlaceMove() {
  for (const moves of movesByCard(game.legal_actions).values()) {
    if (moves.length === 1 && moves[0].to !== "cell") return moves[0];
  }
  return null;
}

function scheduleAutoMove() {
  clearTimeout(autoMoveTimer);
  if (!settings.autoMove || game.status !== "playing") return;
  const move = onlyPlaceMove();
  if (!move) return;
  const version = game.version;
  autoMoveTimer = setTimeout(() => {
    if (settings.autoMove && !$("table").hidden && game.version === version) act(move, { auto: true });
  }, AUTO_MOVE_DELAY);
}

function changeSettings(changes) {
  settings = { ...settings, ...changes };
  saveSettings(settings);
  renderGame();
}

// Actions as the server counts them everywhere (boards, a player's page, service/players/stats.py): moves, deals and
// redeals, not a resignation or a hint.
const COUNTED_ACTIONS = new Set(["card_played", "card_moved_to_cell", "cards_dealt", "waste_redealt"]);
const ENDINGS = { won: "You won!", lost: "Game over", resigned: "You resigned" };

function duration(from, to) {
  const seconds = Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

// The end of a game: what happened and why, the figures, whether the deal could have been won, and
// where to go next.
async function showGameOver() {
  const over = game;
  $("game-over").hidden = false;
  $("game-over").dataset.game = over.id;
  $("game-over-title").textContent = ENDINGS[over.status];
  const reason = over.state.end_reason;
  $("game-over-why").textContent = over.status === "resigned" ? "You gave the game up."
    : `${reason[0].toUpperCase()}${reason.slice(1)}.`;
  $("same-deal").hidden = over.deal.kind !== "number";
  $("next-deal").textContent = over.deal.kind === "number" ? `Deal ${over.deal.deal_number + 1}` : "Another deal";
  $("game-over-title").focus();
  $("game-over-figures").textContent = `${over.score} of 52 cards home.`;
  $("share-result").hidden = true;
  $("copy-status").textContent = "";
  $("game-over-analysis").textContent = "Was the deal winnable? Asking the solver…";
  try {
    const events = await loadEvents(over.id, 0);
    if (game !== over) return;
    const actions = events.filter((event) => COUNTED_ACTIONS.has(event.kind)).length;
    if (over.deal.kind === "daily") {
      $("share-text").textContent = shareText(over, actions);
      $("share-result").hidden = false;
    }
    const hints = over.hints ? `, ${counted(over.hints, "hint")}` : "";
    $("game-over-figures").textContent = `${over.score} of 52 cards home, ${counted(actions, "action")}${hints}, ` +
      `${duration(over.created_at, over.updated_at)}.`;
    if (over.deal.kind === "daily" && !over.deal.server_seed) {
      $("game-over-analysis").textContent = "The solver's word on today's deal comes once the day closes, at " +
        "midnight UTC: until then it would show the deal to players still at it.";
      return;
    }
    const analysis = await api(`/games/${over.id}/analysis`);
    if (game !== over) return;
    $("game-over-analysis").textContent = `Solver: ${analysis.summary}.`;
  } catch (error) {
    if (game === over) $("game-over-analysis").textContent = `No analysis: ${error.message}`;
  }
}

async function dealAgain(dealNumber) {
  const body = { rules: game.rules };
  if (dealNumber !== null) body.deal_number = dealNumber;
  try {
    game = await api("/games", { method: "POST", body });
    token = game.player_token;
    remember(game);
    location.hash = `game=${game.id}`;
  } catch (error) {
    say(error.message, "error");
  }
}

// Every action is one of the game's legal actions (or a resignation), posted as the game listed it, for
// the version it was listed at: a stale tab is refused (412) instead of acting on a position it never showed.
// Whatever the server refuses, the table then shows the game as the server has it, with the reason.
async function act(action, { auto = false } = {}) {
  if (!action || inFlight) return;
  inFlight = true;
  try {
    const body = { action, expected_version: game.version };
    const result = await api(`/games/${game.id}/actions`, { method: "POST", body, token });
    game = result.game;
    cellMode = false;
    if (game.status === "playing") say(`${auto ? "Auto-move: " : ""}${describe(result.events[0])}`);
    renderGame();
    const first = document.querySelector("#board .playable");
    if (first && document.activeElement === document.body) first.focus();
  } catch (error) {
    const stale = error.problem?.code === "version-conflict";
    try {
      game = await api(`/games/${game.id}`);
      renderGame();
    } catch (reload) {
      say(`${error.message} (and the game could not be reloaded: ${reload.message})`, "error");
      return;
    }
    say(stale ? "The game moved on in another tab or window: this is where it is now."
      : `The server refused: ${error.message}. This is the game as it stands.`, "error");
  } finally {
    inFlight = false;
  }
}

// A click on a card that cannot move sends nothing: it says why, in the server's words.
function explainRefusal(code) {
  if (inFlight) return;
  const reason = whyNot(game, code);
  if (reason) say(reason, "error");
}

// A card dropped on a place: played there if the rules allow it, else the reason, and nothing is sent.
function dropCard(code, target) {
  if (!target || inFlight || game.status !== "playing") return;
  const move = game.legal_actions.find((a) => a.kind === "move" && a.card === code && a.to === target);
  if (move) act(move);
  else say(whyNot(game, code, target), "error");
}

// A hint is worked out by the server from what the player has seen, and is logged in the game's record.
async function askForHint() {
  if (inFlight) return;
  inFlight = true;
  $("ask-hint").disabled = true;
  say("Thinking…");
  try {
    const result = await api(`/games/${game.id}/hint`, { method: "POST", body: { expected_version: game.version }, token });
    game = result.game;
    renderGame();
    say(`Hint: ${hintText(result.hint)}.`);
    const action = result.hint.action;
    if (action?.kind === "move") document.querySelector(`#board .card[data-card="${action.card}"]`)?.classList.add("hinted");
    else if (action) $("draw").classList.add("hinted");
  } catch (error) {
    say(error.message, "error");
    $("ask-hint").disabled = game.status !== "playing";
  } finally {
    inFlight = false;
  }
}

function playCard(code) {
  const move = chosenMove(movesByCard(game.legal_actions).get(code));
  if (move) act(move);
}

function stockAction() {
  return game.legal_actions.find((action) => action.kind === "deal" || action.kind === "redeal");
}

async function newGame(event) {
  event.preventDefault();
  const body = { variant: $("variant").value };
  const number = $("deal-number").value.trim();
  if (number !== "") body.deal_number = Number(number);
  try {
    game = await api("/games", { method: "POST", body });
    token = game.player_token;
    remember(game);
    location.hash = `game=${game.id}`; // the route then shows the table
  } catch (error) {
    $("variant-description").textContent = error.message;
  }
}

async function showTable(id) {
  token = tokenOf(id);
  if (!token) return showReplay(id); // not this browser's game: it can only be watched
  if (!game || game.id !== id) {
    try {
      game = await api(`/games/${id}`);
    } catch (error) {
      return showStart(`Game ${id}: ${error.message}`);
    }
    say(game.status === "playing" ? "Welcome back: your move." : "");
  }
  closeReplay();
  show("table");
  if (game.version === 1 && game.status === "playing") say("Your move: drag a lit card to its place or click it, or click the stock to draw.");
  renderGame();
}

async function showReplay(id, { live = false } = {}) {
  if (!$("replay").hidden && replayShown(id)) return;
  const opened = await openReplay(id, { live, onError: (error) => showStart(`Replay of ${id}: ${error.message}`) });
  if (opened) {
    show("replay");
    $("replay-title").focus(); // off the table's button that opened it, which is hidden now
  }
}

async function showStart(problem = "") {
  closeReplay();
  show("start");
  $("start-problem").textContent = problem;
  await Promise.all([listMyGames(), listGamesInProgress(), showMe().then(() => showDaily(playDaily))]);
}

// Today's deal of a preset, as the player whose API token this browser keeps: one attempt a day.
async function playDaily(variant) {
  try {
    game = await api("/games", { method: "POST", body: { variant, daily: true } });
    token = game.player_token;
    remember(game);
    location.hash = `game=${game.id}`;
  } catch (error) {
    $("start-problem").textContent = error.message;
  }
}

async function showPage(section, fill) {
  closeReplay();
  show(section);
  try {
    await fill();
  } catch (error) {
    return showStart(error.message);
  }
  $(section === "profile" ? "profile-name" : "boards-title").focus();
}

async function route() {
  const [kind, id] = location.hash.slice(1).split("=");
  if (kind === "game" && id) await showTable(id);
  else if (kind === "replay" && id) await showReplay(id);
  else if (kind === "watch" && id) await showReplay(id, { live: true });
  else if (kind === "player" && id) await showPage("profile", () => showProfile(decodeURIComponent(id)));
  else if (kind === "boards") await showPage("boards", showBoards);
  else await showStart();
}

// --- wiring --------------------------------------------------------------------------------------------

async function start() {
  const { variants } = await api("/variants");
  descriptions = Object.fromEntries(variants.map((variant) => [variant.name, variant.description]));
  for (const variant of variants) {
    const option = new Option(variant.name, variant.name);
    option.title = variant.description;
    $("variant").append(option);
    $("board-variant").append(new Option(variant.name, variant.name));
  }
  const describeVariant = () => {
    $("variant-description").textContent = variants.find((v) => v.name === $("variant").value).description;
  };
  $("variant").addEventListener("change", describeVariant);
  describeVariant();

  $("new-game").addEventListener("submit", newGame);
  $("open-replay").addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = `replay=${$("replay-id").value.trim()}`;
  });
  $("draw").addEventListener("click", () => act(stockAction()));
  $("resign").addEventListener("click", () => { $("confirm-resign").hidden = false; $("resign-no").focus(); });
  $("resign-no").addEventListener("click", () => { $("confirm-resign").hidden = true; $("resign").focus(); });
  $("resign-yes").addEventListener("click", () => { $("confirm-resign").hidden = true; act({ kind: "resign" }); });
  $("ask-hint").addEventListener("click", askForHint);
  $("auto-move").addEventListener("change", () => changeSettings({ autoMove: $("auto-move").checked }));
  $("foundation-order").addEventListener("change", () => changeSettings({ foundationOrder: $("foundation-order").value }));
  $("refresh-in-progress").addEventListener("click", listGamesInProgress);
  wireDragging($("board"), dropCard);
  $("cell-mode").addEventListener("click", () => { cellMode = !cellMode; renderGame(); });
  $("show-replay").addEventListener("click", () => { location.hash = `replay=${game.id}`; });
  $("over-replay").addEventListener("click", () => { location.hash = `replay=${game.id}`; });
  $("same-deal").addEventListener("click", () => dealAgain(game.deal.deal_number));
  $("next-deal").addEventListener("click", () => dealAgain(game.deal.kind === "number" ? game.deal.deal_number + 1 : null));
  $("again").addEventListener("click", () => { location.hash = ""; });
  $("leave-replay").addEventListener("click", () => { location.hash = ""; });
  wireReplay();
  wirePlayers();
  $("copy-result").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText($("share-text").textContent);
      $("copy-status").textContent = "Copied.";
    } catch {
      $("copy-status").textContent = "Select the text to copy it: this browser does not let the page write to the clipboard.";
    }
  });
  document.addEventListener("keydown", (event) => {
    // A held key repeats: it acts once, however fast the server answers.
    if (event.repeat || event.target.tagName === "INPUT" || event.target.tagName === "SELECT" || $("table").hidden) return;
    if (event.key === "d" && !$("draw").disabled) act(stockAction());
    if (event.key === "c" && game.rules.free_cells) { cellMode = !cellMode; renderGame(); }
    if (event.key === "h" && !$("ask-hint").disabled) askForHint();
    if (event.key === "r") location.hash = `replay=${game.id}`;
  });
  window.addEventListener("hashchange", route);
  await route();
}

start();
