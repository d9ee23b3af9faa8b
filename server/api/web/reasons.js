// Why a card the player clicked or dropped cannot go where it was meant to, in the words the server
// uses when it refuses that move (server/rules/engine.py: source_of, _why_unavailable, _refusal), so
// that a refused click sends nothing and still explains itself. It reads only what the player sees;
// which moves are legal still comes from the game's legal_actions alone. A browser test holds these
// words to the server's over many positions of every preset.

const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };

const hasRank = (cards, code) => cards.some((other) => other[0] === code[0]);

// Whether the waste's top may be played: always, unless the rules let only the latest deal's cards go.
function wasteTopIsPlayable(game) {
  return game.state.waste.length > 0 && (game.rules.waste_access === "top" || game.state.live_waste > 0);
}

// Why `code` may not leave its place at all, or null when it may.
function whyUnavailable(game, code) {
  const state = game.state;
  if (state.reserves.some((pile) => pile.face_up.at(-1) === code) || state.cell === code) return null;
  if (state.waste.at(-1) === code) {
    return wasteTopIsPlayable(game) ? null
      : `${code} cannot move: under the group waste rule only the cards of the latest deal can be played, and none of them is left`;
  }
  const k = state.foundations.findIndex((foundation) => foundation.cards.includes(code));
  if (k >= 0) return `${code} is already on F${k + 1}`;
  if (state.waste.includes(code)) return `${code} is not the top of the waste (the top is ${state.waste.at(-1)})`;
  const p = state.reserves.findIndex((pile) => pile.face_up.includes(code));
  if (p >= 0) return `${code} is not the top of R${p + 1} (the top is ${state.reserves[p].face_up.at(-1)})`;
  return `${code} is not in play: only a reserve's top card, the waste's top card or the cell's card can move`;
}

// The foundation a card would go to if the rules allowed it: its suit's, or the first empty one.
function naturalFoundation(game, code) {
  return game.state.foundations.findIndex((foundation) => foundation.cards.length === 0 || foundation.suit === code[1]);
}

// Why foundation k (0-based) does not take `code` now.
function refusal(game, code, k) {
  const foundations = game.state.foundations;
  const target = `F${k + 1}`;
  const above = `F${k}`;
  const foundation = foundations[k];
  if (foundation.cards.length) {
    if (foundation.suit !== code[1]) return `${code} cannot go to ${target}: ${target} takes ${SUIT_NAMES[foundation.suit]}`;
    return `${code} cannot go to ${target}: no ${code[0]} in ${above}`;
  }
  if (!foundations[k - 1].cards.length) return `${code} cannot start ${target}: ${above} is not started yet`;
  const j = foundations.findIndex((other) => other.suit === code[1]);
  if (j >= 0) return `${code} cannot start ${target}: ${SUIT_NAMES[code[1]]} already go to F${j + 1}`;
  if (game.rules.start_rule === "base_rank") {
    return `${code} cannot start ${target}: an empty foundation starts with the base rank, ${game.state.base_rank}`;
  }
  return `${code} cannot start ${target}: no ${code[0]} in ${above}`;
}

// Why the cell does not take `code` whatever its place, or null.
function cellRefusal(game, code) {
  if (!game.rules.free_cells) return `${code} cannot go to the cell: these rules have no free cell`;
  if (game.state.cell === code) return `${code} is already in the cell`;
  if (game.state.cell !== null) return `${code} cannot go to the cell: it already holds ${game.state.cell}`;
  return null;
}

// Why `code` cannot go to `target` (F1..F4, "cell"; null: whichever foundation), or null if it may; the
// checks come in the engine's order, so that the first reason found is the one the server gives.
export function whyNot(game, code, target = null) {
  if (game.status !== "playing") return `the game is over (${game.status}): no further action is accepted`;
  const legal = game.legal_actions.some((a) => a.kind === "move" && a.card === code
    && (target === null ? a.to !== "cell" : a.to === target));
  if (legal) return null;
  return (target === "cell" ? cellRefusal(game, code) : null) ?? whyUnavailable(game, code)
    ?? refusal(game, code, target === null ? naturalFoundation(game, code) : Number(target.slice(1)) - 1);
}
