//! `sparsetable-server control`: the command line of the control surface, a client of a
//! running server's `sparsetable.testing.v1.ReplicationControl` service
//! ([`crate::replication_control`], whose rules are the core's). One command per call, against
//! the server `BIGTABLE_EMULATOR_HOST` names (or `--emulator-host`), on the instance that
//! `--project` and `--instance` name, as `cbt` takes them:
//!
//! ```text
//! sparsetable-server control --project p --instance i status
//! sparsetable-server control --project p --instance i down west-cluster
//! sparsetable-server control --project p --instance i up west-cluster
//! sparsetable-server control --project p --instance i lag 2s
//! sparsetable-server control --project p --instance i fault --rpc ReadRows \
//!     --cluster east-cluster --code UNAVAILABLE --count 2 --probability 0.5 --latency 100ms
//! sparsetable-server control --project p --instance i fault --rpc ReadRows \
//!     --code UNAVAILABLE --count 1 --after-rows 100
//! sparsetable-server control --project p --instance i clear-faults --seed 7
//! sparsetable-server control --project p --instance i collect my-table
//! ```
//!
//! Every command prints the instance's replication state after it (clusters and whether each
//! is available, the lag, writes in flight, fault rules). Exit status: 0 on success, 1 when
//! the server refuses (its gRPC code and message on stderr), 2 for a malformed command line.

use std::ffi::OsString;

use sparsetable::Code;

use crate::replication_control::service::replication_control_client::ReplicationControlClient;
use crate::replication_control::{
    ClearFaultsRequest, CollectGarbageRequest, GetReplicationRequest, InjectFaultRequest,
    ReplicationStatus, SetClusterAvailableRequest, SetReplicationLagRequest,
};

/// The usage text `sparsetable-server control --help` prints.
pub const USAGE: &str = "\
Usage: sparsetable-server control [--emulator-host HOST:PORT] --project P --instance I COMMAND

Controls what a running sparsetable-server simulates for one instance (its
sparsetable.testing.v1.ReplicationControl service) and prints the instance's state after it.

Commands:
  status                       clusters, availability, lag, writes in flight, fault rules
  down CLUSTER                 take a cluster down (needs two or more clusters)
  up CLUSTER                   bring it back: writes waiting for it arrive
  lag DURATION                 the instance's replication lag, e.g. 2s, 250ms, 0s
  fault [--rpc NAME] [--cluster ID] [--code CODE] [--count N] [--probability P]
        [--latency DURATION] [--after-rows R]
                               inject a fault into NAME (default every RPC) at ID (default
                               every cluster): the gRPC code (a name such as UNAVAILABLE or
                               DEADLINE_EXCEEDED, or its number) and/or a latency, for N
                               requests (default no limit) or each with probability P;
                               with --after-rows (--rpc ReadRows and a code), a stream
                               delivers R rows, then ends with the code
  clear-faults [--seed N]      remove every fault rule; reseed the probabilities' generator
  collect [TABLE]              run garbage collection now on TABLE (default every table),
                               on every cluster: with --gc-mode background, reads stop
                               returning the cells GC rules made collectable

Options:
  --emulator-host HOST:PORT    the server [default: $BIGTABLE_EMULATOR_HOST, else 127.0.0.1:8086]
  --project P, --instance I    the instance projects/P/instances/I
  -h, --help                   print this help";

/// One parsed command.
#[derive(Debug, Clone, PartialEq)]
enum Action {
    Status,
    Available(String, bool),
    Lag(i64),
    Fault(InjectFaultRequest),
    Clear(u64),
    Collect(String),
}

#[derive(Debug)]
struct Parsed {
    host: String,
    instance: String,
    action: Action,
}

fn custom(message: String) -> lexopt::Error {
    lexopt::Error::Custom(message.into())
}

/// A gRPC code by canonical name (`UNAVAILABLE`) or number (`14`), among the engine's codes.
fn parse_code(text: &str) -> Result<i32, lexopt::Error> {
    let found = match text.parse::<i32>() {
        Ok(n) => Code::ALL.into_iter().find(|c| c.grpc_code() == n),
        Err(_) => Code::from_name(&text.to_ascii_uppercase()),
    };
    found.map(Code::grpc_code).ok_or_else(|| {
        custom(format!(
            "--code {text:?}: use one of {}",
            Code::ALL.map(Code::as_str).join(", ")
        ))
    })
}

fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Option<Parsed>, lexopt::Error> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut host = std::env::var("BIGTABLE_EMULATOR_HOST")
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "127.0.0.1:8086".to_string());
    let (mut project, mut instance) = (None, None);
    let mut words: Vec<String> = Vec::new();
    let mut fault = InjectFaultRequest::default();
    let mut seed = 0u64;
    while let Some(arg) = parser.next()? {
        match arg {
            Long("emulator-host") => host = parser.value()?.string()?,
            Long("project") => project = Some(parser.value()?.string()?),
            Long("instance") => instance = Some(parser.value()?.string()?),
            Long("rpc") => fault.rpc = parser.value()?.string()?,
            Long("cluster") => fault.cluster_id = parser.value()?.string()?,
            Long("code") => fault.code = parse_code(&parser.value()?.string()?)?,
            Long("count") => fault.count = parser.value()?.parse()?,
            Long("probability") => fault.probability = Some(parser.value()?.parse()?),
            Long("latency") => {
                let micros = crate::duration::parse_duration(&parser.value()?.string()?)
                    .map_err(|e| custom(format!("--latency {e}")))?;
                fault.latency_micros = u64::try_from(micros).unwrap_or(0);
            }
            Long("after-rows") => fault.after_rows = parser.value()?.parse()?,
            Long("seed") => seed = parser.value()?.parse()?,
            Short('h') | Long("help") => return Ok(None),
            Value(v) => words.push(v.string()?),
            _ => return Err(arg.unexpected()),
        }
    }
    let (Some(project), Some(instance)) = (project, instance) else {
        return Err(custom("--project and --instance are required".into()));
    };
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let action = match words.as_slice() {
        ["status"] => Action::Status,
        ["down", cluster] => Action::Available((*cluster).to_string(), false),
        ["up", cluster] => Action::Available((*cluster).to_string(), true),
        ["lag", duration] => Action::Lag(
            crate::duration::parse_duration(duration).map_err(|e| custom(format!("lag {e}")))?,
        ),
        ["fault"] => {
            if fault.code == 0 && fault.latency_micros == 0 {
                return Err(custom("fault: give --code, --latency or both".to_string()));
            }
            Action::Fault(fault)
        }
        ["clear-faults"] => Action::Clear(seed),
        ["collect"] => Action::Collect(String::new()),
        ["collect", table] => Action::Collect((*table).to_string()),
        [] => return Err(custom("a command is required (see --help)".into())),
        other => {
            return Err(custom(format!(
                "unknown command {:?} (see --help)",
                other.join(" ")
            )))
        }
    };
    Ok(Some(Parsed {
        host,
        instance: format!("projects/{project}/instances/{instance}"),
        action,
    }))
}

/// The state as `status` prints it: one line for the instance, one per cluster.
fn render(instance: &str, s: &ReplicationStatus) -> String {
    let mut out = format!(
        "{instance}: lag {} us, {} writes in flight, {} fault rules\n",
        s.lag_micros, s.in_flight, s.faults
    );
    for c in &s.clusters {
        out.push_str(&format!(
            "  {}\t{}\n",
            c.cluster_id,
            if c.available {
                "available"
            } else {
                "unavailable"
            }
        ));
    }
    out
}

async fn call(parsed: Parsed) -> Result<ReplicationStatus, String> {
    let endpoint = format!("http://{}", parsed.host);
    let mut client = ReplicationControlClient::connect(endpoint)
        .await
        .map_err(|e| format!("cannot reach {}: {e}", parsed.host))?;
    let instance = parsed.instance;
    let reply = match parsed.action {
        Action::Status => {
            client
                .get_replication(GetReplicationRequest { instance })
                .await
        }
        Action::Available(cluster_id, available) => {
            client
                .set_cluster_available(SetClusterAvailableRequest {
                    instance,
                    cluster_id,
                    available,
                })
                .await
        }
        Action::Lag(lag_micros) => {
            client
                .set_replication_lag(SetReplicationLagRequest {
                    instance,
                    lag_micros,
                })
                .await
        }
        Action::Fault(mut request) => {
            request.instance = instance;
            client.inject_fault(request).await
        }
        Action::Clear(seed) => {
            client
                .clear_faults(ClearFaultsRequest { instance, seed })
                .await
        }
        Action::Collect(table_id) => {
            client
                .collect_garbage(CollectGarbageRequest { instance, table_id })
                .await
        }
    };
    reply
        .map(tonic::Response::into_inner)
        .map_err(|s| format!("{:?}: {}", s.code(), s.message()))
}

