// The reference front end. What is playable comes from the game's legal_actions alone (reasons.js only
// words a refusal), and everything it does goes through the public HTTP API, as any third party's front
// end would. Routes are the address's fragment: nothing (a table at once: the game in progress, or a new deal),
// #game=ID (a table), #replay=ID (a replay), #watch=ID (a replay following the game live), #tables (the
// lists), #player=NAME, #boards, #competitions, #competition=ID, so back and forward move between them.

import { api } from "./api.js";
import { describe, hintText, movesByCard, presetTitle, renderBoard, startRankOf } from "./board.js";
import { wireDragging } from "./dragging.js";
import { wireTapping } from "./tapping.js";
import { showGameOver } from "./ending.js";
import { markHint, sayBeside, unsay } from "./feedback.js";
import { countAppended, showFigures, stopFigures } from "./figures.js";
import { canFinish } from "./finishing.js";
import { showCompetition, showCompetitions, stopCompetition, wireCompetitions } from "./competitions.js";
import { dealName, listGamesInProgress, listMyGames, myGameIds, remember, tableTitle, tokenOf } from "./lists.js";
import { playDaily, wireMenu } from "./menu.js";
import { celebrate, dealt, placesOn, shake, travel } from "./motion.js";
import { showBoards, showDaily, showMe, showProfile, wirePlayers } from "./players.js";
import { sound } from "./sound.js";
import { naturalFoundation, whyNotHere } from "./reasons.js";
import { closeReplay, openReplay, replayShown, wireReplay } from "./replay.js";
import { loadSettings, saveSettings } from "./settings.js";
import { closeSettings, showSettings, toggleSettings, wireSettings } from "./table-settings.js";

const $ = (id) => document.getElementById(id);
const AUTO_MOVE_DELAY = 250; // milliseconds between auto-moves: slow enough to see each card go
const FINISH_STEP_DELAY = 120; // and between the cards a finish plays home
const FIRST_DEAL = { variant: "osmosis", winnable: true }; // what a first visit is dealt: a game that can be won

let game = null;      // the game body last received
let token = null;     // its player token, kept in localStorage by game id
let cellMode = false; // the next card clicked goes to the cell
let inFlight = false; // an action or hint is on its way: a double click or a repeated key sends nothing more
let finishing = false; // the finish is playing the cards home
let settings = loadSettings();
let autoMoveTimer = null;
let freshDeal = null; // the id of the game this page has just dealt: its first drawing deals from the stock
let afterUndo = false; // the player's last action was an undo: auto-move and auto-finish wait for their next one
let inFlightTap = null; // what the action on its way was asked by: {card} or {stock}
let nextTap = null;     // a tap on another card or the stock while it was on its way: played once it lands

// --- playing -----------------------------------------------------------------------------------------

function say(text, kind = "") {
  const status = $("status");
  status.textContent = text;
  status.className = kind;
}

function show(section) {
  for (const id of ["start", "table", "replay", "profile", "boards", "competitions", "competition"]) {
    $(id).hidden = id !== section;
  }
  if (section !== "table") {
    document.title = "Osmosis";
    stopFigures();
    closeSettings();
  }
  if (section !== "competition") stopCompetition();
}

function chosenMove(moves) {
  if (!moves) return null;
  const toCell = moves.find((m) => m.to === "cell");
  const toFoundation = moves.find((m) => m.to !== "cell");
  return cellMode ? toCell || toFoundation : toFoundation || toCell;
}

let descriptions = {}; // the presets' descriptions, by name

