// The reference front end. It knows no rules: what is playable comes from the game's legal_actions,
// and everything it does goes through the public HTTP API, as any third party's front end would.

const SUITS = { C: ["♣", "clubs"], D: ["♦", "diamonds"], H: ["♥", "hearts"], S: ["♠", "spades"] };
const RANKS = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
const $ = (id) => document.getElementById(id);

let game = null;      // the game body last received
let token = null;     // its player token, kept in localStorage by game id
let cellMode = false; // the next card clicked goes to the cell
let replay = null;    // {id, version, seq, events, source, analysis}

// --- the API -------------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(problem) { super(problem.detail || problem.title); this.problem = problem; }
}

async function api(path, { method = "GET", body, auth = false } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (auth) headers["Authorization"] = `Bearer ${token}`;
  if (method === "POST") headers["Idempotency-Key"] = crypto.randomUUID();
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await response.json();
  if (!response.ok) throw new ApiError(data);
  return data;
}

// --- cards -----------------------------------------------------------------------------------------

function cardName(code) {
  return `${RANKS[code[0]] || code[0]} of ${SUITS[code[1]][1]}`;
}

function cardFace(code) {
  return `${code[0] === "T" ? "10" : code[0]}${SUITS[code[1]][0]}`;
}

function cardElement(code, action) {
  const red = code[1] === "D" || code[1] === "H";
  const element = document.createElement(action ? "button" : "span");
  element.className = `card${red ? " red" : ""}`;
  element.textContent = cardFace(code);
  element.dataset.card = code;
  if (action) {
    element.type = "button";
    element.classList.add("playable");
    element.setAttribute("aria-label", `${cardName(code)}: play ${action.to === "cell" ? "to the cell" : "to " + action.to}`);
    element.addEventListener("click", () => playCard(code));
  } else {
    element.setAttribute("role", "img");
    element.setAttribute("aria-label", cardName(code));
  }
  return element;
}

function backs(count) {
  const element = document.createElement("span");
  element.className = "card back";
  element.setAttribute("role", "img");
  element.setAttribute("aria-label", `${count} face-down card${count === 1 ? "" : "s"}`);
  element.textContent = count > 1 ? `×${count}` : "";
  return element;
}

// --- the board ---------------------------------------------------------------------------------------

function row(label, children, className) {
  const element = document.createElement("div");
  element.className = `row ${className}`;
  const name = document.createElement("span");
  name.className = "label";
  name.textContent = label;
  element.append(name, ...children);
  if (children.length === 0) {
    const empty = document.createElement("span");
    empty.className = "empty";
    empty.textContent = "empty";
    element.append(empty);
  }
  return element;
}

// Moves by card: a card may have a foundation move and a cell move.
function movesByCard(actions) {
  const moves = new Map();
  for (const action of actions) {
    if (action.kind !== "move") continue;
    if (!moves.has(action.card)) moves.set(action.card, []);
    moves.get(action.card).push(action);
  }
  return moves;
}

function chosenMove(moves) {
  if (!moves) return null;
  const toCell = moves.find((m) => m.to === "cell");
  const toFoundation = moves.find((m) => m.to !== "cell");
  return cellMode ? toCell || toFoundation : toFoundation || toCell;
}

function renderBoard(container, state, actions, interactive) {
  const moves = interactive ? movesByCard(actions) : new Map();
  const card = (code) => cardElement(code, chosenMove(moves.get(code)));
  const left = document.createElement("div");
  left.className = "reserves";
  state.reserves.forEach((pile, p) => {
    const cards = [...(pile.face_down ? [backs(pile.face_down)] : []), ...pile.face_up.map(card)];
    left.append(row(`R${p + 1}`, cards, "reserve"));
  });
  const right = document.createElement("div");
  right.className = "foundations";
  state.foundations.forEach((foundation, k) => {
    right.append(row(`F${k + 1}`, foundation.cards.map((code) => cardElement(code, null)), "foundation"));
  });
  const talon = document.createElement("div");
  talon.className = "talon";
  const stock = document.createElement("span");
  stock.className = "card back stock";
  stock.setAttribute("role", "img");
  stock.setAttribute("aria-label", `stock: ${state.stock_count} cards`);
  stock.textContent = state.stock_count;
  talon.append(row("Stock", [stock], "stock-row"));
  const shown = state.waste.slice(-6);
  talon.append(row(`Waste (${state.waste.length})`, shown.map((code, i) =>
    i === shown.length - 1 ? card(code) : cardElement(code, null)), "waste"));
  if (state.cell !== null || (game && game.rules.free_cells)) {
    talon.append(row("Cell", state.cell ? [card(state.cell)] : [], "cell"));
  }
  const passes = state.passes_left === null ? "unlimited passes" : `${state.passes_left} more pass(es)`;
  const info = document.createElement("p");
  info.className = "info";
  info.textContent = `Pass ${state.pass_number}, ${passes}. Base rank ${state.base_rank}.`;
  container.replaceChildren(left, right, talon, info);
}

// --- playing -----------------------------------------------------------------------------------------

function say(text, kind = "") {
  const status = $("status");
  status.textContent = text;
  status.className = kind;
}

