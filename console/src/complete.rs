//! Tab completion and command history for an interactive console (the playground's).
//!
//! Completion looks at the word under the cursor (the line's last word): the first word
//! completes to a command, the second to a table for commands that take one, later words to
//! the command's `key=` options. It returns every candidate; the caller inserts the longest
//! common prefix (as a shell does) and may list the rest. Global flags before the command
//! (`-instance lesson`) are passed over.

use crate::{options_of, COMMANDS};

/// Candidates for the last word of `line`, given the database's table names.
pub fn complete(line: &str, tables: &[String]) -> Vec<String> {
    let ends_with_space = line.ends_with(char::is_whitespace);
    let mut words: Vec<&str> = line.split_whitespace().collect();
    let current = if ends_with_space {
        ""
    } else {
        words.pop().unwrap_or("")
    };
    // cbt's global flags (`-instance lesson`, see [`crate::flags`]) come before the command:
    // completion starts after them, and offers nothing for a flag's value.
    if words.first() == Some(&"cbt") {
        words.remove(0);
    }
    while let Some(flag) = words.first().filter(|w| w.starts_with('-')) {
        let takes_value = !flag.contains('=') && *flag != "--";
        words.remove(0);
        if takes_value {
            if words.is_empty() {
                return Vec::new();
            }
            words.remove(0);
        }
    }
    let pool: Vec<String> = match words.len() {
        0 => COMMANDS.iter().map(|c| c.to_string()).collect(),
        1 => {
            if COMMANDS.contains(&words[0]) {
                tables.to_vec()
            } else {
                Vec::new()
            }
        }
        _ => options_of(words[0]).iter().map(|o| o.to_string()).collect(),
    };
    pool.into_iter()
        .filter(|c| c.starts_with(current))
        .collect()
}

/// The longest prefix every candidate shares.
pub fn common_prefix(candidates: &[String]) -> String {
    let Some(first) = candidates.first() else {
        return String::new();
    };
    let mut len = first.len();
    for c in &candidates[1..] {
        len = first
            .char_indices()
            .zip(c.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, a), _)| i + a.len_utf8())
            .min(len);
    }
    first[..len].to_string()
}

/// The line after completing its last word to the candidates' common prefix.
pub fn complete_line(line: &str, tables: &[String]) -> String {
    let candidates = complete(line, tables);
    if candidates.is_empty() {
        return line.to_string();
    }
    let prefix = common_prefix(&candidates);
    let keep = if line.ends_with(char::is_whitespace) {
        line.len()
    } else {
        line.rfind(char::is_whitespace).map_or(0, |i| i + 1)
    };
    let mut out = format!("{}{prefix}", &line[..keep]);
    // One full match that is not an option awaiting its value: go on to the next word.
    if candidates.len() == 1 && !prefix.ends_with('=') {
        out.push(' ');
    }
    out
}

/// Entered lines, and a cursor moved by the arrow keys.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    lines: Vec<String>,
    /// Index into `lines` while browsing; `None` at the fresh line.
    cursor: Option<usize>,
}

impl History {
    /// Adds an entered line (not blank ones or a repeat of the last) and ends browsing.
    pub fn push(&mut self, line: &str) {
        self.cursor = None;
        if !line.trim().is_empty() && self.lines.last().map(String::as_str) != Some(line) {
            self.lines.push(line.to_string());
        }
    }

    /// Arrow up: the previous line, staying at the oldest.
    pub fn up(&mut self) -> Option<String> {
        let i = match self.cursor {
            None => self.lines.len().checked_sub(1)?,
            Some(i) => i.saturating_sub(1),
        };
        self.cursor = Some(i);
        self.lines.get(i).cloned()
    }

    /// Arrow down: the next line, or an empty line past the newest.
    pub fn down(&mut self) -> String {
        match self.cursor {
            Some(i) if i + 1 < self.lines.len() => {
                self.cursor = Some(i + 1);
                self.lines[i + 1].clone()
            }
            _ => {
                self.cursor = None;
                String::new()
            }
        }
    }

    /// Every line, oldest first.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completes_commands_tables_and_options() {
        let tables = vec!["metrics".to_string(), "users".to_string()];
        assert_eq!(complete("cr", &tables), ["createfamily", "createtable"]);
        assert_eq!(complete_line("cr", &tables), "create");
        assert_eq!(complete_line("rea", &tables), "read ");
        assert_eq!(complete_line("read m", &tables), "read metrics ");
        assert_eq!(
            complete_line("read metrics pre", &tables),
            "read metrics prefix="
        );
        assert_eq!(
            complete("read metrics c", &tables),
            ["columns=", "count=", "cells-per-column="]
        );
        assert_eq!(complete_line("nosuch x", &tables), "nosuch x");
    }

    #[test]
    fn global_flags_before_the_command_are_passed_over() {
        let tables = vec!["users".to_string()];
        assert_eq!(
            complete_line("-instance lesson rea", &tables),
            "-instance lesson read "
        );
        assert_eq!(
            complete_line("cbt --instance=lesson lookup u", &tables),
            "cbt --instance=lesson lookup users "
        );
        assert_eq!(
            complete("-instance lesson lookup users r app", &tables),
            ["app-profile="]
        );
        assert!(complete("-instance le", &tables).is_empty());
    }

    #[test]
    fn history_walks_back_and_forth() {
        let mut h = History::default();
        assert_eq!(h.up(), None);
        h.push("ls");
        h.push("read t");
        h.push("read t");
        h.push("  ");
        assert_eq!(h.lines(), ["ls", "read t"]);
        assert_eq!(h.up().as_deref(), Some("read t"));
        assert_eq!(h.up().as_deref(), Some("ls"));
        assert_eq!(h.up().as_deref(), Some("ls"));
        assert_eq!(h.down(), "read t");
        assert_eq!(h.down(), "");
    }
}
