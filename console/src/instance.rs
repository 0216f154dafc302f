//! The console on a replicated instance (`sparsetable-console --clusters N`): the same cbt
//! commands, each data command routed by its `app-profile=` option to one cluster's copy of
//! the tables; cbt's app-profile and cluster commands on the instance; and the words of our
//! control surface (`sparsetable-server control`: `status`, `down`, `up`, `lag`, `fault`,
//! `clear-faults`) to take clusters down, change the replication lag and inject errors.
//!
//! No rule is decided here. The instance's metadata (cluster and app-profile ids, routing
//! policies, refusals with their codes) is the core's [`InstanceRecord`]; routing,
//! availability, lag and delivery are the core's [`ReplicaSet`] and its `Replication`
//! (docs/replication.md holds the rules and their sources); injected errors are the core's
//! [`FaultInjector`], checked once per routed command for its RPC and the cluster it reached,
//! as the server checks them.
//!
//! - Data commands and their RPCs: `set`, `deleterow`, `deletecolumn` are MutateRow and
//!   `import` MutateRows (writes); `read` and `count` are ReadRows and `lookup` a ReadRows of
//!   one row (reads). A routed command runs on the cluster's database exactly as on a single
//!   database, so it prints what cbt prints.
//! - Table admin (`createtable`, `createfamily`, `setgcpolicy`, `delete...`, `ls`) runs on
//!   the first cluster, the primary copy of the schema, as [`sparsetable::ReplicatedInstance`]
//!   does; the others follow at the next delivery.
//! - Every command first delivers what is due on the clock (a manual clock makes a session
//!   exact), and `status` shows the writes still on their way.
//! - An injected latency (`fault latency=250ms`) is waited out on the engine's clock by the
//!   host's [`LatencyWait`] before the command runs: the playground and a test advance their
//!   manual clock (the playground has no thread to sleep on), the native console on the system
//!   clock sleeps. Without one (`InstanceConsole::new` alone) `fault` refuses a latency. The
//!   command's stderr says how long it waited, so the delay is seen.
//!
//! - [`InstanceConsole::admit`] is that path (delivery, routing, faults, latency) on its own,
//!   for a host that runs its own requests on the instance: the playground's replication
//!   lesson sends its buttons' writes, reads and increments through it, so a fault typed at
//!   the console acts on them as on the console's commands.
//!
//! The output of the instance commands is ours (the real cbt's wording for them is not
//! compared: `server/tests/it/console_vs_cbt.rs` covers the table and data commands).
//!
//! Invariants: the record's clusters and the replica set's are the same ids in the same
//! (sorted) order; the replica set's profiles are always the record's; a refused command
//! changes nothing.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use sparsetable::{
    AppProfileRecord, ClusterRecord, Code, Database, Error, FaultInjector, FaultRule,
    InstanceRecord, InstanceType, ReplicaSet, RequestKind, Routing,
};

use crate::{rpc, text, Console, Output};

/// The zone the console's clusters claim (the record needs one; nothing depends on it).
const ZONE: &str = "local";

/// Waits out an injected latency of the given microseconds on the engine's clock: advances a
/// manual clock, or sleeps while a system clock runs.
pub type LatencyWait = Box<dyn FnMut(u64)>;

/// A console over a replicated instance (see the module docs).
pub struct InstanceConsole {
    console: Console,
    record: InstanceRecord,
    set: ReplicaSet<Database>,
    faults: FaultInjector,
    wait: Option<LatencyWait>,
}

impl core::fmt::Debug for InstanceConsole {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("InstanceConsole")
            .field("instance", &self.record.name())
            .field("clusters", &self.set.len())
            .finish_non_exhaustive()
    }
}

/// What a data command is, for routing and faults.
struct Routable<'a> {
    kind: RequestKind,
    rpc: &'static str,
    /// What cbt prefixes the command's RPC errors with.
    context: &'static str,
    /// The row, for row affinity (empty for scans).
    row: &'a [u8],
}