function show(section) {
  for (const id of ["start", "table", "replay"]) $(id).hidden = id !== section;
}

function renderGame() {
  $("game-id").textContent = game.id;
  $("table").dataset.version = game.version;
  renderBoard($("board"), game.state, game.legal_actions, game.status === "playing");
  const canDraw = game.legal_actions.some((a) => a.kind === "deal" || a.kind === "redeal");
  $("draw").disabled = !canDraw;
  $("draw").firstChild.textContent = game.legal_actions.some((a) => a.kind === "redeal") ? "Redeal " : "Draw ";
  $("cell-mode").hidden = !game.rules.free_cells;
  $("cell-mode").setAttribute("aria-pressed", String(cellMode));
  $("resign").disabled = $("ask-hint").disabled = game.status !== "playing";
  $("draw").classList.remove("hinted");
  if (game.status !== "playing") $("confirm-resign").hidden = true;
  if (game.status === "won") say("You won! All 52 cards are on the foundations.", "won");
  else if (game.status === "lost") say(`Game over: ${game.state.end_reason}.`, "lost");
  else if (game.status === "resigned") say("You resigned.", "lost");
  location.hash = `game=${game.id}`;
}

// Every action is one of the game's legal actions (or a resignation), posted as the game listed it, for
// the version it was listed at: a stale tab is refused (412) instead of acting on a position it never showed.
async function act(action) {
  if (!action) return;
  try {
    const body = { action, expected_version: game.version };
    const result = await api(`/games/${game.id}/actions`, { method: "POST", body, auth: true });
    game = result.game;
    cellMode = false;
    if (game.status === "playing") say(describe(result.events[0]));
    renderGame();
    const first = document.querySelector("#board .playable");
    if (first && document.activeElement === document.body) first.focus();
  } catch (error) {
    if (error.problem?.code === "version-conflict") {
      game = await api(`/games/${game.id}`);
      renderGame();
      say("The game moved on in another tab or window: this is where it is now.", "error");
    } else {
      say(error.message, "error");
    }
  }
}

// A hint is worked out by the server from what the player has seen, and is logged in the game's record.
async function askForHint() {
  $("ask-hint").disabled = true;
  say("Thinking…");
  try {
    const result = await api(`/games/${game.id}/hint`, { method: "POST", body: { expected_version: game.version }, auth: true });
    game = result.game;
    renderGame();
    say(`Hint: ${hintText(result.hint)}.`);
    const action = result.hint.action;
    if (action?.kind === "move") document.querySelector(`#board .card[data-card="${action.card}"]`)?.classList.add("hinted");
    else if (action) $("draw").classList.add("hinted");
  } catch (error) {
    say(error.message, "error");
    $("ask-hint").disabled = game.status !== "playing";
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
    localStorage.setItem(`osmosis-token-${game.id}`, token);
    show("table");
    say("Your move: click a lit card to play it, or draw.");
    renderGame();
  } catch (error) {
    $("variant-description").textContent = error.message;
  }
}

async function resume(id) {
  token = localStorage.getItem(`osmosis-token-${id}`);
  if (!token) return openReplay(id);
  game = await api(`/games/${id}`);
  show("table");
  say(game.status === "playing" ? "Welcome back: your move." : "");
  renderGame();
}

// --- the replay viewer -------------------------------------------------------------------------------

function describe(event) {
  const d = event.data;
  switch (event.kind) {
    case "game_created": return `Dealt ${d.variant || "custom rules"}; base card ${d.opening.foundations[0].cards[0]}.`;
    case "card_played": return `${cardName(d.card)} from ${d.from} to ${d.to}${d.uncovered ? `, uncovering ${cardName(d.uncovered)}` : ""}.`;
    case "card_moved_to_cell": return `${cardName(d.card)} from ${d.from} to the cell.`;
    case "cards_dealt": return `Dealt ${d.cards.map(cardName).join(", ")}.`;
    case "waste_redealt": return `Redealt the waste: pass ${d.pass_number}.`;
    case "game_won": return "Won!";
    case "game_lost": return `Lost: ${d.reason}.`;
    case "game_resigned": return "Resigned.";
    case "seeds_revealed": return `Seeds revealed: server ${d.server_seed.slice(0, 16)}…, client "${d.client_seed}".`;
    case "hint_given": return `Hint asked: ${hintText(d)}.`;
    default: return event.kind;
  }
}

function actionText(action) {
  return action.kind === "move" ? `${cardName(action.card)} from ${action.from} to ${action.to}` : action.kind;
}

function hintText(hint) {
  if (hint.basis === "exact") {
    return hint.action ? `${actionText(hint.action)} (it wins)` : `no action wins (${hint.verdict})`;
  }
  const best = hint.estimates[0];
  return `${actionText(hint.action)} (won ${best.wins} of ${best.samples} guesses at the unseen cards)`;
}

async function loadEvents(id, after) {
  const events = [];
  let path = `/games/${id}/events?after=${after}&limit=1000`;
  for (;;) {
    const response = await fetch(path);
    const page = await response.json();
    if (!response.ok) throw new ApiError(page);
    events.push(...page.events);
    const link = response.headers.get("Link");
    if (!link) return events;
    path = link.match(/<([^>]+)>/)[1];
  }
}

