"""The classic Instance Admin's ``Cluster`` and ``AppProfile`` (``google.cloud.bigtable.cluster``
and ``.app_profile``) and the finished long-running ``Operation`` their calls return, on the
engine's instance model (the core's ``InstanceRecord`` through ``_native.InstanceAdmin``).

Every rule (ids, what may be deleted, etags, the implied ``default`` profile, autoscaling
bounds) is the core's: these classes move attributes to and from the native admin's dicts
and raise what it raises (``NotFound``, ``AlreadyExists``, ``FailedPrecondition``,
``Aborted``, ``InvalidArgument``, as ``google.api_core.exceptions`` when it is installed).
Changes apply at once, so each ``Operation`` is already done.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional

from sparsetable import _native
from sparsetable.enums import Cluster as _ClusterEnums
from sparsetable.enums import RoutingPolicyType

if TYPE_CHECKING:
    from sparsetable._classic import Instance


class Operation:
    """``google.api_core.operation.Operation`` of a change already applied: ``result()``
    answers the changed resource at once."""

    def __init__(self, result: Any, metadata: Any = None) -> None:
        self._result = result
        self.metadata = metadata

    def result(self, timeout: Any = None, retry: Any = None, polling: Any = None) -> Any:
        """The changed resource (the change is applied when the call returns)."""
        return self._result

    def done(self, retry: Any = None) -> bool:
        """Always True."""
        return True

    def running(self) -> bool:
        """Always False."""
        return False

    def cancelled(self) -> bool:
        """Always False (a change applied cannot be cancelled)."""
        return False

    def exception(self, timeout: Any = None) -> Optional[BaseException]:
        """None: a refused change raises when it is requested."""
        return None

    def __repr__(self) -> str:
        return f"Operation(done=True, result={self._result!r})"


class Cluster:
    """``google.cloud.bigtable.cluster.Cluster``: one cluster of an instance. ``serve_nodes``,
    ``min_serve_nodes``, ``max_serve_nodes`` and ``cpu_utilization_percent`` are sent by
    ``create`` / ``update``; ``reload`` reads every attribute back."""

    def __init__(
        self,
        cluster_id: str,
        instance: "Instance",
        location_id: Optional[str] = None,
        serve_nodes: Optional[int] = None,
        default_storage_type: Any = None,
        kms_key_name: Optional[str] = None,
        _state: Any = None,
        min_serve_nodes: Optional[int] = None,
        max_serve_nodes: Optional[int] = None,
        cpu_utilization_percent: Optional[int] = None,
    ) -> None:
        self.cluster_id = cluster_id
        self._instance = instance
        self.location_id = location_id
        self.serve_nodes = serve_nodes
        self.default_storage_type = default_storage_type
        self._kms_key_name = kms_key_name
        self._state = _state
        self.min_serve_nodes = min_serve_nodes
        self.max_serve_nodes = max_serve_nodes
        self.cpu_utilization_percent = cpu_utilization_percent

    @property
    def name(self) -> str:
        return f"{self._instance.name}/clusters/{self.cluster_id}"

    @property
    def state(self) -> Any:
        """``enums.Cluster.State`` (READY once read from the instance)."""
        return self._state

    @property
    def kms_key_name(self) -> Optional[str]:
        return self._kms_key_name

    def _fields(self) -> Dict[str, Any]:
        return {
            "cluster_id": self.cluster_id,
            "location_id": self.location_id,
            "serve_nodes": self.serve_nodes,
            "default_storage_type": None if self.default_storage_type is None else int(self.default_storage_type),
            "min_serve_nodes": self.min_serve_nodes or None,
            "max_serve_nodes": self.max_serve_nodes or None,
            "cpu_utilization_percent": self.cpu_utilization_percent or None,
        }

    def _update_from(self, d: Dict[str, Any]) -> "Cluster":
        from sparsetable.enums import StorageType

        self.location_id = d["location_id"]
        self.serve_nodes = d["serve_nodes"]
        self.default_storage_type = StorageType._T(d["default_storage_type"])
        self.min_serve_nodes = d["min_serve_nodes"]
        self.max_serve_nodes = d["max_serve_nodes"]
        self.cpu_utilization_percent = d["cpu_utilization_percent"]
        self._state = _ClusterEnums.State.READY
        return self

    @classmethod
    def _from(cls, d: Dict[str, Any], instance: "Instance") -> "Cluster":
        return cls(d["cluster_id"], instance)._update_from(d)

    def reload(self) -> None:
        """Reads the cluster's attributes (``NotFound`` if the instance lacks it)."""
        self._update_from(self._instance._iadmin.get_cluster(self.cluster_id))

    def exists(self) -> bool:
        """Whether the instance has the cluster."""
        try:
            self._instance._iadmin.get_cluster(self.cluster_id)
        except _native.NotFound:
            return False
        return True

    def create(self) -> Operation:
        """Adds the cluster to its instance; it gets a copy of every table."""
        stored = self._instance._iadmin.create_cluster(self._fields())
        return Operation(Cluster._from(stored, self._instance))

    def update(self) -> Operation:
        """Sends ``serve_nodes`` and the autoscaling numbers that are set (None or 0 keeps
        the stored value, as Google's field mask)."""
        f = self._fields()
        stored = self._instance._iadmin.update_cluster(
            self.cluster_id,
            serve_nodes=self.serve_nodes or None,
            min_serve_nodes=f["min_serve_nodes"],
            max_serve_nodes=f["max_serve_nodes"],
            cpu_utilization_percent=f["cpu_utilization_percent"],
        )
        return Operation(Cluster._from(stored, self._instance))

    def disable_autoscaling(self, serve_nodes: int) -> Operation:
        """Turns autoscaling off, with `serve_nodes` nodes."""
        self.serve_nodes = serve_nodes
        self.min_serve_nodes = self.max_serve_nodes = self.cpu_utilization_percent = 0
        stored = self._instance._iadmin.update_cluster(self.cluster_id, serve_nodes=serve_nodes, disable_autoscaling=True)
        return Operation(Cluster._from(stored, self._instance))

    def delete(self) -> None:
        """Removes the cluster (``FailedPrecondition`` for the instance's last one or one a
        single-cluster profile routes to)."""
        self._instance._iadmin.delete_cluster(self.cluster_id)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Cluster):
            return NotImplemented
        return other.cluster_id == self.cluster_id and other._instance == self._instance

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Cluster({self.name!r})"


