//! The rules for the ids and fields of instances and clusters (the module docs of
//! [`super`] say where each comes from). Each check returns `InvalidArgument` with a message
//! that names the field and quotes a bounded prefix of the value
//! ([`crate::error::quoted`]), so a huge value never makes a huge message.
//!
//! Invariant: these are the only copies of these rules; front-ends call them.

use alloc::format;

use crate::error::quoted;
use crate::{Error, Result};

/// Longest project or instance id a request may name (they name folders on disk).
pub const MAX_ID_CHARS: usize = 64;
/// Longest id of an instance being created.
pub const MAX_INSTANCE_ID_CHARS: usize = 33;
/// Longest id of a cluster.
pub const MAX_CLUSTER_ID_CHARS: usize = 30;
/// Shortest id of an instance being created, or of a cluster.
pub const MIN_NEW_ID_CHARS: usize = 6;
/// Most clusters an instance may have here (Cloud Bigtable allows a handful).
pub const MAX_CLUSTERS: usize = 64;
/// Most app profiles an instance may have here.
pub const MAX_APP_PROFILES: usize = 1000;
/// Most labels on an instance.
pub const MAX_LABELS: usize = 64;
/// Longest label key or value, in characters.
pub const MAX_LABEL_CHARS: usize = 63;
/// Longest zone name.
pub const MAX_ZONE_CHARS: usize = 63;
/// Longest app profile description, in characters (Bigtable documents none; this bounds
/// the stored record).
pub const MAX_DESCRIPTION_CHARS: usize = 4096;

/// Project ids that Google's clients send to an emulator when the user gave no project:
/// `{{projectId}}` is what Google's Node.js client (`@google-cloud/bigtable`) sends when it is
/// constructed without one. Google's emulator accepts it, so we do too, exactly and only as
/// a project id.
pub const EMULATOR_PROJECT_PLACEHOLDERS: [&str; 1] = ["{{projectId}}"];

/// Checks a project or instance id that a request names; `what` names it in the error.
///
/// # Errors
/// `InvalidArgument` for an id that is empty, longer than [`MAX_ID_CHARS`], starts with `.`
/// or holds a character outside `[-_.a-zA-Z0-9]`.
pub fn check_id<'a>(field: &str, what: &str, id: &'a str) -> Result<&'a str> {
    let ok = !id.is_empty()
        && id.len() <= MAX_ID_CHARS
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if ok {
        Ok(id)
    } else {
        Err(Error::invalid_argument(format!(
            "{field}: {what} id {} must be 1 to {MAX_ID_CHARS} letters, digits, '-', '_' or '.', not starting with '.'",
            quoted(id)
        )))
    }
}

/// Checks a project id: [`check_id`]'s rule, or exactly one of
/// [`EMULATOR_PROJECT_PLACEHOLDERS`].
///
/// # Errors
/// As [`check_id`].
pub fn check_project_id<'a>(field: &str, id: &'a str) -> Result<&'a str> {
    if EMULATOR_PROJECT_PLACEHOLDERS.contains(&id) {
        return Ok(id);
    }
    check_id(field, "project", id)
}

/// The rule for the id of an instance or cluster being created: [`MIN_NEW_ID_CHARS`] to
/// `max_chars` characters, a lowercase letter first, then lowercase letters, digits and
/// hyphens, not ending with a hyphen.
///
/// # Errors
/// `InvalidArgument` naming `field` and quoting the id otherwise.
pub fn check_new_id(field: &str, id: &str, max_chars: usize) -> Result<()> {
    let b = id.as_bytes();
    let ok = (MIN_NEW_ID_CHARS..=max_chars).contains(&b.len())
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        && b[b.len() - 1] != b'-';
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!(
            "{field} {} must be {MIN_NEW_ID_CHARS} to {max_chars} characters: a lowercase letter, then lowercase letters, digits or '-', not ending with '-'",
            quoted(id)
        )))
    }
}

/// The rule for a new instance's id ([`check_new_id`], at most 33 characters).
///
/// # Errors
/// As [`check_new_id`].
pub fn validate_new_instance_id(id: &str) -> Result<()> {
    check_new_id("instance id", id, MAX_INSTANCE_ID_CHARS)
}

/// The rule for a cluster's id ([`check_new_id`], at most 30 characters).
///
/// # Errors
/// As [`check_new_id`].
pub fn validate_cluster_id(id: &str) -> Result<()> {
    check_new_id("cluster id", id, MAX_CLUSTER_ID_CHARS)
}

/// The rule for a display name: 4 to 30 characters.
///
/// # Errors
/// `InvalidArgument` quoting the name otherwise.
pub fn validate_display_name(name: &str) -> Result<()> {
    if (4..=30).contains(&name.chars().count()) {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!(
            "display name {} must be 4 to 30 characters",
            quoted(name)
        )))
    }
}

