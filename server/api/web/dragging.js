// Drag and drop with pointer events, so a mouse and a finger alike can carry a lit card onto a place that
// takes drops (an element with data-target: F1..F4, the cell). A press that does not travel stays a click.

const TRAVEL = 6; // pixels a press must move before it is a drag and not a click

let drag = null;        // {card, code, pointer, x, y, ghost}
let dim = null;         // {code, pointer, x, y}: a card that cannot move, pressed: carried, it says why
let justDropped = null;  // the pointer of a drop just made: the click it makes (a mouse's) is not a click on a card

function lift(current) {
  const rect = current.card.getBoundingClientRect();
  const ghost = current.card.cloneNode(true);
  ghost.classList.add("dragged");
  ghost.removeAttribute("id");
  ghost.setAttribute("aria-hidden", "true");
  Object.assign(ghost.style, { left: `${rect.left}px`, top: `${rect.top}px`, width: `${rect.width}px`, height: `${rect.height}px` });
  document.body.append(ghost);
  current.card.classList.add("lifted");
  current.ghost = ghost;
}

function putDown(current) {
  current.ghost?.remove();
  current.card.classList.remove("lifted");
  document.querySelectorAll(".drop-over").forEach((place) => place.classList.remove("drop-over"));
}

function placeUnder(event) {
  return document.elementFromPoint(event.clientX, event.clientY)?.closest("[data-target]") ?? null;
}

// `board`: the element holding the cards; `dropped(code, target, rect)` is told where a card was let go (target
// null: nowhere that takes cards; rect: where on the screen); `refused(code)`, when a card that cannot move is
// dragged, as a click on it is.
export function wireDragging(board, dropped, refused) {
  board.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || drag) return;
    const card = event.target.closest(".card.playable");
    const stuck = card ? null : event.target.closest(".card[data-card]");
    if (stuck) dim = { code: stuck.dataset.card, pointer: event.pointerId, x: event.clientX, y: event.clientY };
    if (!card) return;
    drag = { card, code: card.dataset.card, pointer: event.pointerId, x: event.clientX, y: event.clientY, ghost: null };
  });
  document.addEventListener("pointermove", (event) => {
    if (dim && event.pointerId === dim.pointer && Math.hypot(event.clientX - dim.x, event.clientY - dim.y) >= TRAVEL) {
      refused(dim.code);
      justDropped = dim.pointer; // its click, when let go, would say it again
      dim = null;
      return;
    }
    if (!drag || event.pointerId !== drag.pointer) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.ghost) {
      if (Math.hypot(dx, dy) < TRAVEL) return;
      lift(drag);
    }
    event.preventDefault();
    drag.ghost.style.transform = `translate(${dx}px, ${dy}px)`;
    document.querySelectorAll(".drop-over").forEach((place) => place.classList.remove("drop-over"));
    placeUnder(event)?.classList.add("drop-over");
  });
  document.addEventListener("pointerup", (event) => {
    if (dim && event.pointerId === dim.pointer) dim = null;
    if (justDropped !== null && event.pointerId === justDropped) setTimeout(() => { justDropped = null; }, 0);
    if (!drag || event.pointerId !== drag.pointer) return;
    const current = drag;
    drag = null;
    if (!current.ghost) return; // a click: the card's own click handler plays it
    const rect = current.ghost.getBoundingClientRect();
    putDown(current);
    justDropped = current.pointer;
    setTimeout(() => { justDropped = null; }, 0);
    dropped(current.code, placeUnder(event)?.dataset.target ?? null, rect);
  });
  document.addEventListener("pointercancel", () => {
    if (drag) putDown(drag);
    drag = null;
    dim = null;
  });
  // Only the dropping pointer's own click: a finger's next tap is another pointer, however soon it comes.
  document.addEventListener("click", (event) => {
    if (justDropped !== null && event.pointerId === justDropped) event.stopPropagation();
  }, true);
}
