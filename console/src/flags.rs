//! cbt's global flags in front of a command (`cbt -project P -instance I <command> ...`), for a
//! console that serves more than one instance (the playground's: its database and the
//! replication lesson's instance).
//!
//! cbt takes its options before the command (Google's cbt reference: "cbt [-<option>
//! <option-argument>] <command> <required-argument> [optional-argument]"; its overview names
//! `-project` and `-instance` among them). They are parsed as Go's `flag` package parses
//! them, which cbt uses: one or two leading dashes, the value after `=` or as the next word,
//! parsing stops at the first word that is not a flag (or after `--`), and an unknown flag is
//! refused with Go's "flag provided but not defined". A line may start with the word `cbt`
//! itself, so a line copied from a terminal or a code tab runs as typed.
//!
//! Besides cbt's `-project` and `-instance` we take `-app-profile`: ours, not cbt's (cbt
//! routes by the per-command `app-profile=` option). It gives the data commands that lack
//! that option the profile, so a session can pick one profile once.
//!
//! Invariants: the command words returned are the line's own words after the flags, the
//! `app-profile=` option added only to commands that route by it ([`with_app_profile`]).

/// The global flags of one line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GlobalFlags {
    /// `-project`.
    pub project: Option<String>,
    /// `-instance`.
    pub instance: Option<String>,
    /// `-app-profile` (ours; see the module docs).
    pub app_profile: Option<String>,
}

impl GlobalFlags {
    /// Whether the line gave none.
    pub fn is_empty(&self) -> bool {
        *self == GlobalFlags::default()
    }
}

/// Splits `words` (a line's words) into its global flags and the command words after them
/// (empty when the line holds only flags).
///
/// # Errors
/// Go's `flag` messages: an unknown flag, a flag without its value, an empty value.
pub fn global_flags(words: &[Vec<u8>]) -> Result<(GlobalFlags, &[Vec<u8>]), String> {
    let mut flags = GlobalFlags::default();
    let mut i = usize::from(words.first().is_some_and(|w| w.as_slice() == b"cbt"));
    while let Some(word) = words.get(i) {
        let Some(flag) = word.strip_prefix(b"-") else {
            break;
        };
        i += 1;
        let flag = flag.strip_prefix(b"-").unwrap_or(flag);
        if flag.is_empty() {
            // `--` ends the flags; a lone `-` is a word (Go's flag package stops there too).
            if word.len() == 1 {
                i -= 1;
            }
            break;
        }
        let flag = String::from_utf8_lossy(flag).into_owned();
        let (name, value) = match flag.split_once('=') {
            Some((name, value)) => (name.to_string(), value.to_string()),
            None => {
                let value = words
                    .get(i)
                    .ok_or_else(|| format!("flag needs an argument: -{flag}"))?;
                i += 1;
                (flag, String::from_utf8_lossy(value).into_owned())
            }
        };
        let slot = match name.as_str() {
            "project" => &mut flags.project,
            "instance" => &mut flags.instance,
            "app-profile" => &mut flags.app_profile,
            _ => {
                return Err(format!(
                    "flag provided but not defined: -{name} (this console takes -project, -instance and -app-profile)"
                ))
            }
        };
        if value.is_empty() {
            return Err(format!("-{name} needs a value"));
        }
        *slot = Some(value);
    }
    Ok((flags, &words[i..]))
}

/// `words` (a command and its arguments) with `app-profile=<profile>` added when the command
/// routes by that option (the data commands) and does not give it already.
pub fn with_app_profile(words: &[Vec<u8>], profile: &str) -> Vec<Vec<u8>> {
    let mut out = words.to_vec();
    let routes = words
        .first()
        .is_some_and(|c| crate::instance::routes_by_profile(&String::from_utf8_lossy(c)));
    let given = words.iter().skip(1).any(|w| w.starts_with(b"app-profile="));
    if routes && !given {
        out.push(format!("app-profile={profile}").into_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split_args;

    fn parse(line: &str) -> Result<(GlobalFlags, Vec<String>), String> {
        let words = split_args(line).unwrap();
        let (flags, rest) = global_flags(&words)?;
        Ok((
            flags,
            rest.iter()
                .map(|w| String::from_utf8_lossy(w).into_owned())
                .collect(),
        ))
    }

    #[test]
    fn flags_come_before_the_command_in_both_of_gos_forms() {
        let (f, rest) =
            parse("cbt -project p --instance=lesson -app-profile to-c2 lookup users r").unwrap();
        assert_eq!(f.project.as_deref(), Some("p"));
        assert_eq!(f.instance.as_deref(), Some("lesson"));
        assert_eq!(f.app_profile.as_deref(), Some("to-c2"));
        assert_eq!(rest, ["lookup", "users", "r"]);
        // A flag-looking word after the command is the command's.
        let (f, rest) = parse("read t -instance x").unwrap();
        assert!(f.is_empty());
        assert_eq!(rest, ["read", "t", "-instance", "x"]);
        let (f, rest) = parse("-instance lesson -- status").unwrap();
        assert_eq!(f.instance.as_deref(), Some("lesson"));
        assert_eq!(rest, ["status"]);
        assert_eq!(parse("ls").unwrap().1, ["ls"]);
        assert!(parse("-instance lesson").unwrap().1.is_empty());
    }

    #[test]
    fn unknown_or_incomplete_flags_are_refused_as_go_refuses_them() {
        let e = parse("-creds x ls").unwrap_err();
        assert!(
            e.starts_with("flag provided but not defined: -creds"),
            "{e}"
        );
        assert_eq!(
            parse("-instance").unwrap_err(),
            "flag needs an argument: -instance"
        );
        assert_eq!(
            parse("-instance= ls").unwrap_err(),
            "-instance needs a value"
        );
    }

    #[test]
    fn the_profile_goes_only_to_data_commands_that_lack_one() {
        let w = |s: &str| split_args(s).unwrap();
        let text = |v: Vec<Vec<u8>>| {
            v.iter()
                .map(|w| String::from_utf8_lossy(w).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(
            text(with_app_profile(&w("set t r cf:a=1"), "p")),
            "set t r cf:a=1 app-profile=p"
        );
        assert_eq!(
            text(with_app_profile(&w("read t app-profile=q"), "p")),
            "read t app-profile=q"
        );
        for line in ["ls", "createtable t", "status", "down c2"] {
            assert_eq!(text(with_app_profile(&w(line), "p")), line);
        }
    }
}
