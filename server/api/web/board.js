// Cards, the board and the words for events: drawn from a game's public view and legal actions only.

const SUITS = { C: ["♣", "clubs"], D: ["♦", "diamonds"], H: ["♥", "hearts"], S: ["♠", "spades"] };
const RANKS = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };

function cardName(code) {
  return `${RANKS[code[0]] || code[0]} of ${SUITS[code[1]][1]}`;
}

const SVG = "http://www.w3.org/2000/svg";

function drawn(name, attributes, ...children) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  element.append(...children);
  return element;
}

// A card's face, drawn: its rank and suit in the top-left corner and, upside down, the bottom-right one,
// and a large pip in the middle. The corner stays readable where cards overlap.
function cardFace(code) {
  const rank = code[0] === "T" ? "10" : code[0];
  const pip = SUITS[code[1]][0];
  const corner = () => drawn("g", { class: "corner" },
    drawn("text", { x: 4, y: 16, class: "index" }, rank),
    drawn("text", { x: 4, y: 30, class: "index-pip" }, pip));
  return drawn("svg", { viewBox: "0 0 60 84", class: "face", "aria-hidden": "true" },
    corner(),
    drawn("text", { x: 30, y: 56, class: "pip", "text-anchor": "middle" }, pip),
    drawn("g", { transform: "rotate(180 30 42)" }, corner()));
}

function cardElement(code, action, onPlay) {
  const red = code[1] === "D" || code[1] === "H";
  const element = document.createElement(action ? "button" : "span");
  element.className = `card${red ? " red" : ""}`;
  element.append(cardFace(code));
  element.dataset.card = code;
  if (action) {
    element.type = "button";
    element.classList.add("playable");
    element.setAttribute("aria-label", `${cardName(code)}: play ${action.to === "cell" ? "to the cell" : "to " + action.to}`);
    element.addEventListener("click", () => onPlay(code));
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
  element.textContent = `×${count}`; // alike for one card or three: the count is what differs
  return element;
}

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
export function movesByCard(actions) {
  const moves = new Map();
  for (const action of actions) {
    if (action.kind !== "move") continue;
    if (!moves.has(action.card)) moves.set(action.card, []);
    moves.get(action.card).push(action);
  }
  return moves;
}

// `play`, for a board the player acts on: {chosen(moves) -> the move a click makes, onPlay(code)};
// `freeCells`: whether the rules have a cell (shown even while empty).
export function renderBoard(container, state, actions, { play = null, freeCells = false } = {}) {
  const moves = play ? movesByCard(actions) : new Map();
  const card = (code) => cardElement(code, play ? play.chosen(moves.get(code)) : null, play?.onPlay);
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
  if (state.cell !== null || freeCells) {
    talon.append(row("Cell", state.cell ? [card(state.cell)] : [], "cell"));
  }
  const passes = state.passes_left === null ? "unlimited passes" : `${state.passes_left} more pass(es)`;
  const info = document.createElement("p");
  info.className = "info";
  info.textContent = `Pass ${state.pass_number}, ${passes}. Base rank ${state.base_rank}.`;
  container.replaceChildren(left, right, talon, info);
}

export function describe(event) {
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

export function hintText(hint) {
  if (hint.basis === "exact") {
    return hint.action ? `${actionText(hint.action)} (it wins)` : `no action wins (${hint.verdict})`;
  }
  const best = hint.estimates[0];
  return `${actionText(hint.action)} (won ${best.wins} of ${best.samples} guesses at the unseen cards)`;
}