// Draws the game as it now is; `dropped` ({card, rect}): a card let go away from its place, which travels from there.
function renderGame(dropped = null) {
  const board = $("board");
  const before = board.dataset.game === game.id ? placesOn(board) : null;
  $("table-title").textContent = tableTitle(game);
  document.title = `${tableTitle(game)} · Osmosis`;
  $("game-id").textContent = game.id;
  $("table-about").textContent = game.variant
    ? `${presetTitle(game.variant)}, ${dealName(game.deal)}: ${descriptions[game.variant]}`
    : `Custom rules (draw ${game.rules.draw}), ${dealName(game.deal)}.`;
  $("table").dataset.version = game.version;
  const drawAction = stockAction();
  const play = game.status === "playing"
    ? { chosen: chosenMove, onPlay: playCard, onRefused: explainRefusal, onDraw: draw, drawAction }
    : null;
  // The end panel, above the table, is in place before the cards travel: they travel to where they end up.
  if (game.status !== "playing") $("confirm-resign").hidden = true;
  if (game.status === "playing") $("game-over").hidden = true;
  else if ($("game-over").hidden || $("game-over").dataset.game !== game.id) {
    const over = game;
    showGameOver(over, () => game === over);
  }
  // A won table ends tidy, each foundation ace to king, whatever order the cards were played in.
  const foundationOrder = game.status === "won" ? "rank" : settings.foundationOrder;
  renderBoard(board, game.state, game.legal_actions,
    { play, freeCells: game.rules.free_cells > 0, foundationOrder, groupWaste: game.rules.waste_access === "group",
      startRank: startRankOf(game.rules, game.state) });
  if (before) travel(board, before, dropped);
  else if (freshDeal === game.id) dealt(board); // dealt here, not a game reloaded
  freshDeal = null;
  board.dataset.game = game.id;
  unsay();
  showSettings(settings);
  showFigures(game, settings.showFigures);
  $("draw").disabled = !drawAction;
  $("draw").querySelector(".word").textContent = drawAction?.kind === "redeal" ? "Redeal" : "Draw";
  $("cell-mode").hidden = !game.rules.free_cells;
  $("cell-mode").setAttribute("aria-pressed", String(cellMode));
  $("resign").disabled = $("ask-hint").disabled = game.status !== "playing";
  $("undo").disabled = !game.can_undo;
  $("undo").title = game.deal.kind === "daily" || game.competition
    ? "A daily deal's or a competition's actions are final: no undo" : "Take back your last action (U or Ctrl+Z)";
  $("finish").hidden = !canFinish(game);
  $("finish").disabled = finishing;
  $("draw").classList.remove("hinted");
  if (game.status === "won") say("You won! All 52 cards are on the foundations.", "won");
  else if (game.status === "lost") say(`Game over: ${game.state.end_reason}.`, "lost");
  else if (game.status === "resigned") say("You resigned.", "lost");
  // After an undo nothing plays by itself until the player acts: auto-move would put the card taken back straight back.
  if (afterUndo) return;
  if (settings.autoFinish && !$("finish").hidden && !finishing) finish();
  else scheduleAutoMove();
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
  if (!settings.autoMove || finishing || game.status !== "playing") return;
  const move = onlyPlaceMove();
  if (!move) return;
  const version = game.version;
  autoMoveTimer = setTimeout(() => {
    if (settings.autoMove && !$("table").hidden && game.version === version) act(move, { auto: true });
  }, AUTO_MOVE_DELAY);
}

// Nothing hidden is left and every card can go home: they are played home one after another, each a legal action
// of the game as the server last listed it. Whatever stops it (a refusal, another tab) leaves the game to the player.
async function finish() {
  if (finishing) return;
  finishing = true;
  $("finish").disabled = true;
  clearTimeout(autoMoveTimer);
  try {
    while (game.status === "playing" && !$("table").hidden) {
      const move = game.legal_actions.find((action) => action.kind === "move" && action.to !== "cell");
      if (!move || !(await act(move, { finishStep: true }))) break;
      await new Promise((done) => setTimeout(done, FINISH_STEP_DELAY));
    }
  } finally {
    finishing = false;
    if (game.status === "playing") renderGame();
  }
}

