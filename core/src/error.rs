//! The one error type of the engine.
//!
//! Every fallible public entry point returns [`Error`]: a [`Code`] named after gRPC's status
//! codes plus a message that names the offending field. Front-ends map the code in exactly one
//! place each (see docs/errors.md); they never parse the message.
//!
//! Messages quote user strings only through [`quoted`] and [`quoted_bytes`], which keep a
//! bounded prefix: a 1 MiB table name must not become a 1 MiB message (gRPC carries the
//! message in a `grpc-message` trailer that clients refuse past a few KiB).

use alloc::string::String;
use core::fmt;

/// The kind of failure, named after gRPC status codes so that every front-end can map it
/// one-to-one (Python exception class, Kotlin exception, JS `code` string, gRPC status).
///
/// The numeric values are gRPC's and reach the wire through the server: never renumber.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Code {
    /// The call was cancelled, typically by its caller. The engine never raises it by itself:
    /// it exists so a test can inject it (a client sees it when its call is cancelled).
    Cancelled = 1,
    /// An error with no better code. Like [`Code::Cancelled`], only injected: the engine
    /// gives every failure of its own a specific code.
    Unknown = 2,
    /// The caller gave a malformed request: a broken limit, a bad timestamp, a bad regex.
    InvalidArgument = 3,
    /// The call ran past its deadline (the engine raises it only when a test injects it:
    /// a front-end's own deadlines are its transport's).
    DeadlineExceeded = 4,
    /// The table, family, backup or other named thing does not exist.
    NotFound = 5,
    /// The table or family to create exists already.
    AlreadyExists = 6,
    /// The caller may not do this: a request through an authorized view that reaches
    /// outside the view.
    PermissionDenied = 7,
    /// A resource ran out (memory budget, quota).
    ResourceExhausted = 8,
    /// The system is not in a state that allows the call (e.g. deletion protection).
    FailedPrecondition = 9,
    /// The operation was aborted, typically by a concurrency conflict.
    Aborted = 10,
    /// A value is outside its valid range (e.g. an increment that overflows).
    OutOfRange = 11,
    /// The operation is not implemented.
    Unimplemented = 12,
    /// An invariant of the engine broke: a bug, never a user mistake.
    Internal = 13,
    /// The storage is temporarily unavailable.
    Unavailable = 14,
    /// Stored bytes failed a checksum or could not be decoded.
    DataLoss = 15,
    /// The request has no valid credentials. Only injected (the engine has no callers to
    /// authenticate), so an application's handling of an expired token can be tested.
    Unauthenticated = 16,
}

impl Code {
    /// gRPC's canonical upper-case name, e.g. `NOT_FOUND`; also the JS `code` string and the
    /// spelling used by the shared test vectors.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Cancelled => "CANCELLED",
            Code::Unknown => "UNKNOWN",
            Code::InvalidArgument => "INVALID_ARGUMENT",
            Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
            Code::NotFound => "NOT_FOUND",
            Code::AlreadyExists => "ALREADY_EXISTS",
            Code::PermissionDenied => "PERMISSION_DENIED",
            Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
            Code::FailedPrecondition => "FAILED_PRECONDITION",
            Code::Aborted => "ABORTED",
            Code::OutOfRange => "OUT_OF_RANGE",
            Code::Unimplemented => "UNIMPLEMENTED",
            Code::Internal => "INTERNAL",
            Code::Unavailable => "UNAVAILABLE",
            Code::DataLoss => "DATA_LOSS",
            Code::Unauthenticated => "UNAUTHENTICATED",
        }
    }

    /// The gRPC status number.
    pub fn grpc_code(self) -> i32 {
        self as i32
    }

    /// Every code (all of gRPC's but `OK`), in number order, for front-ends that build one
    /// exception class per code.
    pub const ALL: [Code; 16] = [
        Code::Cancelled,
        Code::Unknown,
        Code::InvalidArgument,
        Code::DeadlineExceeded,
        Code::NotFound,
        Code::AlreadyExists,
        Code::PermissionDenied,
        Code::ResourceExhausted,
        Code::FailedPrecondition,
        Code::Aborted,
        Code::OutOfRange,
        Code::Unimplemented,
        Code::Internal,
        Code::Unavailable,
        Code::DataLoss,
        Code::Unauthenticated,
    ];

    /// Parses the canonical upper-case name back (used by test vectors).
    pub fn from_name(name: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.as_str() == name)
    }
}

/// gRPC's whole status table, by canonical name and number, in number order: `OK` and the
/// engine's [`Code`]s (`CANCELLED`, `UNKNOWN` and `UNAUTHENTICATED` among them, which only an
/// injected fault, a transport or a client reports). Front-ends that mirror a client library's status enum (the
/// JavaScript package's `Status`) take it from here instead of keeping their own copy.
pub const GRPC_STATUS_CODES: [(&str, i32); 17] = [
    ("OK", 0),
    ("CANCELLED", Code::Cancelled as i32),
    ("UNKNOWN", Code::Unknown as i32),
    ("INVALID_ARGUMENT", Code::InvalidArgument as i32),
    ("DEADLINE_EXCEEDED", Code::DeadlineExceeded as i32),
    ("NOT_FOUND", Code::NotFound as i32),
    ("ALREADY_EXISTS", Code::AlreadyExists as i32),
    ("PERMISSION_DENIED", Code::PermissionDenied as i32),
    ("RESOURCE_EXHAUSTED", Code::ResourceExhausted as i32),
    ("FAILED_PRECONDITION", Code::FailedPrecondition as i32),
    ("ABORTED", Code::Aborted as i32),
    ("OUT_OF_RANGE", Code::OutOfRange as i32),
    ("UNIMPLEMENTED", Code::Unimplemented as i32),
    ("INTERNAL", Code::Internal as i32),
    ("UNAVAILABLE", Code::Unavailable as i32),
    ("DATA_LOSS", Code::DataLoss as i32),
    ("UNAUTHENTICATED", Code::Unauthenticated as i32),
];

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An engine error: a code plus a human-readable message naming the offending field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    code: Code,
    message: String,
}

