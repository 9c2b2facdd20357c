/* Every page: the service worker (/sw.js keeps pages and hands on the phone) and an idempotency
   key in each form that changes a hand, so that a retry is never stored twice. */
(function () {
  "use strict";
  function key() {
    return window.crypto && crypto.randomUUID ? crypto.randomUUID() : Date.now().toString(36) + Math.random().toString(36).slice(2);
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
  var sw = navigator.serviceWorker, first = sw && !sw.controller;
  if (!sw) return;
  sw.register("/sw.js").then(function () { return sw.ready; }).then(function (reg) {
    if (first && reg.active) reg.active.postMessage({ type: "warm", urls: [location.href] });  // fetched before the worker
  }).catch(function () { /* online only */ });
}());
