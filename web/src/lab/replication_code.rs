//! The replication lesson's actions as code: Google's clients (Python, Java, Go, Node.js),
//! Sparsetable's Python module and `cbt`, each a whole program routed through the lesson's
//! app profile (Python's `app_profile_id`, Java's `setAppProfileId`, Go's
//! `ClientConfig.AppProfile`, Node's `appProfileId`).
//!
//! Where a tool cannot express an action the snippet says so in a comment: `cbt` has no
//! app-profile option (its requests take the instance's default profile) and no
//! ReadModifyWriteRow; no Bigtable client can take a cluster down or set the replication lag
//! (Bigtable does; against `sparsetable-server` that is the ReplicationControl service and
//! the `--replication-lag` flag). Server time is `-1` / `ServerTime`, as the lesson writes.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use crate::codegen::{quoted, Lang, Snippet};

/// The lesson's table.
pub const TABLE: &str = "users";
/// Its family.
pub const FAMILY: &str = "cf";

/// One action of the lesson, as code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplOp<'a> {
    /// A SetCell through a profile (`None`: server time).
    Write {
        /// The profile.
        profile: &'a str,
        /// The row key.
        row: &'a str,
        /// The qualifier.
        qualifier: &'a str,
        /// The value.
        value: &'a str,
        /// An explicit timestamp.
        timestamp_micros: Option<i64>,
    },
    /// An increment (ReadModifyWriteRow) through a profile.
    Increment {
        /// The profile.
        profile: &'a str,
        /// The row key.
        row: &'a str,
        /// The qualifier.
        qualifier: &'a str,
    },
    /// A one-row read through a profile.
    Read {
        /// The profile.
        profile: &'a str,
        /// The row key.
        row: &'a str,
    },
    /// Two writes of one cell at one timestamp, through `to-c1` and `to-c2`.
    Conflict {
        /// The row key.
        row: &'a str,
        /// The qualifier.
        qualifier: &'a str,
        /// The shared timestamp.
        timestamp_micros: i64,
    },
    /// Generate a consistency token and wait until it is consistent.
    Token,
    /// The replication lag (not a client operation).
    SetLag(i64),
    /// A cluster down or up (not a client operation).
    SetAvailable {
        /// The cluster.
        cluster: &'a str,
        /// Up or down.
        available: bool,
    },
}

/// `op` in every language.
pub fn snippets(op: &ReplOp<'_>) -> Vec<Snippet> {
    Lang::ALL
        .iter()
        .map(|&lang| Snippet {
            lang,
            code: match lang {
                Lang::PythonGoogle => python(op, true),
                Lang::PythonSparsetable => python(op, false),
                Lang::Java => java(op),
                Lang::Go => go(op),
                Lang::Node => node(op),
                Lang::Cbt => cbt(op),
            },
        })
        .collect()
}

fn q(s: &str) -> String {
    quoted(s, false)
}

/// A Python bytes literal of UTF-8 text.
fn pyb(s: &str) -> String {
    format!("b{}", q(s))
}

/// What a control action says in every language but cbt (comment lines, prefix `c`).
fn control(op: &ReplOp<'_>, c: &str) -> Option<String> {
    let what = match op {
        ReplOp::SetLag(micros) => format!(
            "set the replication lag to {}",
            crate::state::duration(*micros)
        ),
        ReplOp::SetAvailable { cluster, available } => format!(
            "take cluster {cluster} {}",
            if *available { "back up" } else { "down" }
        ),
        _ => return None,
    };
    let how = match op {
        ReplOp::SetLag(micros) => format!(
            "sparsetable-server --replication-lag {}ms, or ReplicationControl.SetReplicationLag(lag_micros={micros})",
            micros / 1000
        ),
        ReplOp::SetAvailable { cluster, available } => format!(
            "ReplicationControl.SetClusterAvailable(cluster_id=\"{cluster}\", available={available})"
        ),
        _ => String::new(),
    };
    Some(format!(
        "{c} No Bigtable client can {what}: Bigtable does that, not you.\n{c} Against sparsetable-server, its control service sparsetable.testing.v1:\n{c} {how}\n"
    ))
}

// ---- Python ----