function changeSettings(changes) {
  settings = { ...loadSettings(), ...changes }; // the menu keeps its own setting there too
  saveSettings(settings);
  showDeck();
  renderGame();
}

// The deck's colours, on the whole page: the table, the replay and the end panel alike.
function showDeck() {
  document.documentElement.classList.toggle("four-colour", settings.fourColour);
}

// The same rules again, a winnable deal again if this one was.
async function dealAgain(dealNumber) {
  const body = { rules: game.rules };
  if (dealNumber !== null) body.deal_number = dealNumber;
  if (game.deal.winnable) body.winnable = true;
  await deal(body, (error) => say(error.message, "error"));
}

async function deal(body, onError) {
  try {
    game = await api("/games", { method: "POST", body });
    token = game.player_token;
    freshDeal = game.id;
    afterUndo = false;
    remember(game);
    location.hash = `game=${game.id}`; // the route then shows the table
    return true;
  } catch (error) {
    onError(error);
    return false;
  }
}

// Every action is one of the game's legal actions (or a resignation, or an undo), posted as the game listed it, for
// the version it was listed at: a stale tab is refused (412) instead of acting on a position it never showed.
// Whatever the server refuses, the table then shows the game as the server has it, with the reason.
// True when the action was taken.
async function act(action, { auto = false, dropped = null, finishStep = false, undoing = false } = {}) {
  if (!action || inFlight || (finishing && !finishStep)) return false;
  inFlight = true;
  inFlightTap = action.kind === "move" ? { card: action.card } : action.kind === "deal" || action.kind === "redeal"
    ? { stock: true } : null;
  try {
    const body = { action, expected_version: game.version };
    const result = await api(`/games/${game.id}/actions`, { method: "POST", body, token });
    const wasPlaying = game.status === "playing";
    countAppended(game.id, game.version, result.game.version, result.events);
    game = result.game;
    cellMode = false;
    if (game.status === "playing") say(`${auto ? "Auto-move: " : finishStep ? "Finishing: " : ""}${describe(result.events[0])}`);
    if (!auto && !finishStep) afterUndo = undoing;
    renderGame(dropped);
    if (wasPlaying && game.status === "won") celebrate($("board"));
    sound(game.status === "won" ? "won" : action.kind === "deal" || action.kind === "redeal" ? "drawn" : "placed", settings.sound);
    const first = document.querySelector("#board .playable");
    if (first && document.activeElement === document.body) first.focus();
    return true;
  } catch (error) {
    const stale = error.problem?.code === "version-conflict";
    try {
      game = await api(`/games/${game.id}`);
      renderGame();
    } catch (reload) {
      say(`${error.message} (and the game could not be reloaded: ${reload.message})`, "error");
      return false;
    }
    say(stale ? "The game moved on in another tab or window: this is where it is now."
      : `The server refused: ${error.message}. This is the game as it stands.`, "error");
    return false;
  } finally {
    inFlight = false;
    inFlightTap = null;
    if (nextTap) setTimeout(playNextTap, 0);
  }
}

// A click on a card that cannot move sends nothing: the card shakes, and why is said beside it.
function explainRefusal(code) {
  if (inFlight) return;
  const reason = whyNotHere(game, code);
  if (!reason) return;
  const card = $("board").querySelector(`.card[data-card="${code}"]`);
  say(reason, "error");
  sayBeside(card, reason);
  shake(card);
  sound("refused", settings.sound);
}