fn routable<'a>(command: &str, args: &'a [Vec<u8>]) -> Option<Routable<'a>> {
    let row = |i: usize| args.get(i).map_or(&[][..], Vec::as_slice);
    let (kind, rpc, context, row) = match command {
        "set" => (RequestKind::Write, "MutateRow", "Applying mutation", row(1)),
        "deleterow" => (RequestKind::Write, "MutateRow", "Deleting row", row(1)),
        "deletecolumn" => (
            RequestKind::Write,
            "MutateRow",
            "Deleting cells in column",
            row(1),
        ),
        "import" => (RequestKind::Write, "MutateRows", "Importing", &[][..]),
        "read" | "count" => (RequestKind::Read, "ReadRows", "Reading rows", &[][..]),
        "lookup" => (RequestKind::Read, "ReadRows", "Reading row", row(1)),
        _ => return None,
    };
    Some(Routable {
        kind,
        rpc,
        context,
        row,
    })
}

/// The `app-profile=` option's value among `args` ("" when absent: the default profile).
fn app_profile(args: &[Vec<u8>]) -> String {
    args.iter()
        .find_map(|a| a.strip_prefix(b"app-profile="))
        .map(text)
        .unwrap_or_default()
}

/// An injected latency a request waited out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waited {
    /// How long, in microseconds of the engine's clock.
    pub micros: u64,
    /// The cluster that answered late.
    pub cluster_id: String,
}

impl Waited {
    /// The line a delayed command's stderr starts with (and the lesson shows).
    pub fn note(&self) -> String {
        let micros = self.micros;
        let shown = if micros.is_multiple_of(1000) {
            format!("{}ms", micros / 1000)
        } else {
            format!("{micros}us")
        };
        format!(
            "(injected latency: answered {shown} later by {}, on the engine's clock)\n",
            self.cluster_id
        )
    }
}

/// What routing and the injected faults decided for one request
/// ([`InstanceConsole::admit`]).
#[derive(Debug)]
pub struct Admission {
    /// The cluster (its position in the instance) that serves the request, or the error the
    /// request answers with: a routing refusal (`NOT_FOUND`, `FAILED_PRECONDITION`,
    /// `UNAVAILABLE`) or an injected fault.
    pub cluster: Result<usize, Error>,
    /// The injected latency waited out first, if a rule added one.
    pub waited: Option<Waited>,
}

impl Admission {
    fn refused(e: Error, waited: Option<Waited>) -> Self {
        Admission {
            cluster: Err(e),
            waited,
        }
    }
}

/// The commands of an instance that a single database has not: the control words and cbt's
/// cluster and app-profile commands (for a host that tells a user where they run).
pub const INSTANCE_COMMANDS: [&str; 12] = [
    "status",
    "down",
    "up",
    "lag",
    "fault",
    "clear-faults",
    "listclusters",
    "createappprofile",
    "updateappprofile",
    "getappprofile",
    "listappprofile",
    "deleteappprofile",
];

/// Whether `command` is a data command routed by its `app-profile=` option.
pub fn routes_by_profile(command: &str) -> bool {
    routable(command, &[]).is_some()
}

/// A failed command's message after the latency it waited, if any.
fn with_wait(message: String, waited: Option<&Waited>) -> String {
    match waited {
        Some(w) => format!("{}{message}", w.note()),
        None => message,
    }
}

/// A core error as the console prints an instance command's refusal.
fn refused(e: &Error) -> String {
    format!("{}: {}", e.code().as_str(), e.message())
}

impl InstanceConsole {
    /// An instance `projects/{project}/instances/{instance}` whose clusters are `clusters`
    /// (id and its database, all on one clock), no app profile stored (the default profile
    /// follows the core's rule) and no lag.
    ///
    /// # Errors
    /// The record's refusals (`INVALID_ARGUMENT` for a bad id or too many clusters); the
    /// engine's.
    pub fn new(
        project: &str,
        instance: &str,
        mut clusters: Vec<(String, Database)>,
    ) -> Result<Self, Error> {
        // The record keeps its clusters sorted by id; the replica set takes the same order.
        clusters.sort_by(|a, b| a.0.cmp(&b.0));
        let now = clusters.first().map_or(0, |(_, db)| db.now_micros());
        let record = InstanceRecord::create(
            project,
            instance,
            None,
            InstanceType::Production,
            BTreeMap::new(),
            clusters
                .iter()
                .map(|(id, _)| ClusterRecord::new(id, ZONE))
                .collect(),
            now,
        )?;
        Self::from_record(record, clusters)
    }

