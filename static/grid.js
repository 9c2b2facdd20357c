/* The card grid as one tab stop: arrow keys move between the cards (left/right along the pack,
   up/down to the row above or below), Home/End to the first and last card. Used by cards.js and
   live.js; a card keeps the focus after it is tapped. */
(function () {
  "use strict";
  function rove(grid) {
    var buttons = Array.prototype.slice.call(grid.querySelectorAll("button[data-card]"));
    if (!buttons.length) return;
    var current = buttons[0];
    function set(b, focus) {
      buttons.forEach(function (x) { x.tabIndex = x === b ? 0 : -1; });
      current = b;
      if (focus) b.focus();
    }
    function centre(b) { var r = b.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }
    function vertical(b, dir) {
      var here = centre(b), best = null, bestScore = Infinity;
      buttons.forEach(function (x) {
        if (x === b) return;
        var c = centre(x), dy = (c[1] - here[1]) * dir;
        if (dy < 4) return;
        var score = dy * 4 + Math.abs(c[0] - here[0]);
        if (score < bestScore) { best = x; bestScore = score; }
      });
      return best;
    }
    grid.addEventListener("keydown", function (event) {
      var b = event.target.closest("button[data-card]");
      if (!b) return;
      var i = buttons.indexOf(b), next = null;
      switch (event.key) {
        case "ArrowRight": next = buttons[i + 1]; break;
        case "ArrowLeft": next = buttons[i - 1]; break;
        case "ArrowDown": next = vertical(b, 1); break;
        case "ArrowUp": next = vertical(b, -1); break;
        case "Home": next = buttons[0]; break;
        case "End": next = buttons[buttons.length - 1]; break;
        default: return;
      }
      event.preventDefault();
      if (next) set(next, true);
    });
    grid.addEventListener("focusin", function (event) {
      var b = event.target.closest("button[data-card]");
      if (b && b !== current) set(b, false);
    });
    set(current, false);
  }
  window.ScartoGrid = { rove: rove };
}());
