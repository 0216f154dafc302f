//! The exception hierarchy and the ONE function that maps engine errors onto it.
//!
//! Every exception class is created once (pyo3's `create_exception!` keeps each type object in
//! a process-wide once-cell) and derives from `SparsetableError`. Class names follow
//! `google.api_core.exceptions` so `except NotFound:` reads the same against Cloud Bigtable.
//! Every raised instance carries `.code` (gRPC's upper-case name, `Code::as_str()`),
//! `.grpc_code` (the status number) and `.message` (the engine's message without the code).
//! The classes carry `.code` and `.grpc_code` too, so a caller can match on either.
//!
//! The pure-Python package may install, per code, a subclass of the native class that also
//! derives from the matching `google.api_core.exceptions` class (when that package is
//! installed), through `_use_exception_classes`; raised errors then use it. Each installed
//! class must subclass the native one, so `except sparsetable.NotFound` keeps catching.

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyType;
use sparsetable::{Code, Error};

pyo3::create_exception!(
    sparsetable,
    SparsetableError,
    PyException,
    "Base class of every error the engine reports; `.code` holds gRPC's status name."
);
pyo3::create_exception!(
    sparsetable,
    InvalidArgument,
    SparsetableError,
    "INVALID_ARGUMENT: a malformed request."
);
pyo3::create_exception!(
    sparsetable,
    PermissionDenied,
    SparsetableError,
    "PERMISSION_DENIED: the request reaches outside what the caller may use (a server's authorized view)."
);
pyo3::create_exception!(
    sparsetable,
    NotFound,
    SparsetableError,
    "NOT_FOUND: the table or family does not exist."
);
pyo3::create_exception!(
    sparsetable,
    AlreadyExists,
    SparsetableError,
    "ALREADY_EXISTS: the table or family exists already."
);
pyo3::create_exception!(
    sparsetable,
    ResourceExhausted,
    SparsetableError,
    "RESOURCE_EXHAUSTED: a resource ran out."
);
pyo3::create_exception!(
    sparsetable,
    FailedPrecondition,
    SparsetableError,
    "FAILED_PRECONDITION: the system is not in a state that allows the call."
);
pyo3::create_exception!(
    sparsetable,
    Aborted,
    SparsetableError,
    "ABORTED: the call was aborted by a conflict."
);
pyo3::create_exception!(
    sparsetable,
    OutOfRange,
    SparsetableError,
    "OUT_OF_RANGE: a value is outside its valid range."
);
pyo3::create_exception!(
    sparsetable,
    MethodNotImplemented,
    SparsetableError,
    "UNIMPLEMENTED: the operation is not implemented."
);
pyo3::create_exception!(
    sparsetable,
    InternalServerError,
    SparsetableError,
    "INTERNAL: an engine invariant broke (a bug)."
);
pyo3::create_exception!(
    sparsetable,
    ServiceUnavailable,
    SparsetableError,
    "UNAVAILABLE: the storage is temporarily unavailable."
);
pyo3::create_exception!(
    sparsetable,
    DeadlineExceeded,
    SparsetableError,
    "DEADLINE_EXCEEDED: the call ran past its deadline."
);
pyo3::create_exception!(
    sparsetable,
    Cancelled,
    SparsetableError,
    "CANCELLED: the call was cancelled (raised only by an injected fault)."
);
pyo3::create_exception!(
    sparsetable,
    Unknown,
    SparsetableError,
    "UNKNOWN: an error with no better code (raised only by an injected fault)."
);
pyo3::create_exception!(
    sparsetable,
    Unauthenticated,
    SparsetableError,
    "UNAUTHENTICATED: the request has no valid credentials (raised only by an injected fault)."
);
pyo3::create_exception!(
    sparsetable,
    DataLoss,
    SparsetableError,
    "DATA_LOSS: stored bytes failed a checksum."
);