fn python(op: &ReplOp<'_>, google: bool) -> String {
    if let Some(c) = control(op, "#") {
        return c;
    }
    let (module, client) = if google {
        (
            "google.cloud.bigtable.data",
            "BigtableDataClient(project=\"my-project\")",
        )
    } else {
        ("sparsetable", "BigtableDataClient()  # in-process engine")
    };
    let set_cell = if google {
        "mutations.SetCell"
    } else {
        "SetCell"
    };
    let mut imports = alloc::vec!["BigtableDataClient"];
    let table = |profile: &str| {
        format!(
            "client.get_table(\"my-instance\", {}, app_profile_id={})",
            q(TABLE),
            q(profile)
        )
    };
    let mut extra = String::new();
    let body = match op {
        ReplOp::Write {
            profile,
            row,
            qualifier,
            value,
            timestamp_micros,
        } => {
            imports.push(if google { "mutations" } else { "SetCell" });
            format!(
                "table = {}\n# -1: server time, the time of the cluster that applies it.\ntable.mutate_row({}, [{set_cell}({}, {}, {}, timestamp_micros={})])\n",
                table(profile),
                pyb(row),
                q(FAMILY),
                pyb(qualifier),
                pyb(value),
                timestamp_micros.unwrap_or(-1)
            )
        }
        ReplOp::Increment {
            profile,
            row,
            qualifier,
        } => {
            let _ = writeln!(
                extra,
                "from {}.read_modify_write_rules import IncrementRule",
                if google { "google.cloud.bigtable.data" } else { "sparsetable" }
            );
            format!(
                "table = {}\n# A transactional write: refused (FAILED_PRECONDITION) unless the profile is\n# single-cluster and allows transactional writes.\nrow = table.read_modify_write_row({}, IncrementRule({}, {}, 1))\nprint(row)\n",
                table(profile),
                pyb(row),
                q(FAMILY),
                pyb(qualifier)
            )
        }
        ReplOp::Read { profile, row } => format!(
            "table = {}\n# The routed cluster's copy: stale until replication has caught up.\nprint(table.read_row({}))\n",
            table(profile),
            pyb(row)
        ),
        ReplOp::Conflict {
            row,
            qualifier,
            timestamp_micros,
        } => {
            imports.push(if google { "mutations" } else { "SetCell" });
            let mut s = String::from(
                "# The same cell, one timestamp, two clusters: every cluster converges on one value.\n",
            );
            for (profile, value) in [("to-c1", "from-c1"), ("to-c2", "from-c2")] {
                let _ = writeln!(
                    s,
                    "{}.mutate_row({}, [{set_cell}({}, {}, {}, timestamp_micros={timestamp_micros})])",
                    table(profile),
                    pyb(row),
                    q(FAMILY),
                    pyb(qualifier),
                    pyb(value)
                );
            }
            s
        }
        ReplOp::Token => {
            if !google {
                // Our module's in-process engine has no consistency-token call (yet).
                return "# Sparsetable's Python module runs one in-process copy of each table: a write is\n# consistent as soon as it returns, and the module has no consistency-token call.\n# Against sparsetable-server, use Google's client (the Python tab).\n".into();
            }
            // The classic client's admin client: it honours BIGTABLE_EMULATOR_HOST.
            let open = "from google.cloud import bigtable\n\nclient = bigtable.Client(project=\"my-project\", admin=True)";
            return format!(
                "{open}\nadmin = client.table_admin_client\nname = admin.table_path(\"my-project\", \"my-instance\", {})\ntoken = admin.generate_consistency_token(name=name).consistency_token\n# True once every write acknowledged before the token reached every cluster.\nprint(admin.check_consistency(name=name, consistency_token=token).consistent)\n",
                q(TABLE)
            );
        }
        ReplOp::SetLag(_) | ReplOp::SetAvailable { .. } => String::new(),
    };
    format!(
        "{extra}from {module} import {}\n\nclient = {client}\n{body}",
        imports.join(", ")
    )
}

// ---- Java ----

