/* Scarto's service worker (served as /sw.js with VERSION and ASSETS written in front of this).

   - The app's files are kept per version (cache "scarto-assets-<version>"): every page names its
     files with ?v=<version>, so a page and its files always match; a new version installs beside
     the old one and takes over at the next page load.
   - Every page opened (match, hand, entry form, home) is kept; when the network fails, the last
     copy is shown with a plain mark: "No connection — as of 21:14".
   - A hand (or an edit, delete, restore) sent while offline is kept in IndexedDB, shown as waiting
     on the match page and sent again, in order, when the connection returns: Background Sync, the
     next page load or the page's `online` event. Each entry carries its idempotency key, so a
     retry after a lost answer is never stored twice. An entry the server refuses (another phone
     saved that hand: 409) is held, never dropped, until the player decides. */
"use strict";
/* global VERSION, ASSETS */
var ASSET_CACHE = "scarto-assets-" + VERSION, PAGE_CACHE = "scarto-pages";
var SYNC_TAG = "scarto-queue", MAX_PAGES = 300, FLUSH_WAIT = 4000, PAGE_WAIT = 10000;  // SEND_WAIT: the head, /sw.js

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(ASSET_CACHE).then(function (cache) { return cache.addAll(ASSETS); })
    .then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(dropOldAssets().then(function () { return self.clients.claim(); }));
});

/* An old version's files go once no kept page names them. */
function dropOldAssets() {
  return caches.open(PAGE_CACHE).then(function (pages) {
    return pages.keys().then(function (keys) {
      return Promise.all(keys.map(function (k) { return pages.match(k); }));
    });
  }).then(function (responses) {
    var used = {};
    responses.forEach(function (r) { if (r) used["scarto-assets-" + r.headers.get("X-Scarto-Assets")] = true; });
    return caches.keys().then(function (names) {
      return Promise.all(names.filter(function (n) {
        return n.indexOf("scarto-assets-") === 0 && n !== ASSET_CACHE && !used[n];
      }).map(function (n) { return caches.delete(n); }));
    });
  });
}

self.addEventListener("fetch", function (event) {
  var req = event.request, url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.method === "GET") {
    if (url.pathname.indexOf("/offline/held/") === 0) event.respondWith(heldPage(url));
    else if ((req.mode === "navigate" || req.headers.get("X-Scarto-Refresh") || tally(url)) && keepable(url)) event.respondWith(page(req));
    else if (/^\/(static|icons)\/|^\/manifest\.webmanifest$/.test(url.pathname)) event.respondWith(asset(req));
  } else if (req.method === "POST" && /^\/m\/[^/]+\/hands\//.test(url.pathname) && !/\/live\/check$/.test(url.pathname)) {
    event.respondWith(send(req));
  }
});

/* --- the app's files and pages --------------------------------------------------------- */

function asset(req) {
  return caches.match(req).then(function (hit) {
    return hit || fetch(req).then(function (res) {
      if (res.ok && new URL(req.url).searchParams.get("v") === VERSION) {
        var copy = res.clone();
        caches.open(ASSET_CACHE).then(function (c) { return c.put(req, copy); });
      }
      return res;
    });
  });
}

function keepable(url) {
  return url.pathname === "/" || (url.pathname.indexOf("/m/") === 0 && (!/\.(json|csv|pdf)$/.test(url.pathname) || tally(url)));
}

/* A match's numbers for counting the hands waiting on the phone (static/tally.js): kept like its page. */
function tally(url) { return /^\/m\/[^/]+\/tally\.json$/.test(url.pathname); }

function pageKey(href) {
  var url = new URL(href);
  url.searchParams.delete("lang");
  url.hash = "";
  return url.href;
}

function within(ms, promise) {
  return new Promise(function (resolve, reject) {
    var timer = setTimeout(function () { reject(new Error("timeout")); }, ms);
    promise.then(function (v) { clearTimeout(timer); resolve(v); }, function (e) { clearTimeout(timer); reject(e); });
  });
}