// A card dropped on a place: played there if the rules allow it; else it goes back to its place, shaking, and why
// is said beside the place it was dropped on (or, dropped nowhere, beside its natural foundation), and nothing is sent.
function dropCard(code, target, rect) {
  if (inFlight || game.status !== "playing") return;
  const board = $("board");
  const move = target && game.legal_actions.find((a) => a.kind === "move" && a.card === code && a.to === target);
  if (move) return act(move, { dropped: { card: code, rect } });
  const meant = target ?? `F${naturalFoundation(game, code) + 1}`;
  const reason = whyNotHere(game, code, meant);
  say(reason, "error");
  const place = board.querySelector(`[data-target="${meant}"]`);
  sayBeside(place.querySelector(".card:last-of-type, .empty") ?? place, reason);
  shake(board.querySelector(`.card[data-card="${code}"]`), rect);
  sound("refused", settings.sound);
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
    markHint($("board"), result.hint.action);
  } catch (error) {
    say(error.message, "error");
    $("ask-hint").disabled = game.status !== "playing";
  } finally {
    inFlight = false;
  }
}

// Takes back the latest action not taken back yet: an event of its own in the log, and the cards travel back.
function undo() {
  if ($("undo").disabled || finishing) return;
  clearTimeout(autoMoveTimer);
  return act({ kind: "undo" }, { undoing: true });
}

function playCard(code) {
  if (inFlight) return tapWhileInFlight({ card: code });
  const move = chosenMove(movesByCard(game.legal_actions).get(code));
  if (move) act(move);
}

function draw() {
  if (inFlight) return tapWhileInFlight({ stock: true });
  act(stockAction());
}

// A finger is quicker than the server: a tap on another card, or on the stock, while an action is on its way (a card
// just dropped) is played once that action lands, on the game as it then is. A second tap on the same card or on the
// stock is the same wish twice (a double click), and is dropped.
function tapWhileInFlight(tap) {
  const same = (tap.card && tap.card === inFlightTap?.card) || (tap.stock && inFlightTap?.stock);
  if (!same) nextTap = tap;
}

function playNextTap() {
  const tap = nextTap;
  nextTap = null;
  if (!tap || game.status !== "playing" || $("table").hidden) return;
  if (tap.stock && stockAction()) act(stockAction());
  else if (tap.card) playCard(tap.card);
}

function stockAction() {
  return game.legal_actions.find((action) => action.kind === "deal" || action.kind === "redeal");
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
    afterUndo = false;
    say(game.status === "playing" ? "Welcome back: your move." : "");
  }
  closeReplay();
  show("table");
  $("deal-menu").open = false; // the table takes the first screen
  if (game.version === 1 && game.status === "playing") say("Your move: drag a lit card to its place or click it, or click the stock to draw.");
  renderGame();
}

// No address: a table at once, the newest game this browser is playing, or else a new deal.
async function showTableAtOnce() {
  const newest = myGameIds()[0];
  if (newest) {
    try {
      const kept = await api(`/games/${newest}`);
      if (kept.status === "playing") {
        location.replace(`#game=${newest}`);
        return;
      }
    } catch {
      // gone or unreadable: a new deal instead
    }
  }
  await deal(FIRST_DEAL, (error) => showStart(`No game could be dealt: ${error.message}`));
}

async function showReplay(id, { live = false } = {}) {
  if (!$("replay").hidden && replayShown(id)) return;
  const opened = await openReplay(id, { live, onError: (error) => showStart(`Replay of ${id}: ${error.message}`) });
  if (opened) {
    show("replay");
    $("replay-title").focus(); // off the table's button that opened it, which is hidden now
  }
}

// The tables: the lists, with the menu open, since choosing a game is what this page is for.
async function showStart(problem = "") {
  closeReplay();
  show("start");
  $("deal-menu").open = true;
  $("start-problem").textContent = problem;
  await Promise.all([listMyGames(), listGamesInProgress(), showMe().then(() => showDaily(playDaily))]);
}

async function showPage(section, fill) {
  closeReplay();
  show(section);
  try {
    await fill();
  } catch (error) {
    return showStart(error.message);
  }
  $(section === "profile" ? "profile-name" : `${section}-title`).focus();
}

