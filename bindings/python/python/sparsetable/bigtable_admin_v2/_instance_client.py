"""``google.cloud.bigtable_admin_v2.BigtableInstanceAdminClient``'s view calls:
``create_logical_view``, ``get_logical_view``, ``list_logical_views``,
``update_logical_view`` and ``delete_logical_view``, and the same five for continuous
materialized views (``create_materialized_view`` ... ``delete_materialized_view``), with the
generated client's names, request fields and results (creates and updates return an
operation that is already done).

A logical view is an instance-level saved query that ``execute_query`` reads in ``FROM``
(docs/sql.md). A continuous materialized view is a ``GROUP BY`` query over one table whose
result the engine keeps up to date with every write, also read in ``FROM``; only its
``deletion_protection`` can be updated. Their rules (the id, a query that must prepare or be
one views maintain, etags, deletion protection) are the engine's instance record's and
database's; this module converts requests and messages only. The instance must have been
created through the Instance Admin (``Instance.create``), as with Bigtable, else
``NotFound``.
"""

from __future__ import annotations

import re
from typing import Any, Dict, Iterator, Optional, Tuple

from sparsetable._instance_admin import Operation
from sparsetable.bigtable_admin_v2 import types
from sparsetable.exceptions import InvalidArgument

_PARENT = re.compile(r"^projects/([^/]+)/instances/([^/]+)$")
_VIEW = re.compile(r"^projects/([^/]+)/instances/([^/]+)/logicalViews/([^/]+)$")
_VIEW_FIELDS = ("query", "deletion_protection")
_MVIEW = re.compile(r"^projects/([^/]+)/instances/([^/]+)/materializedViews/([^/]+)$")
_MVIEW_SHAPE = "projects/{project}/instances/{instance}/materializedViews/{view}"


def _field(request: Any, name: str, given: Any) -> Any:
    """A request field: the keyword argument, else the request's (a dict or a message)."""
    if given is not None:
        return given
    if request is None:
        return None
    return types._get(request, name)


def _match(pattern: "re.Pattern[str]", value: Any, what: str, shape: str) -> Tuple[str, ...]:
    match = pattern.match(value) if isinstance(value, str) else None
    if not match:
        raise InvalidArgument(f"{what} must be {shape}, not {value!r}")
    return match.groups()


def _view_message(message: Any, collection: str, view_id: str, project: str, instance_id: str, d: Dict[str, Any]) -> Any:
    """A view's message (``LogicalView`` or ``MaterializedView``) from the native dict: both
    kinds have the same fields, named under their own collection."""
    return message(
        name=f"projects/{project}/instances/{instance_id}/{collection}/{view_id}",
        query=d["query"],
        etag=d["etag"],
        deletion_protection=d["deletion_protection"],
    )


