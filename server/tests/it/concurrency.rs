//! Many clients at once against the real server binary: row atomicity holds across
//! connections, and a persistent `sync` server keeps every acknowledged write.
//!
//! Each client runs on its own OS thread with its own runtime and its own connection, as
//! separate client processes would, so the server really sees concurrent requests.

use crate::common;

use std::sync::{Arc, Barrier};

use common::{data_dir, read_rows, BigtableClient, Server};
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;

const TABLE: &str = "projects/p/instances/i/tables/t";
const CLIENTS: usize = 16;
const INCREMENTS: usize = 40;

/// Runs `f(client_index, client)` on `CLIENTS` threads at once, each with its own runtime and
/// connection, released together by a barrier; returns what each returned, in client order.
fn on_client_threads<T: Send + 'static, F, Fut>(addr: &str, f: F) -> Vec<T>
where
    F: Fn(usize, BigtableClient<tonic::transport::Channel>) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = T>,
{
    let f = Arc::new(f);
    let barrier = Arc::new(Barrier::new(CLIENTS));
    let threads: Vec<_> = (0..CLIENTS)
        .map(|i| {
            let (f, barrier, addr) = (f.clone(), barrier.clone(), addr.to_string());
            std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("client runtime");
                runtime.block_on(async move {
                    let channel = tonic::transport::Channel::from_shared(format!("http://{addr}"))
                        .expect("endpoint")
                        .connect()
                        .await
                        .expect("connect");
                    barrier.wait();
                    f(i, BigtableClient::new(channel)).await
                })
            })
        })
        .collect();
    threads
        .into_iter()
        .map(|t| t.join().expect("client thread"))
        .collect()
}

fn increment(key: &[u8]) -> v2::ReadModifyWriteRowRequest {
    v2::ReadModifyWriteRowRequest {
        table_name: TABLE.into(),
        row_key: key.to_vec(),
        rules: vec![v2::ReadModifyWriteRule {
            family_name: "cf".into(),
            column_qualifier: b"n".to_vec(),
            rule: Some(v2::read_modify_write_rule::Rule::IncrementAmount(1)),
        }],
        ..Default::default()
    }
}

fn counter_value(row: &v2::Row) -> i64 {
    let cell = &row.families[0].columns[0].cells[0];
    i64::from_be_bytes(cell.value.as_slice().try_into().expect("an 8-byte counter"))
}

/// 16 client threads increment one cell through ReadModifyWriteRow on a persistent `sync`
/// server. Each increment must see every earlier one: the values the clients get back are
/// exactly 1..=N, each once, and the stored total is N, also after a SIGKILL and restart.
#[test]
fn sixteen_clients_incrementing_one_cell_get_the_exact_total() {
    let dir = data_dir("conc", "rmw");
    let dir_arg = dir.to_str().unwrap().to_string();
    let args = ["--data-dir", dir_arg.as_str(), "--durability", "sync"];
    let server = Server::start(&args);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(server.create_table_t());

    let seen = on_client_threads(&server.addr, |_, mut client| async move {
        let mut values = Vec::with_capacity(INCREMENTS);
        for _ in 0..INCREMENTS {
            let row = client
                .read_modify_write_row(increment(b"counter"))
                .await
                .expect("increment")
                .into_inner()
                .row
                .expect("the row after the increment");
            values.push(counter_value(&row));
        }
        values
    });
    let mut all: Vec<i64> = seen.into_iter().flatten().collect();
    all.sort_unstable();
    let total = (CLIENTS * INCREMENTS) as i64;
    assert_eq!(
        all,
        (1..=total).collect::<Vec<_>>(),
        "every increment must observe all earlier ones exactly once"
    );

    let stored = |server: &Server| {
        runtime.block_on(async {
            let mut data = server.data().await;
            let (rows, _) = read_rows(
                &mut data,
                v2::ReadRowsRequest {
                    table_name: TABLE.into(),
                    ..Default::default()
                },
            )
            .await
            .expect("read");
            assert_eq!(rows.len(), 1);
            // Each increment writes a new version (no GC rule here); the newest comes first.
            let newest = rows[0]
                .cells
                .iter()
                .max_by_key(|c| c.timestamp_micros)
                .expect("a cell");
            i64::from_be_bytes(newest.value.as_slice().try_into().unwrap())
        })
    };
    assert_eq!(stored(&server), total);

    // Every increment was acknowledged after its fsync: a SIGKILL loses none.
    let mut server = server;
    common::signal(&server, "-KILL");
    server.wait_exit(60).expect("exit after SIGKILL");
    let server = Server::start(&args);
    assert_eq!(stored(&server), total, "acknowledged increments lost");
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn two_cell_write(key: &[u8], value: &[u8]) -> v2::MutateRowRequest {
    let set = |q: &[u8]| v2::Mutation {
        mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
            family_name: "cf".into(),
            column_qualifier: q.to_vec(),
            timestamp_micros: 1000,
            value: value.to_vec(),
        })),
    };
    v2::MutateRowRequest {
        table_name: TABLE.into(),
        row_key: key.to_vec(),
        mutations: vec![set(b"a"), set(b"b")],
        ..Default::default()
    }
}