    /// As [`InstanceConsole::new`], for a host whose cluster ids predate Bigtable's rule for
    /// new clusters (6 to 30 characters): the playground's lesson names its clusters `c1`,
    /// `c2`, `c3`. The record is assembled as the server assembles an instance it was handed
    /// (the model's invariants checked, the id rule for new clusters not), as it does for an
    /// instance named implicitly.
    ///
    /// # Errors
    /// As [`InstanceConsole::new`], without the cluster id rule.
    pub fn with_cluster_ids_as_given(
        project: &str,
        instance: &str,
        mut clusters: Vec<(String, Database)>,
    ) -> Result<Self, Error> {
        clusters.sort_by(|a, b| a.0.cmp(&b.0));
        let now = clusters.first().map_or(0, |(_, db)| db.now_micros());
        let record = InstanceRecord::assemble(
            project,
            instance,
            instance,
            InstanceType::Production,
            BTreeMap::new(),
            now,
            clusters
                .iter()
                .map(|(id, _)| ClusterRecord::new(id, ZONE))
                .collect(),
            Vec::new(),
        )?;
        Self::from_record(record, clusters)
    }

    /// The console over `record` and `clusters` (sorted by id, the record's clusters).
    fn from_record(
        record: InstanceRecord,
        clusters: Vec<(String, Database)>,
    ) -> Result<Self, Error> {
        let mut set = ReplicaSet::new(clusters)?;
        set.replication_mut().set_profiles(record.routing().1);
        Ok(InstanceConsole {
            console: Console::new(),
            record,
            set,
            faults: FaultInjector::default(),
            wait: None,
        })
    }

    /// Lets `fault` take a latency, waited out by `wait` (see [`LatencyWait`]).
    pub fn set_latency_wait(&mut self, wait: LatencyWait) {
        self.wait = Some(wait);
    }

    /// The replica set, mutably, for a host that runs its own requests on the same instance
    /// (the playground's replication lesson). Its profiles stay the record's: change them
    /// through the cbt app-profile commands.
    pub fn replicas_mut(&mut self) -> &mut ReplicaSet<Database> {
        &mut self.set
    }

    /// The instance's metadata (clusters, app profiles).
    pub fn record(&self) -> &InstanceRecord {
        &self.record
    }

    /// The console's own state (files registered for `import`).
    pub fn console_mut(&mut self) -> &mut Console {
        &mut self.console
    }

    /// The replica set, for a host that shows the clusters' copies.
    pub fn replicas(&self) -> &ReplicaSet<Database> {
        &self.set
    }

    /// Sets the replication lag (as the `lag` command).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a negative lag.
    pub fn set_lag_micros(&mut self, micros: i64) -> Result<(), Error> {
        self.set.replication_mut().set_delay_micros(micros)
    }

    /// Runs one line (a cbt command without `cbt` and its flags, or an instance command).
    pub fn run_line(&mut self, line: &str) -> Output {
        match crate::split_args(line) {
            Ok(words) if words.is_empty() => Output::default(),
            Ok(words) => self.run(&words),
            Err(e) => Output::default().fail(e),
        }
    }

    /// Runs one command given as words, `words[0]` being the command.
    pub fn run(&mut self, words: &[Vec<u8>]) -> Output {
        let command = text(&words[0]);
        let args = &words[1..];
        if let Err(e) = self.set.pump() {
            return Output::default().fail(refused(&e));
        }
        let out = match self.instance_command(&command, args) {
            Some(result) => result,
            None => self.routed(&command, words),
        };
        let out = out.unwrap_or_else(|message| Output::default().fail(message));
        // Schema changes and writes start on their way at once.
        match self.set.pump() {
            Ok(_) => out,
            Err(e) => out.fail(refused(&e)),
        }
    }

    /// What routing and the injected faults decide for one request of `rpc` (`ReadRows`,
    /// `MutateRow`, `ReadModifyWriteRow`, ...) of `kind` through `profile` ("" for the
    /// default profile) to `row` (empty for a scan): the path every data command of this
    /// console takes, open to a host that runs its own requests on the instance (the
    /// playground's replication lesson), so an injected fault acts on them alike.
    ///
    /// First delivers what is due; routes by the core's rules; checks the fault rules for the
    /// RPC at the cluster reached; waits out an injected latency (moving a manual clock) and
    /// delivers what became due meanwhile, as a server that answers late would.
    pub fn admit(&mut self, rpc: &str, profile: &str, kind: RequestKind, row: &[u8]) -> Admission {
        if let Err(e) = self.set.pump() {
            return Admission::refused(e, None);
        }
        match self.set.route(profile, kind, row) {
            Ok(i) => self.checked(rpc, i),
            Err(e) => Admission::refused(e, None),
        }
    }

