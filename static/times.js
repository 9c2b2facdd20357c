/* Times in the phone's own time zone. The server writes each stored time as <time datetime="…Z"
   data-local> in the club's zone with the zone named ("15:37 (UTC)"): right, but not the clock on
   the table. This says it as the phone's clock does, in the page's language; the server's words
   stay as the title. Run again when sync.js puts in a newer page. */
(function () {
  "use strict";
  var format;
  try {
    format = new Intl.DateTimeFormat(document.documentElement.lang || undefined, { dateStyle: "medium", timeStyle: "short" });
  } catch (e) { return; }  // an old browser: the server's words stay
  function localise() {
    Array.prototype.forEach.call(document.querySelectorAll("time[data-local]"), function (time) {
      var moment = new Date(time.getAttribute("datetime"));
      if (isNaN(moment.getTime())) return;
      time.title = time.textContent;
      time.textContent = format.format(moment);
      time.removeAttribute("data-local");
    });
  }
  localise();
  document.addEventListener("scarto:updated", localise);
}());
