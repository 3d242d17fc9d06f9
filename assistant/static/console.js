// The support console's half of its CSRF defence (see assistant/web/auth.py): every change
// the page asks of the console (a POST of Gradio's queue, a cancel, ...) carries the
// session's token, which the server put in the page's <meta name="assistant-csrf">.
// Loaded first in the page's head, so fetch() is wrapped before Gradio's scripts use it.
(() => {
  "use strict";
  const meta = document.querySelector('meta[name="assistant-csrf"]');
  const token = meta ? meta.getAttribute("content") : "";
  const script = document.currentScript;
  const prefix = new URL(".", script ? script.src : location.href).pathname;
  const safe = new Set(["GET", "HEAD", "OPTIONS"]);
  const original = window.fetch.bind(window);

  window.fetch = function (input, init) {
    const request = input instanceof Request ? input : null;
    const method = String((init && init.method) || (request ? request.method : "GET"));
    const url = new URL(request ? request.url : String(input), location.href);
    if (safe.has(method.toUpperCase()) || url.origin !== location.origin
        || !url.pathname.startsWith(prefix)) {
      return original(input, init);
    }
    const headers = new Headers((init && init.headers) || (request ? request.headers : {}));
    headers.set("X-CSRF-Token", token);
    return original(input, Object.assign({}, init, { headers }));
  };
})();
