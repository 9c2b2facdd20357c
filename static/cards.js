/* Hand entry forms (points, cards, counting cards): the last number fills itself in, cards are
   tapped into piles, and what was entered survives a reload. The page works without this file:
   the server fills the blank number in and reads the cards typed as text. */
(function () {
  "use strict";

  // --- exact fractions, [numerator, denominator] -------------------------------------
  function gcd(a, b) { a = Math.abs(a); b = Math.abs(b); while (b) { var t = b; b = a % b; a = t; } return a || 1; }
  function frac(n, d) { if (d < 0) { n = -n; d = -d; } var g = gcd(n, d); return [n / g, d / g]; }
  function add(a, b) { return frac(a[0] * b[1] + b[0] * a[1], a[1] * b[1]); }
  function same(a, b) { return a[0] === b[0] && a[1] === b[1]; }
  var GLYPHS = { "½": [1, 2], "⅓": [1, 3], "⅔": [2, 3], "¼": [1, 4], "¾": [3, 4], "⅙": [1, 6], "⅚": [5, 6] };
  var SHOW = { "1/2": "½", "1/3": "⅓", "2/3": "⅔", "1/4": "¼", "3/4": "¾", "1/6": "⅙", "5/6": "⅚" };

  /* Points as people write them: 31, 19½, 19 1/2, 58/3, 25,0 (the server reads the same). A decimal
     that is not whole (25,33) is no number here: points come in thirds, and the server says which. */
  function parse(text) {
    var s = text.trim().replace(",", "."), m;
    if ((m = /^(\d{1,6})?\s*([½⅓⅔¼¾⅙⅚])$/.exec(s))) return add([+(m[1] || 0), 1], GLYPHS[m[2]]);
    if ((m = /^(\d{1,6})\s+(\d{1,6})\s*\/\s*(\d{1,6})$/.exec(s))) return +m[3] ? add([+m[1], 1], frac(+m[2], +m[3])) : null;
    if ((m = /^(\d{1,6})\s*\/\s*(\d{1,6})$/.exec(s))) return +m[2] ? frac(+m[1], +m[2]) : null;
    if ((m = /^(\d{1,6})(?:\.(\d{1,6}))?$/.exec(s))) {
      return /^0*$/.test(m[2] || "") ? [+m[1], 1] : null;
    }
    return null;
  }

  function show(f) {
    if (f[1] === 1) return String(f[0]);
    var sign = f[0] < 0 ? "-" : "", n = Math.abs(f[0]), whole = Math.floor(n / f[1]), rest = n % f[1];
    var glyph = SHOW[rest + "/" + f[1]];
    if (glyph) return sign + (whole || "") + glyph;
    return sign + (whole ? whole + " " : "") + rest + "/" + f[1];
  }

  function say(text, values) {
    return (text || "").replace(/%\((\w+)\)s/g, function (all, key) { return values[key]; });
  }

  function each(list, fn) { Array.prototype.forEach.call(list, fn); }

  // --- a group of numbers that must add up to a total: points, pile sizes ------------
  function numbers(box) {
    var parts = box.dataset.total.split("/"), total = frac(+parts[0], +parts[1]);
    var inputs = Array.prototype.slice.call(box.querySelectorAll("input[data-part]"));
    var last = box.querySelector("[data-last]"), sum = box.querySelector("[data-sum]"), changed = false;

    function name(input) {
      var label = box.querySelector("label[for='" + input.id + "']");
      return label ? label.textContent.trim() : "";
    }

    function update() {
      var free = inputs.filter(function (i) { return !i.dataset.typed; });
      free.forEach(function (i) { if (i.classList.contains("auto")) { i.value = ""; i.classList.remove("auto"); } });
      last.textContent = "";
      last.classList.remove("bad");
      var known = [0, 1], readable = true;
      inputs.forEach(function (i) {
        if (!i.dataset.typed) return;
        var v = parse(i.value);
        if (v) known = add(known, v); else readable = false;
      });
      inputs.forEach(function (i) { i.placeholder = ""; });
      // never into the box being typed in: a thumb that empties the filled-in number types its own;
      // the rest shows as a hint there and fills in when the box is left empty
      var typing = free.length === 1 && free[0] === document.activeElement;
      if (typing && readable) {
        var hint = add(total, [-known[0], known[1]]);
        if (hint[0] >= 0) free[0].placeholder = show(hint);
      }
      if (free.length === 1 && readable && !typing) {
        var rest = add(total, [-known[0], known[1]]);
        if (rest[0] >= 0) {
          free[0].value = show(rest);
          free[0].classList.add("auto");
          last.textContent = say(box.dataset.lastText, { name: name(free[0]), value: show(rest), total: show(total) });
        } else {
          last.textContent = say(box.dataset.overText, { total: show(total) });
          last.classList.add("bad");
        }
      }
      var all = [0, 1], complete = true;
      inputs.forEach(function (i) {
        var v = i.value.trim() ? parse(i.value) : null;
        if (v) all = add(all, v); else complete = false;
      });
      sum.textContent = say(box.dataset.sumText, { sum: show(all), total: show(total) });
      sum.classList.toggle("sum-bad", complete && !same(all, total));
      // the total is right now, after a change: the server's complaint about the total (only) is out of date
      if (changed && complete && same(all, total)) clearTotalErrors();
    }

    function clearTotalErrors() {
      each(box.querySelectorAll("li[data-sum-off], span.problem[data-field]"),
           function (e) { e.hidden = true; });
      each(box.querySelectorAll("input[aria-invalid]"), function (i) { i.removeAttribute("aria-invalid"); });
      each(box.querySelectorAll("ul.problems"), function (ul) {
        if (!ul.querySelector("li:not([hidden])")) ul.hidden = true;
      });
      var outcome = document.getElementById("outcome");
      if (outcome && !document.querySelector(".problems li:not([hidden]), span.problem[data-field]:not([hidden])")) {
        outcome.hidden = true;
      }
    }

    // a hand being changed has every number filled in: the last one behaves as in a new hand,
    // the rest of the total, filled in again when another number changes
    var filled = inputs.every(function (i) { return i.value.trim() && parse(i.value); });
    if (filled && inputs.length > 1) {
      var whole = inputs.reduce(function (a, i) { return add(a, parse(i.value)); }, [0, 1]);
      if (same(whole, total)) inputs[inputs.length - 1].dataset.fillin = "1";
    }
    inputs.forEach(function (input) {
      if (input.value.trim() && !input.dataset.fillin) input.dataset.typed = "1";
      // tapping a number selects it: what is typed replaces it (no "1312")
      var justFocused = false;
      input.addEventListener("focus", function () { input.select(); justFocused = true; });
      input.addEventListener("mouseup", function (event) {  // the tap's release would drop the selection
        if (justFocused) event.preventDefault();
        justFocused = false;
      });
      input.addEventListener("keydown", function () { justFocused = false; });
      input.addEventListener("input", function () {
        input.classList.remove("auto");
        if (input.value.trim()) input.dataset.typed = "1"; else delete input.dataset.typed;
        changed = true;
        update();
      });
      input.addEventListener("blur", update);
    });
    update();
  }

  // --- the card grid: pick a player, tap their cards --------------------------------
  function cardsEntry(box, onChange) {
    var grid = box.querySelector("#grid"), pick = box.querySelector("#pick");
    var areas = Array.prototype.slice.call(box.querySelectorAll("textarea[data-seat]"));
    var buttons = {}, order = [];
    each(grid.querySelectorAll("button[data-card]"), function (b) { buttons[b.dataset.card] = b; order.push(b.dataset.card); });
    var owner = {}, extra = [], current = 0, checked = false, counts = [];

    function restSeat() {
      var r = box.querySelector("input[name=rest]:checked");
      return r ? +r.value : areas.length - 1;
    }

    function readAreas() {
      owner = {};
      extra = areas.map(function () { return []; });
      areas.forEach(function (area, seat) {
        area.value.split(/[\s,;]+/).forEach(function (token) {
          if (!token) return;
          var code = token.toUpperCase();
          // what the grid cannot show (an alias, a typo) stays as typed, for the server to judge
          if (buttons[code] && owner[code] === undefined) owner[code] = seat; else extra[seat].push(token);
        });
      });
    }

    function writeAreas() {
      areas.forEach(function (area, seat) {
        area.value = order.filter(function (c) { return owner[c] === seat; }).concat(extra[seat]).join(" ");
      });
    }

    function render() {
      var rest = restSeat();
      counts = areas.map(function () { return 0; });
      grid.dataset.rest = rest;
      order.forEach(function (code) {
        var b = buttons[code], seat = owner[code];
        if (seat === undefined) {
          b.removeAttribute("data-seat");
          b.classList.add("rest");
          counts[rest] += 1;
        } else {
          b.dataset.seat = seat;
          b.classList.remove("rest");
          counts[seat] += 1;
        }
        b.setAttribute("aria-pressed", seat === current ? "true" : "false");
      });
      areas.forEach(function (area, seat) {
        counts[seat] += extra[seat].length;
        var count = document.getElementById("pile-count-" + seat);
        if (count) count.textContent = counts[seat];
      });
      each(pick.querySelectorAll("[data-seat]"), function (b) {
        b.setAttribute("aria-pressed", +b.dataset.seat === current ? "true" : "false");
      });
    }

    grid.addEventListener("click", function (event) {
      var b = event.target.closest("button[data-card]");
      if (!b) return;
      checked = false;
      var code = b.dataset.card;
      if (owner[code] === current) delete owner[code]; else owner[code] = current;
      writeAreas();
      render();
      onChange();
    });
    pick.addEventListener("click", function (event) {
      var b = event.target.closest("[data-seat]");
      if (!b) return;
      current = +b.dataset.seat;
      render();
    });
    areas.forEach(function (area) { area.addEventListener("change", function () { readAreas(); render(); }); });
    each(box.querySelectorAll("input[name=rest]"), function (r) { r.addEventListener("change", render); });

    // a card the server found twice is marked where the player can see and fix it
    each(box.querySelectorAll("#problems li[data-card]"), function (li) {
      if (buttons[li.dataset.card]) buttons[li.dataset.card].classList.add("dup");
    });
    // before saving, the counts to check against the real piles (one tap), unless the sizes were typed
    var check = document.getElementById("pile-check"), form = box.form || box.closest("form");
    var saveButton = document.getElementById("save");

    function hideCheck() {  // one action at a time: the check's button, or the save button
      check.hidden = true;
      if (saveButton) saveButton.hidden = false;
    }

    if (check && form) {
      form.addEventListener("submit", function (event) {
        if (checked || event.submitter && event.submitter.id === "save-anyway") return;
        var sizes = form.querySelectorAll("#sizes input[data-part]");
        if (Array.prototype.some.call(sizes, function (i) { return i.value.trim() && !i.classList.contains("auto"); })) return;
        readAreas();
        render();
        // a word the grid cannot place (a card given twice, a word that is no card, a name for a card)
        // goes to the server first: what no count can fix is said before the piles are counted
        if (extra.some(function (words) { return words.length; })) return;
        event.preventDefault();
        var list = document.getElementById("pile-check-list");
        list.textContent = "";
        areas.forEach(function (area, seat) {
          var li = document.createElement("li"), label = box.querySelector("label[for='" + area.id + "']");
          li.innerHTML = label ? label.innerHTML : "";  // the server's dot and name
          li.appendChild(document.createTextNode(": "));
          var b = document.createElement("b");
          b.textContent = counts[seat];
          li.appendChild(b);
          list.appendChild(li);
        });
        check.hidden = false;
        if (saveButton) saveButton.hidden = true;
        check.scrollIntoView({ block: "center" });
        check.focus();
      });
      document.getElementById("pile-check-ok").addEventListener("click", function () {
        checked = true;
        hideCheck();
        if (form.requestSubmit) form.requestSubmit(); else form.submit();
      });
      // a pile changed after the check: the counts shown are old, and saving checks again
      box.addEventListener("click", function (event) {
        if (!check.hidden && event.target.closest("button[data-card], input[name=rest]")) hideCheck();
      });
      box.addEventListener("change", function () { if (!check.hidden) hideCheck(); });
    }
    if (window.ScartoGrid) window.ScartoGrid.rove(grid);
    readAreas();
    current = restSeat() === 0 ? 1 : 0;
    pick.hidden = false;
    grid.hidden = false;
    var asText = box.querySelector("#as-text");
    if (asText && !asText.querySelector("[aria-invalid]")) asText.open = false;  // a word refused stays in sight
    render();
  }

  // --- keep what was entered on this phone until the hand is saved -------------------
  function remember(form) {
    var box = form.querySelector("[data-storage]") || form;
    var key = box.dataset.storage || ("scarto-form:" + location.pathname);
    var seen = (form.elements.expected_count || {}).value + "/" + (form.elements.version || {}).value;
    var skip = { csrf_token: 1, expected_count: 1, version: 1, save_anyway: 1, dealer_ok: 1 };

    function collect() {
      var values = {};
      each(form.elements, function (el) {
        if (!el.name || skip[el.name] || el.classList.contains("auto")) return;
        if (el.type === "radio") { if (el.checked) values[el.name] = el.value; } else if (el.value) values[el.name] = el.value;
      });
      return values;
    }

    try {
      var stored = JSON.parse(localStorage.getItem(key) || "null");
      // a save moves the count (or version) on: an entry from before it is done with
      if (stored && stored.seen !== seen) localStorage.removeItem(key);
      else if (stored && !form.dataset.posted) {
        Object.keys(stored.values).forEach(function (name) {
          var el = form.elements[name];
          if (!el) return;
          if (window.RadioNodeList && el instanceof RadioNodeList) {
            each(el, function (r) { r.checked = r.value === stored.values[name]; });
          } else if (el.type === "radio") {
            el.checked = el.value === stored.values[name];
          } else {
            el.value = stored.values[name];
          }
        });
      }
    } catch (e) { /* private browsing: nothing kept, nothing lost either */ }

    function save() {
      try { localStorage.setItem(key, JSON.stringify({ seen: seen, values: collect() })); } catch (e) { /* full */ }
    }
    form.addEventListener("input", save);
    form.addEventListener("change", save);
    return save;
  }

  /* A new hand's dealer other than the rotation's is asked about once before saving, ahead of the pile
     check: a wrong tap would pass the deal on wrongly for the rest of the match. The rotation's dealer is
     the one the page marks (the server's, or offline the phone's own, after the hands waiting on it:
     offline.js moves the mark), read when saving: never which is ticked, since a tap made on a slow
     phone before this script ran, or an entry restored, ticks another. */
  function askDealer(form) {
    if (!form.dataset.dealerText) return;  // a hand being changed keeps its dealer
    form.addEventListener("submit", function (event) {
      var rotation = form.querySelector("input[name=dealer][data-rotation]");
      var chosen = form.querySelector("input[name=dealer]:checked"), ok = form.elements.dealer_ok;
      var asked = event.submitter && (event.submitter.name === "dealer_ok" || event.submitter.name === "dealer_by_rotation");
      if (asked || !chosen || !ok) return;
      if (rotation && chosen !== rotation && ok.value !== chosen.value &&
          !window.confirm(say(form.dataset.dealerText, { rotation: rotation.value, dealer: chosen.value }))) {
        event.preventDefault();
        event.stopImmediatePropagation();
        return;
      }
      ok.value = chosen.value;  // the rotation's, or confirmed: this phone has judged it (offline too)
    }, true);
  }

  var form = document.getElementById("hand-form");
  if (!form) return;
  askDealer(form);
  var save = remember(form);
  each(form.querySelectorAll("fieldset[data-total]"), numbers);
  var cards = form.querySelector(".cards-entry");
  if (cards && cards.querySelector("#grid")) cardsEntry(cards, save);
}());