fn java(op: &ReplOp<'_>) -> String {
    if let Some(c) = control(op, "//") {
        return c;
    }
    let settings = |var: &str, profile: &str| {
        format!(
            "BigtableDataSettings {var} = BigtableDataSettings.newBuilder()\n    .setProjectId(\"my-project\").setInstanceId(\"my-instance\")\n    .setAppProfileId({}).build();\n",
            q(profile)
        )
    };
    let mut imports = alloc::vec![
        "com.google.cloud.bigtable.data.v2.BigtableDataClient",
        "com.google.cloud.bigtable.data.v2.BigtableDataSettings",
        "com.google.cloud.bigtable.data.v2.models.TableId",
    ];
    let body = match op {
        ReplOp::Write {
            profile,
            row,
            qualifier,
            value,
            timestamp_micros,
        } => {
            imports.push("com.google.cloud.bigtable.data.v2.models.RowMutation");
            let ts = timestamp_micros.map_or(String::new(), |t| format!("{t}L, "));
            format!(
                "{}try (BigtableDataClient client = BigtableDataClient.create(settings)) {{\n  client.mutateRow(RowMutation.create(TableId.of({}), {})\n      .setCell({}, {}, {ts}{}));\n}}\n",
                settings("settings", profile),
                q(TABLE),
                q(row),
                q(FAMILY),
                q(qualifier),
                q(value)
            )
        }
        ReplOp::Increment {
            profile,
            row,
            qualifier,
        } => {
            imports.push("com.google.cloud.bigtable.data.v2.models.ReadModifyWriteRow");
            format!(
                "{}// Refused (FAILED_PRECONDITION) unless the profile allows transactional writes.\ntry (BigtableDataClient client = BigtableDataClient.create(settings)) {{\n  System.out.println(client.readModifyWriteRow(ReadModifyWriteRow.create(TableId.of({}), {})\n      .increment({}, {}, 1)));\n}}\n",
                settings("settings", profile),
                q(TABLE),
                q(row),
                q(FAMILY),
                q(qualifier)
            )
        }
        ReplOp::Read { profile, row } => format!(
            "{}try (BigtableDataClient client = BigtableDataClient.create(settings)) {{\n  System.out.println(client.readRow(TableId.of({}), {}));\n}}\n",
            settings("settings", profile),
            q(TABLE),
            q(row)
        ),
        ReplOp::Conflict {
            row,
            qualifier,
            timestamp_micros,
        } => {
            imports.push("com.google.cloud.bigtable.data.v2.models.RowMutation");
            let mut s = String::new();
            for (i, (profile, value)) in [("to-c1", "from-c1"), ("to-c2", "from-c2")]
                .iter()
                .enumerate()
            {
                s.push_str(&settings(&format!("settings{i}"), profile));
                let _ = writeln!(
                    s,
                    "try (BigtableDataClient client = BigtableDataClient.create(settings{i})) {{\n  client.mutateRow(RowMutation.create(TableId.of({}), {})\n      .setCell({}, {}, {timestamp_micros}L, {}));\n}}",
                    q(TABLE),
                    q(row),
                    q(FAMILY),
                    q(qualifier),
                    q(value)
                );
            }
            s
        }
        ReplOp::Token => {
            imports = alloc::vec!["com.google.cloud.bigtable.admin.v2.BigtableTableAdminClient"];
            format!(
                "// Generates a consistency token and polls CheckConsistency until it is true.\ntry (BigtableTableAdminClient admin = BigtableTableAdminClient.create(\"my-project\", \"my-instance\")) {{\n  admin.awaitReplication({});\n}}\n",
                q(TABLE)
            )
        }
        ReplOp::SetLag(_) | ReplOp::SetAvailable { .. } => String::new(),
    };
    imports.sort_unstable();
    let mut out = String::new();
    for i in imports {
        let _ = writeln!(out, "import {i};");
    }
    out.push_str(
        "\npublic class Example {\n  public static void main(String[] args) throws Exception {\n",
    );
    for line in body.lines() {
        let _ = writeln!(out, "    {line}");
    }
    out.push_str("  }\n}\n");
    out
}

// ---- Go ----