class AppProfile:
    """``google.cloud.bigtable.app_profile.AppProfile``: routing_policy_type
    (``enums.RoutingPolicyType.ANY`` with ``multi_cluster_ids``, or ``SINGLE`` with
    ``cluster_id`` and ``allow_transactional_writes``) and ``description``.

    ``etag`` (a Sparsetable addition) is set by ``reload`` and ``create``'s returned profile;
    when set, ``update`` sends it and the core refuses a stale one with ``Aborted``.
    ``ignore_warnings`` is accepted and unused: the core raises no warnings."""

    def __init__(
        self,
        app_profile_id: str,
        instance: "Instance",
        routing_policy_type: Any = None,
        description: Optional[str] = None,
        cluster_id: Optional[str] = None,
        multi_cluster_ids: Optional[List[str]] = None,
        allow_transactional_writes: Optional[bool] = None,
    ) -> None:
        self.app_profile_id = app_profile_id
        self._instance = instance
        self.routing_policy_type = routing_policy_type
        self.description = description
        self.cluster_id = cluster_id
        self.multi_cluster_ids = multi_cluster_ids
        self.allow_transactional_writes = allow_transactional_writes
        self.etag: Optional[str] = None

    @property
    def name(self) -> str:
        return f"{self._instance.name}/appProfiles/{self.app_profile_id}"

    def _fields(self) -> Dict[str, Any]:
        return {
            "app_profile_id": self.app_profile_id,
            "routing_policy_type": None if self.routing_policy_type is None else int(self.routing_policy_type),
            "description": self.description,
            "cluster_id": self.cluster_id,
            "multi_cluster_ids": self.multi_cluster_ids,
            "allow_transactional_writes": self.allow_transactional_writes,
            "etag": self.etag,
        }

    def _update_from(self, d: Dict[str, Any]) -> "AppProfile":
        self.routing_policy_type = RoutingPolicyType._T(d["routing_policy_type"])
        self.description = d["description"]
        self.cluster_id = d["cluster_id"]
        self.multi_cluster_ids = d["multi_cluster_ids"]
        self.allow_transactional_writes = d["allow_transactional_writes"]
        self.etag = d["etag"]
        return self

    @classmethod
    def _from(cls, d: Dict[str, Any], instance: "Instance") -> "AppProfile":
        return cls(d["app_profile_id"], instance)._update_from(d)

    def reload(self) -> None:
        """Reads the profile's attributes and etag (``NotFound`` if unknown)."""
        self._update_from(self._instance._iadmin.get_app_profile(self.app_profile_id))

    def exists(self) -> bool:
        """Whether the instance has the profile (the implied ``default`` too)."""
        try:
            self._instance._iadmin.get_app_profile(self.app_profile_id)
        except _native.NotFound:
            return False
        return True

    def create(self, ignore_warnings: Optional[bool] = None) -> "AppProfile":
        """Stores the profile; returns it as stored (with its etag)."""
        return AppProfile._from(self._instance._iadmin.create_app_profile(self._fields()), self._instance)

    def update(self, ignore_warnings: Optional[bool] = None) -> Operation:
        """Replaces the profile's routing, and its description unless that is None (as
        Google's field mask)."""
        fields = self._fields()
        if fields["description"] is None:
            fields["description"] = self._instance._iadmin.get_app_profile(self.app_profile_id)["description"]
        stored = self._instance._iadmin.update_app_profile(fields)
        return Operation(AppProfile._from(stored, self._instance))

    def delete(self, ignore_warnings: Optional[bool] = None) -> None:
        """Removes the stored profile (``NotFound`` if not stored)."""
        self._instance._iadmin.delete_app_profile(self.app_profile_id)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AppProfile):
            return False
        return other.app_profile_id == self.app_profile_id and other._instance == self._instance

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"AppProfile({self.name!r})"
