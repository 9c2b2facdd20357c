/* The hand review being made in a process apart (web/reviews.py): look again every few seconds and put
   the review in place of the note when the server has it. Without script, a reload does the same. */
(function () {
  "use strict";
  var tries = 0, WAIT = 4000, MOST = 45;
  function look() {
    var here = document.getElementById("review");
    if (!here || !here.hasAttribute("data-making") || tries++ >= MOST) return;
    fetch(location.href, { cache: "no-store", credentials: "same-origin" }).then(function (res) {
      return res.ok ? res.text() : "";
    }).then(function (text) {
      var fresh = new DOMParser().parseFromString(text, "text/html").getElementById("review");
      if (fresh && !fresh.hasAttribute("data-making")) here.replaceWith(document.importNode(fresh, true));
      else setTimeout(look, WAIT);
    }, function () { setTimeout(look, WAIT); });
  }
  setTimeout(look, WAIT);
}());