/// The rule for a zone (the last part of a cluster's location,
/// `projects/{project}/locations/{zone}`): 1 to 63 lowercase letters, digits and hyphens.
///
/// # Errors
/// `InvalidArgument` quoting the zone otherwise.
pub fn validate_zone(zone: &str) -> Result<()> {
    let ok = (1..=MAX_ZONE_CHARS).contains(&zone.len())
        && zone
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!(
            "location {} must be a zone of 1 to {MAX_ZONE_CHARS} lowercase letters, digits or '-'",
            quoted(zone)
        )))
    }
}

/// The zone of a full location name `projects/{project}/locations/{zone}`, checked.
///
/// # Errors
/// `InvalidArgument` quoting the location when it has another form or a bad zone.
pub fn zone_of_location(location: &str) -> Result<&str> {
    let mut parts = location.split('/');
    let form = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    );
    match form {
        (Some("projects"), Some(project), Some("locations"), Some(zone), None)
            if check_project_id("location", project).is_ok() && validate_zone(zone).is_ok() =>
        {
            Ok(zone)
        }
        _ => Err(Error::invalid_argument(format!(
            "location {} must have the form projects/{{project}}/locations/{{zone}}",
            quoted(location)
        ))),
    }
}

/// The rules for an instance's labels ([`MAX_LABELS`]; keys and values as the module docs
/// of [`super`] say).
///
/// # Errors
/// `InvalidArgument` naming the first label that breaks a rule.
pub fn validate_labels<'a>(labels: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<()> {
    let ok_chars = |s: &str| {
        s.chars()
            .all(|c| c.is_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
    };
    for (n, (k, v)) in labels.into_iter().enumerate() {
        if n >= MAX_LABELS {
            return Err(Error::invalid_argument(format!(
                "an instance has at most {MAX_LABELS} labels"
            )));
        }
        let key_ok = (1..=MAX_LABEL_CHARS).contains(&k.chars().count())
            && k.chars().next().is_some_and(char::is_lowercase)
            && ok_chars(k);
        if !key_ok || v.chars().count() > MAX_LABEL_CHARS || !ok_chars(v) {
            return Err(Error::invalid_argument(format!(
                "label {}: keys are 1 to {MAX_LABEL_CHARS} lowercase letters, digits, '_' or '-' starting with a letter; values at most {MAX_LABEL_CHARS} of the same",
                quoted(k)
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Code;

    #[test]
    fn new_ids_follow_cloud_bigtables_rule() {
        for good in [
            "abcdef",
            "my-instance-1",
            "a2345678901234567890123456789012",
        ] {
            assert!(validate_new_instance_id(good).is_ok(), "{good}");
        }
        for bad in ["abcde", "1abcdef", "abcdef-", "Abcdef", "abc_def", ""] {
            let e = validate_new_instance_id(bad).unwrap_err();
            assert_eq!(e.code(), Code::InvalidArgument, "{bad}");
        }
        assert!(validate_cluster_id(&"a".repeat(30)).is_ok());
        assert!(validate_cluster_id(&"a".repeat(31)).is_err());
        assert!(validate_new_instance_id(&"a".repeat(33)).is_ok());
        assert!(validate_new_instance_id(&"a".repeat(34)).is_err());
    }

    #[test]
    fn named_ids_are_looser_and_the_placeholder_is_a_project_only() {
        assert!(check_id("name", "instance", "Some_Instance.1").is_ok());
        assert!(check_id("name", "instance", ".hidden").is_err());
        assert!(check_id("name", "instance", &"a".repeat(65)).is_err());
        assert!(check_project_id("name", "{{projectId}}").is_ok());
        assert!(check_id("name", "instance", "{{projectId}}").is_err());
    }

    #[test]
    fn labels_locations_and_display_names() {
        assert!(validate_labels([("env", "prod"), ("team_a", "")]).is_ok());
        assert!(validate_labels([("Env", "prod")]).is_err());
        assert!(validate_labels([("env", "Prod")]).is_err());
        let many: alloc::vec::Vec<(alloc::string::String, alloc::string::String)> = (0..65)
            .map(|i| (format!("k{i}"), alloc::string::String::new()))
            .collect();
        let e = validate_labels(many.iter().map(|(k, v)| (k.as_str(), v.as_str()))).unwrap_err();
        assert!(e.message().contains("at most 64 labels"), "{}", e.message());
        assert_eq!(
            zone_of_location("projects/p/locations/us-east1-b").unwrap(),
            "us-east1-b"
        );
        assert!(zone_of_location("projects/p/locations/US").is_err());
        assert!(zone_of_location("locations/us-east1-b").is_err());
        assert!(validate_display_name("abc").is_err());
        assert!(validate_display_name("abcd").is_ok());
    }
}
