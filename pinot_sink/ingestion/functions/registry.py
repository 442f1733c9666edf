"""The registry of ingestion functions: canonical name -> overloads by argument count (see the package doc)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..values import Context, Value

VAR_ARGS = -1


@dataclass(frozen=True)
class Function:
    name: str  # as Pinot documents it
    impl: Callable[[Context, list[Value]], Value]
    nullable: bool = False  # handles null arguments itself
    # positions the function reads as literals (patterns, units, zones, paths): a column there is evaluated
    # once per distinct value on that value's rows (evaluate._per_literal), so ``impl`` sees a Const there
    literal_args: tuple[int, ...] = ()
    check: Callable[[list], None] | None = None  # validates literal arguments when the expression is built
    # the Java method returns a primitive array (int[], long[], float[], double[]): Pinot's DataTypeTransformer
    # cannot store one into a column (ClassCastException), see IngestionPipeline
    primitive_array: bool = False


REGISTRY: dict[str, dict[int, Function]] = {}


def scalar_function(*names: str, arity: int | tuple[int, ...], nullable: bool = False,
                    literal_args: tuple[int, ...] = (), check: Callable[[list], None] | None = None,
                    primitive_array: bool = False):
    """Register ``impl(ctx, args)`` under ``names`` (canonicalised) for each argument count in ``arity``."""
    from ..expression import canonicalize

    arities = arity if isinstance(arity, tuple) else (arity,)

    def register(impl):
        function = Function(names[0], impl, nullable, literal_args, check, primitive_array)
        for name in names:
            for count in arities:
                REGISTRY.setdefault(canonicalize(name), {})[count] = function
        return impl

    return register


def lookup(canonical_name: str, num_args: int) -> Function | None:
    overloads = REGISTRY.get(canonical_name)
    if not overloads:
        return None
    return overloads.get(num_args) or overloads.get(VAR_ARGS)