    /// As [`InstanceConsole::admit`] for a table admin RPC (`GenerateConsistencyToken`, say):
    /// no app profile routes it; it is served by the first cluster, which holds the schema
    /// (see the module docs), so the fault rules are checked there.
    pub fn admit_table_admin(&mut self, rpc: &str) -> Admission {
        if let Err(e) = self.set.pump() {
            return Admission::refused(e, None);
        }
        self.checked(rpc, 0)
    }

    /// The fault rules for `rpc` at cluster `i`, an injected latency waited out.
    fn checked(&mut self, rpc: &str, i: usize) -> Admission {
        let Some(id) = self.record.clusters().get(i).map(|c| c.id.clone()) else {
            return Admission::refused(
                Error::new(Code::Internal, format!("cluster {i} is missing")),
                None,
            );
        };
        let outcome = self.faults.check(rpc, &id);
        let mut waited = None;
        if outcome.latency_micros > 0 {
            if let Some(wait) = self.wait.as_mut() {
                wait(outcome.latency_micros);
            }
            waited = Some(Waited {
                micros: outcome.latency_micros,
                cluster_id: id,
            });
            // What became due while the request was held back reaches its cluster first.
            if let Err(e) = self.set.pump() {
                return Admission::refused(e, waited);
            }
        }
        Admission {
            cluster: outcome.error.map_or(Ok(i), Err),
            waited,
        }
    }

    /// A data command on its routed cluster, anything else on the first cluster.
    fn routed(&mut self, command: &str, words: &[Vec<u8>]) -> Result<Output, String> {
        let mut waited = None;
        let cluster = match routable(command, &words[1..]) {
            Some(r) => {
                let profile = app_profile(&words[1..]);
                let admission = self.admit(r.rpc, &profile, r.kind, r.row);
                waited = admission.waited;
                match admission.cluster {
                    Ok(i) => i,
                    Err(e) => return Err(with_wait(rpc(r.context, &e), waited.as_ref())),
                }
            }
            None => 0,
        };
        let db = self
            .set
            .replica_mut(cluster)
            .ok_or_else(|| format!("cluster {cluster} is missing"))?;
        let mut out = self.console.run(db, words);
        if let Some(w) = waited.as_ref() {
            out.stderr.insert_str(0, &w.note());
        }
        Ok(out)
    }

    /// The instance commands; `None` for the others.
    fn instance_command(
        &mut self,
        command: &str,
        args: &[Vec<u8>],
    ) -> Option<Result<Output, String>> {
        let args: Vec<String> = args.iter().map(|a| text(a)).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let result = match command {
            "status" => match args.as_slice() {
                [] => Ok(self.status()),
                _ => Err("usage: status".into()),
            },
            "down" | "up" => match args.as_slice() {
                [cluster] => self
                    .set
                    .replication_mut()
                    .set_available(cluster, command == "up")
                    .map(|()| self.status())
                    .map_err(|e| refused(&e)),
                _ => Err(format!("usage: {command} <cluster-id>")),
            },
            "lag" => match args.as_slice() {
                [d] => crate::gc::parse_duration(d)
                    .map_err(|_| {
                        format!("lag {d:?}: give a number and a unit (ms, s, m, h or d), e.g. 2s")
                    })
                    .and_then(|micros| self.set_lag_micros(micros).map_err(|e| refused(&e)))
                    .map(|()| self.status()),
                _ => Err("usage: lag <duration>".into()),
            },
            "fault" => self.fault(&args),
            "clear-faults" => match args.as_slice() {
                [] => Ok(0),
                [seed] => seed
                    .strip_prefix("seed=")
                    .and_then(|s| s.parse::<u64>().ok())
                    .ok_or_else(|| "usage: clear-faults [seed=<n>]".to_string()),
                _ => Err("usage: clear-faults [seed=<n>]".into()),
            }
            .map(|seed| {
                self.faults.clear(seed);
                self.status()
            }),
            "listclusters" => match args.as_slice() {
                [] => Ok(self.list_clusters()),
                _ => Err("usage: cbt listclusters".into()),
            },
            "createappprofile" | "updateappprofile" => self.write_profile(command, &args),
            "getappprofile" => match args.as_slice() {
                [instance, id] => self.check_instance(instance).and_then(|()| {
                    self.record
                        .effective_app_profile(id)
                        .map(|p| self.profile_output(&p))
                        .ok_or_else(|| {
                            refused(&Error::new(
                                Code::NotFound,
                                format!(
                                    "app profile {id:?} not found in instance {}",
                                    self.record.name()
                                ),
                            ))
                        })
                }),
                _ => Err("usage: cbt getappprofile <instance-id> <profile-id>".into()),
            },
            "listappprofile" => match args.as_slice() {
                [instance] => self.check_instance(instance).map(|()| {
                    let mut out = Output::default();
                    for p in self.record.listed_app_profiles() {
                        out.stdout
                            .extend_from_slice(&self.profile_output(&p).stdout);
                    }
                    out
                }),
                _ => Err("usage: cbt listappprofile <instance-id>".into()),
            },
            "deleteappprofile" => match args.as_slice() {
                [instance, id] => self.check_instance(instance).and_then(|()| {
                    self.change_record(|r| r.delete_app_profile(id))
                        .map(|()| Output::default())
                }),
                _ => Err("usage: cbt deleteappprofile <instance-id> <profile-id>".into()),
            },
            _ => return None,
        };
        Some(result)
    }

