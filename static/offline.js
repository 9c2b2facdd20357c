/* Every page: the service worker (pages and hands kept on the phone, see /sw.js), and an
   idempotency key in each form that changes a hand, so a retry is never stored twice. */
(function () {
  "use strict";
  function key() {
    return window.crypto && crypto.randomUUID ? crypto.randomUUID()
      : Date.now().toString(36) + "-" + Math.random().toString(36).slice(2);
  }
  Array.prototype.forEach.call(document.querySelectorAll("form[method=post][action*='/hands/']"), function (form) {
    var field = form.elements.entry_key;
    if (!field) {
      field = document.createElement("input");
      field.type = "hidden";
      field.name = "entry_key";
      form.appendChild(field);
    }
    if (!field.value) field.value = key();
  });
  var sw = navigator.serviceWorker;
  if (!sw) return;
  var first = !sw.controller;
  sw.register("/sw.js", { scope: "/" }).then(function () { return sw.ready; }).then(function (reg) {
    // the page that installed the worker was fetched before it: keep it too
    if (first && reg.active && document.documentElement.getAttribute("data-offline")) {
      reg.active.postMessage({ type: "warm", urls: [location.href] });
    }
  }).catch(function () { /* an old browser: online only */ });
}());
