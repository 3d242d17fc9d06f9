/* The chat's page script, on the chat (/) and the widget (/widget). It works around the page
   Gradio draws, through its DOM only:
   - the conversation is kept in this tab (sessionStorage) and shown again on the next page;
   - after each answer the start of the answer is in view, not its end;
   - a question shows at once with a typing indicator, and sending waits for its answer;
   - errors and thank-yous are one notice under the chat, not toasts over it;
   - "Copy" copies clean text with numbered sources as absolute links; "Share" a link that
     asks the question again; citations are announced with their page's title;
   - /?ask=<question> asks it.
   No inline script: the CSP allows only files like this one. */
(function () {
  "use strict";

  var KEY = "glossary-assistant:conversation";
  var LOCK_MS = 120000;
  var framed = window.parent !== window;
  var root = document.documentElement;

  function $(selector, scope) { return (scope || document).querySelector(selector); }
  function $$(selector, scope) {
    return Array.prototype.slice.call((scope || document).querySelectorAll(selector));
  }
  function questionBox() { return $("#question textarea"); }
  function askButton() { return $("#ask"); }
  function field(id) { return $("#" + id + " textarea"); }

  function setValue(element, value) {
    // Set it the way typing does, so that Gradio's own binding sees the change.
    var setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set;
    setter.call(element, value);
    element.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function store(value) {
    try {
      if (value) { sessionStorage.setItem(KEY, value); } else { sessionStorage.removeItem(KEY); }
    } catch (e) { /* storage refused (private mode, a sandbox): nothing is kept */ }
  }

  function stored() {
    try { return sessionStorage.getItem(KEY) || ""; } catch (e) { return ""; }
  }

  function lastQuestion() {
    try {
      var turns = JSON.parse(field("transcript").value).turns;
      return turns[turns.length - 1].q;
    } catch (e) { return ""; }
  }

  // -- a notice under the chat: errors (with "Try again"), thanks, "Copied" -----------------
  var notice = null;
  var noticeTimer = null;

  function showNotice(text, kind, retry) {
    var row = $("#ask-row");
    if (!row) { return; }
    if (!notice || !notice.isConnected) {
      notice = document.createElement("div");
      notice.id = "chat-notice";
      row.parentNode.insertBefore(notice, row);
    }
    clearTimeout(noticeTimer);
    notice.textContent = "";
    notice.className = kind || "";
    notice.setAttribute("role", kind === "error" ? "alert" : "status");
    var words = document.createElement("span");
    words.textContent = text;
    notice.appendChild(words);
    if (retry) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = "Try again";
      button.addEventListener("click", function () {
        hideNotice();
        var ask = askButton();
        if (ask) { ask.click(); }
      });
      notice.appendChild(button);
    }
    notice.hidden = false;
    if (kind !== "error") { noticeTimer = setTimeout(hideNotice, 8000); }
  }

  function hideNotice() {
    if (notice) { notice.hidden = true; }
  }

  // Gradio's toasts (and its "Error" over the chat, hidden by widget.css) become the notice.
  function takeToasts() {
    $$("[data-testid='toast-body']").forEach(function (toast) {
      var texts = $$("[data-testid='toast-text']", toast);
      // Each message once: a toast stacks the next error into itself.
      var seen = parseInt(toast.getAttribute("data-seen") || "0", 10);
      if (texts.length <= seen) { return; }
      toast.setAttribute("data-seen", String(texts.length));
      var text = texts[texts.length - 1].textContent.trim();
      var error = toast.className.indexOf("error") >= 0;
      var close = $("[data-testid='toast-close']", toast);
      if (close) { close.click(); }
      if (!text) { return; }
      if (error) { failed(text); } else { showNotice(text, "info"); }
    });
  }

  // -- signs of work: the question at once, a typing indicator, one question at a time -------
  var sending = null; // {question, echo, timer, focused}

  function chatScroller() { return $("#chat .bubble-wrap"); }

  function startSending(question, echo) {
    var chat = chatScroller();
    hideNotice();
    var box = questionBox();
    sending = { question: question, focused: document.activeElement === box, echo: null,
                rows: $$("#chat .message-row.user-row").length,
                timer: setTimeout(stopSending, LOCK_MS) };
    var ask = askButton();
    if (ask) { ask.disabled = true; ask.setAttribute("aria-disabled", "true"); }
    if (box) { box.readOnly = true; }
    var row = $("#ask-row");
    if (row) { row.classList.add("sending"); }
    if (echo && chat) {
      var pending = document.createElement("div");
      pending.className = "pending";
      var asked = document.createElement("div");
      asked.className = "pending-question";
      asked.textContent = question;
      var dots = document.createElement("div");
      dots.className = "pending-typing";
      dots.setAttribute("role", "status");
      dots.setAttribute("aria-label", "The assistant is answering");
      dots.textContent = "\u2022\u2022\u2022";
      pending.appendChild(asked);
      pending.appendChild(dots);
      chat.appendChild(pending);
      sending.echo = pending;
      chat.scrollTop = chat.scrollHeight;
    }
  }

  function dropEcho() {
    if (sending && sending.echo) {
      sending.echo.remove();
      sending.echo = null;
    }
  }

  function stopSending() {
    if (!sending) { return; }
    clearTimeout(sending.timer);
    dropEcho();
    var ask = askButton();
    if (ask) { ask.disabled = false; ask.removeAttribute("aria-disabled"); }
    var box = questionBox();
    if (box) {
      box.readOnly = false;
      if (sending.focused) { box.focus(); }
    }
    var row = $("#ask-row");
    if (row) { row.classList.remove("sending"); }
    sending = null;
  }

  function failed(text) {
    var question = sending && sending.question;
    stopSending();
    // The question stays in the box, to send again.
    var box = questionBox();
    if (box && question && !box.value) { setValue(box, question); }
    showNotice(text, "error", true);
  }

  function onSend(event, question, echo) {
    if (sending) {
      event.preventDefault();
      event.stopImmediatePropagation();
      return;
    }
    // After Gradio's own handlers of this event (they read the box and send it).
    if (question && question.trim()) {
      setTimeout(function () { if (!sending) { startSending(question.trim(), echo); } }, 0);
    }
  }

  window.addEventListener("keydown", function (event) {
    var box = questionBox();
    if (event.target !== box || event.key !== "Enter" || event.shiftKey || event.isComposing) {
      return;
    }
    onSend(event, box.value, true);
  }, true);
  window.addEventListener("keypress", function (event) {
    if (sending && event.target === questionBox() && event.key === "Enter") {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);

  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target : event.target.parentElement;
    if (!target) { return; }
    if (target.closest("#ask")) {
      var box = questionBox();
      onSend(event, box ? box.value : "", true);
    } else if (target.closest("#chat button.example, #chat button.option")) {
      onSend(event, target.closest("button").innerText, true);
    } else if (target.closest("#retry")) {
      onSend(event, lastQuestion(), false);
    } else if (target.closest("#chat button[aria-label='Copy message']")) {
      copyMessage(event, target.closest("button"));
    } else if (target.closest("#share")) {
      share(event);
    }
  }, true);

  // -- reading: the start of each new answer in view; names for citations ---------------------
  var userRows = 0;

  function tidy() {
    var rows = $$("#chat .message-row.user-row");
    if (sending && rows.length > sending.rows) { dropEcho(); } // the server has the question
    if (rows.length > userRows) {
      var scroller = chatScroller();
      var row = rows[rows.length - 1];
      if (scroller) {
        var offset = row.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
        scroller.scrollTop += offset - 8;
      }
    }
    userRows = rows.length;
    $$("#chat .message-row.bot-row").forEach(function (row) {
      var text = (row.querySelector(".message-content") || row).textContent.trim();
      var typing = text === "\u2026";
      row.classList.toggle("typing", typing);
    });
    $$("#chat a[title^='Source ']").forEach(function (link) {
      if (link.getAttribute("aria-label") !== link.title) {
        link.setAttribute("aria-label", link.title);
      }
    });
    // Suggested questions: a group of buttons that each say what they ask (Gradio calls the
    // row a list without list items, and each button "Select example n").
    $$("#chat .examples[role='list'], #chat .options").forEach(function (group) {
      group.setAttribute("role", "group");
      group.setAttribute("aria-label", group.classList.contains("options") ?
                         "Follow-up questions" : "Suggested questions");
    });
    $$("#chat button.example").forEach(function (button) {
      var text = button.textContent.trim();
      if (button.getAttribute("aria-label") !== "Ask: " + text) {
        button.setAttribute("aria-label", "Ask: " + text);
      }
    });
    // Gradio labels each message with its raw Markdown; the text itself reads better.
    $$("#chat [data-testid='bot'][aria-label], #chat [data-testid='user'][aria-label]")
      .forEach(function (el) { el.removeAttribute("aria-label"); });
    takeToasts();
    syncTranscript();
  }

  // -- the conversation, kept in this tab ------------------------------------------------------
  var saved = "";      // the transcript last seen
  var restoring = true; // until the kept conversation is back (or there was none)

  function syncTranscript() {
    var box = field("transcript");
    if (!box || box.value === saved) { return; }
    saved = box.value;
    restoring = false;
    store(saved);
    stopSending(); // an answer arrived
  }

  function restore() {
    var kept = stored();
    var box = field("restore");
    if (!kept || !box) {
      ready();
      return;
    }
    setValue(box, kept);
    var started = Date.now();
    var timer = setInterval(function () {
      if (!restoring || Date.now() - started > 5000) {
        clearInterval(timer);
        restoring = false;
        ready();
      }
    }, 100);
  }

  function ready() {
    root.setAttribute("data-chat-ready", "1");
    if (framed) { return; }
    var ask = new URLSearchParams(location.search).get("ask");
    if (ask) {
      try {
        var url = new URL(location.href);
        url.searchParams.delete("ask");
        history.replaceState(null, "", url.pathname + url.search + url.hash);
      } catch (e) { /* file: URLs */ }
      var box = questionBox();
      setValue(box, ask.slice(0, 1000));
      setTimeout(function () { askButton().click(); }, 80);
    }
  }

  // -- copy as clean text, share a link ---------------------------------------------------------
  function blockText(element) {
    var lines = [];
    Array.prototype.forEach.call(element.children, function (child) {
      var tag = child.tagName;
      if (tag === "OL" || tag === "UL") {
        Array.prototype.forEach.call(child.children, function (li, i) {
          lines.push((tag === "OL" ? (i + 1) + ". " : "- ") + li.textContent.trim());
        });
      } else if (tag === "TABLE" || child.querySelector("table")) {
        $$("tr", child).forEach(function (tr) {
          lines.push($$("th, td", tr).map(function (c) { return c.textContent.trim(); })
            .join(" | "));
        });
      } else {
        lines.push(child.textContent.trim());
      }
    });
    return lines.filter(Boolean).join("\n\n");
  }

  function cleanText(content) {
    var clone = content.cloneNode(true);
    var sources = [];
    $$("p > strong", clone).forEach(function (strong) {
      var p = strong.parentNode;
      if (strong.textContent.trim() !== "Sources" || p.textContent.trim() !== "Sources") { return; }
      var list = p.nextElementSibling;
      if (list && list.tagName === "OL") {
        var start = parseInt(list.getAttribute("start") || "1", 10);
        Array.prototype.forEach.call(list.children, function (li, i) {
          var link = li.querySelector("a");
          sources.push("[" + (start + i) + "] " + li.textContent.trim() +
                       (link ? ": " + link.href : ""));
        });
        list.remove();
      }
      p.remove();
    });
    var text = blockText(clone.children.length ? clone : content);
    return sources.length ? text + "\n\nSources:\n" + sources.join("\n") : text;
  }

  function writeClipboard(text, done) {
    var fallback = function () {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      area.remove();
      done(ok);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, fallback);
    } else {
      fallback();
    }
  }

  function copyMessage(event, button) {
    var holder = button.closest(".message-buttons");
    var row = holder && holder.previousElementSibling;
    while (row && !row.classList.contains("message-row")) { row = row.previousElementSibling; }
    if (!row) { return; } // not a message's button: leave it to Gradio
    event.preventDefault();
    event.stopImmediatePropagation();
    var parts = $$(".message-content", row).map(function (content) {
      var prose = content.querySelector(".prose") || content;
      return cleanText(prose);
    });
    writeClipboard(parts.join("\n\n"), function (ok) {
      showNotice(ok ? "Copied, with its sources as links." : "Could not copy: select the text instead.",
                 ok ? "info" : "error");
    });
  }

  function shareLink(question) {
    var host = root.getAttribute("data-host-page");
    var query = "ask=" + encodeURIComponent(question);
    if (host) { return host + (host.indexOf("?") >= 0 ? "&" : "?") + query; }
    // The chat itself (/?page=...&ask=...): the widget's page context goes with it.
    var page = new URLSearchParams(location.search).get("page");
    var base = location.origin + "/";
    return base + "?" + (page ? "page=" + encodeURIComponent(page) + "&" : "") + query;
  }

  function share(event) {
    event.preventDefault();
    var question = lastQuestion();
    if (!question) { return; }
    var url = shareLink(question);
    writeClipboard(url, function (ok) {
      showNotice(ok ? "Link copied: " + url : "Copy this link: " + url, "info");
    });
  }

  // -- start -----------------------------------------------------------------------------------
  var started = Date.now();
  var waiting = setInterval(function () {
    var greeted = $("#chat.greeted, .greeted #chat, #chat .greeted");
    if (questionBox() && (greeted || Date.now() - started > 15000)) {
      clearInterval(waiting);
      new MutationObserver(tidy).observe(document.body, { childList: true, subtree: true,
                                                          characterData: true });
      setInterval(tidy, 400); // value changes of the hidden boxes are not mutations
      tidy();
      restore();
    }
  }, 100);
})();
