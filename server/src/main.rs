//! `sparsetable-server`: Sparsetable as a Bigtable emulator on a TCP port. The program is
//! [`sparsetable_server::cli`] (shared with the Python wheel's console script).

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(sparsetable_server::cli::run(std::env::args_os().skip(1)))
}