/// Half the clients rewrite rows (both cells of a row get the same new value in one
/// MutateRow) while the other half scan the table: no scan ever sees a row with its two
/// cells from different writes, and the final contents are the last value each writer wrote.
#[test]
fn concurrent_readers_never_see_half_a_row() {
    const ROWS: usize = 8;
    const ROUNDS: usize = 30;
    let server = Server::start(&[]);
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(server.create_table_t());

    let results = on_client_threads(&server.addr, |i, mut client| async move {
        let mut torn = Vec::new();
        let mut scans = 0;
        if i % 2 == 0 {
            // Writer i/2 owns every row whose index is congruent to it.
            for round in 0..ROUNDS {
                for row in (i / 2..ROWS).step_by(CLIENTS / 2) {
                    let value = format!("w{i}-r{round}");
                    client
                        .mutate_row(two_cell_write(
                            format!("row{row}").as_bytes(),
                            value.as_bytes(),
                        ))
                        .await
                        .expect("write");
                }
            }
        } else {
            for _ in 0..ROUNDS {
                let (rows, _) = read_rows(
                    &mut client,
                    v2::ReadRowsRequest {
                        table_name: TABLE.into(),
                        ..Default::default()
                    },
                )
                .await
                .expect("scan");
                scans += 1;
                for row in rows {
                    // Two versions never coexist at one timestamp, so each column has one
                    // cell: the latest write's.
                    let values: Vec<_> = row.cells.iter().map(|c| c.value.clone()).collect();
                    if values.len() != 2 || values[0] != values[1] {
                        torn.push((row.key.clone(), values));
                    }
                }
            }
        }
        (torn, scans)
    });
    let mut total_scans = 0;
    for (torn, scans) in results {
        assert!(torn.is_empty(), "torn rows seen: {torn:?}");
        total_scans += scans;
    }
    assert_eq!(total_scans, ROUNDS * CLIENTS / 2);

    let rows = tokio::runtime::Runtime::new().unwrap().block_on(async {
        let mut data = server.data().await;
        read_rows(
            &mut data,
            v2::ReadRowsRequest {
                table_name: TABLE.into(),
                ..Default::default()
            },
        )
        .await
        .expect("final read")
        .0
    });
    assert_eq!(rows.len(), ROWS);
    for row in rows {
        let index: usize = std::str::from_utf8(&row.key[3..]).unwrap().parse().unwrap();
        let writer = (index % (CLIENTS / 2)) * 2;
        let last = format!("w{writer}-r{}", ROUNDS - 1).into_bytes();
        assert_eq!(row.cells.len(), 2);
        assert!(row.cells.iter().all(|c| c.value == last), "{row:?}");
    }
}
