/* Runs inside the widget (/widget) when a page frames it.
   - Our site's pages (site.js) say hello: a citation then opens the cited page in their window
     (with the panel docked, the conversation kept), and "Share" links to their page.
   - On another site, a citation opens in a new tab, unless the owner embeds the widget with
     `?links=top` (open in the framing page's window) or `?links=frame` (in the frame).
   - Esc asks the host to close the panel; the host may put a question in the box (its FAQ
     buttons, a calculator's "Ask about this") and move focus in or out of the widget.
   Only the framing page is listened to, and the CSP's frame-ancestors already limits who
   that can be. */
(function () {
  "use strict";
  if (window.parent === window) { return; }  // not framed: nothing to bridge
  var host = window.parent;
  var MAX_CHARS = 1000;
  var root = document.documentElement;
  var ourSite = false;  // the host is one of the glossary's own pages (it said hello)
  var links = new URLSearchParams(location.search).get("links") || "tab";

  function tell(type, extra) {
    var message = { source: "glossary-widget", type: type };
    Object.keys(extra || {}).forEach(function (k) { message[k] = extra[k]; });
    // A citation's URL is a page of the public glossary; the rest carries no data.
    host.postMessage(message, "*");
  }

  // A citation: the host window (our site), a new tab (another site), or as the owner set.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[href]");
    if (!link || !link.closest("#chat")) { return; }
    var url = new URL(link.href, location.href);
    if (url.protocol !== "http:" && url.protocol !== "https:") { return; }
    if (ourSite) {
      event.preventDefault();
      tell("navigate", { href: url.href });
    } else if (links === "top") {
      link.target = "_top";
      link.rel = "noopener";
    } else if (links === "frame") {
      link.target = "_self";
    } else {
      link.target = "_blank";
      link.rel = "noopener";
    }
  }, true);

  function focusables() {
    return Array.prototype.filter.call(
      document.querySelectorAll("a[href], button, textarea, input, [tabindex]:not([tabindex='-1'])"),
      function (el) {
        return !el.disabled && el.tabIndex >= 0 && el.getClientRects().length > 0;
      });
  }

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { tell("close"); }
    if (event.key === "Tab" && !event.shiftKey && ourSite) {
      // The panel is a dialog: Tab past the widget's last control goes round to the top of
      // the panel (its bar's buttons), not on to the page behind it. (Shift+Tab from the
      // first control reaches the bar by itself.)
      setTimeout(function () {
        if (document.activeElement === document.body || !document.hasFocus()) {
          tell("tab-out");
        }
      }, 0);
    }
  });

  function questionBox() { return document.querySelector("#question textarea"); }

  function fill(question, send) {
    var box = questionBox();
    if (!box) { return; }
    // Set the value the way typing does, so that Gradio's own binding sees it.
    var setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set;
    setter.call(box, question.slice(0, MAX_CHARS));
    box.dispatchEvent(new Event("input", { bubbles: true }));
    box.focus();
    if (send) {
      setTimeout(function () {
        var button = document.getElementById("ask");
        if (button) { button.click(); }
      }, 80);
    }
  }

  window.addEventListener("message", function (event) {
    if (event.source !== host) { return; }
    var data = event.data || {};
    if (data.source !== "glossary-site") { return; }
    if (data.type === "hello") {
      ourSite = true;
      if (typeof data.page === "string" && /^https?:\/\//.test(data.page)) {
        root.setAttribute("data-host-page", data.page);  // chat.js's share links
      }
    } else if (data.type === "ask" && typeof data.question === "string") {
      fill(data.question, data.send === true);
    } else if (data.type === "focus") {
      var box = questionBox();
      if (box) { box.focus(); }
    } else if (data.type === "focus-last") {
      var all = focusables();
      if (all.length) { all[all.length - 1].focus(); }
    }
  });

  // Ready once chat.js has the page context and any kept conversation back: a question sent
  // now is read in its context and added to that conversation. (After 20 s, ready anyway.)
  var started = Date.now();
  var timer = setInterval(function () {
    if (questionBox() && (root.getAttribute("data-chat-ready") || Date.now() - started > 20000)) {
      clearInterval(timer);
      tell("ready");
    }
  }, 100);
})();