/// Runs `sparsetable-server control ARGS` and returns the exit status.
pub fn run(args: impl IntoIterator<Item = OsString>) -> u8 {
    let parsed = match parse(args) {
        Ok(Some(p)) => p,
        Ok(None) => {
            println!("{USAGE}");
            return 0;
        }
        Err(e) => {
            eprintln!("sparsetable-server control: {e}\n\n{USAGE}");
            return 2;
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sparsetable-server control: cannot start the runtime: {e}");
            return 1;
        }
    };
    let instance = parsed.instance.clone();
    match runtime.block_on(call(parsed)) {
        Ok(status) => {
            print!("{}", render(&instance, &status));
            0
        }
        Err(e) => {
            eprintln!("sparsetable-server control: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<OsString> {
        line.split_whitespace().map(OsString::from).collect()
    }

    fn action(line: &str) -> Action {
        parse(args(line)).unwrap().unwrap().action
    }

    #[test]
    fn commands_parse_as_documented() {
        let base = "--emulator-host h:1 --project p --instance i";
        let p = parse(args(&format!("{base} status"))).unwrap().unwrap();
        assert_eq!(
            (p.host.as_str(), p.instance.as_str()),
            ("h:1", "projects/p/instances/i")
        );
        assert_eq!(
            action(&format!("{base} down c2")),
            Action::Available("c2".into(), false)
        );
        assert_eq!(
            action(&format!("{base} up c2")),
            Action::Available("c2".into(), true)
        );
        assert_eq!(action(&format!("{base} lag 250ms")), Action::Lag(250_000));
        assert_eq!(
            action(&format!("{base} clear-faults --seed 7")),
            Action::Clear(7)
        );
        assert_eq!(
            action(&format!("{base} collect t1")),
            Action::Collect("t1".into())
        );
        assert_eq!(
            action(&format!("{base} collect")),
            Action::Collect(String::new())
        );
        let Action::Fault(f) = action(&format!(
            "{base} fault --rpc ReadRows --cluster c1 --code deadline_exceeded --count 2 --probability 0.5 --latency 1ms"
        )) else {
            panic!("a fault")
        };
        assert_eq!(
            (
                f.rpc.as_str(),
                f.cluster_id.as_str(),
                f.code,
                f.count,
                f.probability,
                f.latency_micros
            ),
            ("ReadRows", "c1", 4, 2, Some(0.5), 1000)
        );
        let Action::Fault(f) = action(&format!("{base} fault --code 14")) else {
            panic!("a fault")
        };
        assert_eq!((f.code, f.after_rows), (14, 0));
        let Action::Fault(f) = action(&format!(
            "{base} fault --rpc ReadRows --code UNAVAILABLE --count 1 --after-rows 3"
        )) else {
            panic!("a fault")
        };
        assert_eq!((f.code, f.count, f.after_rows), (14, 1, 3));
    }

    #[test]
    fn bad_command_lines_are_refused_with_a_reason() {
        let base = "--project p --instance i";
        for (line, why) in [
            ("status", "--project and --instance"),
            (base, "a command is required"),
            (&format!("{base} reboot"), "unknown command"),
            (&format!("{base} lag 2 seconds"), "unknown command"),
            (&format!("{base} lag 2parsecs"), "unit"),
            (&format!("{base} fault"), "--code, --latency"),
            (&format!("{base} fault --code NOPE"), "use one of"),
            (&format!("{base} fault --code 99"), "use one of"),
        ] {
            let e = parse(args(line)).unwrap_err().to_string();
            assert!(e.contains(why), "{line:?}: {e}");
        }
        assert!(parse(args("--help")).unwrap().is_none());
    }

    #[test]
    fn the_state_prints_one_line_per_cluster() {
        use crate::replication_control::ClusterStatus;
        let s = ReplicationStatus {
            clusters: vec![
                ClusterStatus {
                    cluster_id: "c1".into(),
                    available: true,
                },
                ClusterStatus {
                    cluster_id: "c2".into(),
                    available: false,
                },
            ],
            lag_micros: 2_000_000,
            in_flight: 3,
            faults: 1,
        };
        assert_eq!(
            render("projects/p/instances/i", &s),
            "projects/p/instances/i: lag 2000000 us, 3 writes in flight, 1 fault rules\n  c1\tavailable\n  c2\tunavailable\n"
        );
    }
}
