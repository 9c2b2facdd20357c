/* Keeps a match or night page up to date (state.json, then the page again, scroll and focus kept);
   lists what waits on this phone (sw.js); offers the home screen once. docs/OFFLINE.md says more. */
(function () {
  "use strict";
  var script = document.currentScript || document.querySelector("script[data-sync]");
  // the page's address and tag: a copy shown offline for another page asks the right state.json
  var T = JSON.parse(script.dataset.texts), base = script.dataset.sync || location.pathname.replace(/[^/]*$/, "");
  var stateUrl = base + "state.json", etag = tag(script);
  var timer = null, told = 1000 * (+script.dataset.poll || 3), every = told, busy = false, away = base !== location.pathname;
  var main = document.querySelector("main"), sw = navigator.serviceWorker;
  var KEEP = { "offline-mark": 0, "waiting": 1, "install": 1 }, counting;

  function tag(s) { return s && s.dataset.tag ? '"' + s.dataset.tag + '"' : null; }  // as state.json's ETag
  function say(s, v) { return (s || "").replace(/%\((\w+)\)s/g, function (a, k) { return v[k]; }); }
  function each(list, f) { Array.prototype.slice.call(list).forEach(f); }  // a copy: a live list changes
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // --- the page, up to date
  function poll() {
    clearTimeout(timer);
    if (document.hidden) return;
    var offline = document.documentElement.hasAttribute("data-offline-at");
    var headers = etag && !offline ? { "If-None-Match": etag } : {};
    fetch(stateUrl, { cache: "no-store", credentials: "same-origin", headers: headers }).then(function (res) {
      // entries waiting are sent (the `online` try may have failed); the page fetched again if some went
      if (document.querySelector("#waiting li[data-state=waiting]")) {
        ask({ type: "flush" }).then(function (r) { if (r && r.sent) update(); else listWaiting(); });
      }
      if (res.status === 304) { every = told; return null; }
      if (!res.ok) throw res;  // refused (a busy server): slower, as when it cannot be reached
      var first = etag === null, seen = res.headers.get("ETag");
      return res.json().then(function (d) {
        if (d.poll) told = Math.max(1, +d.poll) * 1000;
        every = told;
        // the tag kept once the page shows it (a refresh takes the page's): a failed one is tried again
        return (!first || offline ? refresh() : Promise.resolve(etag = seen)).then(function (shown) {
          if (!shown) return;
          warm();  // a change (or the first look): the kept entry forms follow it
        });
      });
    }).catch(function () { every = Math.min(every * 2, 15000); }).then(function () {
      timer = setTimeout(poll, every);
    });
  }

  function refresh() {  // true once the page shows the server's
    if (busy) return Promise.resolve(false);
    if (away) { location.reload(); return Promise.resolve(false); }  // the page asked for
    busy = true;
    return fetch(location.pathname + location.search, { credentials: "same-origin", headers: { "X-Scarto-Refresh": "1" } }).then(function (res) {
      if (!res.ok || res.headers.get("X-Scarto-Offline")) return false;
      return res.text().then(function (html) { replace(new DOMParser().parseFromString(html, "text/html")); return true; });
    }).catch(function () { return false; }).then(function (shown) { busy = false; return shown; });
  }

  function replace(doc) {
    var fresh = doc.querySelector("main"), s = doc.querySelector("script[data-tag]");
    if (!fresh) return;
    etag = tag(s) || etag;  // what the page shows, however it came
    var y = window.scrollY, a = document.activeElement, focus = a && a.id, at = a && a.selectionEnd != null && [a.selectionStart, a.selectionEnd];
    var open = {}, typed = {};
    each(main.querySelectorAll("details"), function (d, i) { open[i] = d.open; });
    each(main.querySelectorAll("input[id], textarea[id]"), function (f) {
      // what the player typed or ticked (the night's reason, say) survives the update
      if (f.type === "checkbox" || f.type === "radio") { if (f.checked !== f.defaultChecked) typed[f.id] = f.checked; }
      else if (f.type !== "hidden" && f.value !== f.defaultValue) typed[f.id] = f.value;
    });
    each(main.children, function (child) {
      if (!KEEP[child.id]) main.removeChild(child);
    });
    each(fresh.children, function (child) { main.appendChild(document.adoptNode(child)); });
    each(main.querySelectorAll("details"), function (d, i) { if (i in open) d.open = open[i]; });
    Object.keys(typed).forEach(function (id) {
      var f = document.getElementById(id);
      if (!f) return;
      if (f.type === "checkbox" || f.type === "radio") f.checked = typed[id]; else f.value = typed[id];
    });
    document.documentElement.removeAttribute("data-offline-at");
    document.title = doc.title;
    a = focus && document.getElementById(focus);
    if (a) { a.focus({ preventScroll: true }); if (at) try { a.setSelectionRange(at[0], at[1]); } catch (e) { /* a number */ } }  // the caret stays
    window.scrollTo(0, y);
    keyForms();
    main.dispatchEvent(new CustomEvent("scarto:updated", { bubbles: true }));
  }

  function keyForms() {  // forms an update brought get their keys too (offline.js ran before)
    each(main.querySelectorAll("form[method=post][action*='/hands/']"), function (form) {
      if (form.elements.entry_key) return;
      var field = el("input");
      field.type = "hidden";
      field.name = "entry_key";
      field.value = window.crypto && crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2);
      form.appendChild(field);
    });
  }

  // --- the entries waiting on this phone
  function ask(message) {
    return new Promise(function (resolve) {
      if (!sw || !sw.controller) { resolve(null); return; }
      var channel = new MessageChannel();
      channel.port1.onmessage = function (event) { resolve(event.data); };
      sw.controller.postMessage(message, [channel.port2]);
    });
  }

  function listWaiting() {
    return ask({ type: "list" }).then(function (entries) {
      var mine = (entries || []).filter(function (e) { return e.match === location.origin + base; });
      var box = document.getElementById("waiting");
      tally(mine);
      if (!mine.length) { if (box) box.parentNode.removeChild(box); return; }
      if (!box) {
        box = el("section", "banner conflict waiting");
        box.id = "waiting";
        box.setAttribute("role", "status");
        var mark = document.getElementById("offline-mark");
        main.insertBefore(box, mark ? mark.nextSibling : main.firstChild);
      }
      box.textContent = "";
      box.appendChild(el("h2", "", T.title));
      var list = el("ol", "waiting-list");
      mine.forEach(function (e) { list.appendChild(item(e)); });
      box.appendChild(list);
    });
  }

  function tally(mine) {  // counted as the server will: tally.js, loaded while some wait
    if (window.ScartoTally) return ScartoTally.show(mine, base);
    if (!mine.length || counting) return;
    counting = el("script");
    counting.src = script.src.replace("sync", "tally");
    counting.onload = listWaiting;
    document.head.appendChild(counting);
  }

  function item(e) {
    var li = el("li"), seen = +e.seen;
    li.dataset.state = e.state;
    li.dataset.kind = e.kind;
    li.appendChild(el("b", "", e.kind === "new" ? say(T["new"], { n: seen + 1, dealer: e.dealer }) : T[e.kind] || T.edit));
    if (e.state === "waiting") { li.appendChild(document.createTextNode(" — " + T.waiting)); return li; }
    var why, buttons = [];
    if (e.status === 409 && e.kind === "new" && e.count != null) {
      why = say(T.taken, { n: seen + 1, next: +e.count + 1 });
      buttons.push(["next", say(T.save_as, { n: +e.count + 1 })]);
    } else if (e.status === 409) {
      why = T.changed;
      if (e.version != null) buttons.push(["over", T.over]);
    } else if (e.confirm) {
      why = T.confirm;
      buttons.push(["anyway", T.anyway]);
    } else {
      why = (e.messages || []).join(" ") || say(T.refused, { status: e.status });
    }
    li.appendChild(el("p", "held", why));
    var row = el("p", "actions");
    buttons.forEach(function (b) { row.appendChild(button(b[1], e, b[0], b[0] === "next" || b[0] === "over" ? "primary" : "")); });
    if (e.page) {
      var open = el("a", "button", T.open);
      open.href = "/offline/held/" + e.id;
      row.appendChild(open);
    }
    row.appendChild(button(T.discard, e, "discard", "danger"));
    li.appendChild(row);
    return li;
  }

  function button(text, e, action, cls) {
    var b = el("button", "button " + (cls || ""), text);
    b.type = "button";
    b.dataset.action = action;
    b.addEventListener("click", function () {
      if (action === "discard" && !window.confirm(T.discard_sure)) return;
      b.disabled = true;
      ask({ type: "decide", id: e.id, action: action }).then(update);
    });
    return b;
  }

  function update() { listWaiting(); refresh(); }

  // --- offline use: the entry forms kept (fetched again when the tag or language changed)
  function warm() {
    var points = document.getElementById("record-points");
    if (!etag || !points || !sw || !sw.controller || document.documentElement.hasAttribute("data-offline-at")) return;
    var urls = ["points", "cards", "honours", "live"].map(function (f) { return points.pathname.replace(/points$/, f); });
    urls.push(location.pathname);
    ask({ type: "warm", urls: urls, match: location.origin + base, state: etag + " " + document.documentElement.lang });
  }

  window.addEventListener("online", function () { every = told; ask({ type: "flush" }).then(update); poll(); });
  document.addEventListener("visibilitychange", function () { if (!document.hidden) poll(); });
  if (sw) {
    sw.addEventListener("message", function (event) { if (event.data && event.data.type === "queue") update(); });
    sw.ready.then(function () { listWaiting(); warm(); });
    sw.addEventListener("controllerchange", function () { listWaiting(); warm(); });
  }

  // --- the home screen: offered once, where the browser can
  window.addEventListener("beforeinstallprompt", function (event) {
    try { if (localStorage.getItem("scarto-install-offered")) return; } catch (e) { return; }
    event.preventDefault();
    var box = el("p", "flash install");
    box.id = "install";
    box.appendChild(el("span", "", T.install + " "));
    var yes = el("button", "button primary", T.install_yes), no = el("button", "button", T.install_no);
    yes.type = no.type = "button";
    function done() {
      try { localStorage.setItem("scarto-install-offered", "1"); } catch (e) { /* asked again next time */ }
      if (box.parentNode) box.parentNode.removeChild(box);
    }
    yes.addEventListener("click", function () { done(); event.prompt(); });
    no.addEventListener("click", done);
    box.appendChild(yes);
    box.appendChild(no);
    main.appendChild(box);
  });

  poll();
}());
