/* The hands waiting on this phone, counted on the match page as the server will count them when
   they arrive: the standings, the next dealer, the hands to play and who pays whom, marked as not
   yet sent (docs/OFFLINE.md). sync.js loads this file only while entries wait.

   The rules are the engine's: every number (the pack, the base, the ultimo bonus, how the match
   ends, the settlement and stake) and where the stored hands leave the match come from
   /m/<token>/tally.json (scorer/engine/tally.py), kept by the service worker beside the match
   page. What is done here is the engine's arithmetic on them for a hand of counted points (points
   less the base, plus the bonus), the running totals, the rotation and the settlement; a browser
   test runs every shared fixture and many matches through both and fails on any difference
   (tests/browser/test_tally.py). A hand entered any other way, or points typed in a way this file
   does not read, is scored when it is sent: the page says so. */
(function () {
  "use strict";

  // --- exact fractions, [numerator, denominator] -------------------------------------
  function gcd(a, b) { a = Math.abs(a); b = Math.abs(b); while (b) { var t = b; b = a % b; a = t; } return a || 1; }
  function frac(n, d) { if (d < 0) { n = -n; d = -d; } var g = gcd(n, d); return [n / g, d / g]; }
  function add(a, b) { return frac(a[0] * b[1] + b[0] * a[1], a[1] * b[1]); }
  function times(a, b) { return frac(a[0] * b[0], a[1] * b[1]); }
  function less(a, b) { return a[0] * b[1] < b[0] * a[1]; }
  function num(v) { var p = String(v).split("/"); return frac(+p[0], p.length > 1 ? +p[1] : 1); }  // 31, "58/3"
  function json(f) { return f[1] === 1 ? f[0] : f[0] + "/" + f[1]; }  // as RECORD.md writes it
  function decimal(text) {  // a stake, "0.10"
    var m = /^(\d+)(?:\.(\d+))?$/.exec(text), places = (m[2] || "").length;
    return frac(+(m[1] + (m[2] || "")), Math.pow(10, places));
  }
  var GLYPHS = { "½": [1, 2], "⅓": [1, 3], "⅔": [2, 3], "¼": [1, 4], "¾": [3, 4], "⅙": [1, 6], "⅚": [5, 6] };
  var SHOW = { "1/2": "½", "1/3": "⅓", "2/3": "⅔", "1/4": "¼", "3/4": "¾", "1/6": "⅙", "5/6": "⅚" };

  /* Points as typed into the points form, read only in the forms the server reads the same way
     (31, 19½, 19 1/2, 58/3, spaces and tabs around them); anything else is the server's to read. */
  function read(text) {
    var s = String(text).replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, ""), m;
    if ((m = /^(\d{1,6})?[ \t]*([½⅓⅔¼¾⅙⅚])$/.exec(s))) return add([+(m[1] || 0), 1], GLYPHS[m[2]]);
    if ((m = /^(\d{1,6})[ \t]+(\d{1,6})[ \t]*\/[ \t]*(\d{1,6})$/.exec(s))) return +m[3] ? add([+m[1], 1], frac(+m[2], +m[3])) : null;
    if ((m = /^(\d{1,6})[ \t]*\/[ \t]*(\d{1,6})$/.exec(s))) return +m[2] ? frac(+m[1], +m[2]) : null;
    return /^\d{1,6}$/.test(s) ? [+s, 1] : null;
  }

  /* A waiting hand's scores, in seating order, as the engine counts a points record; null when the
     phone cannot say (another entry way, points it does not read, a hand the server will refuse). */
  function judge(d, hand) {
    var players = d.players, deck = num(d.deck), base = num(d.base), known = [0, 1], blank = [], values = [];
    if (hand.form !== "points" || players.indexOf(hand.dealer) < 0) return null;
    for (var i = 0; i < players.length; i++) {
      var text = hand.points[i] == null ? "" : String(hand.points[i]);
      if (text.length > 20) return null;  // the box's limit: the server refuses it
      if (!text.trim()) { blank.push(i); values.push(null); continue; }
      var v = read(text);
      if (!v) return null;
      values.push(v);
      known = add(known, v);
    }
    if (blank.length > 1) return null;
    var rest = add(deck, [-known[0], known[1]]);
    if (blank.length) { if (rest[0] < 0) return null; values[blank[0]] = rest; } else if (rest[0] !== 0) return null;
    var ultimo = d.ultimo && hand.ultimo ? players.indexOf(hand.ultimo) : -1;
    if (d.ultimo && hand.ultimo && ultimo < 0) return null;
    return values.map(function (p, k) {
      var score = add(p, [-base[0], base[1]]);
      return ultimo < 0 ? score : add(score, num(d.bonus[k === ultimo ? 0 : 1]));
    });
  }

  /* The match after the waiting hands, hand by hand, as the engine adds them up (a hand after the
     end is listed and changes nothing); `complete` is false when a counted hand has no score here. */
  function addUp(d, hands) {
    var players = d.players, totals = d.totals.map(num), finished = d.finished, played = d.count, next = d.next;
    var complete = true, lines = hands.map(function (hand) {
      var scores = judge(d, hand), counted = !finished;
      played += 1;
      if (!scores && counted) complete = false;
      if (scores && counted) totals = totals.map(function (t, i) { return add(t, scores[i]); });
      var best = totals.reduce(function (a, b) { return less(a, b) ? b : a; });
      finished = finished || (d.target != null ? !less(best, [d.target, 1]) : played >= d.hands);
      var at = players.indexOf(hand.dealer);
      if (at >= 0) next = players[(at + 1) % players.length];
      return { number: played, dealer: hand.dealer, scores: scores, totals: totals, counted: counted };
    });
    return { lines: lines, totals: totals, next: next, finished: finished, complete: complete, number: played + 1,
             left: d.hands == null ? null : Math.max(0, d.hands - played), settlement: settle(d, totals) };
  }

  /* Points times the stake, rounded half up to the cent, exactly, as "1.50". */
  function money(points, stake) {
    var cents = times(times(points, stake), [100, 1]), n = Math.abs(cents[0]);
    var whole = Math.floor(n / cents[1]);
    if (2 * (n % cents[1]) >= cents[1]) whole += 1;
    return (cents[0] < 0 ? "-" : "") + Math.floor(whole / 100) + "." + ("0" + whole % 100).slice(-2);
  }

  /* Who pays whom for these totals (scarto-standings/1's settlement), as settlement.py settles them. */
  function settle(d, totals) {
    var stake = d.stake == null ? null : decimal(d.stake), out = [];
    var seats = d.players.map(function (name, i) { return { name: name, total: totals[i] }; });
    if (d.settle === "loser_pays") {
      var lowest = seats.reduce(function (a, s) { return less(s.total, a) ? s.total : a; }, seats[0].total);
      seats.forEach(function (loser) {
        if (less(lowest, loser.total) || less(loser.total, lowest)) return;
        seats.forEach(function (s) {
          if (!less(lowest, s.total)) return;
          var t = { from: loser.name, to: s.name, stakes: 1 };
          if (stake) t.amount = money([1, 1], stake);
          out.push(t);
        });
      });
      return out;
    }
    var debts = seats.filter(function (s) { return s.total[0] < 0; }).map(function (s) { return [s.name, [-s.total[0], s.total[1]]]; });
    var credits = seats.filter(function (s) { return s.total[0] > 0; }).map(function (s) { return [s.name, s.total]; });
    function largest(list) {  // the first of equals
      return list.reduce(function (best, x, i) { return less(list[best][1], x[1]) ? i : best; }, 0);
    }
    function left(list) { return list.filter(function (x) { return x[1][0] > 0; }); }
    while (debts.length && credits.length) {
      var di = largest(debts), ci = largest(credits), debt = debts[di], credit = credits[ci];
      var paid = less(debt[1], credit[1]) ? debt[1] : credit[1];
      var t = { from: debt[0], to: credit[0], points: json(paid) };
      if (stake) t.amount = money(paid, stake);
      out.push(t);
      debts[di] = [debt[0], add(debt[1], [-paid[0], paid[1]])];
      credits[ci] = [credit[0], add(credit[1], [-paid[0], paid[1]])];
      debts = left(debts);
      credits = left(credits);
    }
    return out;
  }

  // --- the page ------------------------------------------------------------------------
  var css = document.createElement("link");  // its look, with it (the match page is within its weight budget)
  css.rel = "stylesheet";
  css.href = document.currentScript.src.replace("tally.js", "tally.css");
  document.head.appendChild(css);

  function show(f) {  // as fraction_text: 19, 19½, -3⅓, 7 2/9
    if (f[1] === 1) return String(f[0]);
    var sign = f[0] < 0 ? "-" : "", n = Math.abs(f[0]), whole = Math.floor(n / f[1]), rest = n % f[1];
    var glyph = SHOW[rest + "/" + f[1]];
    if (glyph) return sign + (whole || "") + glyph;
    return sign + (whole ? whole + " " : "") + rest + "/" + f[1];
  }
  function say(s, v) { return (s || "").replace(/%\((\w+)\)s/g, function (a, k) { return v[k]; }); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function mark(node, T) { node.appendChild(el("span", "unsent", T.unsent)); return node; }
  function $(id) { return document.getElementById(id); }

  function cash(amount, d) {
    try { return new Intl.NumberFormat(document.documentElement.lang, { style: "currency", currency: d.currency }).format(+amount); }
    catch (e) { return amount + " " + d.currency; }
  }

  function payment(t, d, T) {
    var text = t.points != null ? say(num(t.points)[0] === 1 && num(t.points)[1] === 1 ? T.pay1 : T.pay,
                                      { payer: t.from, payee: t.to, points: show(num(t.points)) })
                                : say(T.stake, { payer: t.from, payee: t.to });
    var li = el("li", "", text);
    if (t.amount != null) { li.appendChild(document.createTextNode(" = ")); li.appendChild(el("b", "", cash(t.amount, d))); }
    return li;
  }

  /* The projection: its own section after the next hand's, and the next hand's lines brought up to date. */
  function render(d, entries) {
    var T = d.texts, hands = entries.filter(function (e) { return e.kind === "new"; });
    clear();
    if (!hands.length) return;  // changes to saved hands only: the server's page stands until they are sent
    var now = addUp(d, hands), next = document.querySelector("main section.next");
    var box = el("section", "tally");
    box.id = "tally";
    box.appendChild(mark(el("h2", "", T.standings + " "), T));
    if (hands.length) {
      var list = el("ol", "tally-hands");
      now.lines.forEach(function (line) {
        var li = el("li");
        li.appendChild(el("b", "", say(T.hand, { n: line.number, dealer: line.dealer })));
        li.appendChild(el("br"));
        var scores = el("span", line.scores ? "" : "muted", line.scores ? "" : T.later);
        (line.scores || []).forEach(function (score, i) {  // a name and its score never apart
          if (i) scores.appendChild(document.createTextNode(" · "));
          scores.appendChild(el("span", "", d.players[i] + " " + show(score)));
        });
        li.appendChild(scores);
        list.appendChild(li);
      });
      box.appendChild(list);
    }
    var table = el("table", "tally-totals"), body = el("tbody");
    d.players.forEach(function (p, i) {
      var tr = el("tr"), th = el("th");
      th.scope = "row";
      th.appendChild(el("span", "dot seat" + i));
      th.appendChild(document.createTextNode(p));
      tr.appendChild(th);
      tr.appendChild(el("td", "num", show(now.totals[i])));
      body.appendChild(tr);
    });
    var head = el("thead"), row = el("tr");
    row.appendChild(el("td"));
    row.appendChild(el("th", "num", T.total));
    head.appendChild(row);
    table.appendChild(head);
    table.appendChild(body);
    box.appendChild(table);
    if (!now.complete) box.appendChild(el("p", "muted", T.limit));
    if (hands.length < entries.length) box.appendChild(el("p", "muted", T.changes));
    if (now.finished && now.complete) {
      var best = now.totals.reduce(function (a, b) { return less(a, b) ? b : a; });
      box.appendChild(el("p", "banner done", say(T.over, { names: d.players.filter(function (p, i) {
        return !less(now.totals[i], best);
      }).join(" & ") })));
    }
    box.appendChild(mark(el("h3", "", T.pays + " "), T));
    if (now.settlement.length) {
      var pays = el("ul", "settlement");
      now.settlement.forEach(function (t) { pays.appendChild(payment(t, d, T)); });
      box.appendChild(pays);
    } else box.appendChild(el("p", "muted", T.nobody));
    if (next) next.parentNode.insertBefore(box, next.nextSibling);
    // the next hand and the hands to play count the waiting hands
    var h2 = next && next.querySelector("h2"), toPlay = $("to-play"), none = $("no-hands"), paid = $("settlement");
    if (h2) {
      h2.dataset.stored = h2.textContent;
      h2.textContent = say(T.next, { n: now.number, dealer: now.next }) + " ";
      mark(h2, T);
    }
    if (toPlay) {
      toPlay.dataset.stored = toPlay.textContent;
      toPlay.textContent = now.left == null ? "" : say(now.left === 1 ? T.left1 : T.left, { num: now.left }) + " ";
      if (now.left != null) mark(toPlay, T);
      toPlay.hidden = now.finished;  // over by its hands (a match to a target has no such line)
    }
    if (none) none.hidden = true;
    if (paid) paid.hidden = true;  // the stored hands' settlement: the one above includes the waiting ones
  }

  function clear() {
    var box = $("tally");
    if (box) box.parentNode.removeChild(box);
    Array.prototype.forEach.call(document.querySelectorAll("[data-stored]"), function (e) {
      e.textContent = e.dataset.stored;
      delete e.dataset.stored;
      e.hidden = false;
    });
    ["no-hands", "settlement"].forEach(function (id) { if ($(id)) $(id).hidden = false; });
  }

  var last = null, kept = null, asked = 0;
  /* Show the waiting entries (the service worker's summaries of this match's) counted; none: clear.
     The match's numbers are asked once for the page shown, and again when it is brought up to date. */
  function tally(entries, base) {
    last = { entries: entries, base: base };
    var mine = ++asked;
    if (!entries.length) { clear(); return Promise.resolve(); }
    if (kept) { render(kept, entries); return Promise.resolve(); }
    return fetch(base + "tally.json", { credentials: "same-origin" }).then(function (res) {
      return res.ok ? res.json() : null;
    }).then(function (d) {
      if (mine !== asked || !d || !d.players) return;
      kept = d;
      render(d, last.entries);
    }).catch(function () { /* nothing kept: the page stays as the server made it */ });
  }

  // an update of the page (another phone's hand, a hand sent) brings its own next-hand lines and state
  document.addEventListener("scarto:updated", function () { kept = null; if (last) tally(last.entries, last.base); });

  window.ScartoTally = { read: read, judge: judge, addUp: addUp, settle: settle, json: json, show: tally };
}());
