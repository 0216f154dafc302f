//! What an op expects of its outcome and the one check of it every Rust runner uses (the
//! core's here, the server's gRPC one): the error code, and where the vector pins it, the
//! core's words for the rule (tests/vectors/README.md, "Messages").

use crate::Op;

impl Op {
    /// The op's `expect_error` and `expect_message` fields (`None` for ops without them).
    fn expectation(&self) -> (Option<&String>, Option<&String>) {
        match self {
            Op::CreateTable {
                expect_error: e,
                expect_message: m,
                ..
            }
            | Op::MutateRow {
                expect_error: e,
                expect_message: m,
                ..
            }
            | Op::MutateRows {
                expect_error: e,
                expect_message: m,
                ..
            }
            | Op::CheckAndMutateRow {
                expect_error: e,
                expect_message: m,
                ..
            }
            | Op::ReadModifyWriteRow {
                expect_error: e,
                expect_message: m,
                ..
            }
            | Op::ReadRow {
                expect_error: e,
                expect_message: m,
                ..
            }
            | Op::ReadRows {
                expect_error: e,
                expect_message: m,
                ..
            }
            | Op::SampleRowKeys {
                expect_error: e,
                expect_message: m,
                ..
            }
            | Op::DropRowRange {
                expect_error: e,
                expect_message: m,
                ..
            }
            | Op::ModifyColumnFamilies {
                expect_error: e,
                expect_message: m,
                ..
            }
            | Op::GetTable {
                expect_error: e,
                expect_message: m,
                ..
            }
            | Op::DeleteTable {
                expect_error: e,
                expect_message: m,
                ..
            }
            | Op::UpdateTable {
                expect_error: e,
                expect_message: m,
                ..
            }
            | Op::CollectGarbage {
                expect_error: e,
                expect_message: m,
                ..
            }
            | Op::CreateInstance {
                expect_error: e,
                expect_message: m,
                ..
            } => (e.as_ref(), m.as_ref()),
            Op::ListTables { .. } | Op::AdvanceClock { .. } => (None, None),
        }
    }

    /// The error the op must fail with, if any: its code, and the core's message where the
    /// vector pins it (`expect_message`).
    pub fn expect_error(&self) -> Option<ExpectedError<'_>> {
        let (code, message) = self.expectation();
        code.map(|code| ExpectedError {
            code,
            message: message.map(String::as_str),
        })
    }

    /// Whether the op pins a message without an error code to go with it (a broken vector).
    pub fn message_without_error(&self) -> bool {
        matches!(self.expectation(), (None, Some(_)))
    }
}

/// The error an op must fail with: a gRPC code name, and the core's message word for word
/// where the vector pins one. Messages are the core's own words (not Bigtable's), pinned so
/// every front-end can be checked to report the core's error unchanged rather than its own copy
/// of a rule (tests/vectors/README.md, "Messages").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExpectedError<'a> {
    /// The gRPC code name (`INVALID_ARGUMENT`).
    pub code: &'a str,
    /// The message, if pinned.
    pub message: Option<&'a str>,
}

/// An op's outcome as a runner saw it: a value or an error code with its message.
pub type Outcome<T> = Result<T, (String, String)>;

/// Checks an op's outcome against its expectation.
///
/// # Errors
/// A description of the mismatch.
pub fn check_outcome<T: std::fmt::Debug + PartialEq>(
    op_index: usize,
    expect_error: Option<ExpectedError<'_>>,
    outcome: Outcome<T>,
    expected: Option<T>,
) -> Result<(), String> {
    match (expect_error, outcome) {
        (Some(want), Err((got, msg))) if got == want.code => match want.message {
            Some(m) if !says(&msg, m) => Err(format!(
                "op {op_index}: expected {} with message {m:?}, got message {msg:?}",
                want.code
            )),
            _ => Ok(()),
        },
        (Some(want), Err((got, msg))) => Err(format!(
            "op {op_index}: expected error {}, got {got} ({msg})",
            want.code
        )),
        (Some(want), Ok(v)) => Err(format!(
            "op {op_index}: expected error {}, got success {v:?}",
            want.code
        )),
        (None, Err((got, msg))) => Err(format!("op {op_index}: unexpected error {got} ({msg})")),
        (None, Ok(v)) => match expected {
            Some(e) if e != v => Err(format!("op {op_index}: expected {e:#?}\n got {v:#?}")),
            _ => Ok(()),
        },
    }
}

/// Whether an error's `message` says the rule's words `expected`: exactly, or after where in
/// the request the error is (`mutations[0]: `, `column family "cf": `), a prefix ending in
/// `": "`. The rule's own words must be the core's, whole and unchanged.
pub fn says(message: &str, expected: &str) -> bool {
    message == expected
        || message
            .strip_suffix(expected)
            .is_some_and(|context| context.ends_with(": "))
}
