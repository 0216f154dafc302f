//! The one mapping from engine errors to gRPC statuses.
//!
//! Every failure the server reports, the engine's and the server's own (a malformed resource
//! name, an RPC or a field not served yet), is a [`sparsetable::Error`] until it reaches
//! [`to_status`], so the code table lives in exactly one place. The core's codes carry gRPC's
//! numbering, so the mapping is one-to-one; user mistakes never become UNKNOWN or INTERNAL.
//! A status message is at most about [`MAX_STATUS_MESSAGE_BYTES`] long, whatever it quotes.

use sparsetable::{Code, Error};
use tonic::Status;

/// Converts an engine error into the gRPC status the client sees; the message is kept as is
/// (it names the offending field).
pub fn to_status(error: Error) -> Status {
    let code = match error.code() {
        Code::InvalidArgument => tonic::Code::InvalidArgument,
        Code::DeadlineExceeded => tonic::Code::DeadlineExceeded,
        Code::NotFound => tonic::Code::NotFound,
        Code::AlreadyExists => tonic::Code::AlreadyExists,
        Code::ResourceExhausted => tonic::Code::ResourceExhausted,
        Code::FailedPrecondition => tonic::Code::FailedPrecondition,
        Code::Aborted => tonic::Code::Aborted,
        Code::OutOfRange => tonic::Code::OutOfRange,
        Code::Unimplemented => tonic::Code::Unimplemented,
        Code::Internal => tonic::Code::Internal,
        Code::Unavailable => tonic::Code::Unavailable,
        Code::PermissionDenied => tonic::Code::PermissionDenied,
        Code::DataLoss => tonic::Code::DataLoss,
        Code::Cancelled => tonic::Code::Cancelled,
        Code::Unknown => tonic::Code::Unknown,
        Code::Unauthenticated => tonic::Code::Unauthenticated,
        // `Code` is non-exhaustive; its values are gRPC's numbers, so a code added later
        // still maps to the right status.
        other => tonic::Code::from_i32(other.grpc_code()),
    };
    // The server's own failures are always worth a line; a user's mistake only at debug.
    let level = match code {
        tonic::Code::Internal | tonic::Code::DataLoss | tonic::Code::Unavailable => {
            crate::log::Level::Error
        }
        _ => crate::log::Level::Debug,
    };
    if crate::log::enabled(level) {
        crate::log::log(
            level,
            format_args!("request failed: {:?}: {}", code, error.message()),
        );
    }
    Status::new(code, bounded(error.message()))
}

/// Longest message a status carries. Messages quote user strings through the engine's
/// bounded `quoted`, so this only catches a message that forgot to: gRPC carries the message
/// in a `grpc-message` trailer, and clients refuse trailers past a few KiB.
pub const MAX_STATUS_MESSAGE_BYTES: usize = 1024;

/// `message` cut to [`MAX_STATUS_MESSAGE_BYTES`] at a character boundary, marked when cut.
fn bounded(message: &str) -> String {
    if message.len() <= MAX_STATUS_MESSAGE_BYTES {
        return message.to_string();
    }
    let mut cut = MAX_STATUS_MESSAGE_BYTES;
    while !message.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}... ({} bytes)", &message[..cut], message.len())
}

/// An error for an RPC, field or value this server does not serve (gRPC UNIMPLEMENTED).
pub fn unimplemented(what: impl core::fmt::Display) -> Error {
    Error::new(
        Code::Unimplemented,
        format!("{what} is not implemented by sparsetable-server yet"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_core_code_keeps_its_grpc_number_and_message() {
        for code in Code::ALL {
            let status = to_status(Error::new(code, "table \"t\" not found"));
            assert_eq!(status.code() as i32, code.grpc_code(), "{code}");
            assert_eq!(status.message(), "table \"t\" not found");
        }
    }

    #[test]
    fn a_message_that_echoes_a_huge_string_is_cut() {
        let huge = "é".repeat(1 << 19);
        let status = to_status(Error::invalid_argument(format!("bad {huge}")));
        assert!(status.message().len() < MAX_STATUS_MESSAGE_BYTES + 32);
        assert!(status
            .message()
            .ends_with(&format!("({} bytes)", huge.len() + 4)));
    }

    #[test]
    fn unimplemented_names_what_is_missing() {
        let status = to_status(unimplemented("RPC CheckAndMutateRow"));
        assert_eq!(status.code(), tonic::Code::Unimplemented);
        assert!(
            status.message().contains("CheckAndMutateRow"),
            "{}",
            status.message()
        );
    }
}
