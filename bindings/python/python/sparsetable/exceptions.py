"""The error classes, under the module path that mirrors ``google.api_core.exceptions``.

Every class derives from ``SparsetableError`` and carries ``.code`` (gRPC's upper-case status
name, e.g. ``"NOT_FOUND"``) and ``.grpc_code`` (its number); raised instances also carry
``.message``. The classes are created once by the native module; this file re-exports them.
"""

from sparsetable._native import (
    Aborted,
    AlreadyExists,
    DataLoss,
    FailedPrecondition,
    InternalServerError,
    InvalidArgument,
    MethodNotImplemented,
    NotFound,
    OutOfRange,
    ResourceExhausted,
    ServiceUnavailable,
    SparsetableError,
)

__all__ = [
    "Aborted",
    "AlreadyExists",
    "DataLoss",
    "FailedPrecondition",
    "InternalServerError",
    "InvalidArgument",
    "MethodNotImplemented",
    "NotFound",
    "OutOfRange",
    "ResourceExhausted",
    "ServiceUnavailable",
    "SparsetableError",
]
