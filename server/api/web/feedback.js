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
  const left = Math.max(0, Math.min(at.left - table.left, document.documentElement.clientWidth - table.left - width - 4));
  Object.assign(bubble.style, { left: `${left}px`, top: `${at.bottom - table.top + 6}px` });
  clearTimeout(hideTimer);
  hideTimer = setTimeout(unsay, SHOWN_MS);
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
