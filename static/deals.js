// Laying a board out: counts the cards ticked in each seat ("12 of 25 laid"), keeps the ticks while the
// page is reloaded or left (sessionStorage, per board), and opens the next seat once one is complete.
(function () {
  "use strict";
  var board = document.querySelector("[data-board]");
  var words = document.getElementById("laid-words");
  if (!board || !words) return;
  var key = "scarto-laid:" + board.getAttribute("data-board");
  var seats = Array.prototype.slice.call(board.querySelectorAll("details.seat"));
  var saved = {};
  try { saved = JSON.parse(sessionStorage.getItem(key) || "{}") || {}; } catch (e) { saved = {}; }

  function boxes(seat) { return Array.prototype.slice.call(seat.querySelectorAll("input[type=checkbox]")); }

  function count(seat) {
    var all = boxes(seat), laid = all.filter(function (b) { return b.checked; }).length;
    var text = words.getAttribute("data-of").split("%(laid)s").join(String(laid))
      .split("%(total)s").join(String(all.length));
    seat.querySelector(".laid").textContent = text;
    seat.classList.toggle("done", laid === all.length);
    return laid === all.length;
  }

  function store() {
    var ticks = {};
    seats.forEach(function (seat, s) {
      ticks[s] = boxes(seat).filter(function (b) { return b.checked; }).map(function (b) { return b.dataset.card; });
    });
    try { sessionStorage.setItem(key, JSON.stringify(ticks)); } catch (e) { /* private mode: ticks live on the page */ }
  }

  seats.forEach(function (seat, s) {
    var ticked = saved[s] || [];
    boxes(seat).forEach(function (b) { b.checked = ticked.indexOf(b.dataset.card) >= 0; });
    count(seat);
    seat.addEventListener("change", function () {
      var complete = count(seat);
      store();
      var next = seats[s + 1];
      if (complete && next && !next.classList.contains("done")) {
        next.open = true;
        next.querySelector("summary").focus();
      }
    });
  });
})();
