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
  afterWaiting(document.documentElement.getAttribute("data-waiting"));
  var sw = navigator.serviceWorker, first = sw && !sw.controller;
  if (!sw) return;
  sw.register("/sw.js").then(function () { return sw.ready; }).then(function (reg) {
    if (first && reg.active) reg.active.postMessage({ type: "warm", urls: [location.href] });  // fetched before the worker
  }).catch(function () { /* online only */ });

  /* A new-hand form shown offline: the hands waiting on this phone come first (the service worker says
     how many, and who dealt the last, in <html data-waiting>), so the form is for the hand after them:
     its number, the count it expects, the next dealer in seating order, live.js's data too (read after
     this script: both are deferred). The page's own fields and data (the rotation's mark too, which cards.js
     asks about), never its markup. */
  function afterWaiting(raw) {
    var form = raw && document.querySelector("form[method=post][action*='/hands/new/']");
    var field = form && form.elements.expected_count;
    if (!field || !/^\d+$/.test(field.value)) return;
    var waiting = JSON.parse(raw), seen = +field.value, count = seen + waiting.hands;
    var seats = Array.prototype.slice.call(form.querySelectorAll("input[type=radio][name=dealer]"));
    var at = seats.map(function (r) { return r.value; }).indexOf(waiting.dealer);
    var next = at >= 0 ? seats[(at + 1) % seats.length] : null;
    field.value = String(count);
    if (next) seats.forEach(function (r) { r.checked = r === next; r.toggleAttribute("data-rotation", r === next); });
    var live = document.getElementById("live");
    if (live) {
      var cfg = JSON.parse(live.getAttribute("data-config"));
      cfg.count = String(count);
      if (next) cfg.dealer = cfg.rotation = next.value;
      live.setAttribute("data-config", JSON.stringify(cfg));
    }
    var was = new RegExp("\\b" + (seen + 1) + "\\b"), number = String(count + 1);
    document.title = document.title.replace(was, number);
    [document.querySelector("main h1"), document.getElementById("save")].forEach(function (el) {
      var text = el && el.firstChild;
      if (text && text.nodeType === 3) text.nodeValue = text.nodeValue.replace(was, number);
    });
  }
}());