/// The engine's result type.
pub type Result<T, E = Error> = core::result::Result<T, E>;

impl Error {
    /// Creates an error with the given code and message.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
        }
    }

    /// Shorthand for [`Code::InvalidArgument`].
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(Code::InvalidArgument, message)
    }

    /// Shorthand for [`Code::NotFound`].
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(Code::NotFound, message)
    }

    /// Shorthand for [`Code::AlreadyExists`].
    pub fn already_exists(message: impl Into<String>) -> Self {
        Self::new(Code::AlreadyExists, message)
    }

    /// Shorthand for [`Code::FailedPrecondition`].
    pub fn failed_precondition(message: impl Into<String>) -> Self {
        Self::new(Code::FailedPrecondition, message)
    }

    /// The error's code.
    pub fn code(&self) -> Code {
        self.code
    }

    /// The error's message (without the code).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl core::error::Error for Error {}

/// Most characters (or bytes) of a user string an error message quotes; longer strings are
/// cut here and say how long they were.
pub const MAX_QUOTED_CHARS: usize = 64;

/// A user string as error messages show it: Rust-quoted and escaped like `{:?}`, cut to
/// [`MAX_QUOTED_CHARS`] characters with the full length in bytes appended when longer.
pub fn quoted(s: &str) -> Quoted<'_> {
    Quoted(Text::Str(s))
}

/// User bytes (a row key, a qualifier) as error messages show them: escaped like a byte
/// string literal, cut to [`MAX_QUOTED_CHARS`] bytes with the full length appended.
pub fn quoted_bytes(b: &[u8]) -> Quoted<'_> {
    Quoted(Text::Bytes(b))
}

/// What [`quoted`] and [`quoted_bytes`] return; formats with `{}`.
#[derive(Debug, Clone, Copy)]
pub struct Quoted<'a>(Text<'a>);

#[derive(Debug, Clone, Copy)]
enum Text<'a> {
    Str(&'a str),
    Bytes(&'a [u8]),
}

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Text::Str(s) => {
                let cut = s
                    .char_indices()
                    .nth(MAX_QUOTED_CHARS)
                    .map_or(s.len(), |(i, _)| i);
                write!(f, "{:?}", &s[..cut])?;
                if cut < s.len() {
                    write!(f, "... ({} bytes)", s.len())?;
                }
            }
            Text::Bytes(b) => {
                let cut = b.len().min(MAX_QUOTED_CHARS);
                f.write_str("b\"")?;
                for &byte in &b[..cut] {
                    write!(f, "{}", core::ascii::escape_default(byte))?;
                }
                f.write_str("\"")?;
                if cut < b.len() {
                    write!(f, "... ({} bytes)", b.len())?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn quoted_keeps_a_bounded_prefix_of_long_user_strings() {
        assert_eq!(quoted("t\"1").to_string(), r#""t\"1""#);
        let long = "é".repeat(1 << 20);
        let shown = quoted(&long).to_string();
        assert!(shown.len() < 4 * MAX_QUOTED_CHARS + 40, "{}", shown.len());
        assert!(shown.ends_with(&alloc::format!("... ({} bytes)", long.len())));
        assert_eq!(quoted_bytes(b"a\xff").to_string(), r#"b"a\xff""#);
        let key = [b'k'; 5000];
        assert!(quoted_bytes(&key).to_string().ends_with("... (5000 bytes)"));
    }

    #[test]
    fn the_status_table_holds_every_code_under_its_name_and_number() {
        for code in Code::ALL {
            assert!(
                GRPC_STATUS_CODES.contains(&(code.as_str(), code.grpc_code())),
                "{code} missing"
            );
        }
        // gRPC numbers its statuses 0..=16 with no gap, each once.
        for (i, (name, n)) in GRPC_STATUS_CODES.iter().enumerate() {
            assert_eq!(*n, i as i32, "{name}");
        }
    }

    #[test]
    fn every_grpc_status_but_ok_is_a_code_that_parses_back() {
        // A fault may inject any status a Bigtable client can see: all sixteen non-OK ones.
        for (name, n) in &GRPC_STATUS_CODES[1..] {
            let code = Code::from_name(name).unwrap_or_else(|| panic!("{name} is no Code"));
            assert_eq!(code.grpc_code(), *n, "{name}");
        }
        assert_eq!(Code::from_name("OK"), None);
        assert_eq!(Code::ALL.len(), GRPC_STATUS_CODES.len() - 1);
    }
}
