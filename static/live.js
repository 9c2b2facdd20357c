/* Live entry of a hand: tap each card as it is played. The server judges the hand after every
   tap (who won, whose turn, any breach already provable); the entry lives in localStorage until
   it is saved, so a dropped phone or a lost connection loses nothing. */
(function () {
  "use strict";
  var root = document.getElementById("live");
  if (!root || !window.fetch || !window.JSON) return;
  var cfg = JSON.parse(root.dataset.config), T = JSON.parse(root.dataset.texts);
  var form = document.getElementById("hand-form");
  var csrf = form.elements.csrf_token.value;
  var players = cfg.players, n = players.length;
  function $(id) { return document.getElementById(id); }
  var grid = $("grid"), turnEl = $("whose-turn"), nowEl = $("trick-now"), noteEl = $("live-note");
  var problemsEl = $("problems"), tricksEl = $("tricks"), resultEl = $("result"), noticeEl = $("notice");
  var saveBtn = $("save"), anywayBtn = $("save-anyway"), undoBtn = $("undo"), overBtn = $("discard-entry");
  var text = form.elements.tricks;
  var buttons = {};
  Array.prototype.forEach.call(grid.querySelectorAll("button[data-card]"), function (b) { buttons[b.dataset.card] = b; });

  var answer = null;   // the server's judgement of the entry as it was at `answered`
  var asked = 0, answered = -1, changes = 0, saving = false;
  var unchecked = false;  // the last check found no connection: a complete entry may still be saved (kept by sw.js)

  function say(s, values) { return (s || "").replace(/%\((\w+)\)s/g, function (all, k) { return values[k]; }); }
  function label(code) { return buttons[code] ? buttons[code].getAttribute("aria-label") : code; }
  /* a card as the grid draws it (the server's drawing, scorer/sheets/cardfaces.py), named for screen readers */
  function face(code) {
    var span = el("span", "card-face");
    var b = buttons[code];
    if (!b) { span.textContent = code; return span; }
    var drawn = el("span");
    drawn.setAttribute("aria-hidden", "true");  // the button's drawing, read out by the name after it
    drawn.innerHTML = b.innerHTML;  // the server's own markup, not text from the entry
    span.appendChild(drawn);
    span.appendChild(el("span", "sr", label(code)));
    return span;
  }
  function seat(name) { return players.indexOf(name); }
  function el(tag, cls, content) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (content !== undefined) e.textContent = content;
    return e;
  }
  function dot(name) { return el("i", "dot seat" + seat(name)); }

  // --- the rules sent with the page (the engine's card order and switches), for when the
  //     server cannot be asked: who won each trick, whose turn it is
  var rules = cfg.rules;
  rules.strengthOf = {}; rules.suitOf = {};
  rules.codes.split(" ").forEach(function (code, i) { rules.suitOf[code] = rules.suit[i]; rules.strengthOf[code] = rules.strength[i]; });
  function winnerOf(cards, leader) {
    var led = null, best = -Infinity, winner = leader;
    cards.forEach(function (code, k) {
      if (code === rules.fool) return;  // the Fool follows nothing and never wins
      var suit = rules.suitOf[code], strength = rules.strengthOf[code];
      if (led === null) led = suit;
      if ((suit === led || suit === rules.trump) && strength > best) { best = strength; winner = (leader + k) % n; }
    });
    return winner;
  }
  function localTricks() {
    var dealer = seat(state.dealer);
    if (dealer < 0 || !rules) return null;
    var leader = rules.first_lead === "dealer" ? dealer : (dealer + 1) % n, out = [];
    for (var i = 0; i < state.tricks.length; i++) {
      var cards = state.tricks[i];
      if (cards.some(function (c) { return rules.suitOf[c] === undefined; })) return null;  // not a card of this pack
      var info = { number: i + 1, leader: players[leader], cards: cards.slice(),
                   players: cards.map(function (c, k) { return players[(leader + k) % n]; }), winner: null };
      if (cards.length === n) { leader = winnerOf(cards, leader); info.winner = players[leader]; }
      out.push(info);
    }
    return { tricks: out, turn: players[(leader + ((state.tricks.length && state.tricks[state.tricks.length - 1].length < n)
      ? state.tricks[state.tricks.length - 1].length : 0)) % n], problems: null };
  }

  // --- the entry, kept on the phone
  var due = cfg.posted ? cfg.rotation : cfg.rotation && cfg.dealer, ok;
  function fresh() {
    return { dealer: cfg.dealer, tricks: cfg.entry.map(function (t) { return t.slice(); }), count: cfg.count, version: cfg.version };
  }
  function stored() {
    try { return JSON.parse(localStorage.getItem(cfg.storage) || "null"); } catch (e) { return null; }
  }
  function persist() {
    try { localStorage.setItem(cfg.storage, JSON.stringify(state)); } catch (e) { /* private mode: kept in the page */ }
  }
  function forget() {
    try { localStorage.removeItem(cfg.storage); } catch (e) { /* nothing kept */ }
  }
  function notice(message) {
    noticeEl.textContent = message || "";
    noticeEl.hidden = !message;
  }

  var state = fresh();
  var kept = stored();
  if (cfg.posted) {
    persist();  // the server showed what was posted: that is the entry now
  } else if (kept && kept.tricks && kept.tricks.length && JSON.stringify(kept.tricks) !== JSON.stringify(state.tricks)) {
    state = kept;
    // an entry that lost to another phone's save may be that very hand: never offer it as a fresh one
    notice(cfg.edit ? (kept.version === cfg.version && !kept.lost ? T.restored : T.stale)
                    : (kept.count === cfg.count && !kept.lost ? T.restored : T.stale));
  }

  function cardsPlayed() { return state.tricks.reduce(function (k, t) { return k + t.length; }, 0); }
  function complete() { return cardsPlayed() === cfg.tricks_total * n; }

  // --- talking to the server
  function post(url, body) {
    return fetch(url, {
      method: "POST", credentials: "same-origin", body: JSON.stringify(body),
      headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRFToken": csrf }
    }).then(function (r) {
      return r.json().catch(function () {  // an error page, not an answer: the link or the session is gone
        var message = say(T.refused, { status: r.status });
        return { saved: false, error: message, messages: [message] };
      }).then(function (data) { return { status: r.status, data: data }; });
    });
  }

  function check(typed) {
    var id = ++asked, version = changes;
    post(cfg.check, { dealer: state.dealer, tricks: typed !== undefined ? typed : state.tricks }).then(function (res) {
      if (id !== asked) return;  // a later tap asked again
      if (res.status !== 200) { noteEl.textContent = res.data.error || res.data.message || ""; return; }
      answer = res.data;
      answered = version;
      unchecked = false;
      if (typed !== undefined) { state.tricks = answer.entered; persist(); }
      noteEl.textContent = "";
      render();
    }).catch(function () {
      if (id === asked) { noteEl.textContent = T.offline; unchecked = true; render(); }
    });
  }

  function changed(typed) {
    changes += 1;
    if (!state.tricks.length && noticeEl.textContent === T.restored) notice("");  // nothing brought back is left
    persist();
    render(typed !== undefined);
    check(typed);
  }

  // --- what the player does
  var lastTap = { time: -1e9, x: -1e3, y: -1e3 };
  grid.addEventListener("click", function (event) {
    var b = event.target.closest("button[data-card]");
    if (!b || complete() || saving || b.getAttribute("aria-disabled") === "true") return;
    var now = Date.now(), x = event.pageX, y = event.pageY;  // the page's spot: a scroll moves the cards
    if (event.detail && now - lastTap.time < 600 && Math.abs(x - lastTap.x) < 30 && Math.abs(y - lastTap.y) < 30) return;
    lastTap = { time: now, x: x, y: y };
    var last = state.tricks[state.tricks.length - 1];
    if (!last || last.length === n) { last = []; state.tricks.push(last); }
    last.push(b.dataset.card);
    changed();
  });

  undoBtn.addEventListener("click", function () {
    lastTap.time = -1e9;
    var last = state.tricks[state.tricks.length - 1];
    if (!last) { noteEl.textContent = T.undo_empty; return; }
    last.pop();
    if (!last.length) state.tricks.pop();
    changed();
  });

  overBtn.addEventListener("click", function () {
    if (!window.confirm(T.start_over)) return;
    var count = state.count, version = state.version;
    state = fresh();
    if (!cfg.edit) state.tricks = [];
    state.count = count;
    state.version = version;
    forget();
    notice("");
    changed();
  });

  Array.prototype.forEach.call(form.querySelectorAll("input[name=dealer]"), function (radio) {
    radio.checked = radio.value === state.dealer;
    radio.addEventListener("change", function () { if (radio.checked) { state.dealer = radio.value; changed(); } });
  });

  text.addEventListener("change", function () { changed(text.value); });

  form.addEventListener("submit", function (event) { event.preventDefault(); save(false); });
  saveBtn.addEventListener("click", function (event) { event.preventDefault(); save(false); });
  anywayBtn.addEventListener("click", function (event) { event.preventDefault(); save(true); });

  function save(anyway) {
    if (saving) return;
    if (due && state.dealer !== due && ok !== state.dealer && !confirm(say(T.out_of_turn, {rotation: due, dealer: state.dealer}))) return;
    ok = state.dealer;
    saving = true;
    saveBtn.disabled = anywayBtn.disabled = true;
    noteEl.textContent = T.saving;
    var body = { dealer: state.dealer, tricks: state.tricks, expected_count: state.count, version: state.version,
                 save_anyway: !!anyway, notes: form.elements.notes.value,
                 entry_key: form.elements.entry_key ? form.elements.entry_key.value : "" };
    post(cfg.save, body).then(function (res) {
      var d = res.data;
      saving = false;
      noteEl.textContent = "";
      if (d.saved) { forget(); notice(""); window.location.href = d.url; return; }
      if (res.status === 409) {
        if (d.expected_count != null) state.count = d.expected_count;
        if (d.version != null) state.version = d.version;
        if (d.entry_key && form.elements.entry_key) form.elements.entry_key.value = d.entry_key;  // saved again: new
        if (d.dealer) form.dealer.value = state.dealer = due = d.dealer;
        state.lost = true;
        persist();
        showConflict(d);
      } else {
        noticeEl.textContent = (d.messages || []).join(" ");
        noticeEl.hidden = false;
        if (d.problems && d.problems.length) answer = Object.assign({}, answer || {}, { problems: d.problems });
      }
      render();
    }).catch(function () {
      saving = false;
      noteEl.textContent = T.not_saved;
      render();
    });
  }

  function showConflict(d) {
    var old = $("conflict");
    if (old) old.parentNode.removeChild(old);
    var box = el("div", "banner conflict");
    box.id = "conflict";
    box.setAttribute("role", "alert");
    (d.messages || []).forEach(function (m) { box.appendChild(el("p", "", m)); });
    if (d.conflict) {
      var p = el("p", "saved-now");
      p.appendChild(el("b", "", say(T.saved_now, { n: d.conflict.number, dealer: d.conflict.dealer })));
      p.appendChild(document.createTextNode(": " + d.conflict.scores.map(function (s) { return s[0] + " " + s[1]; }).join(" · ")));
      box.appendChild(p);
    }
    noticeEl.hidden = true;
    noticeEl.parentNode.insertBefore(box, noticeEl);
    box.scrollIntoView({ block: "start" });
  }

  // --- what the page shows
  function current() { return answered === changes ? answer : null; }

  function render(keepText) {
    var played = {}, now = current(), done = complete();
    state.tricks.forEach(function (t) { t.forEach(function (c) { played[c] = true; }); });
    // a duplicate board: only the cards of the player to play
    var t = cfg.held && !done && ((now && now.turn) || (localTricks() || {}).turn), mine = t && cfg.held[t];
    // played cards keep their place, greyed: nothing slides under the next tap
    Object.keys(buttons).forEach(function (code) {
      var other = !!mine && mine.indexOf(code) < 0 && !played[code];
      buttons[code].classList.toggle("gone", !!played[code]);
      buttons[code].classList.toggle("not-held", other);
      buttons[code].setAttribute("aria-disabled", played[code] || done || other ? "true" : "false");
    });
    // the box shows the record, but not over what the player is typing in it (an answer to an earlier
    // check may come while they type; their text is checked when they leave the box)
    if (!keepText && document.activeElement !== text) text.value = state.tricks.map(function (t) { return t.join(" "); }).join("\n");
    renderTurn(now, done);
    renderProblems(now || answer);
    renderTricks(now || answer);
    renderResult(now, done);
    var problems = (now || answer || {}).problems || [];
    var errors = problems.some(function (p) { return p.severity === "error"; });
    var breaches = problems.length && !errors;
    saveBtn.hidden = !!(done && breaches);
    anywayBtn.hidden = !(done && breaches);
    saveBtn.disabled = anywayBtn.disabled = saving || !done || (!now && !unchecked) || errors;
    undoBtn.disabled = !state.tricks.length;
    overBtn.hidden = !state.tricks.length;
    if (state.count !== cfg.count && !cfg.edit && state.count !== "") {
      saveBtn.textContent = say(T.save_as, { n: (+state.count) + 1 });
    }
  }

  function renderTurn(now, done) {
    var number = state.tricks.length, last = state.tricks[number - 1];
    turnEl.textContent = "";
    nowEl.textContent = "";
    if (done) {
      turnEl.textContent = say(T.complete, { n: cfg.tricks_total });
    } else {
      var open = last && last.length < n;
      var trickNo = open ? number : number + 1;
      var turn = now && now.turn, local = null;
      if (!turn) {  // not answered (yet, or offline): the rules sent with the page say it
        local = localTricks();
        if (local) turn = local.turn;
      }
      if (turn) {
        turnEl.appendChild(dot(turn));
        turnEl.appendChild(document.createTextNode(say(open ? (Object.prototype.hasOwnProperty.call(T.turn_by || {}, turn) ? T.turn_by[turn] : T.turn) : T.leads, { n: trickNo, name: turn })));
      } else {
        turnEl.textContent = say(T.waiting, { n: trickNo }) + " …";
      }
    }
    // the trick on the table: the one being played, or the one just won
    var shown = last, info = null, tricks = (now || {}).tricks || (localTricks() || {}).tricks || [];
    if (shown) info = tricks[number - 1] || null;
    if (!shown) return;
    shown.forEach(function (code, i) {
      var span = el("span", "played");
      var who = info && info.players ? info.players[i] : null;
      if (who) span.appendChild(dot(who));
      if (who) span.appendChild(document.createTextNode(who + " "));
      span.appendChild(face(code));
      nowEl.appendChild(span);
    });
    if (shown.length === n && info && info.winner) {
      nowEl.appendChild(el("b", "", "→ " + say(T.wins, { name: info.winner })));
    }
  }

  function renderProblems(data) {
    problemsEl.textContent = "";
    var problems = (data && data.problems) || [];
    problems.forEach(function (p) {
      var li = el("li", p.severity);
      li.dataset.code = p.code;
      if (p.trick) li.dataset.trick = p.trick;
      if (p.card) li.dataset.card = p.card;
      li.appendChild(el("b", "", p.label));
      li.appendChild(document.createTextNode(": " + p.message));
      problemsEl.appendChild(li);
    });
    problemsEl.hidden = !problems.length;
    // the first one said where the player looks, at the top: the list is below the 78 cards
    var flag = $("breach-flag"), first = problems[0];
    flag.hidden = !first;
    if (first) flag.textContent = "⚠ " + say(first.trick ? T.flag : T.flag_hand, { label: first.label, n: first.trick });
  }

  function renderTricks(data) {
    tricksEl.textContent = "";
    var local = localTricks();
    var info = (data && data.tricks) || [], problems = (data && data.problems) || [];
    var same = function (a, i) { return a[i] && JSON.stringify(a[i].cards) === JSON.stringify(state.tricks[i]); };
    for (var i = state.tricks.length - 1; i >= 0; i--) {
      var cards = state.tricks[i];
      if (cards.length < n) continue;
      var t = same(info, i) ? info[i] : (local && same(local.tricks, i) ? local.tricks[i] : null);
      var li = el("li");
      li.value = i + 1;
      li.dataset.trick = i + 1;
      cards.forEach(function (code, k) {
        var span = el("span", "played"), who = t ? t.players[k] : null;
        if (who) span.appendChild(dot(who));
        span.appendChild(face(code));
        li.appendChild(span);
      });
      if (t && t.winner) li.appendChild(el("b", "", "→ " + say(T.wins, { name: t.winner })));
      problems.filter(function (p) { return p.trick === i + 1; }).forEach(function (p) {
        li.className = "breach";
        li.appendChild(el("span", "problem", p.label + ": " + p.message));
      });
      tricksEl.appendChild(li);
    }
    $("tricks-heading").hidden = !tricksEl.children.length;
  }

  function renderResult(now, done) {
    resultEl.textContent = "";
    resultEl.hidden = !(done && now && now.scores);
    if (resultEl.hidden) return;
    var discard = el("p", "", say(T.discard, { cards: "" }));
    now.discard.forEach(function (code) { discard.appendChild(face(code)); discard.appendChild(document.createTextNode(" ")); });
    resultEl.appendChild(discard);
    now.scores.forEach(function (s) {
      var p = el("p");
      p.appendChild(dot(s.name));
      p.appendChild(document.createTextNode(say(T.score, { name: s.name, points: s.card_points, score: s.score })));
      resultEl.appendChild(p);
    });
  }

  // keep the screen on while the hand is entered, where the browser allows it
  var wake = null;
  function stayAwake() {
    if (!navigator.wakeLock || document.visibilityState !== "visible" || wake) return;
    navigator.wakeLock.request("screen").then(function (lock) {
      wake = lock;
      lock.addEventListener("release", function () { wake = null; });
    }).catch(function () { /* refused (battery saver, not allowed): the screen may dim */ });
  }
  document.addEventListener("visibilitychange", stayAwake);
  stayAwake();
  if (window.ScartoGrid) window.ScartoGrid.rove(grid);

  $("status").hidden = false;
  grid.hidden = false;
  $("as-text").open = false;
  if (kept === null || cfg.posted) persist();
  if (cfg.posted && !state.tricks.length && text.value.trim()) {  // typed tricks the server could not read
    render(true);
    check(text.value);
  } else {
    render();
    check();
  }
}());
