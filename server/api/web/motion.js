// Movement on the table, transform-only (FLIP): the table is drawn at once as the game now is, and each card
// that changed place is then shown travelling from where it was. An input lands on the table as it is, never on
// one that is still moving; `prefers-reduced-motion: reduce` turns every movement off.

const reduced = matchMedia("(prefers-reduced-motion: reduce)");
const TRAVEL_MS = 220;
const DEALT_APART_MS = 70; // dealt cards leave the stock one after another
const EASING = "cubic-bezier(.2, .7, .3, 1)";

export function moving() {
  return !reduced.matches;
}

const rectOf = (element) => element?.getBoundingClientRect() ?? null;

// Where every card on `board` is now, and its stock and waste: what the next drawing travels from.
export function placesOn(board) {
  const cards = new Map();
  for (const card of board.querySelectorAll(".card[data-card]")) cards.set(card.dataset.card, card.getBoundingClientRect());
  return { cards, stock: rectOf(board.querySelector(".stock")), waste: rectOf(board.querySelector(".waste .card:last-of-type")) };
}

function slide(element, from, delay = 0) {
  const to = element.getBoundingClientRect();
  const dx = from.left - to.left;
  const dy = from.top - to.top;
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
  element.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }],
    { duration: TRAVEL_MS, easing: EASING, delay, fill: "backwards" });
}

// Shows the change from `before` (placesOn, taken before the board was drawn again) to the board as drawn:
// moved cards slide; cards new to the waste fan out from the stock; a card turned face up turns over; after a
// redeal, the stock gathers the waste back. `dropped`: {card, rect}, a card let go elsewhere than its place.
export function travel(board, before, dropped = null) {
  if (!before || !moving()) return;
  let dealt = 0;
  for (const card of board.querySelectorAll(".card[data-card]")) {
    const code = card.dataset.card;
    const from = dropped?.card === code ? dropped.rect : before.cards.get(code);
    if (from) slide(card, from);
    else if (card.closest(".waste") && before.stock) slide(card, before.stock, DEALT_APART_MS * dealt++);
    else card.animate([{ transform: "scaleX(0)" }, { transform: "none" }], { duration: TRAVEL_MS, easing: EASING });
  }
  const stock = board.querySelector(".stock");
  if (stock && before.waste && !board.querySelector(".waste .card")) slide(stock, before.waste);
}

// A new table is dealt: its cards leave the stock one after another for their places.
export function dealt(board) {
  const stock = board.querySelector(".stock");
  if (!stock || !moving()) return;
  const from = stock.getBoundingClientRect();
  [...board.querySelectorAll(".reserve .card, .foundation .card")].forEach((card, n) => slide(card, from, DEALT_APART_MS / 2 * n));
}

// A refused card shakes where it lies (coming back first from where it was dropped), or, without movement, is
// outlined for a moment.
export function shake(card, from = null) {
  if (!card) return;
  if (!moving()) {
    card.classList.add("refused");
    setTimeout(() => card.classList.remove("refused"), 900);
    return;
  }
  const to = card.getBoundingClientRect();
  const back = from ? `translate(${from.left - to.left}px, ${from.top - to.top}px)` : "none";
  card.animate([
    { transform: back }, { transform: "none", offset: 0.4 }, { transform: "translateX(-7px)", offset: 0.55 },
    { transform: "translateX(7px)", offset: 0.7 }, { transform: "translateX(-4px)", offset: 0.85 }, { transform: "none" },
  ], { duration: from ? 480 : 360, easing: "ease-out" });
}

// A won game's cards leave the foundations one after another and fall off the table, bouncing; any key or click
// stops it at once. Resolves when it has ended either way. Nothing falls without movement.
export function celebrate(board) {
  const cards = [...board.querySelectorAll(".foundation .card")];
  if (!moving() || cards.length === 0) return Promise.resolve();
  const cascade = document.createElement("div");
  cascade.className = "cascade";
  cascade.setAttribute("aria-hidden", "true");
  const falls = cards.reverse().map((card, n) => {
    const rect = card.getBoundingClientRect();
    const copy = card.cloneNode(true);
    copy.removeAttribute("id");
    copy.classList.remove("playable", "hinted");
    Object.assign(copy.style, { left: `${rect.left}px`, top: `${rect.top}px`, width: `${rect.width}px`, height: `${rect.height}px` });
    cascade.append(copy);
    const drift = (n % 2 ? 1 : -1) * (120 + ((n * 37) % 260));
    const floor = innerHeight - rect.bottom;
    return copy.animate([
      { transform: "none" },
      { transform: `translate(${drift * 0.45}px, ${floor}px)`, offset: 0.45, easing: "ease-out" },
      { transform: `translate(${drift * 0.7}px, ${floor * 0.6}px)`, offset: 0.65, easing: "ease-in" },
      { transform: `translate(${drift}px, ${floor + rect.height + 40}px)` },
    ], { duration: 1300, delay: n * 35, easing: "ease-in", fill: "both" });
  });
  document.body.append(cascade);
  return new Promise((done) => {
    const stop = () => {
      for (const fall of falls) fall.cancel();
      cascade.remove();
      removeEventListener("keydown", stop, true);
      removeEventListener("pointerdown", stop, true);
      done();
    };
    addEventListener("keydown", stop, true);
    addEventListener("pointerdown", stop, true);
    Promise.all(falls.map((fall) => fall.finished)).then(stop, stop);
  });
}