    /// The instance id a cbt app-profile command names must be this one.
    fn check_instance(&self, instance: &str) -> Result<(), String> {
        if instance == self.record.id {
            Ok(())
        } else {
            Err(refused(&Error::new(
                Code::NotFound,
                format!(
                    "instance {instance:?} not found (this console runs {})",
                    self.record.name()
                ),
            )))
        }
    }

    /// Applies a change to a copy of the record and keeps it (and hands its profiles to
    /// routing) only if the core accepts it.
    fn change_record<T>(
        &mut self,
        op: impl FnOnce(&mut InstanceRecord) -> Result<T, Error>,
    ) -> Result<T, String> {
        let mut next = self.record.clone();
        let out = op(&mut next).map_err(|e| refused(&e))?;
        self.set.replication_mut().set_profiles(next.routing().1);
        self.record = next;
        Ok(out)
    }

    /// `createappprofile|updateappprofile <instance-id> <profile-id> <description>
    /// (route-any | route-to=<cluster-id> [transactional-writes]) [-force]`, as cbt.
    fn write_profile(&mut self, command: &str, args: &[&str]) -> Result<Output, String> {
        let usage = || {
            format!("usage: cbt {command} <instance-id> <profile-id> <description> (route-any | route-to=<cluster-id> [transactional-writes]) [-force]")
        };
        let [instance, id, description, policy @ ..] = args else {
            return Err(usage());
        };
        self.check_instance(instance)?;
        let policy: Vec<&str> = policy.iter().copied().filter(|w| *w != "-force").collect();
        let routing = match policy.as_slice() {
            ["route-any"] => Routing::MultiCluster {
                cluster_ids: Vec::new(),
                row_affinity: false,
            },
            [to, rest @ ..] if to.starts_with("route-to=") => {
                let allow_transactional_writes = match rest {
                    [] => false,
                    ["transactional-writes"] => true,
                    _ => return Err(usage()),
                };
                Routing::SingleCluster {
                    cluster_id: to["route-to=".len()..].to_string(),
                    allow_transactional_writes,
                }
            }
            _ => return Err(usage()),
        };
        let profile = AppProfileRecord {
            description: (*description).to_string(),
            routing,
            ..AppProfileRecord::any_cluster(id)
        };
        let stored = self.change_record(|r| {
            if command == "createappprofile" {
                r.create_app_profile(profile).cloned()
            } else {
                r.update_app_profile(profile).cloned()
            }
        })?;
        Ok(self.profile_output(&stored))
    }

    fn profile_output(&self, p: &AppProfileRecord) -> Output {
        let routing = match &p.routing {
            Routing::SingleCluster {
                cluster_id,
                allow_transactional_writes,
            } => format!(
                "single-cluster to {cluster_id}{}",
                if *allow_transactional_writes {
                    ", transactional writes allowed"
                } else {
                    ""
                }
            ),
            Routing::MultiCluster {
                cluster_ids,
                row_affinity,
            } => {
                let to = if cluster_ids.is_empty() {
                    "any cluster".to_string()
                } else {
                    cluster_ids.join(", ")
                };
                format!(
                    "multi-cluster to {to}{}",
                    if *row_affinity { ", row affinity" } else { "" }
                )
            }
        };
        let mut out = Output::default();
        let _ = writeln!(
            SinkString(&mut out.stdout),
            "{}/appProfiles/{}\t{}\t{:?}",
            self.record.name(),
            p.id,
            routing,
            p.description
        );
        out
    }

