// Whether a game can be played home from here by foundation moves alone: nothing hidden is left (no stock, no
// face-down card) and, playing every card that can go home until none can, all 52 arrive. The engine's
// foundation rule (server/rules/engine.py: foundation_for) over what the player sees; playing a card home never
// takes a move away, so the order does not matter. The finish itself plays the game's legal actions only.

// The foundation (0-based) that takes `card` now, or -1: its suit's, once its rank is on the foundation above
// (the first takes any card of its suit); an unused suit starts the first empty foundation, with the base rank
// or, under the other start rule, a rank the foundation above holds.
function foundationFor(foundations, card, rules, baseRank) {
  for (let k = 0; k < foundations.length; k += 1) {
    const foundation = foundations[k];
    if (foundation.length === 0) {
      const above = foundations[k - 1];
      const starts = rules.start_rule === "base_rank" ? card[0] === baseRank : above.some((other) => other[0] === card[0]);
      return starts ? k : -1;
    }
    if (foundation[0][1] === card[1]) {
      return k === 0 || foundations[k - 1].some((other) => other[0] === card[0]) ? k : -1;
    }
  }
  return -1;
}

export function canFinish(game) {
  const state = game.state;
  if (game.status !== "playing" || state.stock_count > 0 || state.reserves.some((pile) => pile.face_down > 0)) return false;
  const foundations = state.foundations.map((foundation) => [...foundation.cards]);
  const piles = state.reserves.map((pile) => [...pile.face_up]);
  const waste = [...state.waste];
  let liveWaste = game.rules.waste_access === "top" ? Infinity : state.live_waste;
  let cell = state.cell;
  const baseRank = state.base_rank;
  for (let played = true; played;) {
    played = false;
    const home = (card) => {
      const k = foundationFor(foundations, card, game.rules, baseRank);
      if (k < 0) return false;
      foundations[k].push(card);
      played = true;
      return true;
    };
    for (const pile of piles) while (pile.length && home(pile.at(-1))) pile.pop();
    while (waste.length && liveWaste > 0 && home(waste.at(-1))) { waste.pop(); liveWaste -= 1; }
    if (cell && home(cell)) cell = null;
  }
  return foundations.reduce((sum, foundation) => sum + foundation.length, 0) === 52;
}
