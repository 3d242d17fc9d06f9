"""Command line: ingest, ask, serve, corpus check, bench, eval."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "GRADIO_ANALYTICS_ENABLED": "False",
    "ANONYMIZED_TELEMETRY": "False",
    "TOKENIZERS_PARALLELISM": "false",
}

app = typer.Typer(help="The glossary assistant: grounded, cited answers about AI compute "
                       "networking.", no_args_is_help=True, add_completion=False)
corpus_app = typer.Typer(help="Work on the corpus.", no_args_is_help=True)
app.add_typer(corpus_app, name="corpus")
site_app = typer.Typer(help="The glossary site: the pages the assistant cites.",
                       no_args_is_help=True)
app.add_typer(site_app, name="site")


def offline() -> None:
    """Stop the hub, Gradio and Chroma from phoning home (must run before they import)."""
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


def _settings():
    from .config import Settings, SettingsError

    try:
        return Settings.from_env()
    except SettingsError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc


def _assistant(retriever: str | None = None):
    from .chain import Assistant
    from .corpus import CorpusError
    from .index import IndexNotReady

    settings = _settings()
    if retriever:
        settings = settings.replace(retriever=retriever)
    try:
        return Assistant.from_settings(settings)
    except (IndexNotReady, CorpusError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc


@app.command()
def ingest(force: Annotated[bool, typer.Option(help="Re-embed every page.")] = False,
           quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False) -> None:
    """Build or refresh the index from the corpus (only changed pages are embedded)."""
    from .corpus import CorpusError, load_corpus
    from .index import Index

    # Ingest is a batch job: let torch use every core (serving pins it to fewer).
    settings = _settings().replace(torch_threads=0)
    try:
        corpus = load_corpus(settings.corpus_dir)
    except CorpusError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    index = Index(settings)
    report = index.ingest(corpus, progress=not quiet, force=force)
    typer.echo(report.summary())
    # Published staff answers survive a re-ingest; those merged into the corpus retire.
    from .staff import sync_after_ingest
    from .store import Store

    retired = sync_after_ingest(Store(settings.log_db), index, corpus)
    if retired:
        typer.echo(f"retired staff answers now in the corpus FAQ: {retired}")


@app.command()
def ask(question: Annotated[str, typer.Argument(help="The question, in plain words.")],
        history: Annotated[Path | None, typer.Option(
            help="JSON file: a list of {role, content} messages before this question.")] = None,
        page: Annotated[str | None, typer.Option(help="Slug of the page being read.")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the JSON object.")] = False,
        retriever: Annotated[str | None, typer.Option(
            help="hybrid, dense or bm25 (default: the setting).")] = None) -> None:
    """Answer one question and print the answer with its sources."""
    messages = []
    if history is not None:
        try:
            messages = json.loads(history.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            typer.echo(f"error: --history {history}: {exc}", err=True)
            raise typer.Exit(2) from exc
        if not isinstance(messages, list):
            typer.echo("error: --history must hold a JSON list of {role, content}", err=True)
            raise typer.Exit(2)
    answer = _assistant(retriever).ask(question, history=messages, page=page)
    if as_json:
        typer.echo(json.dumps(answer.to_json(), ensure_ascii=False))
        return
    typer.echo(answer.text)
    if answer.citations:
        typer.echo("\nSources:")
        for c in answer.citations:
            typer.echo(f"  [{c.n}] {c.title} - {c.section}: {c.url}")


@app.command()
def serve() -> None:
    """Serve the chat widget (same as `python app.py`)."""
    from .web import launch

    launch(_assistant())


@app.command()
def mcp() -> None:
    """Serve the glossary to a local MCP client over stdin/stdout (questions logged as "mcp")."""
    import contextlib

    import anyio

    from .mcp_server import GlossaryMcp
    from .store import Store

    with contextlib.redirect_stdout(sys.stderr):  # stdout carries the protocol only
        assistant = _assistant()
        settings = assistant.settings
        store = Store(settings.log_db, settings.max_question_chars)
    anyio.run(GlossaryMcp(assistant, store).run_stdio)


@corpus_app.command("check")
def corpus_check(path: Annotated[Path | None, typer.Argument(
        help="Corpus folder (default: the setting).")] = None) -> None:
    """Check every page's front matter, sections, FAQs, aliases and word counts."""
    from .corpus import check_corpus, page_files

    folder = path or _settings().corpus_dir
    problems = check_corpus(folder)
    for problem in problems:
        typer.echo(str(problem), err=True)
    if problems:
        typer.echo(f"{len(problems)} problem(s) in {folder}", err=True)
        raise typer.Exit(1)
    typer.echo(f"corpus ok: {len(page_files(folder))} pages in {folder}")


