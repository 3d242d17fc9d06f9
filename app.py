"""Serve the glossary assistant: `python app.py` (or `make run`).

Serves the chat (`demo`) at /, the embeddable widget at /widget?page=<slug>, the glossary site
(/glossary/, /learn/, /calculators/) and, when ASSISTANT_ADMIN_PASSWORD is set, the support
console at /admin, on GRADIO_SERVER_NAME:GRADIO_SERVER_PORT (127.0.0.1:7860 by default).

`gradio app.py` reloads the chat on every edit (it serves the chat page only). Importing this
module builds nothing: `demo` is built when run, or on first access (`from app import demo`).
"""

import os

from assistant.cli import OFFLINE_ENV

# Before gradio is imported anywhere: no analytics, hub or telemetry look-ups.
for _key, _value in OFFLINE_ENV.items():
    os.environ.setdefault(_key, _value)

_RELOADING = bool(os.environ.get("GRADIO_WATCH_DIRS"))  # started by `gradio app.py`


def _assistant():
    from assistant.chain import Assistant

    return Assistant()


def _build_demo(assistant):
    from assistant.web import build_demo

    return build_demo(assistant)


def __getattr__(name):
    if name == "demo":
        global demo
        demo = _build_demo(_assistant())
        return demo
    raise AttributeError(name)


if _RELOADING:  # `gradio app.py`: the chat page alone, rebuilt on every edit
    assistant = _assistant()
    demo = _build_demo(assistant)

if __name__ == "__main__":
    if _RELOADING:
        from assistant.web import page_options

        s = assistant.settings
        demo.launch(server_name=s.server_name, server_port=s.server_port, **page_options())
    else:
        from assistant.web import launch

        launch(_assistant())
