/* Starting a club match: the players seat in the order they are ticked, a seat moves up with its ↑, and
   one of them deals first (or the app draws). The page works without this file: its "Seats and first
   dealer" button and each ↑ ask the server to show the seats. */
(function () {
  "use strict";
  var form = document.getElementById("pick-form");
  if (!form) return;
  var box = document.getElementById("seats-box"), list = document.getElementById("seats");
  var order = document.getElementById("order"), draw = document.getElementById("draw");
  var blank = document.getElementById("seat-row");
  var setSeats = document.getElementById("set-seats");
  if (setSeats) setSeats.parentNode.hidden = true;

  function rows() { return Array.prototype.slice.call(list.children); }

  function write() {
    order.value = rows().map(function (li) { return li.dataset.player; }).join(",");
    box.hidden = !list.children.length;
    rows().forEach(function (li, i) { li.querySelector("button[name=up]").disabled = i === 0; });
  }

  function seat(tick) {  // the next seat, after those ticked before
    var li = blank.content.firstElementChild.cloneNode(true);
    var name = tick.parentNode.textContent.trim(), up = li.querySelector("button[name=up]");
    li.dataset.player = tick.value;
    li.querySelector(".pname").textContent = name;
    up.value = tick.value;
    up.setAttribute("aria-label", up.dataset.label.replace("%(name)s", name));
    li.querySelector("input[type=radio]").value = tick.value;
    list.appendChild(li);
  }

  form.addEventListener("change", function (event) {
    var tick = event.target;
    if (tick.name !== "player") return;
    var li = list.querySelector("li[data-player='" + tick.value + "']");
    if (tick.checked && !li) seat(tick);
    if (!tick.checked && li) {
      if (li.querySelector("input[type=radio]").checked) draw.checked = true;
      list.removeChild(li);
    }
    write();
  });

  list.addEventListener("click", function (event) {
    var up = event.target.closest("button[name=up]");
    if (!up) return;
    event.preventDefault();
    var li = up.closest("li"), i = rows().indexOf(li);
    if (i > 0) list.insertBefore(li, list.children[i - 1]);
    write();
    (i > 1 ? up : li.querySelector("input[type=radio]")).focus();
  });
  Array.prototype.forEach.call(form.querySelectorAll("input[name=player]:checked"), function (tick) {
    if (!list.querySelector("li[data-player='" + tick.value + "']")) seat(tick);  // ticks a reload kept
  });
  write();
}());
