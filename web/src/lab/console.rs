//! The playground's main console: cbt lines on the playground's database, as before, and,
//! with cbt's `-instance` flag, on the replication lesson's instance.
//!
//! A line without global flags runs on the database exactly as it always did. In front of the
//! command a line may give cbt's `-project` and `-instance` and our `-app-profile`
//! (`sparsetable_console::flags`): `-instance lesson` runs the command on the lesson's
//! instance through the console crate's `InstanceConsole`, the same one the lesson's own
//! console drives, so `app-profile=` routing, the control words (`status`, `down`, `up`,
//! `lag`, `fault`, `clear-faults`) and cbt's app-profile commands act on the clusters the
//! Replication tab draws; `-instance my-instance` (the name the code tabs give the
//! playground's database) or no `-instance` runs on the database. `listinstances` lists
//! both. The playground holds one project, so `-project` is taken and not checked.
//!
//! Invariants: no routing, fault or replication rule is decided here (they are the console
//! crate's and the core's); a line's output goes to this console's scrollback whichever
//! instance ran it; the lesson's view is rebuilt after a command ran on its instance.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use sparsetable::Database;
use sparsetable_console::{global_flags, split_args, with_app_profile, Output, INSTANCE_COMMANDS};

use super::replication::INSTANCE as LESSON;
use super::{ConsoleEntry, Lab};

/// The instance id the playground's database answers to (the one the code tabs name).
pub const DEFAULT_INSTANCE: &str = "my-instance";

/// A failed command's output.
fn failed(message: String) -> Output {
    Output {
        stderr: message + "\n",
        failed: true,
        ..Output::default()
    }
}

impl Lab {
    /// Runs one line of the main console and keeps its exchange in the scrollback.
    pub(super) fn console(&mut self, db: &mut Database, line: &str) {
        let out = self.console_output(db, line);
        self.view.console.push(ConsoleEntry {
            command: line.to_string(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: out.stderr,
            failed: out.failed,
        });
        let excess = self.view.console.len().saturating_sub(200);
        self.view.console.drain(..excess);
    }

    fn console_output(&mut self, db: &mut Database, line: &str) -> Output {
        let words = match split_args(line) {
            Ok(words) if words.is_empty() => return Output::default(),
            Ok(words) => words,
            Err(e) => return failed(e),
        };
        let (flags, rest) = match global_flags(&words) {
            Ok(split) => split,
            Err(e) => return failed(e),
        };
        if rest.is_empty() {
            return failed(
                "usage: cbt [-project <id>] [-instance <id>] [-app-profile <id>] <command> ..."
                    .into(),
            );
        }
        let words = match &flags.app_profile {
            Some(p) => with_app_profile(rest, p),
            None => rest.to_vec(),
        };
        let command = String::from_utf8_lossy(&words[0]).into_owned();
        if command == "listinstances" {
            return self.list_instances();
        }
        match flags.instance.as_deref() {
            None | Some(DEFAULT_INSTANCE) => {
                if INSTANCE_COMMANDS.contains(&command.as_str()) {
                    return failed(format!(
                        "{command}: {DEFAULT_INSTANCE}, the playground's database, is one cluster without replication; run it on the replication lesson's instance: -instance {LESSON} {command} ..."
                    ));
                }
                let out = self.inner.console.run(db, &words);
                if !out.failed {
                    self.track_console(&words);
                }
                out
            }
            Some(LESSON) => {
                let Some(repl) = self.inner.repl.as_mut() else {
                    return failed(format!(
                        "FAILED_PRECONDITION: instance {LESSON} is the replication lesson's: start it on the Replication tab first"
                    ));
                };
                let out = repl.run_words(&words);
                self.view.replication = Some(repl.view());
                out
            }
            Some(other) => failed(format!(
                "NOT_FOUND: instance {other:?} not found: this playground has {DEFAULT_INSTANCE} (its database) and {LESSON} (the replication lesson's instance)"
            )),
        }
    }

    /// cbt's `listinstances`: the playground's database, and the lesson's instance once
    /// started.
    fn list_instances(&self) -> Output {
        let mut lines = alloc::vec![
            alloc::vec!["Instance Name".to_string(), "Info".into()],
            alloc::vec!["-------------".to_string(), "----".into()],
            alloc::vec![
                DEFAULT_INSTANCE.to_string(),
                "the playground's database (one cluster)".into()
            ],
        ];
        if let Some(repl) = &self.inner.repl {
            lines.push(alloc::vec![
                LESSON.to_string(),
                format!(
                    "the replication lesson's instance ({} clusters)",
                    repl.cluster_count()
                ),
            ]);
        }
        Output {
            stdout: sparsetable_console::print::tabwrite(&lines).into_bytes(),
            ..Output::default()
        }
    }

    /// Keeps the row counts right after console writes and deletes on the database.
    fn track_console(&mut self, words: &[Vec<u8>]) {
        let inner = &mut self.inner;
        match words {
            [cmd, table, row, ..] if cmd.as_slice() == b"set" => {
                let t = String::from_utf8_lossy(table).into_owned();
                inner.keys.entry(t).or_default().insert(row.clone());
            }
            [cmd, table, row, ..] if cmd.as_slice() == b"deleterow" => {
                let t = String::from_utf8_lossy(table).into_owned();
                inner.keys.entry(t).or_default().remove(row);
            }
            [cmd, table] if cmd.as_slice() == b"deletetable" => {
                inner.keys.remove(&*String::from_utf8_lossy(table));
            }
            _ => {}
        }
    }
}