async function openReplay(id) {
  stopFollowing();
  try {
    const current = await api(`/games/${id}`);
    replay = { id, version: current.version, seq: current.version, events: await loadEvents(id, 0), status: current.status };
  } catch (error) {
    $("variant-description").textContent = error.message;
    return;
  }
  $("replay-game-id").textContent = id;
  show("replay");
  location.hash = `replay=${id}`;
  $("follow").checked = false;
  $("follow").disabled = replay.status !== "playing";
  await step(replay.version);
  await showVerdict();
}

async function step(seq) {
  replay.seq = Math.max(1, Math.min(replay.version, seq));
  const past = await api(`/games/${replay.id}/states/${replay.seq}`);
  renderBoard($("replay-board"), past.state, past.legal_actions, false);
  $("position").textContent = `Event ${replay.seq} of ${replay.version}`;
  const event = replay.events[replay.seq - 1];
  $("event-text").textContent = event ? describe(event) + turningPoint(replay.seq) : "";
  $("first").disabled = $("back").disabled = replay.seq <= 1;
  $("forward").disabled = $("last").disabled = replay.seq >= replay.version;
}

async function showVerdict() {
  $("to-last-winnable").hidden = $("to-lost-by").hidden = true;
  if (replay.status === "playing") {
    $("verdict").textContent = "In progress: the verdict comes when the game is over.";
    $("analysis").textContent = "";
    return;
  }
  const verdict = await api(`/games/${replay.id}/verification`);
  $("verdict").textContent = `Verification: ${verdict.summary}`;
  $("verdict").className = verdict.valid ? "won" : "error";
  await showAnalysis();
}

// The solver's analysis, once the game is over: was the deal winnable, and where was it lost.
async function showAnalysis() {
  $("analysis").textContent = "Analysing the deal…";
  try {
    replay.analysis = await api(`/games/${replay.id}/analysis`);
  } catch (error) {
    $("analysis").textContent = `No analysis: ${error.message}`;
    return;
  }
  const { deal, summary, last_winnable: lastWinnable, lost_by: lostBy } = replay.analysis;
  const verdicts = { winnable: "The deal was winnable", unwinnable: "The deal could not be won", unknown: "Undecided" };
  $("analysis").textContent = `Solver: ${verdicts[deal.verdict]}: ${summary}.`;
  $("to-last-winnable").hidden = !lastWinnable;
  $("to-lost-by").hidden = !lostBy;
  await step(replay.seq);
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

// --- wiring --------------------------------------------------------------------------------------------

async function start() {
  const { variants } = await api("/variants");
  for (const variant of variants) {
    const option = new Option(variant.name, variant.name);
    option.title = variant.description;
    $("variant").append(option);
  }
  const describeVariant = () => {
    $("variant-description").textContent = variants.find((v) => v.name === $("variant").value).description;
  };
  $("variant").addEventListener("change", describeVariant);
  describeVariant();

  $("new-game").addEventListener("submit", newGame);
  $("open-replay").addEventListener("submit", (event) => { event.preventDefault(); openReplay($("replay-id").value.trim()); });
  $("draw").addEventListener("click", () => act(stockAction()));
  $("resign").addEventListener("click", () => { $("confirm-resign").hidden = false; $("resign-no").focus(); });
  $("resign-no").addEventListener("click", () => { $("confirm-resign").hidden = true; $("resign").focus(); });
  $("resign-yes").addEventListener("click", () => { $("confirm-resign").hidden = true; act({ kind: "resign" }); });
  $("ask-hint").addEventListener("click", askForHint);
  $("to-last-winnable").addEventListener("click", () => step(replay.analysis.last_winnable.seq));
  $("to-lost-by").addEventListener("click", () => step(replay.analysis.lost_by.seq));
  $("cell-mode").addEventListener("click", () => { cellMode = !cellMode; renderGame(); });
  $("show-replay").addEventListener("click", () => openReplay(game.id));
  $("again").addEventListener("click", () => { show("start"); location.hash = ""; });
  $("leave-replay").addEventListener("click", () => { stopFollowing(); show("start"); location.hash = ""; });
  $("first").addEventListener("click", () => step(1));
  $("back").addEventListener("click", () => step(replay.seq - 1));
  $("forward").addEventListener("click", () => step(replay.seq + 1));
  $("last").addEventListener("click", () => step(replay.version));
  $("follow").addEventListener("change", () => ($("follow").checked ? follow() : stopFollowing()));
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT" || $("table").hidden) return;
    if (event.key === "d" && !$("draw").disabled) act(stockAction());
    if (event.key === "c" && game.rules.free_cells) { cellMode = !cellMode; renderGame(); }
    if (event.key === "h" && !$("ask-hint").disabled) askForHint();
    if (event.key === "r") openReplay(game.id);
  });

  const [kind, id] = location.hash.slice(1).split("=");
  if (kind === "game" && id) await resume(id);
  else if (kind === "replay" && id) await openReplay(id);
}

start();
