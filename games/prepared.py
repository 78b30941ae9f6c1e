"""The play mode's hottest queries, compiled to SQL once instead of on every call.

Django builds a query's SQL in Python each time it runs: for the one query of a poll or of an
event stream's look (a seat by its token, with its room), that costs several times what the
database needs to answer it. ``Prepared`` builds the query through the ORM once per database
vendor (with marker values where the arguments go), keeps its SQL, fixed parameters and the
ORM's value converters, and then runs it with new arguments: the same SQL and the same Python
values the queryset would give, without the compiling.

Only for value queries whose arguments are plain equality filters (``field=value``): a
lookup that transforms its value (``iexact``, ``contains``) would not carry the marker through,
and ``Prepared`` refuses to build then.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connections
from django.db.models import QuerySet


class Prepared:
    """``Prepared(build)`` where ``build(*args)`` returns a ``values_list`` queryset; ``first(*args)``
    is its first row (a tuple, converted as the ORM converts it) or ``None``."""

    def __init__(self, build: Callable[..., QuerySet[Any]], using: str = "default") -> None:
        self.build = build
        self.using = using
        self._compiled: dict[str, tuple[str, list[Any], list[tuple[int, int]], dict[int, Any]]] = {}
        self._lock = threading.Lock()

    def _compile(self, arity: int) -> tuple[str, list[Any], list[tuple[int, int]], dict[int, Any]]:
        markers = [f"\x00kartothek-argument-{n}\x00" for n in range(arity)]
        compiler = self.build(*markers)[:1].query.get_compiler(self.using)
        sql, params = compiler.as_sql()
        fixed = list(params)
        where = [(position, markers.index(value)) for position, value in enumerate(fixed)
                 if isinstance(value, str) and value in markers]
        if sorted(argument for _, argument in where) != list(range(arity)):
            raise ValueError("Prepared queries take each argument once, in a plain equality filter.")
        converters = compiler.get_converters([column for column, _, _ in compiler.select])
        return sql, fixed, where, converters

    def first(self, *args: Any) -> tuple[Any, ...] | None:
        connection = connections[self.using]
        compiled = self._compiled.get(connection.vendor)
        if compiled is None:
            with self._lock:
                compiled = self._compiled.setdefault(connection.vendor, self._compile(len(args)))
        sql, fixed, where, converters = compiled
        params = list(fixed)
        for position, argument in where:
            params[position] = args[argument]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
        if row is None:
            return None
        values = list(row)
        for position, (functions, expression) in converters.items():
            value = values[position]
            for convert in functions:
                value = convert(value, expression, connection)
            values[position] = value
        return tuple(values)