function page(req) {
  // waiting entries go first, so a page fetched now already counts them
  return within(FLUSH_WAIT, flush()).catch(function () { return null; }).then(function () {
    return within(PAGE_WAIT, fetch(req));
  }).then(function (res) {
    if (res.ok && /^(text\/html|application\/json)/.test(res.headers.get("Content-Type") || "")) {
      var copy = res.clone();
      caches.open(PAGE_CACHE).then(function (c) {
        return c.put(pageKey(req.url), copy).then(function () { return ++puts % TRIM_EVERY ? null : trim(c); });
      });
    }
    return res;
  }).catch(function () { return lastCopy(req.url); });
}

/* The cache's keys are listed to trim it every TRIM_EVERY pages kept, not at each one. */
var puts = 0, TRIM_EVERY = 20;
function trim(cache) {
  return cache.keys().then(function (keys) {
    return Promise.all(keys.slice(0, Math.max(0, keys.length - MAX_PAGES)).map(function (k) { return cache.delete(k); }));
  });
}

/* The last copy of the page (or of its match, or the start page), marked as such. */
function lastCopy(href) {
  var url = new URL(href), tries = [pageKey(href)];
  var match = /^\/m\/[^/]+\//.exec(url.pathname);
  if (match && !tally(url)) tries.push(url.origin + match[0]);
  if (!tally(url)) tries.push(url.origin + "/");
  return caches.open(PAGE_CACHE).then(function (cache) {
    return tries.reduce(function (found, key) {
      return found.then(function (hit) { return hit || cache.match(key); });
    }, Promise.resolve(null));
  }).then(function (hit) {
    if (!hit) return Response.error();
    return Promise.all([hit.text(), all()]).then(function (got) {
      var headers = new Headers(hit.headers);
      headers.set("X-Scarto-Offline", "1");
      headers.delete("Content-Length");  // the mark makes it longer
      return new Response(mark(got[0], hit.headers.get("Date"), waitingFor(got[1], url)), { status: 200, headers: headers });
    });
  });
}

