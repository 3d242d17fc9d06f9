/* The site search: the box in every page's header (Ctrl+K or Cmd+K, or "/"), results as you
   type from /search-index.json (built with the pages, so a static host needs no server).
   Typo-tolerant: "infinband" finds InfiniBand. It searches titles, aliases, summaries,
   section headings and FAQ questions; a result found in a heading or a question links to it.
   The first row asks the assistant the query. A combobox with a listbox (WAI-ARIA 1.2). */
(function () {
  "use strict";

  var form = document.getElementById("site-search");
  var input = document.getElementById("search-box");
  var list = document.getElementById("search-results");
  var status = document.getElementById("search-status");
  // Fields by weight: a hit in a title counts most, one in a summary least.
  var WEIGHTS = { t: 10, a: 8, h: 4, q: 3, s: 2 };
  var MAX_RESULTS = 8;

  function words(text) {
    return String(text || "").toLowerCase().normalize("NFD").replace(/[\u0300-\u036f]/g, "")
      .match(/[a-z0-9]+/g) || [];
  }

  // Edit distance (with swaps) of two words, or max + 1 once it must exceed max.
  function distance(a, b, max) {
    if (Math.abs(a.length - b.length) > max) { return max + 1; }
    var prev2 = null;
    var prev = [];
    for (var j = 0; j <= b.length; j++) { prev.push(j); }
    for (var i = 1; i <= a.length; i++) {
      var row = [i];
      var best = i;
      for (j = 1; j <= b.length; j++) {
        var cost = a[i - 1] === b[j - 1] ? 0 : 1;
        var d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
        if (prev2 && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
          d = Math.min(d, prev2[j - 2] + 1);
        }
        row.push(d);
        if (d < best) { best = d; }
      }
      if (best > max) { return max + 1; }
      prev2 = prev;
      prev = row;
    }
    return prev[b.length];
  }

  // How well one typed word matches a word of the text: 1 the same, less for a prefix
  // (the word being typed) or a typo; 0 not at all.
  function closeness(typed, word, last) {
    if (typed === word) { return 1; }
    if (last && typed.length >= 2 && word.indexOf(typed) === 0) { return 0.9; }
    var allowed = typed.length >= 8 ? 2 : typed.length >= 4 ? 1 : 0;
    if (!allowed) { return 0; }
    var d = distance(typed, word, allowed);
    if (d <= allowed) { return d === 1 ? 0.75 : 0.55; }
    // A typo in a word still being typed: its start against the word's start.
    if (last && typed.length >= 5 && word.length > typed.length &&
        distance(typed, word.slice(0, typed.length), 1) <= 1) { return 0.6; }
    return 0;
  }

  // Each field's words, once: [{field, text, anchor, words}] per entry.
  function prepare(entries) {
    return entries.map(function (e) {
      var parts = [{ f: "t", text: e.t, words: words(e.t) }];
      (e.a || []).forEach(function (a) { parts.push({ f: "a", text: a, words: words(a) }); });
      parts.push({ f: "s", text: e.s, words: words(e.s) });
      (e.h || []).forEach(function (h) { parts.push({ f: "h", text: h[0], anchor: h[1], words: words(h[0]) }); });
      (e.q || []).forEach(function (q) { parts.push({ f: "q", text: q[0], anchor: q[1], words: words(q[0]) }); });
      return { entry: e, parts: parts };
    });
  }

  function search(docs, query) {
    var typed = words(query);
    if (!typed.length) { return []; }
    var cache = {};  // typed word -> {word: closeness}, over the whole index's vocabulary
    function close(t, w, last) {
      var key = t + (last ? "*" : "");
      var seen = cache[key] || (cache[key] = {});
      if (!(w in seen)) { seen[w] = closeness(t, w, last); }
      return seen[w];
    }
    var results = [];
    docs.forEach(function (doc) {
      // How much of the query each part holds: the sum over typed words of the best match.
      var covers = doc.parts.map(function (part) {
        return typed.map(function (t, i) {
          var hit = 0;
          part.words.forEach(function (w) { hit = Math.max(hit, close(t, w, i === typed.length - 1)); });
          return hit;
        });
      });
      var total = 0;
      for (var i = 0; i < typed.length; i++) {
        var best = 0;
        for (var p = 0; p < doc.parts.length; p++) {
          best = Math.max(best, covers[p][i] * WEIGHTS[doc.parts[p].f]);
        }
        if (!best) { return; }  // every word must be found
        total += best;
      }
      var phrase = typed.join(" ");
      if (words(doc.entry.t).join(" ").indexOf(phrase) === 0) { total += 5; }
      // A title or alias that holds every word: the page. Otherwise the heading or question
      // that holds most of the query, if one holds at least half of it.
      var named = doc.parts.some(function (part, p) {
        return (part.f === "t" || part.f === "a") && covers[p].every(Boolean);
      });
      var where = null;
      var most = typed.length / 2;
      doc.parts.forEach(function (part, p) {
        var sum = covers[p].reduce(function (a, b) { return a + b; }, 0);
        if (part.anchor && sum >= most && (!where || sum > most)) { where = part; most = sum; }
      });
      if (where) { total += most; }
      results.push({ entry: doc.entry, score: total, where: named ? null : where });
    });
    results.sort(function (a, b) { return b.score - a.score || a.entry.t.localeCompare(b.entry.t); });
    return results.slice(0, MAX_RESULTS);
  }

  // The A-Z index's filter reads through the same matcher (typos included).
  window.glossaryFuzzy = function (query, text) {
    var have = words(text);
    var typed = words(query);
    return typed.every(function (t, i) {
      var last = i === typed.length - 1;
      return have.some(function (w) { return closeness(t, w, last) > 0; });
    });
  };

  if (!form || !input || !list) { return; }
  form.hidden = false;
  var docs = null;
  var loading = null;
  var rows = [];
  var active = -1;

  function load() {
    if (!loading) {
      loading = fetch(document.body.getAttribute("data-search-index"), { credentials: "omit" })
        .then(function (r) { return r.json(); })
        .then(function (entries) { docs = prepare(entries); })
        .catch(function () { docs = []; });
    }
    return loading;
  }

  function option(id, title, kind, where) {
    var li = document.createElement("li");
    li.id = id;
    li.setAttribute("role", "option");
    li.setAttribute("aria-selected", "false");
    var t = document.createElement("span");
    t.className = "result-title";
    t.textContent = title;
    if (kind) {
      var k = document.createElement("span");
      k.className = "result-kind";
      k.textContent = kind;
      t.appendChild(k);
    }
    li.appendChild(t);
    if (where) {
      var w = document.createElement("span");
      w.className = "result-where";
      w.textContent = where;
      li.appendChild(w);
    }
    return li;
  }

  function select(index) {
    rows.forEach(function (row, i) { row.li.setAttribute("aria-selected", i === index ? "true" : "false"); });
    active = index;
    if (index >= 0) {
      input.setAttribute("aria-activedescendant", rows[index].li.id);
      rows[index].li.scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function close() {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    select(-1);
  }

  function show() {
    var query = input.value.trim();
    list.textContent = "";
    rows = [];
    if (!query) { close(); status.textContent = ""; return; }
    if (window.glossaryAsk) {
      var askLi = option("search-ask", "Ask the assistant: " + query, "", "");
      askLi.classList.add("ask-row");
      rows.push({ li: askLi, ask: query });
    }
    var found = docs ? search(docs, query) : [];
    found.forEach(function (r, i) {
      var url = r.entry.u + (r.where ? "#" + r.where.anchor : "");
      var where = r.where ? (r.where.f === "q" ? "Question: " : "Section: ") + r.where.text : r.entry.s;
      rows.push({ li: option("search-result-" + i, r.entry.t, r.entry.k, where), url: url });
    });
    rows.forEach(function (row) { list.appendChild(row.li); });
    if (!found.length) {
      var none = option("search-none", docs ? "No page matches \u201c" + query + "\u201d" : "Loading\u2026", "", "");
      none.classList.add("empty");
      none.setAttribute("aria-disabled", "true");
      list.appendChild(none);
    }
    list.hidden = false;
    input.setAttribute("aria-expanded", "true");
    select(rows.length ? 0 : -1);
    status.textContent = found.length + (found.length === 1 ? " page found" : " pages found") +
      (window.glossaryAsk ? ", and the assistant can be asked." : ".");
  }

  function activate(row) {
    if (!row) { return; }
    close();
    if (row.ask) {
      input.blur();
      window.glossaryAsk(row.ask);
    } else {
      location.href = row.url;
    }
  }

  input.addEventListener("focus", load);
  input.addEventListener("input", function () {
    if (docs) { show(); } else { load().then(show); }
  });
  input.addEventListener("keydown", function (event) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (list.hidden) { show(); return; }
      var n = rows.length;
      if (n) { select((active + (event.key === "ArrowDown" ? 1 : n - 1)) % n); }
    } else if (event.key === "Enter") {
      event.preventDefault();
      activate(rows[active] || rows[0]);
    } else if (event.key === "Escape") {
      if (!list.hidden) {
        event.preventDefault();
        event.stopPropagation();
        close();
      } else {
        input.value = "";
      }
    }
  });
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  list.addEventListener("mousedown", function (event) { event.preventDefault(); });
  list.addEventListener("click", function (event) {
    var li = event.target.closest("li[role='option']");
    activate(rows.filter(function (row) { return row.li === li; })[0]);
  });
  input.addEventListener("blur", function () { setTimeout(close, 100); });

  // Ctrl+K / Cmd+K from anywhere on the page, and "/" outside a text field.
  var mac = /Mac|iPhone|iPad/.test(navigator.platform || "");
  var key = form.querySelector(".search-key");
  if (key && mac) { key.textContent = "\u2318K"; }
  document.addEventListener("keydown", function (event) {
    var typing = /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName) || event.target.isContentEditable;
    if ((event.key === "k" || event.key === "K") && (event.ctrlKey || event.metaKey) && !event.altKey) {
      event.preventDefault();
      input.focus();
      input.select();
    } else if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      input.focus();
    }
  });
})();
