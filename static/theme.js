/* Light or dark: the system's choice (prefers-color-scheme) unless the header's switch was used;
   the switch is remembered on this phone. Loaded in <head> without defer, so the page is drawn in
   the right colours from the start. */
(function () {
  "use strict";
  var KEY = "scarto-theme", root = document.documentElement;
  function stored() { try { return localStorage.getItem(KEY); } catch (e) { return null; } }
  function system() { return window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"; }
  function current() { return root.dataset.theme || system(); }
  var kept = stored();
  if (kept === "dark" || kept === "light") root.dataset.theme = kept;

  function label(button) {
    var dark = current() === "dark";
    button.setAttribute("aria-pressed", dark ? "true" : "false");
  }
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
