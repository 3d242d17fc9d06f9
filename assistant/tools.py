"""The calculators as LangChain tools, for a chat model that calls tools.

One tool per calculator in the registry (assistant/calculators): its input model is the tool's
argument schema, its description the tool's description, and the tool returns the result's
`to_dict()`. Bad inputs come back as `{"error": ..., "input": ...}` (naming the input) instead
of raising, so a model can read the message and try again.

Example:
    >>> tool = make_tool("gpu_hour_cost")
    >>> tool.invoke({"gpus": 256, "price_per_gpu_hour": 7, "hours": 100})["total_cost"]
    179200.0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ValidationError

from . import calculators as calc


def _error(e: calc.CalculatorError) -> dict[str, Any]:
    return {"error": str(e), "input": e.input}


def _validation_error(e: ValidationError) -> dict[str, Any]:
    # LangChain types this hook as returning str, but passes its value through as the tool
    # content unchanged; a dict keeps schema errors the same shape as calculator errors.
    parts = []
    first = ""
    for err in e.errors():
        loc = ".".join(str(p) for p in err.get("loc", ()))
        first = first or loc
        parts.append(f"{loc}: {err.get('msg', 'invalid')} (got {err.get('input')!r})")
    return {"error": "; ".join(parts) or str(e), "input": first}


def _plain(value: Any) -> Any:
    # Nested inputs (a quote) arrive as pydantic models; the calculators take plain data.
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _runner(spec: calc.Calculator) -> Callable[..., dict[str, Any]]:
    def run(**kwargs: Any) -> dict[str, Any]:
        try:
            return spec.function(**{k: _plain(v) for k, v in kwargs.items()}).to_dict()
        except calc.CalculatorError as e:
            return _error(e)

    run.__name__ = spec.name
    run.__doc__ = spec.description
    return run


def make_tool(name: str) -> StructuredTool:
    """Build the LangChain tool for one calculator by its name."""
    spec = calc.get(name)
    if spec is None:
        raise KeyError(f"no calculator named {name!r}; there are {', '.join(calc.REGISTRY)}")
    return StructuredTool.from_function(
        func=_runner(spec),
        name=name,
        description=spec.description,
        args_schema=spec.inputs,
        handle_validation_error=_validation_error,  # type: ignore[arg-type]
    )


def all_tools() -> list[BaseTool]:
    """Build one tool per calculator, in registry order."""
    return [make_tool(name) for name in calc.REGISTRY]


def tool_schemas() -> list[dict[str, Any]]:
    """Return the tools as OpenAI-style function schemas."""
    return [convert_to_openai_tool(t) for t in all_tools()]


def __getattr__(name: str) -> Callable[[], StructuredTool]:
    # gpu_hour_cost_tool(), training_cost_tool(), ...: one factory per calculator, so a new
    # calculator gets one without an edit here.
    if name.endswith("_tool") and name[:-len("_tool")] in calc.REGISTRY:
        tool_name = name[:-len("_tool")]

        def factory() -> StructuredTool:
            return make_tool(tool_name)

        factory.__name__ = name
        factory.__doc__ = f"Build the {tool_name} tool."
        return factory
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
