"""The glossary site: every page the assistant cites, rendered from the same corpus.

    pages.py    Site: the glossary, lessons, calculators and 404 as HTML (Jinja2, markdown-it)
    forms.py    CalculatorForm: a calculator's form read from its input model
    routes.py   mount_site(app, corpus): serve it from the running app, plus the calculator API
    export.py   build_site(corpus, dir, assistant_url): the static export

Templates (templates/) and the CSS, script and icon (assets/) are package data.

Example:
    >>> site = Site(load_corpus("corpus"))
    >>> mount_site(app, corpus)                       # before Gradio is mounted at "/"
    >>> build_site(corpus, Path("public"), "https://assistant.example.com").summary()
"""

from .export import BuildReport, build_site
from .forms import CalculatorForm
from .pages import PAGE_CSP, SITE_NAME, Site, calculator_slug
from .routes import mount_site, widget_head

__all__ = ["PAGE_CSP", "SITE_NAME", "BuildReport", "CalculatorForm", "Site", "build_site",
           "calculator_slug", "mount_site", "widget_head"]