fn go(op: &ReplOp<'_>) -> String {
    if let Some(c) = control(op, "//") {
        return c;
    }
    let client = |var: &str, profile: &str| {
        format!(
            "{var}, err := bigtable.NewClientWithConfig(ctx, \"my-project\", \"my-instance\", bigtable.ClientConfig{{AppProfile: {}}})\nif err != nil {{\n\tpanic(err)\n}}\ndefer {var}.Close()\n",
            quoted(profile, true)
        )
    };
    let g = |s: &str| quoted(s, true);
    let body = match op {
        ReplOp::Write {
            profile,
            row,
            qualifier,
            value,
            timestamp_micros,
        } => {
            let ts = timestamp_micros.map_or("bigtable.ServerTime".into(), |t| {
                format!("bigtable.Timestamp({t})")
            });
            format!(
                "{}mut := bigtable.NewMutation()\nmut.Set({}, {}, {ts}, []byte({}))\nif err := client.Open({}).Apply(ctx, {}, mut); err != nil {{\n\tpanic(err)\n}}\n",
                client("client", profile),
                g(FAMILY),
                g(qualifier),
                g(value),
                g(TABLE),
                g(row)
            )
        }
        ReplOp::Increment {
            profile,
            row,
            qualifier,
        } => format!(
            "{}rmw := bigtable.NewReadModifyWrite()\nrmw.Increment({}, {}, 1)\n// Refused (FailedPrecondition) unless the profile allows transactional writes.\nrow, err := client.Open({}).ApplyReadModifyWrite(ctx, {}, rmw)\nif err != nil {{\n\tpanic(err)\n}}\nfmt.Println(row)\n",
            client("client", profile),
            g(FAMILY),
            g(qualifier),
            g(TABLE),
            g(row)
        ),
        ReplOp::Read { profile, row } => format!(
            "{}row, err := client.Open({}).ReadRow(ctx, {})\nif err != nil {{\n\tpanic(err)\n}}\nfmt.Println(row)\n",
            client("client", profile),
            g(TABLE),
            g(row)
        ),
        ReplOp::Conflict {
            row,
            qualifier,
            timestamp_micros,
        } => {
            let mut s = String::new();
            for (i, (profile, value)) in [("to-c1", "from-c1"), ("to-c2", "from-c2")]
                .iter()
                .enumerate()
            {
                let var = format!("client{}", i + 1);
                s.push_str(&client(&var, profile));
                let _ = writeln!(
                    s,
                    "mut{i} := bigtable.NewMutation()\nmut{i}.Set({}, {}, bigtable.Timestamp({timestamp_micros}), []byte({}))\nif err := {var}.Open({}).Apply(ctx, {}, mut{i}); err != nil {{\n\tpanic(err)\n}}",
                    g(FAMILY),
                    g(qualifier),
                    g(value),
                    g(TABLE),
                    g(row)
                );
            }
            s
        }
        ReplOp::Token => format!(
            "admin, err := bigtable.NewAdminClient(ctx, \"my-project\", \"my-instance\")\nif err != nil {{\n\tpanic(err)\n}}\ndefer admin.Close()\n// Generates a consistency token and polls CheckConsistency until it is true.\nconsistent, err := admin.WaitForReplication(ctx, {})\nif err != nil {{\n\tpanic(err)\n}}\nfmt.Println(consistent)\n",
            g(TABLE)
        ),
        ReplOp::SetLag(_) | ReplOp::SetAvailable { .. } => String::new(),
    };
    let mut out = String::from("package main\n\nimport (\n\t\"context\"\n");
    if body.contains("fmt.") {
        out.push_str("\t\"fmt\"\n");
    }
    out.push_str(
        "\n\t\"cloud.google.com/go/bigtable\"\n)\n\nfunc main() {\n\tctx := context.Background()\n",
    );
    for line in body.lines() {
        let _ = writeln!(out, "\t{line}");
    }
    out.push_str("}\n");
    out
}

// ---- Node.js ----