class BigtableInstanceAdminClient:
    """The generated instance admin client's view calls over the in-process
    instances. The request's ``parent`` or ``name`` picks the project and instance; a client
    reached through ``sparsetable.Client(...).instance_admin_client`` uses that client's
    database options for its own project."""

    def __init__(self, credentials: Any = None, transport: Any = None, client_options: Any = None, client_info: Any = None, *, _client: Any = None) -> None:
        from sparsetable.bigtable_admin_v2 import BigtableTableAdminClient

        # The table admin client knows how to reach a project's native client.
        self._tables = BigtableTableAdminClient(_client=_client)

    def _admin(self, project: str, instance_id: str) -> Any:
        return self._tables._native(project)._instance_admin(instance_id)

    @staticmethod
    def instance_path(project: str, instance: str) -> str:
        """``projects/{project}/instances/{instance}``."""
        return f"projects/{project}/instances/{instance}"

    @staticmethod
    def logical_view_path(project: str, instance: str, logical_view: str) -> str:
        """``projects/{project}/instances/{instance}/logicalViews/{logical_view}``."""
        return f"projects/{project}/instances/{instance}/logicalViews/{logical_view}"

    @staticmethod
    def _view(project: str, instance_id: str, d: Dict[str, Any]) -> types.LogicalView:
        return _view_message(types.LogicalView, "logicalViews", d["logical_view_id"], project, instance_id, d)

    def create_logical_view(self, request: Any = None, *, parent: Optional[str] = None, logical_view: Any = None, logical_view_id: Optional[str] = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> Operation:
        """Creates ``logical_view_id`` in instance ``parent`` with the ``logical_view``'s
        ``query`` (prepared now: a query that does not prepare is ``InvalidArgument``) and
        ``deletion_protection``. A done operation whose ``result()`` is the view."""
        project, instance_id = _match(_PARENT, _field(request, "parent", parent), "parent", "projects/{project}/instances/{instance}")
        view = _field(request, "logical_view", logical_view)
        if view is None:
            raise InvalidArgument("logical_view is required")
        made = self._admin(project, instance_id).create_logical_view(
            _field(request, "logical_view_id", logical_view_id) or "",
            types._get(view, "query") or "",
            bool(types._get(view, "deletion_protection")),
        )
        return Operation(self._view(project, instance_id, made))

    def get_logical_view(self, request: Any = None, *, name: Optional[str] = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> types.LogicalView:
        """The view ``name`` (``NotFound`` if the instance has none of that id)."""
        project, instance_id, view_id = _match(_VIEW, _field(request, "name", name), "name", "projects/{project}/instances/{instance}/logicalViews/{view}")
        return self._view(project, instance_id, self._admin(project, instance_id).get_logical_view(view_id))

    def list_logical_views(self, request: Any = None, *, parent: Optional[str] = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> Iterator[types.LogicalView]:
        """The views of instance ``parent``, by id, as an iterator (the generated client's
        pager iterates)."""
        project, instance_id = _match(_PARENT, _field(request, "parent", parent), "parent", "projects/{project}/instances/{instance}")
        return iter([self._view(project, instance_id, d) for d in self._admin(project, instance_id).list_logical_views()])

    def update_logical_view(self, request: Any = None, *, logical_view: Any = None, update_mask: Any = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> Operation:
        """Changes the fields of ``logical_view`` (its ``name`` picks it) that ``update_mask``
        names (``query``, ``deletion_protection``; both when the mask is absent). A non-empty
        ``etag`` must be the view's current one (``Aborted`` otherwise). A done operation
        whose ``result()`` is the view with its new etag."""
        view = _field(request, "logical_view", logical_view)
        if view is None:
            raise InvalidArgument("logical_view is required")
        project, instance_id, view_id = _match(_VIEW, types._get(view, "name"), "logical_view.name", "projects/{project}/instances/{instance}/logicalViews/{view}")
        paths = list(types._get(_field(request, "update_mask", update_mask), "paths") or _VIEW_FIELDS)
        unknown = [p for p in paths if p not in _VIEW_FIELDS]
        if unknown:
            raise InvalidArgument(f"update_mask: field {unknown[0]!r} of a logical view cannot be updated (query and deletion_protection can)")
        changed = self._admin(project, instance_id).update_logical_view(
            view_id,
            query=(types._get(view, "query") or "") if "query" in paths else None,
            deletion_protection=bool(types._get(view, "deletion_protection")) if "deletion_protection" in paths else None,
            etag=types._get(view, "etag") or "",
        )
        return Operation(self._view(project, instance_id, changed))

    def delete_logical_view(self, request: Any = None, *, name: Optional[str] = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> None:
        """Deletes the view ``name``; the request's non-empty ``etag`` must be its current one
        (``Aborted``), and a view with deletion protection is ``FailedPrecondition``."""
        project, instance_id, view_id = _match(_VIEW, _field(request, "name", name), "name", "projects/{project}/instances/{instance}/logicalViews/{view}")
        self._admin(project, instance_id).delete_logical_view(view_id, etag=_field(request, "etag", None) or "")

    @staticmethod
    def materialized_view_path(project: str, instance: str, materialized_view: str) -> str:
        """``projects/{project}/instances/{instance}/materializedViews/{materialized_view}``."""
        return f"projects/{project}/instances/{instance}/materializedViews/{materialized_view}"

    @staticmethod
    def _mview(project: str, instance_id: str, d: Dict[str, Any]) -> types.MaterializedView:
        return _view_message(types.MaterializedView, "materializedViews", d["materialized_view_id"], project, instance_id, d)

    def create_materialized_view(self, request: Any = None, *, parent: Optional[str] = None, materialized_view: Any = None, materialized_view_id: Optional[str] = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> Operation:
        """Creates ``materialized_view_id`` in instance ``parent`` with the
        ``materialized_view``'s ``query`` (checked and backfilled from its table now: a query
        views do not maintain is ``InvalidArgument``, an unknown table ``NotFound``) and
        ``deletion_protection``. A done operation whose ``result()`` is the view."""
        project, instance_id = _match(_PARENT, _field(request, "parent", parent), "parent", "projects/{project}/instances/{instance}")
        view = _field(request, "materialized_view", materialized_view)
        if view is None:
            raise InvalidArgument("materialized_view is required")
        made = self._admin(project, instance_id).create_materialized_view(
            _field(request, "materialized_view_id", materialized_view_id) or "",
            types._get(view, "query") or "",
            bool(types._get(view, "deletion_protection")),
        )
        return Operation(self._mview(project, instance_id, made))

    def get_materialized_view(self, request: Any = None, *, name: Optional[str] = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> types.MaterializedView:
        """The view ``name`` (``NotFound`` if the instance has none of that id)."""
        project, instance_id, view_id = _match(_MVIEW, _field(request, "name", name), "name", _MVIEW_SHAPE)
        return self._mview(project, instance_id, self._admin(project, instance_id).get_materialized_view(view_id))

    def list_materialized_views(self, request: Any = None, *, parent: Optional[str] = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> Iterator[types.MaterializedView]:
        """The materialized views of instance ``parent``, by id, as an iterator (the
        generated client's pager iterates)."""
        project, instance_id = _match(_PARENT, _field(request, "parent", parent), "parent", "projects/{project}/instances/{instance}")
        return iter([self._mview(project, instance_id, d) for d in self._admin(project, instance_id).list_materialized_views()])

    def update_materialized_view(self, request: Any = None, *, materialized_view: Any = None, update_mask: Any = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> Operation:
        """Sets ``deletion_protection`` of ``materialized_view`` (its ``name`` picks it), the
        one field that can be updated (``update_mask`` may name only it). A non-empty
        ``etag`` must be the view's current one (``Aborted`` otherwise). A done operation
        whose ``result()`` is the view with its new etag."""
        view = _field(request, "materialized_view", materialized_view)
        if view is None:
            raise InvalidArgument("materialized_view is required")
        project, instance_id, view_id = _match(_MVIEW, types._get(view, "name"), "materialized_view.name", _MVIEW_SHAPE)
        for path in types._get(_field(request, "update_mask", update_mask), "paths") or []:
            if path != "deletion_protection":
                raise InvalidArgument(f"update_mask: only deletion_protection can be updated, not {path!r}")
        changed = self._admin(project, instance_id).update_materialized_view(
            view_id,
            bool(types._get(view, "deletion_protection")),
            etag=types._get(view, "etag") or "",
        )
        return Operation(self._mview(project, instance_id, changed))

    def delete_materialized_view(self, request: Any = None, *, name: Optional[str] = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> None:
        """Deletes the view ``name`` and its rows; the request's non-empty ``etag`` must be
        its current one (``Aborted``), and a view with deletion protection is
        ``FailedPrecondition``."""
        project, instance_id, view_id = _match(_MVIEW, _field(request, "name", name), "name", _MVIEW_SHAPE)
        self._admin(project, instance_id).delete_materialized_view(view_id, etag=_field(request, "etag", None) or "")


__all__ = ["BigtableInstanceAdminClient"]
