// Feedback where the eye is: a refusal said beside the card or the place it was meant for, and the hint's marks
// on the card and where it goes. The status line says the same for screen readers.

const $ = (id) => document.getElementById(id);
const SHOWN_MS = 4500;
let hideTimer = null;

// Says `text` just below `anchor` (an element of the table), inside the window, until the next action.
export function sayBeside(anchor, text) {
  const bubble = $("refusal");
  const table = $("table").getBoundingClientRect();
  const at = anchor.getBoundingClientRect();
  bubble.textContent = text;
  bubble.hidden = false;
  const width = bubble.offsetWidth;
  const height = bubble.offsetHeight;
  const left = Math.max(0, Math.min(at.left - table.left, document.documentElement.clientWidth - table.left - width - 4));
  // Below the card, else above it, else over the status line: wherever it hides the fewest cards that can move (on a
  // phone the rows below and above may hold the one card to play).
  const tops = [at.bottom + 6, at.top - 6 - height, $("status").getBoundingClientRect().top];
  const hidden = (top) => covered({ left: table.left + left, right: table.left + left + width, top, bottom: top + height });
  const top = tops.reduce((best, candidate) => (hidden(candidate) < hidden(best) ? candidate : best));
  Object.assign(bubble.style, { left: `${left}px`, top: `${top - table.top}px` });
  clearTimeout(hideTimer);
  hideTimer = setTimeout(unsay, SHOWN_MS);
}

// How many of the cards that can move (and the stock) a box on the screen would lie over.
function covered(box) {
  return [...document.querySelectorAll("#board .card.playable, #board .stock")].filter((element) => {
    const rect = element.getBoundingClientRect();
    return rect.left < box.right && box.left < rect.right && rect.top < box.bottom && box.top < rect.bottom;
  }).length;
}

export function unsay() {
  clearTimeout(hideTimer);
  $("refusal").hidden = true;
}

// Marks the hinted action: the card and the foundation or cell it goes to, or the stock.
export function markHint(board, action) {
  if (action?.kind === "move") {
    board.querySelector(`.card[data-card="${action.card}"]`)?.classList.add("hinted");
    board.querySelector(`[data-target="${action.to}"]`)?.classList.add("hint-target");
  } else if (action) {
    board.querySelector(".stock")?.classList.add("hinted");
    $("draw").classList.add("hinted");
  }
}