fn node(op: &ReplOp<'_>) -> String {
    if let Some(c) = control(op, "//") {
        return c;
    }
    let table = |var: &str, profile: &str| {
        format!(
            "// The app profile routes every request of this client.\nconst {var} = new Bigtable({{projectId: \"my-project\", appProfileId: {}}})\n  .instance(\"my-instance\").table({});\n",
            q(profile),
            q(TABLE)
        )
    };
    let body = match op {
        ReplOp::Write {
            profile,
            row,
            qualifier,
            value,
            timestamp_micros,
        } => {
            let cell = match timestamp_micros {
                Some(t) => format!("{{value: {}, timestamp: {t}}}", q(value)),
                None => q(value),
            };
            format!(
                "{}await table.row({}).save({{{}: {{{}: {cell}}}}});\n",
                table("table", profile),
                q(row),
                q(FAMILY),
                q(qualifier)
            )
        }
        ReplOp::Increment {
            profile,
            row,
            qualifier,
        } => format!(
            "{}// Refused (FAILED_PRECONDITION) unless the profile allows transactional writes.\nconst [value] = await table.row({}).increment({}, 1);\nconsole.log(value);\n",
            table("table", profile),
            q(row),
            q(&format!("{FAMILY}:{qualifier}"))
        ),
        ReplOp::Read { profile, row } => format!(
            "{}const [row] = await table.row({}).get();\nconsole.log(JSON.stringify(row.data));\n",
            table("table", profile),
            q(row)
        ),
        ReplOp::Conflict {
            row,
            qualifier,
            timestamp_micros,
        } => {
            let mut s = String::new();
            for (i, (profile, value)) in [("to-c1", "from-c1"), ("to-c2", "from-c2")]
                .iter()
                .enumerate()
            {
                let var = format!("table{}", i + 1);
                s.push_str(&table(&var, profile));
                let _ = writeln!(
                    s,
                    "await {var}.row({}).save({{{}: {{{}: {{value: {}, timestamp: {timestamp_micros}}}}}}});",
                    q(row),
                    q(FAMILY),
                    q(qualifier),
                    q(value)
                );
            }
            s
        }
        ReplOp::Token => format!(
            "const table = new Bigtable({{projectId: \"my-project\"}}).instance(\"my-instance\").table({});\n// Generates a consistency token and polls CheckConsistency until it is true.\nconst [consistent] = await table.waitForReplication();\nconsole.log(consistent);\n",
            q(TABLE)
        ),
        ReplOp::SetLag(_) | ReplOp::SetAvailable { .. } => String::new(),
    };
    let mut out = String::from(
        "const {Bigtable} = require(\"@google-cloud/bigtable\");\n\nasync function main() {\n",
    );
    for line in body.lines() {
        let _ = writeln!(out, "  {line}");
    }
    out.push_str(
        "}\n\nmain().catch((err) => {\n  console.error(err);\n  process.exitCode = 1;\n});\n",
    );
    out
}

// ---- cbt ----

const CBT: &str = "cbt -project my-project -instance my-instance";
const NO_PROFILE: &str =
    "# cbt has no app-profile option: its requests take the instance's default profile\n# (multi-cluster on a replicated instance), whichever profile the lesson used.\n";

