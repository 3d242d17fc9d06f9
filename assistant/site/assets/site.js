/* The glossary site's script: the assistant launcher, questions sent to it, the A-Z filter
   and calculator forms. Every page works without it (the launcher falls back to a link, the
   forms to a plain submit). No inline script: the pages' CSP allows only this file. */
(function () {
  "use strict";

  var STORE_KEY = "glossary-widget";
  var DOCK_KEY = "glossary-widget-dock";  // set when a citation opens this page
  var body = document.body;

  // -- the assistant: a launcher button, and the widget in an iframe panel ------------------
  // Desktop: the open panel is docked beside the page (the page narrows, nothing is covered).
  // Phone: it is a sheet over the page that can be minimised to a bar; a page opened from a
  // citation shows the bar, so the cited section is in view until the visitor reopens it.
  var widgetSrc = body.getAttribute("data-widget-src");
  var launcher = document.getElementById("ask-launcher");
  var panel = document.getElementById("ask-panel");
  var frameBox = panel && panel.querySelector(".ask-frame");
  var closeButton = panel && panel.querySelector(".ask-close");
  var minButton = panel && panel.querySelector(".ask-min");
  var skip = document.getElementById("skip-to-assistant");
  var widgetOrigin = widgetSrc ? new URL(widgetSrc, location.href).origin : "";
  var wide = window.matchMedia("(min-width: 1024px)");
  var iframe = null;
  var ready = false;
  var pending = [];

  function firstButton() {
    // The panel bar's first button on screen (the minimise button is hidden on a desktop).
    return Array.prototype.filter.call(panel.querySelectorAll(".ask-panel-bar button"),
      function (b) { return b.getClientRects().length > 0; })[0] || closeButton;
  }

  function remember(open) {
    try { localStorage.setItem(STORE_KEY, open ? "open" : "closed"); } catch (e) { /* private mode */ }
  }

  function wasOpen() {
    try { return localStorage.getItem(STORE_KEY) === "open"; } catch (e) { return false; }
  }

  function fromCitation() {
    try {
      var docked = sessionStorage.getItem(DOCK_KEY) === "1";
      sessionStorage.removeItem(DOCK_KEY);
      return docked;
    } catch (e) { return false; }
  }

  function post(message) {
    if (iframe && iframe.contentWindow) {
      if (message.type === "focus" && !panel.hidden) { iframe.focus(); }
      message.source = "glossary-site";
      iframe.contentWindow.postMessage(message, widgetOrigin);
    }
  }

  function send(message) {
    if (ready) { post(message); } else { pending.push(message); }
  }

  function hello() {
    // Tells the widget it is on the glossary's own pages: citations open here, and "Share"
    // links to this page.
    post({ type: "hello", page: location.origin + location.pathname });
  }

  function ensureFrame() {
    if (iframe) { return; }
    iframe = document.createElement("iframe");
    iframe.src = widgetSrc;
    iframe.title = "Chat with the glossary assistant";
    iframe.setAttribute("allow", "clipboard-write");
    iframe.addEventListener("load", hello);
    frameBox.appendChild(iframe);
  }

  function layout() {
    var open = !panel.hidden;
    var minimised = panel.classList.contains("minimised");
    body.classList.toggle("ask-docked", open && wide.matches);
    body.classList.toggle("ask-barred", open && minimised && !wide.matches);
    minButton.setAttribute("aria-expanded", minimised ? "false" : "true");
    minButton.setAttribute("aria-label", minimised ? "Open the assistant" : "Minimise the assistant");
    panel.setAttribute("aria-modal", open && !minimised && !wide.matches ? "true" : "false");
  }

  function setMinimised(minimised) {
    panel.classList.toggle("minimised", minimised);
    if (!minimised) { ensureFrame(); }
    layout();
  }

  function openPanel(byVisitor, minimised) {
    panel.hidden = false;
    launcher.setAttribute("aria-expanded", "true");
    setMinimised(Boolean(minimised) && !wide.matches);
    remember(true);
    if (byVisitor) {
      // Focus goes into the chat: the question box once the widget is ready.
      closeButton.focus();
      send({ type: "focus" });
    }
  }

  function closePanel() {
    panel.hidden = true;
    launcher.setAttribute("aria-expanded", "false");
    layout();
    remember(false);
    launcher.focus();
  }

  function ask(question, sendIt) {
    openPanel(false, false);
    send({ type: "ask", question: question, send: sendIt });
  }

  function goTo(href) {
    // A citation: open the cited page here, with the panel docked and the conversation kept.
    var url;
    try { url = new URL(href, location.href); } catch (e) { return; }
    if (url.protocol !== "http:" && url.protocol !== "https:") { return; }
    try { sessionStorage.setItem(DOCK_KEY, "1"); } catch (e) { /* not kept: opens as before */ }
    if (url.origin === location.origin && url.pathname === location.pathname) {
      location.hash = url.hash;  // the same page: just the section
      if (!wide.matches) { setMinimised(true); }
      return;
    }
    location.assign(url.href);
  }

  if (launcher && panel && widgetSrc) {
    launcher.hidden = false;
    if (skip) { skip.hidden = false; }
    launcher.addEventListener("click", function () { openPanel(true); });
    closeButton.addEventListener("click", closePanel);
    minButton.addEventListener("click", function () {
      var minimised = !panel.classList.contains("minimised");
      setMinimised(minimised);
      if (!minimised) { send({ type: "focus" }); }
    });
    panel.querySelector(".ask-panel-bar h2").addEventListener("click", function () {
      if (panel.classList.contains("minimised")) { setMinimised(false); }
    });
    if (skip) {
      skip.addEventListener("click", function (event) {
        event.preventDefault();
        openPanel(true);
      });
    }
    wide.addEventListener("change", layout);
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && !panel.hidden) { closePanel(); }
      // Shift+Tab from the panel's first button goes round to the chat's last control.
      if (event.key === "Tab" && event.shiftKey && !panel.hidden && iframe &&
          !panel.classList.contains("minimised") &&
          document.activeElement === firstButton()) {
        event.preventDefault();
        iframe.focus();
        post({ type: "focus-last" });
      }
    });
    window.addEventListener("message", function (event) {
      if (!iframe || event.source !== iframe.contentWindow || event.origin !== widgetOrigin) { return; }
      var data = event.data || {};
      if (data.source !== "glossary-widget") { return; }
      if (data.type === "ready") {
        ready = true;
        hello();
        pending.splice(0).forEach(post);
      } else if (data.type === "close" && !panel.hidden) {
        closePanel();
      } else if (data.type === "navigate" && typeof data.href === "string") {
        goTo(data.href);
      } else if (data.type === "tab-out") {
        firstButton().focus();
      }
    });
    var docked = fromCitation();
    if (docked || wasOpen()) {
      openPanel(false, docked);
      if (docked && location.hash) {
        // The page narrowed beside the panel: bring the cited section back into view.
        var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
        if (target) { setTimeout(function () { target.scrollIntoView({ block: "start" }); }, 0); }
      }
    }
    // A shared link (?ask=...): open the assistant asking it.
    var shared = new URLSearchParams(location.search).get("ask");
    if (shared) {
      try {
        var clean = new URL(location.href);
        clean.searchParams.delete("ask");
        history.replaceState(null, "", clean.pathname + clean.search + clean.hash);
      } catch (e) { /* file: URLs */ }
      ask(shared.slice(0, 1000), true);
    }
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-ask]");
    if (!button || !widgetSrc) { return; }
    var question = button.getAttribute("data-ask");
    if (question) { ask(question, !button.hasAttribute("data-fill")); }
  });

  // Other scripts (search.js) ask through this.
  window.glossaryAsk = function (question) {
    if (widgetSrc && launcher && panel) { ask(question, true); }
  };

  // -- the A-Z index: filter as you type ------------------------------------------------------
  var filter = document.getElementById("filter");
  if (filter) {
    var items = Array.prototype.slice.call(document.querySelectorAll(".terms li[data-filter]"));
    var groups = Array.prototype.slice.call(document.querySelectorAll(".letter-group"));
    var count = document.getElementById("filter-count");
    var letters = document.querySelector(".letters");
    var noMatch = document.querySelector(".no-match");
    filter.closest(".filter").hidden = false;
    var apply = function () {
      var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      items.forEach(function (li) {
        var text = li.getAttribute("data-filter");
        // Typo-tolerant through the site search's matcher ("infinband"), when it is loaded.
        var hit = window.glossaryFuzzy ? window.glossaryFuzzy(filter.value, text)
          : words.every(function (w) { return text.indexOf(w) >= 0; });
        li.hidden = !hit;
        if (hit) { shown += 1; }
      });
      groups.forEach(function (g) { g.hidden = !g.querySelector("li:not([hidden])"); });
      if (letters) { letters.hidden = words.length > 0; }
      noMatch.hidden = shown > 0;
      count.textContent = words.length ? shown + (shown === 1 ? " term matches" : " terms match") : "";
    };
    filter.addEventListener("input", apply);
    if (filter.value) { apply(); }
  }

  // -- calculators: run on the assistant's API, show the working -------------------------------
  var form = document.getElementById("calc-form");
  if (form) {
    var result = document.getElementById("calc-result");
    var general = document.getElementById("calc-errors");
    var part = function (name) { return result.querySelector("[data-part='" + name + "']"); };

    var clearErrors = function () {
      general.hidden = true;
      general.textContent = "";
      form.querySelectorAll("[data-error-for]").forEach(function (el) {
        el.hidden = true;
        el.textContent = "";
      });
      form.querySelectorAll("[aria-invalid]").forEach(function (el) { el.removeAttribute("aria-invalid"); });
      form.querySelectorAll(".field.invalid").forEach(function (el) { el.classList.remove("invalid"); });
    };

    var showErrors = function (errors) {
      var first = null;
      Object.keys(errors).forEach(function (key) {
        var target = key ? form.querySelector("[data-error-for='" + key.replace(/'/g, "") + "']") : null;
        if (!target) {
          general.textContent = (general.textContent ? general.textContent + " " : "") + errors[key];
          general.hidden = false;
          return;
        }
        target.textContent = errors[key];
        target.hidden = false;
        var input = form.querySelector("[name='" + key.replace(/'/g, "") + "']");
        if (input) {
          input.setAttribute("aria-invalid", "true");
          input.closest(".field").classList.add("invalid");
          first = first || input;
        }
      });
      result.hidden = true;
      (first || general).focus && (first || general).focus();
    };

    var showResult = function (data) {
      part("summary").textContent = data.summary;
      part("method").textContent = data.method;
      part("formula").textContent = data.formula;
      part("note").textContent = data.note;
      var list = part("working");
      list.textContent = "";
      data.working.forEach(function (step) {
        var li = document.createElement("li");
        li.textContent = step;
        list.appendChild(li);
      });
      result.querySelector("[data-ask]").setAttribute("data-ask", data.question);
      result.hidden = false;
      if (result.getBoundingClientRect().top > window.innerHeight) {
        result.scrollIntoView({ block: "start" });
      }
    };

    var run = function () {
      var query = new URLSearchParams(new FormData(form)).toString();
      clearErrors();
      fetch(form.getAttribute("data-api") + "?" + query, { credentials: "omit" })
        .then(function (response) { return response.json(); })
        .then(function (data) {
          if (data.ok) { showResult(data); } else { showErrors(data.errors || {}); }
          try { history.replaceState(null, "", "?" + query); } catch (e) { /* file: URLs */ }
        })
        .catch(function () {
          showErrors({ "": "The calculator could not be reached. Try again in a moment." });
        });
    };

    // Lists of rows (quotes): the spare rows wait behind an "Add a quote" button.
    form.querySelectorAll("[data-add-row]").forEach(function (button) {
      var key = button.getAttribute("data-add-row");
      var rows = Array.prototype.slice.call(form.querySelectorAll("fieldset.row[id^='" + key + "-row-']"));
      var left = form.querySelector("[data-rows-left='" + key + "']");
      var update = function () {
        var hidden = rows.filter(function (row) { return row.hidden; }).length;
        button.hidden = hidden === 0;
        left.textContent = hidden ? "Up to " + rows.length + " in all." : "";
      };
      rows.forEach(function (row) { if (row.hasAttribute("data-spare")) { row.hidden = true; } });
      button.addEventListener("click", function () {
        var next = rows.filter(function (row) { return row.hidden; })[0];
        if (!next) { return; }
        next.hidden = false;
        next.querySelector("input").focus();
        update();
      });
      update();
    });

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      run();
    });
    // A shared link with inputs (?gpus=256&...) shows its result on a static host too.
    var params = new URLSearchParams(location.search);
    var given = false;
    params.forEach(function (value, key) {
      var input = form.querySelector("[name='" + key.replace(/'/g, "") + "']");
      if (input) { input.value = value; given = true; }
    });
    if (given && result.hidden && !general.textContent && !form.querySelector("[aria-invalid]")) { run(); }
  }
})();