async function route() {
  const [kind, id] = location.hash.slice(1).split("=");
  if (kind === "game" && id) await showTable(id);
  else if (kind === "replay" && id) await showReplay(id);
  else if (kind === "watch" && id) await showReplay(id, { live: true });
  else if (kind === "player" && id) await showPage("profile", () => showProfile(decodeURIComponent(id)));
  else if (kind === "boards") await showPage("boards", showBoards);
  else if (kind === "competitions") await showPage("competitions", showCompetitions);
  else if (kind === "competition" && id) await showPage("competition", () => showCompetition(id));
  else if (kind === "") await showTableAtOnce();
  else await showStart();
}

// --- wiring --------------------------------------------------------------------------------------------

function wireTable() {
  $("draw").addEventListener("click", draw);
  $("resign").addEventListener("click", () => { $("confirm-resign").hidden = false; $("resign-no").focus(); });
  $("resign-no").addEventListener("click", () => { $("confirm-resign").hidden = true; $("resign").focus(); });
  $("resign-yes").addEventListener("click", () => { $("confirm-resign").hidden = true; act({ kind: "resign" }); });
  $("ask-hint").addEventListener("click", askForHint);
  $("undo").addEventListener("click", undo);
  $("finish").addEventListener("click", finish);
  wireSettings(changeSettings);
  wireDragging($("board"), dropCard, explainRefusal);
  wireTapping(document);
  $("cell-mode").addEventListener("click", () => { cellMode = !cellMode; renderGame(); });
  $("show-replay").addEventListener("click", () => { location.hash = `replay=${game.id}`; });
  $("over-replay").addEventListener("click", () => { location.hash = `replay=${game.id}`; });
  $("same-deal").addEventListener("click", () => dealAgain(game.deal.deal_number));
  $("next-deal").addEventListener("click", () => dealAgain(game.deal.kind === "number" ? game.deal.deal_number + 1 : null));
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
    if (event.repeat || typedIntoAField(event.target) || $("table").hidden) return;
    // A list of the table's settings keeps focus once chosen from: its own search by letter must not take the key.
    if (event.target.tagName === "SELECT" && TABLE_KEYS.has(event.key.toLowerCase())) event.preventDefault();
    if (event.key === "d" && !$("draw").disabled) act(stockAction());
    if (event.key === "c" && game.rules.free_cells) { cellMode = !cellMode; renderGame(); }
    if (event.key === "h" && !$("ask-hint").disabled) askForHint();
    if ((event.key === "u" && !event.ctrlKey && !event.metaKey) || (event.key === "z" && (event.ctrlKey || event.metaKey))) {
      event.preventDefault();
      undo();
    }
    if (event.key === "f" && !$("finish").hidden) finish();
    if (event.key === "r") location.hash = `replay=${game.id}`;
    if (event.key === "s") toggleSettings();
  });
}

const TABLE_KEYS = new Set(["d", "c", "h", "u", "z", "f", "r", "s"]);

// Keys typed into a field are the field's: a deal number, a game's id, a choice in a form. A tick box, or a list of
// the table's own settings, takes no letter: after one is changed the table's keys go on working.
function typedIntoAField(target) {
  if (target.closest("form, textarea, [contenteditable]")) return true;
  return target.tagName === "INPUT" && !["checkbox", "radio", "button", "range"].includes(target.type);
}

// Every form is wired before the first request goes out: a quick hand never submits one to the page itself.
async function start() {
  showDeck();
  wireTable();
  $("open-replay").addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = `replay=${$("replay-id").value.trim()}`;
  });
  $("refresh-in-progress").addEventListener("click", listGamesInProgress);
  $("leave-replay").addEventListener("click", () => { location.hash = "tables"; });
  wireReplay();
  wirePlayers();
  const { variants } = await api("/variants");
  descriptions = Object.fromEntries(variants.map((variant) => [variant.name, variant.description]));
  wireMenu(variants, deal);
  wireCompetitions(variants);
  window.addEventListener("hashchange", route);
  await route();
}

start();