function unescapeHtml(s) {
  return s.replace(/&#39;/g, "'").replace(/&#34;|&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}
function escapeHtml(s) {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/* "No connection — as of 21:14" at the top of the page, in the page's language. */
function mark(html, date, waiting) {
  var lang = (/<html lang="([^"]+)"/.exec(html) || [])[1] || "en";
  var text = unescapeHtml((/data-offline="([^"]*)"/.exec(html) || [])[1] || "No connection — as of %(time)s");
  var when = date ? new Date(date) : new Date(), now = new Date(), time;
  var opts = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
  if (when.toDateString() !== now.toDateString()) { opts.day = "numeric"; opts.month = "short"; }
  try { time = when.toLocaleString(lang, opts); } catch (e) { time = when.toISOString().slice(11, 16); }
  html = html.replace("<html ", '<html data-offline-at="' + when.toISOString() + '" ')
    .replace("<main>", '<main><p id="offline-mark" class="banner conflict offline" role="status">' +
             escapeHtml(text.replace("%(time)s", time)) + "</p>");
  return waiting ? countWaiting(html, waiting) : html;
}

/* The new-hand form cached from before: the hands waiting on this phone come first, so this one is
   the hand after them. The page is told how many wait and who dealt the last (<html data-waiting>);
   offline.js moves the form's number, count and dealer on from there. */
function waitingFor(entries, url) {
  if (!/^\/m\/[^/]+\/hands\/new\//.test(url.pathname)) return null;
  var match = matchOf(url.href), mine = entries.filter(function (e) { return e.match === match && e.kind === "new"; });
  return mine.length ? mine : null;
}

function countWaiting(html, waiting) {
  var told = JSON.stringify({ hands: waiting.length, dealer: fields(waiting[waiting.length - 1]).dealer || null });
  return html.replace("<html ", '<html data-waiting="' + escapeHtml(told) + '" ');
}

/* --- the entries kept on the phone ----------------------------------------------------- */

function db() {
  return new Promise(function (resolve, reject) {
    var open = indexedDB.open("scarto-offline", 1);
    open.onupgradeneeded = function () { open.result.createObjectStore("queue", { keyPath: "id", autoIncrement: true }); };
    open.onsuccess = function () { resolve(open.result); };
    open.onerror = function () { reject(open.error); };
  });
}
function tx(mode, work) {
  return db().then(function (d) {
    return new Promise(function (resolve, reject) {
      var t = d.transaction("queue", mode), result = work(t.objectStore("queue"));
      t.oncomplete = function () { d.close(); resolve(result && "result" in result ? result.result : undefined); };
      t.onerror = t.onabort = function () { d.close(); reject(t.error); };
    });
  });
}
function all() { return tx("readonly", function (s) { return s.getAll(); }).then(function (r) { return r || []; }); }
function put(entry) { return tx("readwrite", function (s) { return s.put(entry); }); }
function remove(id) { return tx("readwrite", function (s) { return s.delete(id); }); }

function matchOf(href) {
  var m = /^\/m\/[^/]+\//.exec(new URL(href).pathname);
  return m ? new URL(href).origin + m[0] : new URL(href).origin + "/";
}

function fields(entry) {
  if (entry.type.indexOf("json") >= 0) {
    try { return JSON.parse(entry.body) || {}; } catch (e) { return {}; }
  }
  var out = {};
  new URLSearchParams(entry.body).forEach(function (v, k) { if (!(k in out)) out[k] = v; });
  return out;
}
function setField(entry, name, value) {
  if (entry.type.indexOf("json") >= 0) {
    var data = fields(entry);
    data[name] = value;
    entry.body = JSON.stringify(data);
  } else {
    var p = new URLSearchParams(entry.body);
    p.set(name, value);
    entry.body = p.toString();
  }
}

function kindOf(path) {
  var m = /\/hands\/(?:new\/(\w+)|[^/]+\/(edit|delete|undelete|restore))/.exec(path);
  return !m ? "other" : m[1] ? "new" : m[2];
}

function newKey() {
  return self.crypto && crypto.randomUUID ? crypto.randomUUID() : Date.now().toString(36) + "-" + Math.random().toString(36).slice(2);
}

/* A change sent from a page: through, or kept here when the network fails (with its key, so that a
   save whose answer was lost is recognised by the server when it is sent again). */
function send(req) {
  var type = req.headers.get("Content-Type") || "", nav = req.mode === "navigate", copy = req.clone();
  return within(FLUSH_WAIT, flush()).catch(function () { return null; }).then(function () {
    return copy.text();
  }).then(function (body) {
    var path = new URL(req.url).pathname;
    var entry = { url: req.url, body: body, type: type, csrf: req.headers.get("X-CSRFToken") || "", match: matchOf(req.url),
                  kind: kindOf(path), form: (/\/new\/(\w+)/.exec(path) || [])[1] || "", at: new Date().toISOString(),
                  state: "waiting" };
    if (!fields(entry).entry_key) setField(entry, "entry_key", newKey());
    entry.key = fields(entry).entry_key;
    var headers = { "Content-Type": type, "Accept": req.headers.get("Accept") || "*/*" };
    if (entry.csrf) headers["X-CSRFToken"] = entry.csrf;
    return post(req.url, { method: "POST", body: entry.body, headers: headers, credentials: "same-origin",
                           redirect: nav ? "manual" : "follow" }).then(function (res) {
      return answered(res.clone(), type).then(function (saved) {
        if (saved) forgetKey(entry.key);
        return res;
      });
    }, function () {
      return put(entry).then(function () {
        if (self.registration.sync) self.registration.sync.register(SYNC_TAG).catch(function () { return null; });
        tell({ type: "queue" });
        if (type.indexOf("json") >= 0) {
          return new Response(JSON.stringify({ saved: true, queued: true, url: entry.match }),
                              { status: 202, headers: { "Content-Type": "application/json" } });
        }
        return Response.redirect(entry.match, 303);
      });
    });
  });
}

/* A change sent, given up as if the network had failed when no answer has begun after SEND_WAIT: a
   request that hung (a connection gone dead without a word) held every entry after it, and every
   later try, for good. The entry keeps its key, so one the server stored meanwhile is not stored
   twice when sent again. An answer that has begun is left to arrive at the network's pace. */
function post(url, init) {
  if (!self.AbortController) return fetch(url, init);
  var stop = new AbortController(), timer = setTimeout(function () { stop.abort(); }, SEND_WAIT);
  init.signal = stop.signal;
  return fetch(url, init).then(function (res) { clearTimeout(timer); return res; },
                               function (e) { clearTimeout(timer); throw e; });
}

/* Did the server store it? A form's save answers with a redirect, live.js's with {"saved": true}. */
function answered(res, type) {
  if (res.type === "opaqueredirect" || (res.status >= 300 && res.status < 400)) return Promise.resolve(true);
  if (type.indexOf("json") < 0 || !res.ok) return Promise.resolve(false);
  return res.json().then(function (d) { return !!(d && d.saved); }, function () { return false; });
}

/* An entry held for the player and then saved from its own page (same key) is done. */
function forgetKey(key) {
  if (!key) return null;
  return all().then(function (entries) {
    return Promise.all(entries.filter(function (e) { return e.key === key; }).map(function (e) { return remove(e.id); }));
  }).then(function () { tell({ type: "queue" }); });
}

var flushing = null;
function flush() {
  if (!flushing) flushing = sendWaiting().then(function (r) { flushing = null; return r; }, function (e) { flushing = null; throw e; });
  return flushing;
}

/* Send the waiting entries in the order they were made; stop at the first network failure. An
   entry refused is held, and so are the entries of its match after it (their order matters). */
function sendWaiting() {
  return all().then(function (entries) {
    var held = {}, sent = 0, refused = 0, offline = false;
    var chain = entries.reduce(function (prev, e) {
      return prev.then(function () {
        if (offline) return null;
        if (e.state !== "waiting" || held[e.match]) { held[e.match] = true; return null; }
        var headers = { "Content-Type": e.type, "Accept": e.type.indexOf("json") >= 0 ? "application/json" : "text/html" };
        if (e.csrf) headers["X-CSRFToken"] = e.csrf;
        return post(e.url, { method: "POST", body: e.body, headers: headers, credentials: "same-origin", redirect: "manual" })
          .then(function (res) {
            if (res.status >= 500) { offline = true; return null; }
            return answered(res.clone(), e.type).then(function (saved) {
              if (saved) { sent += 1; return remove(e.id); }
              held[e.match] = true;
              refused += 1;
              return hold(e, res);
            });
          }, function () { offline = true; });
      });
    }, Promise.resolve());
    return chain.then(function () {
      if (sent || refused) tell({ type: "queue", sent: sent });  // not for those already held: no news
      return { offline: offline, sent: sent };
    });
  });
}

/* Keep what the server said (its page, or live.js's JSON) so the player can decide. */
function hold(entry, res) {
  return res.text().then(function (text) {
    entry.state = "held";
    entry.status = res.status;
    entry.answer = text.slice(0, 400000);
    if (entry.type.indexOf("json") >= 0) {
      try {
        var d = JSON.parse(text);
        entry.messages = d.messages || [];
        if (d.expected_count != null) entry.count = String(d.expected_count);
        if (d.version != null) entry.version = String(d.version);
        entry.confirm = !!d.confirm;
      } catch (e) { entry.messages = []; }
    } else {
      entry.count = (/name="expected_count" type="hidden" value="(\d+)"/.exec(text) || [])[1];
      entry.version = (/name="version"(?: type="hidden")? value="(\d+)"/.exec(text) || [])[1];
      entry.confirm = text.indexOf('id="save-anyway"') >= 0 && res.status === 200;
    }
    return put(entry);
  });
}

function heldPage(url) {
  var id = +url.pathname.split("/")[3];
  return all().then(function (entries) {
    var e = entries.filter(function (x) { return x.id === id; })[0];
    if (!e || !e.answer || e.type.indexOf("json") >= 0) return Response.redirect(e ? e.match : "/", 303);
    return new Response(e.answer, { status: 200, headers: { "Content-Type": "text/html; charset=utf-8" } });
  });
}

/* The player's decision about a held entry. */
function decide(id, action) {
  return all().then(function (entries) {
    var e = entries.filter(function (x) { return x.id === id; })[0];
    if (!e) return null;
    if (action === "discard") return remove(id);
    if (action === "next" && e.count != null) {
      var delta = +e.count - +fields(e).expected_count;
      setField(e, "expected_count", e.count);
      // the hands entered after it were meant to follow it: they move along with it
      entries.forEach(function (later) {
        if (later.id > id && later.match === e.match && later.kind === "new") {
          setField(later, "expected_count", String(+fields(later).expected_count + delta));
          put(later);
        }
      });
    } else if (action === "over" && e.version != null) {
      setField(e, "version", e.version);
    } else if (action === "anyway") {
      setField(e, "save_anyway", e.type.indexOf("json") >= 0 ? true : "1");
    }
    e.state = "waiting";
    delete e.answer;
    return put(e);
  }).then(function () { return flush(); });
}

function summary(e) {
  var f = fields(e);
  return { id: e.id, match: e.match, kind: e.kind, form: e.form, dealer: f.dealer || "", state: e.state, ultimo: f.ultimo || "",
           points: [0, 1, 2, 3].map(function (i) { return f["points_" + i]; }),
           status: e.status || 0, count: e.count, seen: f.expected_count, version: e.version, confirm: !!e.confirm,
           messages: e.messages || [], page: e.answer && e.type.indexOf("json") < 0, at: e.at, url: e.url };
}

function tell(message) {
  self.clients.matchAll({ includeUncontrolled: true }).then(function (list) {
    list.forEach(function (c) { c.postMessage(message); });
  });
}

self.addEventListener("sync", function (event) {
  if (event.tag !== SYNC_TAG) return;
  event.waitUntil(flush().then(function (r) { if (r.offline) throw new Error("still offline"); }));
});

self.addEventListener("message", function (event) {
  var data = event.data || {}, port = event.ports && event.ports[0];
  var reply = function (value) { if (port) port.postMessage(value); };
  var work;
  if (data.type === "list") work = all().then(function (entries) { return entries.map(summary); });
  else if (data.type === "flush") work = flush();
  else if (data.type === "decide") work = decide(+data.id, String(data.action));
  else if (data.type === "warm") work = warm(data.urls || [], String(data.match || ""), String(data.state || ""));
  else return;
  event.waitUntil(work.then(reply, function (e) { reply({ error: String(e) }); }));
});

/* Keep the entry forms of a match opened on this phone, so a hand can be entered offline. One page
   at a time: the first may start the session whose CSRF token the others then share. They are
   fetched again only when the match's state (its state.json tag and the page's language, kept
   beside them under warmedKey) moved on since, or one of them is missing. */
var warming = Promise.resolve();
function warm(urls, match, state) {
  if (match) urls = urls.concat(match + "tally.json");  // the numbers for counting hands waiting here
  var hrefs = urls.map(function (u) { return new URL(u, self.location.href); })
    .filter(function (u) { return u.origin === self.location.origin && keepable(u); });
  var mark = match && state ? warmedKey(match) : null, seen = state + " " + VERSION;
  warming = warming.then(function () {
    return caches.open(PAGE_CACHE).then(function (cache) {
      return fresh(cache, mark, seen, hrefs).then(function (done) {
        if (done) return null;
        return hrefs.reduce(function (prev, url) {
          return prev.then(function () {
            // the header leaves the phone's messages (a hand just deleted: undo) for the page it shows
            return fetch(url.href, { credentials: "same-origin", headers: { "X-Scarto-Warm": "1" } }).then(function (res) {
              if (!res.ok) throw new Error("not kept");
              return cache.put(pageKey(url.href), res);
            });
          });
        }, Promise.resolve()).then(function () {
          return mark ? cache.put(mark, new Response(seen)) : null;
        }).catch(function () { return null; });  // offline or refused: warmed again at the next look
      });
    });
  });
  return warming;
}

function warmedKey(match) {
  return self.location.origin + "/offline/warmed?m=" + encodeURIComponent(match);
}

/* Are the pages kept already, at this state of their match? */
function fresh(cache, mark, seen, hrefs) {
  if (!mark) return Promise.resolve(false);
  return cache.match(mark).then(function (hit) { return hit ? hit.text() : null; }).then(function (text) {
    if (text !== seen) return false;
    return Promise.all(hrefs.map(function (u) { return cache.match(pageKey(u.href)); })).then(function (hits) {
      return hits.every(Boolean);
    });
  });
}
