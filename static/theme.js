/* Light or dark: the system's choice (prefers-color-scheme, followed as it changes) unless the
   header's switch was used;
   the switch is remembered on this phone. Loaded in <head> without defer, so the page is drawn in
   the right colours from the start. */
(function () {
  "use strict";
  var KEY = "scarto-theme", root = document.documentElement;
  function stored() { try { return localStorage.getItem(KEY); } catch (e) { return null; } }
  function system() { return query && query.matches ? "dark" : "light"; }
  function current() { return root.dataset.theme || system(); }
  var kept = stored(), query = window.matchMedia ? matchMedia("(prefers-color-scheme: dark)") : null;
  root.dataset.theme = kept === "dark" || kept === "light" ? kept : system();
  if (query && query.addEventListener) {
    query.addEventListener("change", function () { if (!stored()) root.dataset.theme = system(); });
  }

  function label(button) {
    var dark = current() === "dark";
    button.setAttribute("aria-pressed", dark ? "true" : "false");
  }
  // a link's Copy button (the share pages): shown only where the phone lets a page copy (app.css)
  if (navigator.clipboard) root.classList.add("can-copy");
  document.addEventListener("click", function (event) {
    var b = event.target.closest && event.target.closest("[data-copy]");
    if (b) navigator.clipboard.writeText(b.dataset.copy).then(function () { b.textContent = b.dataset.done; },
                                                             function () { /* refused: the box is there to select */ });
  });
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("theme");
    if (!button) return;
    button.hidden = false;
    label(button);
    button.addEventListener("click", function () {
      var next = current() === "dark" ? "light" : "dark";
      root.dataset.theme = next;
      try { localStorage.setItem(KEY, next); } catch (e) { /* private mode: for this page only */ }
      label(button);
    });
  });
}());