fn sh(s: &str) -> String {
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"#_-.:=/@".contains(&b))
    {
        s.into()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn cbt(op: &ReplOp<'_>) -> String {
    // The shell's way to the control service (docs/replication.md, "The control surface").
    let control_cli = "sparsetable-server control --project my-project --instance my-instance";
    match op {
        ReplOp::SetLag(micros) => {
            return format!(
                "# cbt cannot change the lag; sparsetable-server's control command can:\n{control_cli} lag {}ms\n",
                micros / 1000
            )
        }
        ReplOp::SetAvailable { cluster, available } => {
            return format!(
                "# cbt cannot take a cluster down; sparsetable-server's control command can:\n{control_cli} {} {cluster}\n",
                if *available { "up" } else { "down" }
            )
        }
        _ => {}
    }
    match op {
        ReplOp::Write {
            row,
            qualifier,
            value,
            timestamp_micros,
            ..
        } => {
            let ts = timestamp_micros.map_or(String::new(), |t| format!("@{t}"));
            format!(
                "{NO_PROFILE}{CBT} set {TABLE} {} {}\n",
                sh(row),
                sh(&format!("{FAMILY}:{qualifier}={value}{ts}"))
            )
        }
        ReplOp::Increment { .. } => {
            "# cbt has no ReadModifyWriteRow (increment) command.\n".into()
        }
        ReplOp::Read { row, .. } => format!("{NO_PROFILE}{CBT} lookup {TABLE} {}\n", sh(row)),
        ReplOp::Conflict {
            row,
            qualifier,
            timestamp_micros,
        } => format!(
            "{NO_PROFILE}# Both writes then go to the same cluster: cbt cannot make this conflict.\n{CBT} set {TABLE} {} {}\n{CBT} set {TABLE} {} {}\n",
            sh(row),
            sh(&format!("{FAMILY}:{qualifier}=from-c1@{timestamp_micros}")),
            sh(row),
            sh(&format!("{FAMILY}:{qualifier}=from-c2@{timestamp_micros}"))
        ),
        ReplOp::Token => format!(
            "# Generates a consistency token and polls CheckConsistency until it is true.\n{CBT} waitforreplication {TABLE}\n"
        ),
        ReplOp::SetLag(_) | ReplOp::SetAvailable { .. } => String::new(),
    }
}

/// Every lesson action's snippets, named for the snippet runner (`codegen`'s corpus).
#[cfg(test)]
pub(crate) fn corpus() -> Vec<(&'static str, Vec<Snippet>)> {
    alloc::vec![
        (
            "repl_write",
            snippets(&ReplOp::Write {
                profile: "to-c1",
                row: "user#1",
                qualifier: "name",
                value: "Ada",
                timestamp_micros: None,
            }),
        ),
        (
            "repl_increment",
            snippets(&ReplOp::Increment {
                profile: "to-c1",
                row: "user#1",
                qualifier: "visits",
            }),
        ),
        (
            "repl_read",
            snippets(&ReplOp::Read {
                profile: "multi",
                row: "user#1",
            }),
        ),
        (
            "repl_conflict",
            snippets(&ReplOp::Conflict {
                row: "user#1",
                qualifier: "city",
                timestamp_micros: 1_700_000_000_000_000,
            }),
        ),
        ("repl_token", snippets(&ReplOp::Token)),
        ("repl_lag", snippets(&ReplOp::SetLag(2_000_000))),
        (
            "repl_down",
            snippets(&ReplOp::SetAvailable {
                cluster: "c2",
                available: false,
            }),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(op: &ReplOp<'_>, lang: Lang) -> String {
        snippets(op)
            .into_iter()
            .find(|s| s.lang == lang)
            .unwrap()
            .code
    }

    #[test]
    fn every_client_routes_through_the_profile() {
        let op = ReplOp::Write {
            profile: "to-c2",
            row: "r",
            qualifier: "q",
            value: "v",
            timestamp_micros: None,
        };
        assert!(code(&op, Lang::PythonGoogle).contains("app_profile_id=\"to-c2\""));
        assert!(code(&op, Lang::PythonSparsetable).contains("app_profile_id=\"to-c2\""));
        assert!(code(&op, Lang::Java).contains(".setAppProfileId(\"to-c2\")"));
        assert!(code(&op, Lang::Go).contains("AppProfile: \"to-c2\""));
        assert!(code(&op, Lang::Node).contains("appProfileId: \"to-c2\""));
        assert!(code(&op, Lang::Cbt).contains("no app-profile option"));
    }

    #[test]
    fn control_actions_name_the_control_surface_not_a_client_call() {
        let down = ReplOp::SetAvailable {
            cluster: "c2",
            available: false,
        };
        assert!(code(&down, Lang::Cbt).ends_with("--instance my-instance down c2\n"));
        assert!(code(&down, Lang::PythonGoogle).starts_with("# No Bigtable client can"));
        let lag = code(&ReplOp::SetLag(250_000), Lang::Cbt);
        assert!(lag.ends_with("lag 250ms\n"), "{lag}");
    }

    #[test]
    fn go_imports_exactly_what_it_uses() {
        for (name, snippets) in corpus() {
            for s in snippets.iter().filter(|s| s.lang == Lang::Go) {
                if s.code.starts_with("//") {
                    continue;
                }
                let uses_fmt = s.code.contains("fmt.");
                assert_eq!(s.code.contains("\"fmt\""), uses_fmt, "{name}:\n{}", s.code);
            }
        }
    }

    #[test]
    fn java_imports_every_class_it_names() {
        for (name, snippets) in corpus() {
            for s in snippets.iter().filter(|s| s.lang == Lang::Java) {
                for class in [
                    "RowMutation",
                    "ReadModifyWriteRow",
                    "BigtableDataSettings",
                    "BigtableTableAdminClient",
                    "TableId",
                ] {
                    if s.code.contains(&format!("{class}.")) {
                        assert!(
                            s.code.contains(&format!(".{class};")),
                            "{name} uses {class} without importing it:\n{}",
                            s.code
                        );
                    }
                }
            }
        }
    }
}