    fn list_clusters(&self) -> Output {
        let mut lines = vec![
            vec!["Cluster Name".to_string(), "Zone".into(), "State".into()],
            vec!["------------".to_string(), "----".into(), "-----".into()],
        ];
        for c in self.record.clusters() {
            lines.push(vec![c.id.clone(), c.zone.clone(), "READY".into()]);
        }
        let mut out = Output::default();
        out.stdout
            .extend_from_slice(crate::print::tabwrite(&lines).as_bytes());
        out
    }

    /// `fault (code=<CODE> | latency=<duration>)... [rpc=<name>] [cluster=<id>] [count=<n>]
    /// [probability=<p>]`: a code, a latency, or both.
    fn fault(&mut self, args: &[&str]) -> Result<Output, String> {
        let usage = "usage: fault code=<CODE> | latency=<duration> [rpc=<name>] [cluster=<id>] [count=<n>] [probability=<p>]";
        let mut rule = FaultRule {
            rpc: None,
            cluster_id: None,
            code: None,
            remaining: None,
            probability: 1.0,
            latency_micros: 0,
        };
        for arg in args {
            let Some((key, value)) = arg.split_once('=') else {
                return Err(usage.into());
            };
            match key {
                "rpc" => rule.rpc = Some(value.to_string()),
                "cluster" => rule.cluster_id = Some(value.to_string()),
                "code" => {
                    let code = match value.parse::<i32>() {
                        Ok(n) => Code::ALL.into_iter().find(|c| c.grpc_code() == n),
                        Err(_) => Code::from_name(&value.to_ascii_uppercase()),
                    };
                    rule.code = Some(code.ok_or_else(|| {
                        format!(
                            "code {value:?}: use one of {}",
                            Code::ALL.map(Code::as_str).join(", ")
                        )
                    })?);
                }
                "count" => {
                    rule.remaining = Some(
                        value
                            .parse()
                            .map_err(|_| format!("count {value:?}: a whole number"))?,
                    );
                }
                "probability" => {
                    rule.probability = value
                        .parse()
                        .map_err(|_| format!("probability {value:?}: a number from 0 to 1"))?;
                }
                "latency" => {
                    if self.wait.is_none() {
                        return Err("this console has no clock to wait out a latency on; inject latency through sparsetable-server control fault --latency".into());
                    }
                    let micros = crate::gc::parse_duration(value)
                        .ok()
                        .and_then(|m| u64::try_from(m).ok())
                        .ok_or_else(|| {
                            format!("latency {value:?}: give a number and a unit (ms, s, m, h or d), e.g. 250ms")
                        })?;
                    rule.latency_micros = micros;
                }
                _ => return Err(usage.into()),
            }
        }
        if rule.code.is_none() && rule.latency_micros == 0 {
            return Err(usage.into());
        }
        self.faults.add(rule).map_err(|e| refused(&e))?;
        Ok(self.status())
    }

    /// The instance's replication state, as `sparsetable-server control status` shows it.
    fn status(&self) -> Output {
        let state = self.set.replication();
        let mut s = String::new();
        let _ = writeln!(s, "instance {}", self.record.name());
        for (i, id) in state.cluster_ids().iter().enumerate() {
            let up = if state.is_available(i) {
                "available"
            } else {
                "unavailable"
            };
            let _ = writeln!(s, "  cluster {id}: {up}");
        }
        let _ = writeln!(s, "  replication lag: {} us", state.delay_micros());
        let _ = writeln!(s, "  writes in flight: {}", state.in_flight());
        for rule in self.faults.rules() {
            let _ = writeln!(
                s,
                "  fault: rpc {} cluster {} code {} count {} probability {} latency {} us",
                rule.rpc.as_deref().unwrap_or("*"),
                rule.cluster_id.as_deref().unwrap_or("*"),
                rule.code.map_or("-", Code::as_str),
                rule.remaining
                    .map_or_else(|| "unlimited".to_string(), |n| n.to_string()),
                rule.probability,
                rule.latency_micros
            );
        }
        let mut out = Output::default();
        out.stdout.extend_from_slice(s.as_bytes());
        out
    }
}

/// `fmt::Write` into a byte buffer.
struct SinkString<'a>(&'a mut Vec<u8>);

impl core::fmt::Write for SinkString<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}
