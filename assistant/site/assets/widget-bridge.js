/* Runs inside the widget (/widget) when a page frames it: citation links open in the host
   window, Esc asks the host to close the panel, and the host page may put a question in the
   box (its FAQ buttons, a calculator's "Ask about this"). Only the framing page is listened
   to, and the CSP's frame-ancestors already limits who that can be. */
(function () {
  "use strict";
  if (window.parent === window) { return; }  // not framed: nothing to bridge
  var host = window.parent;
  var MAX_CHARS = 1000;

  function tell(type) {
    // Carries no data, so any framing page may hear it.
    host.postMessage({ source: "glossary-widget", type: type }, "*");
  }

  // A citation opens the cited page in the window around the frame, not inside it.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[href]");
    if (!link || !link.closest("#chat")) { return; }
    var url = new URL(link.href, location.href);
    if (url.protocol === "http:" || url.protocol === "https:") {
      link.target = "_top";
      link.rel = "noopener";
    }
  }, true);

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { tell("close"); }
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
    if (data.type === "ask" && typeof data.question === "string") {
      fill(data.question, data.send === true);
    } else if (data.type === "focus") {
      var box = questionBox();
      if (box) { box.focus(); }
    }
  });

  // Ready once the greeting is in: the load event has set the page the visitor is reading,
  // so a question sent now is read in its context. (After 15 s, ready anyway.)
  var started = Date.now();
  var timer = setInterval(function () {
    var greeted = document.querySelector("#chat.greeted, .greeted #chat, #chat .greeted");
    if (questionBox() && (greeted || Date.now() - started > 15000)) {
      clearInterval(timer);
      tell("ready");
    }
  }, 100);
})();