/// The exception class for a code. This match is the binding's one code mapping; everything
/// else (class attributes, raised errors) goes through it.
pub fn exception_type(py: Python<'_>, code: Code) -> Bound<'_, PyType> {
    match code {
        Code::InvalidArgument => py.get_type::<InvalidArgument>(),
        Code::NotFound => py.get_type::<NotFound>(),
        Code::AlreadyExists => py.get_type::<AlreadyExists>(),
        Code::ResourceExhausted => py.get_type::<ResourceExhausted>(),
        Code::FailedPrecondition => py.get_type::<FailedPrecondition>(),
        Code::Aborted => py.get_type::<Aborted>(),
        Code::OutOfRange => py.get_type::<OutOfRange>(),
        Code::Unimplemented => py.get_type::<MethodNotImplemented>(),
        Code::Internal => py.get_type::<InternalServerError>(),
        Code::Unavailable => py.get_type::<ServiceUnavailable>(),
        Code::DataLoss => py.get_type::<DataLoss>(),
        Code::DeadlineExceeded => py.get_type::<DeadlineExceeded>(),
        Code::PermissionDenied => py.get_type::<PermissionDenied>(),
        Code::Cancelled => py.get_type::<Cancelled>(),
        Code::Unknown => py.get_type::<Unknown>(),
        Code::Unauthenticated => py.get_type::<Unauthenticated>(),
        // `Code` is non-exhaustive: a code added to the core later still raises a typed error
        // (the base class) with the right `.code`, until it gets a class of its own here.
        _ => py.get_type::<SparsetableError>(),
    }
}

/// The classes the Python package installed in place of the native ones, by code name.
static INSTALLED: std::sync::RwLock<Vec<(&'static str, Py<PyType>)>> =
    std::sync::RwLock::new(Vec::new());

/// The class a raised error of `code` gets: the installed subclass if any, else the native.
fn raised_type(py: Python<'_>, code: Code) -> Bound<'_, PyType> {
    if let Ok(installed) = INSTALLED.read() {
        if let Some((_, ty)) = installed.iter().find(|(c, _)| *c == code.as_str()) {
            return ty.bind(py).clone();
        }
    }
    exception_type(py, code)
}

/// Installs `classes` (`{"NOT_FOUND": cls, ...}`) as the classes raised for those codes.
/// Each must be a subclass of the native class of its code (`TypeError` otherwise, and
/// nothing is installed); an unknown code name is a `ValueError`.
#[pyfunction]
fn _use_exception_classes(classes: &Bound<'_, pyo3::types::PyDict>) -> PyResult<()> {
    let py = classes.py();
    let mut chosen = Vec::new();
    for (name, cls) in classes.iter() {
        let name: String = name.extract()?;
        let code = Code::ALL
            .into_iter()
            .find(|c| c.as_str() == name)
            .ok_or_else(|| {
                pyo3::exceptions::PyValueError::new_err(format!("unknown code {name:?}"))
            })?;
        let cls = cls.cast_into::<PyType>()?;
        if !cls.is_subclass(&exception_type(py, code))? {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "{} must subclass sparsetable's class for {name}",
                cls.name()?
            )));
        }
        chosen.push((code.as_str(), cls.unbind()));
    }
    let mut installed = INSTALLED
        .write()
        .map_err(|_| to_py_err(py, sparsetable::api::shared::poisoned()))?;
    for (code, cls) in chosen {
        installed.retain(|(c, _)| *c != code);
        installed.push((code, cls));
    }
    Ok(())
}

/// Turns an engine error into the matching Python exception, with `.code`, `.grpc_code` and
/// `.message` set on the instance.
pub fn to_py_err(py: Python<'_>, err: Error) -> PyErr {
    let code = err.code();
    let build = || -> PyResult<PyErr> {
        let value = raised_type(py, code).call1((err.to_string(),))?;
        value.setattr("code", code.as_str())?;
        value.setattr("grpc_code", code.grpc_code())?;
        value.setattr("message", err.message())?;
        Ok(PyErr::from_value(value))
    };
    // Building the exception can itself fail only on memory exhaustion; raise that instead.
    build().unwrap_or_else(|e| e)
}

/// Shorthand for an `InvalidArgument` raised by a conversion (a bad enum name, an
/// out-of-range number): still a typed engine-style error, through the same mapping.
pub fn invalid_argument(py: Python<'_>, message: impl Into<String>) -> PyErr {
    to_py_err(py, Error::invalid_argument(message))
}

/// Adds every class to the module and stamps the class-level `.code` / `.grpc_code`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let base = py.get_type::<SparsetableError>();
    base.setattr("code", py.None())?;
    base.setattr("grpc_code", py.None())?;
    m.add("SparsetableError", base)?;
    for code in Code::ALL {
        let ty = exception_type(py, code);
        ty.setattr("code", code.as_str())?;
        ty.setattr("grpc_code", code.grpc_code())?;
        m.add(ty.name()?, ty)?;
    }
    m.add_function(wrap_pyfunction!(_use_exception_classes, m)?)?;
    Ok(())
}