@site_app.command("build")
def site_build(
        out: Annotated[Path, typer.Argument(help="Folder to write the site into.")],
        assistant_url: Annotated[str, typer.Option(
            help="Public URL of the running assistant, e.g. https://assistant.example.com: the "
                 "widget and the calculators' API are loaded from it.")],
        base_path: Annotated[str, typer.Option(
            help="Path the site is served under, e.g. /docs; default: the host's root.")] = ""
        ) -> None:
    """Write the glossary site as static HTML and CSS (only changed files are rewritten)."""
    from .corpus import CorpusError, load_corpus
    from .site import build_site

    settings = _settings()
    try:
        report = build_site(load_corpus(settings.corpus_dir), out, assistant_url, base_path,
                            staff=_published_staff(settings))
    except (CorpusError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(report.summary())
    typer.echo("On the assistant, allow the static host to frame the widget and call the API,\n"
               "and point citations at it:\n"
               "  ASSISTANT_ALLOWED_ORIGINS=https://<your static host>\n"
               "  ASSISTANT_SITE_URL=https://<your static host>")


def _published_staff(settings) -> list:
    # The staff answers the running app shows on its pages, if its log is here.
    if not settings.log_db.is_file():
        return []
    from .store import Store

    return Store(settings.log_db, settings.max_question_chars).staff_entries(
        status="published")


@app.command()
def bench(runs: Annotated[int, typer.Option(help="Questions timed per measure.")] = 200,
          cold: Annotated[bool, typer.Option(help="Also time a cold start.")] = True,
          baseline: Annotated[Path | None, typer.Option(
              help="Instead: another checkout (e.g. `git worktree add /tmp/base main`); time "
                   "its cold start and served memory against this one's, 3 times each in "
                   "turns.")] = None,
          baseline_data: Annotated[Path | None, typer.Option(
              help="The baseline's data dir, with its own index.")] = None) -> None:
    """Measure latency, ingest time, cold start and memory; print JSON."""
    from .bench import baseline as compare
    from .bench import run_bench

    if baseline is not None:
        if baseline_data is None or not (baseline / "app.py").is_file():
            raise typer.BadParameter("give a checkout with app.py and --baseline-data",
                                     param_hint="--baseline")
        typer.echo(json.dumps(compare(_settings(), baseline, baseline_data), indent=2))
        return
    typer.echo(json.dumps(run_bench(_settings(), runs=runs, cold=cold), indent=2))


@app.command("eval")
def eval_cmd(golden: Annotated[Path | None, typer.Option(
                 help="One question set (JSONL) instead of the splits.")] = None,
             splits: Annotated[str, typer.Option(
                 help="Comma-separated splits side by side: golden, dev, test (sealed: "
                      "score it once at the end of a piece of work).")] = "golden,dev,test",
             retriever: Annotated[str, typer.Option(help="hybrid, dense or bm25.")] = "hybrid",
             out: Annotated[Path | None, typer.Option(
                 help="Write answers as JSONL (a folder with --splits).")] = None,
             as_json: Annotated[bool, typer.Option("--json", help="Print metrics as JSON.")]
             = False) -> None:
    """Answer the question sets, score them, print the metrics (and the generalization gap)."""
    from .evaluate import print_report, run_eval, run_splits, split_table

    bot = _assistant(retriever)
    if golden is not None:
        result = run_eval(bot, golden, out)
        if as_json:
            typer.echo(json.dumps(result.metrics, indent=2))
        else:
            print_report(result)
        return
    names = tuple(n.strip() for n in splits.split(",") if n.strip())
    try:
        results = run_splits(bot, names, out)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--splits") from None
    if as_json:
        typer.echo(json.dumps({n: r.metrics for n, r in results.items()}, indent=2))
    else:
        typer.echo("\n".join(split_table(results)))


@app.command("eval-report")
def eval_report(golden: Annotated[Path | None, typer.Option(help="Golden set.")] = None
                ) -> None:
    """Write evals/REPORT.md: hybrid, dense and BM25 on golden; golden, dev and test side by
    side with the gap; every golden and test miss."""
    from .chain import Assistant
    from .evaluate import DEFAULT_GOLDEN, write_report

    path = write_report(_settings(), Assistant.from_settings, golden or DEFAULT_GOLDEN)
    typer.echo(f"wrote {path}")


@app.command()
def loadtest(url: Annotated[str | None, typer.Option(
                 help="A running app on loopback; default: start one on a free port.")] = None,
             sessions: Annotated[int, typer.Option(help="Concurrent sessions.")] = 50,
             questions: Annotated[int, typer.Option(help="Questions per session.")] = 5,
             mix: Annotated[str, typer.Option(
                 help="Share of repeated chip questions, e.g. 0.5; several comma-separated "
                      "(0,0.5) run one after the other against the same processes.")] = "0,0.5",
             runs: Annotated[int, typer.Option(
                 help="Runs, each with freshly started processes; the report gives medians.")]
             = 1,
             baseline: Annotated[Path | None, typer.Option(
                 help="Another checkout of the app (e.g. `git worktree add /tmp/base main`) "
                      "to start and measure in the same run, for before/after ratios.")] = None,
             baseline_data: Annotated[Path | None, typer.Option(
                 help="The baseline's data dir (its own index; default: its .data).")] = None,
             noise: Annotated[bool, typer.Option(
                 help="Also measure the Gradio route while one client floods it.")] = True
             ) -> None:
    """Load the app and an echo twin of each route on loopback; print the table and write
    evals/LOADTEST.md."""
    from .loadtest import NotLoopback
    from .loadtest import main as run

    try:
        mixes = tuple(float(m) for m in mix.split(",") if m.strip())
    except ValueError:
        raise typer.BadParameter(f"{mix!r} is not a comma-separated list of numbers",
                                 param_hint="--mix") from None
    if not mixes or any(not 0 <= m <= 1 for m in mixes):
        raise typer.BadParameter("each share must be between 0 and 1", param_hint="--mix")
    if runs < 1 or sessions < 1 or questions < 1:
        raise typer.BadParameter("runs, sessions and questions must be at least 1")
    try:
        run(url, sessions, questions, mixes=mixes, runs=runs, baseline=baseline,
            baseline_data=baseline_data, noise=noise)
    except NotLoopback as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc


def main() -> None:
    """Run the command line."""
    offline()
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
