//! The binding's one error type, and the one function that maps the core's errors onto it.
//!
//! The variants are chosen by what a caller can do about the failure (fix the request,
//! create the missing thing, retry, ...), as mozilla/application-services designs its FFI
//! errors. Every variant still carries the core's gRPC code name (`NOT_FOUND`, ...), so the
//! Kotlin layer can raise the exception named after that exact code and tests can check it.

use core::fmt;

/// A failed call. Kotlin sees it as the sealed class `SparsetableException`.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Error)]
pub enum SparsetableError {
    /// The request is malformed (`INVALID_ARGUMENT`, `OUT_OF_RANGE`): fix it, do not retry.
    InvalidRequest {
        /// gRPC's upper-case code name.
        code: String,
        /// What was wrong, naming the offending field.
        reason: String,
    },
    /// A table or family named in the request does not exist (`NOT_FOUND`): create it or fix
    /// the name.
    NotFound {
        /// gRPC's upper-case code name.
        code: String,
        /// What was missing.
        reason: String,
    },
    /// The table or family to create exists already (`ALREADY_EXISTS`): use it or pick
    /// another name.
    AlreadyExists {
        /// gRPC's upper-case code name.
        code: String,
        /// What exists.
        reason: String,
    },
    /// The database is not in a state that allows the call (`FAILED_PRECONDITION`), e.g. a
    /// protected table: change that state first.
    FailedPrecondition {
        /// gRPC's upper-case code name.
        code: String,
        /// Which state blocked the call.
        reason: String,
    },
    /// A transient condition (`RESOURCE_EXHAUSTED`, `ABORTED`, `UNAVAILABLE`): the same call
    /// may succeed if retried later.
    Retryable {
        /// gRPC's upper-case code name.
        code: String,
        /// What was exhausted or unavailable.
        reason: String,
    },
    /// Nothing the caller can fix here (`INTERNAL`, `DATA_LOSS`, `UNIMPLEMENTED`; `CANCELLED`,
    /// `UNKNOWN` and `UNAUTHENTICATED`, which only an injected fault raises; or a code this
    /// binding does not know yet): report it. The Kotlin layer still raises the exception of
    /// the exact code.
    Internal {
        /// gRPC's upper-case code name.
        code: String,
        /// What broke.
        reason: String,
    },
}

impl SparsetableError {
    /// gRPC's upper-case code name, e.g. `NOT_FOUND`.
    pub fn code(&self) -> &str {
        match self {
            SparsetableError::InvalidRequest { code, .. }
            | SparsetableError::NotFound { code, .. }
            | SparsetableError::AlreadyExists { code, .. }
            | SparsetableError::FailedPrecondition { code, .. }
            | SparsetableError::Retryable { code, .. }
            | SparsetableError::Internal { code, .. } => code,
        }
    }

    /// The human-readable reason (without the code).
    pub fn reason(&self) -> &str {
        match self {
            SparsetableError::InvalidRequest { reason, .. }
            | SparsetableError::NotFound { reason, .. }
            | SparsetableError::AlreadyExists { reason, .. }
            | SparsetableError::FailedPrecondition { reason, .. }
            | SparsetableError::Retryable { reason, .. }
            | SparsetableError::Internal { reason, .. } => reason,
        }
    }
}

impl fmt::Display for SparsetableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.reason())
    }
}

impl std::error::Error for SparsetableError {}

/// THE mapping from the core's error to the binding's: every exported call goes through it.
pub fn to_ffi(error: sparsetable::Error) -> SparsetableError {
    use sparsetable::Code;
    let code = error.code().as_str().to_string();
    let reason = error.message().to_string();
    match error.code() {
        Code::InvalidArgument | Code::OutOfRange => {
            SparsetableError::InvalidRequest { code, reason }
        }
        Code::NotFound => SparsetableError::NotFound { code, reason },
        Code::AlreadyExists => SparsetableError::AlreadyExists { code, reason },
        Code::FailedPrecondition => SparsetableError::FailedPrecondition { code, reason },
        Code::ResourceExhausted | Code::Aborted | Code::Unavailable | Code::DeadlineExceeded => {
            SparsetableError::Retryable { code, reason }
        }
        Code::Internal
        | Code::DataLoss
        | Code::Unimplemented
        | Code::Cancelled
        | Code::Unknown
        | Code::Unauthenticated => SparsetableError::Internal { code, reason },
        // Code is non-exhaustive: a code added to the core later is reported with its own
        // name, as an error the caller cannot fix, until this binding learns about it.
        _ => SparsetableError::Internal { code, reason },
    }
}

impl From<sparsetable::Error> for SparsetableError {
    fn from(error: sparsetable::Error) -> Self {
        to_ffi(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparsetable::{Code, Error};

    #[test]
    fn every_core_code_keeps_its_grpc_name() {
        for code in Code::ALL {
            let mapped = to_ffi(Error::new(code, "why"));
            assert_eq!(mapped.code(), code.as_str());
            assert_eq!(mapped.reason(), "why");
        }
    }

    #[test]
    fn variants_follow_what_the_caller_can_do() {
        let variant = |code| to_ffi(Error::new(code, ""));
        assert!(matches!(
            variant(Code::InvalidArgument),
            SparsetableError::InvalidRequest { .. }
        ));
        assert!(matches!(
            variant(Code::OutOfRange),
            SparsetableError::InvalidRequest { .. }
        ));
        assert!(matches!(
            variant(Code::NotFound),
            SparsetableError::NotFound { .. }
        ));
        assert!(matches!(
            variant(Code::AlreadyExists),
            SparsetableError::AlreadyExists { .. }
        ));
        assert!(matches!(
            variant(Code::FailedPrecondition),
            SparsetableError::FailedPrecondition { .. }
        ));
        assert!(matches!(
            variant(Code::Unavailable),
            SparsetableError::Retryable { .. }
        ));
        assert!(matches!(
            variant(Code::DataLoss),
            SparsetableError::Internal { .. }
        ));
    }
}
